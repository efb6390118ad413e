/**
 * The web host's doors, tested with a real HTTP server on 127.0.0.1 and a real WebSocket client:
 * wrong tokens, hosts and origins are refused, every message is validated against the contract,
 * unknown commands never reach the engine, events arrive coalesced, and the right calls work.
 */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { CommandName, EngineEvent } from '../../shared/contracts/api.js';
import { CairnError } from '../../shared/errors.js';
import type { EngineConnection } from '../../main/host/engine-connection.js';
import { startWebHost, type WebHost } from '../../main/host/web-host.js';

interface FakeEngine extends EngineConnection {
  calls: { command: CommandName; request: unknown }[];
  emit(event: EngineEvent): void;
  listeners: Set<(event: EngineEvent) => void>;
  aborted: string[];
}

/** A stand-in engine that answers `fs:ls`, holds `ingest:start` until cancelled, and emits on demand. */
function fakeEngine(): FakeEngine {
  const listeners = new Set<(event: EngineEvent) => void>();
  const engine: FakeEngine = {
    calls: [],
    aborted: [],
    listeners,
    emit: (event) => listeners.forEach((listener) => listener(event)),
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async call(command, request, options) {
      engine.calls.push({ command, request });
      if (command === 'fs:ls') {
        const uri = (request as { uri: string }).uri;
        return { uri, entries: [{ uri: `${uri}notes/`, name: 'notes', kind: 'dir' }] } as never;
      }
      if (command === 'ingest:start') {
        return new Promise((_resolve, reject) => {
          options?.signal?.addEventListener('abort', () => {
            engine.aborted.push(command);
            reject(new CairnError('CANCELLED', 'ingest was cancelled'));
          });
        });
      }
      throw new CairnError('NOT_FOUND', `no ${command} here`);
    },
  };
  return engine;
}

let dir: string;
let engine: FakeEngine;
let host: WebHost;
const TOKEN = 'test-token-0123456789abcdefghijklmnopqrstu';

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cairn-web-host-'));
  await mkdir(join(dir, 'renderer', 'assets'), { recursive: true });
  await writeFile(join(dir, 'renderer', 'index.html'), '<!doctype html><title>Cairn</title>');
  await writeFile(join(dir, 'renderer', 'assets', 'app-abc.js'), 'console.log(1)');
  await writeFile(join(dir, 'secret.txt'), 'not for the page');
  engine = fakeEngine();
  host = await startWebHost({ engine, rendererDir: join(dir, 'renderer'), token: TOKEN, flushIntervalMs: 100 });
});

afterEach(async () => {
  await host.close();
  await rm(dir, { recursive: true, force: true });
});

/** A GET with exactly the headers given (Host included), and the raw path unnormalised. */
function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: host.port, path, method: 'GET', headers: { Host: `127.0.0.1:${host.port}`, ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

interface Opened {
  ws: WebSocket;
  messages: unknown[];
  next(predicate: (message: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
}

/** Opens a WebSocket; resolves once the host said hello, or rejects with the HTTP status it refused with. */
function open(options: { token?: string; origin?: string | null; host?: string } = {}): Promise<Opened> {
  const token = options.token ?? TOKEN;
  const headers: Record<string, string> = {};
  if (options.host) headers.Host = options.host;
  const origin = options.origin === undefined ? host.origin : options.origin;
  const ws = new WebSocket(`ws://127.0.0.1:${host.port}/ws?token=${encodeURIComponent(token)}`, { headers, ...(origin !== null ? { origin } : {}) });
  const messages: Record<string, unknown>[] = [];
  const waiters: { predicate: (m: Record<string, unknown>) => boolean; resolve: (m: Record<string, unknown>) => void }[] = [];
  ws.on('message', (data) => {
    const message = JSON.parse(data.toString()) as Record<string, unknown>;
    messages.push(message);
    for (const waiter of [...waiters]) {
      if (waiter.predicate(message)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(message);
      }
    }
  });
  const next = (predicate: (m: Record<string, unknown>) => boolean) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const seen = messages.find(predicate);
      if (seen) resolve(seen);
      else waiters.push({ predicate, resolve });
    });
  return new Promise((resolve, reject) => {
    ws.on('unexpected-response', (_req, res) => reject(Object.assign(new Error(`refused with ${res.statusCode}`), { status: res.statusCode })));
    ws.on('error', reject);
    void next((m) => m.type === 'hello').then(() => resolve({ ws, messages, next }));
  });
}

const closeAll: WebSocket[] = [];
afterEach(() => {
  for (const ws of closeAll.splice(0)) ws.close();
});

async function connected(): Promise<Opened> {
  const opened = await open();
  closeAll.push(opened.ws);
  return opened;
}

describe('the page', () => {
  it('binds 127.0.0.1 and prints a URL with the token', () => {
    expect(host.url).toBe(`http://127.0.0.1:${host.port}/?token=${TOKEN}`);
    expect(host.origin).toBe(`http://127.0.0.1:${host.port}`);
  });

  it('serves index.html with the right token and a strict CSP', async () => {
    const res = await get(`/?token=${TOKEN}`);
    expect(res.status).toBe(200);
    expect(res.body).toContain('<title>Cairn</title>');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain(`connect-src 'self' ws://127.0.0.1:${host.port}`);
    expect(csp).not.toContain('unsafe-eval');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('refuses the page without the token or with a wrong one', async () => {
    expect((await get('/')).status).toBe(401);
    expect((await get('/index.html')).status).toBe(401);
    expect((await get(`/?token=${TOKEN.slice(0, -1)}x`)).status).toBe(401);
    expect((await get('/?token=short')).status).toBe(401);
  });

  it('refuses a foreign Host header (DNS rebinding)', async () => {
    expect((await get(`/?token=${TOKEN}`, { Host: `evil.example:${host.port}` })).status).toBe(403);
    expect((await get(`/?token=${TOKEN}`, { Host: '127.0.0.1:1' })).status).toBe(403);
    expect((await get('/assets/app-abc.js', { Host: 'evil.example' })).status).toBe(403);
    expect((await get(`/?token=${TOKEN}`, { Host: `localhost:${host.port}` })).status).toBe(200);
  });

  it('serves built assets and nothing outside the renderer folder', async () => {
    const asset = await get('/assets/app-abc.js');
    expect(asset.status).toBe(200);
    expect(asset.headers['content-type']).toContain('text/javascript');
    expect((await get('/%2e%2e/secret.txt')).status).toBe(404);
    expect((await get('/..%2fsecret.txt')).status).toBe(404);
    expect((await get('/assets/missing.js')).status).toBe(404);
  });
});

describe('the WebSocket', () => {
  it('says hello and answers a valid call', async () => {
    const { ws, next, messages } = await connected();
    expect(messages[0]).toMatchObject({ type: 'hello', version: 1 });
    expect((messages[0] as { commands: string[] }).commands).toContain('fs:ls');
    ws.send(JSON.stringify({ type: 'call', id: 1, command: 'fs:ls', request: { uri: 'ctx://resources/' } }));
    const result = await next((m) => m.type === 'result' && m.id === 1);
    expect(result).toMatchObject({ ok: true, result: { uri: 'ctx://resources/', entries: [{ name: 'notes' }] } });
    expect(engine.calls).toEqual([{ command: 'fs:ls', request: { uri: 'ctx://resources/' } }]);
  });

  it('refuses a wrong or missing token', async () => {
    await expect(open({ token: 'wrong' })).rejects.toMatchObject({ status: 401 });
    await expect(open({ token: '' })).rejects.toMatchObject({ status: 401 });
    expect(host.connections).toBe(0);
  });

  it("refuses another site's Origin, and no Origin at all", async () => {
    await expect(open({ origin: 'http://evil.example' })).rejects.toMatchObject({ status: 403 });
    await expect(open({ origin: `http://127.0.0.1:${host.port + 1}` })).rejects.toMatchObject({ status: 403 });
    await expect(open({ origin: null })).rejects.toMatchObject({ status: 403 });
    expect(host.connections).toBe(0);
  });

  it('refuses a foreign Host header', async () => {
    await expect(open({ host: `evil.example:${host.port}`, origin: `http://evil.example:${host.port}` })).rejects.toMatchObject({ status: 403 });
  });

  it('refuses messages that are not JSON, not a known envelope, or not a valid request', async () => {
    const { ws, next } = await connected();
    ws.send('{not json');
    expect(await next((m) => m.type === 'result' && m.id === null && JSON.stringify(m).includes('JSON'))).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    ws.send(JSON.stringify({ type: 'exec', id: 2, shell: 'rm -rf /' }));
    expect(await next((m) => m.type === 'result' && m.id === 2)).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    ws.send(JSON.stringify({ type: 'call', id: 3, command: 'fs:ls', request: { uri: 42 } }));
    const invalid = await next((m) => m.type === 'result' && m.id === 3);
    expect(invalid).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    expect(JSON.stringify(invalid)).toContain('uri');
    ws.send(Buffer.from([1, 2, 3]), { binary: true });
    expect(await next((m) => m.type === 'result' && m.id === null && JSON.stringify(m).includes('Binary'))).toMatchObject({ ok: false });
    expect(engine.calls).toEqual([]);
  });

  it('refuses unknown commands without calling the engine', async () => {
    const { ws, next } = await connected();
    for (const [id, command] of [
      [4, 'fs:format'],
      [5, '__proto__'],
      [6, 'constructor'],
    ] as const) {
      ws.send(JSON.stringify({ type: 'call', id, command, request: {} }));
      const refused = await next((m) => m.type === 'result' && m.id === id);
      expect(refused).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
      expect((refused.error as { message: string }).message).toContain('Unknown command');
    }
    expect(engine.calls).toEqual([]);
  });

  it('sends engine errors with their code and no stack', async () => {
    const { ws, next } = await connected();
    ws.send(JSON.stringify({ type: 'call', id: 7, command: 'fs:stat', request: { uri: 'ctx://resources/x' } }));
    const failed = await next((m) => m.type === 'result' && m.id === 7);
    expect(failed).toMatchObject({ ok: false, error: { code: 'NOT_FOUND', message: 'no fs:stat here' } });
    expect(JSON.stringify(failed)).not.toContain('stack');
  });

  it('cancels a call on request, and every call of a closed connection', async () => {
    const first = await connected();
    first.ws.send(JSON.stringify({ type: 'call', id: 8, command: 'ingest:start', request: { path: '/tmp/x', jobId: 'job-1' } }));
    await expect.poll(() => engine.calls.length).toBe(1);
    first.ws.send(JSON.stringify({ type: 'cancel', id: 8 }));
    expect(await first.next((m) => m.type === 'result' && m.id === 8)).toMatchObject({ ok: false, error: { code: 'CANCELLED' } });

    const second = await open();
    second.ws.send(JSON.stringify({ type: 'call', id: 1, command: 'ingest:start', request: { path: '/tmp/y' } }));
    await expect.poll(() => engine.calls.length).toBe(2);
    second.ws.close();
    await expect.poll(() => engine.aborted.length).toBe(2);
  });

  it('coalesces events into batches and drops superseded progress', async () => {
    const { next, messages } = await connected();
    const started = performance.now();
    for (let i = 1; i <= 200; i += 1) {
      engine.emit({ type: 'ingest/progressed', jobId: 'j', phase: 'parse', done: i, total: 200, bytes: i * 10 });
    }
    engine.emit({ type: 'ingest/skipped', jobId: 'j', skip: { path: 'a.bin', reason: 'binary' } });
    const batch = await next((m) => m.type === 'events');
    const events = batch.events as EngineEvent[];
    expect(events).toEqual([
      { type: 'ingest/progressed', jobId: 'j', phase: 'parse', done: 200, total: 200, bytes: 2000 },
      { type: 'ingest/skipped', jobId: 'j', skip: { path: 'a.bin', reason: 'binary' } },
    ]);

    // A second burst right after the first flush waits for the interval: at most 10 flushes a second.
    engine.emit({ type: 'queue/enqueued', id: 'q1', uri: 'ctx://resources/a/', context_type: 'resource' });
    engine.emit({ type: 'queue/enqueued', id: 'q2', uri: 'ctx://resources/b/', context_type: 'resource' });
    await expect.poll(() => messages.filter((m) => (m as { type: string }).type === 'events').length).toBe(2);
    const batches = messages.filter((m) => (m as { type: string }).type === 'events') as { events: EngineEvent[] }[];
    expect(batches[1]!.events.map((e) => (e as { id: string }).id)).toEqual(['q1', 'q2']);
    expect(performance.now() - started).toBeGreaterThanOrEqual(95);
  });

  it('stops forwarding events once a client goes', async () => {
    const { ws } = await connected();
    expect(engine.listeners.size).toBe(1);
    ws.close();
    await expect.poll(() => engine.listeners.size).toBe(0);
  });
});
