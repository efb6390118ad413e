import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { createNodeFetch } from './node-fetch.js';

let server: Server;
let base: string;
let handle: (req: IncomingMessage, body: string, res: ServerResponse) => void;

beforeEach(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => handle(req, body, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('createNodeFetch', () => {
  it('sends the method, headers and body, and returns status, headers and body', async () => {
    handle = (req, body, res) => {
      res.writeHead(201, 'Made', { 'content-type': 'application/json', 'x-request-id': 'req_1' });
      res.end(JSON.stringify({ method: req.method, auth: req.headers.authorization, type: req.headers['content-type'], body }));
    };
    const fetch = createNodeFetch();
    const response = await fetch(`${base}/v1/chat/completions`, {
      method: 'post',
      headers: new Headers({ Authorization: 'Bearer k', 'Content-Type': 'application/json' }),
      body: '{"model":"m"}',
    });
    expect(response.status).toBe(201);
    expect(response.statusText).toBe('Made');
    expect(response.headers.get('x-request-id')).toBe('req_1');
    expect(await response.json()).toEqual({ method: 'POST', auth: 'Bearer k', type: 'application/json', body: '{"model":"m"}' });
  });

  it('reuses one keep-alive connection for calls one after another', async () => {
    const sockets = new Set<unknown>();
    handle = (req, _body, res) => {
      sockets.add(req.socket);
      res.end('ok');
    };
    const fetch = createNodeFetch();
    for (let i = 0; i < 3; i++) expect(await (await fetch(`${base}/`, { method: 'POST', body: 'x' })).text()).toBe('ok');
    expect(sockets.size).toBe(1);
  });

  it('decodes an answer a proxy compressed although nothing asked for it', async () => {
    handle = (req, _body, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(gzipSync(JSON.stringify({ ok: true, asked: req.headers['accept-encoding'] ?? null })));
    };
    expect(await (await createNodeFetch()(`${base}/`, { method: 'POST', body: '{}' })).json()).toEqual({ ok: true, asked: null });
  });

  it('gives a body-less Response for 204', async () => {
    handle = (_req, _body, res) => {
      res.writeHead(204);
      res.end();
    };
    const response = await createNodeFetch()(`${base}/`, { method: 'DELETE' });
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
  });

  it('an answer cut off after its headers fails when its body is read, like the built-in fetch', async () => {
    handle = (_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"choices": [');
      setTimeout(() => res.socket?.destroy(), 20);
    };
    const response = await createNodeFetch()(`${base}/`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(200);
    const error = await response.text().then(
      () => null,
      (e: unknown) => e as NodeJS.ErrnoException,
    );
    expect(error?.code).toBe('ECONNRESET');
  });

  it('an abort rejects with the signal’s reason, and a refused connection rejects', async () => {
    handle = () => undefined; // never answers
    const controller = new AbortController();
    const pending = createNodeFetch()(`${base}/`, { method: 'POST', body: '{}', signal: controller.signal });
    setTimeout(() => controller.abort(new Error('deadline')), 30);
    await expect(pending).rejects.toThrow(/deadline|abort/i);

    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await expect(createNodeFetch()(`${base}/`, { method: 'POST', body: '{}' })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
});
