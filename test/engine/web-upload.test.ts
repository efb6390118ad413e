/**
 * Browser-mode folder uploads (issue 8) against a real web host on 127.0.0.1: the same doors as
 * the WebSocket (Host, Origin, token), traversal names refused by the URI guard, per-file and
 * per-upload size limits, files streamed to disk and renamed into place only when complete, and
 * the folder moved to `<workspace>/uploads/<name>/` only when the upload finishes.
 */
import { mkdtemp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EngineConnection } from '../../main/host/engine-connection.js';
import { createUploads, uploadSegments } from '../../main/host/upload.js';
import { startWebHost, type WebHost } from '../../main/host/web-host.js';
import { CairnError } from '../../shared/errors.js';
import { uploadFolder, UploadError, type UploadProgress } from '../../renderer/features/upload/upload-client.js';

const TOKEN = 'upload-token-0123456789abcdefghijklmnopqrst';
const MAX_FILE = 64 * 1024;
const MAX_UPLOAD = 160 * 1024;

let dir: string;
let uploadsDir: string;
let host: WebHost;
const engine: EngineConnection = {
  subscribe: () => () => {},
  call: async (command) => {
    throw new CairnError('NOT_FOUND', `no ${command} here`);
  },
};

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cairn-upload-'));
  await mkdir(join(dir, 'renderer'), { recursive: true });
  await writeFile(join(dir, 'renderer', 'index.html'), '<!doctype html><title>Cairn</title>');
  uploadsDir = join(dir, 'workspace', 'uploads');
  host = await startWebHost({ engine, rendererDir: join(dir, 'renderer'), token: TOKEN, uploads: createUploads({ dir: uploadsDir, maxFileBytes: MAX_FILE, maxUploadBytes: MAX_UPLOAD }) });
});

afterEach(async () => {
  await host.close();
  await rm(dir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  json: { id?: string; path?: string; files?: number; bytes?: number; error?: { code: string; message: string } } | null;
}

/** One request with exactly these headers; `origin: null` sends none. */
function send(method: string, path: string, options: { body?: Buffer | string; token?: string | null; origin?: string | null; headers?: Record<string, string> } = {}): Promise<Answer> {
  const headers: Record<string, string> = { Host: `127.0.0.1:${host.port}`, ...options.headers };
  const origin = options.origin === undefined ? host.origin : options.origin;
  if (origin !== null) headers.Origin = origin;
  const token = options.token === undefined ? TOKEN : options.token;
  if (token !== null) headers['X-Cairn-Token'] = token;
  const body = options.body === undefined ? undefined : Buffer.from(options.body);
  if (body) headers['Content-Length'] = String(body.length);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: host.port, path, method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, json: text.startsWith('{') ? JSON.parse(text) : null }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function begin(name = 'notes'): Promise<string> {
  const answer = await send('POST', `/upload?name=${encodeURIComponent(name)}`);
  expect(answer.status).toBe(201);
  return answer.json!.id!;
}

const put = (id: string, path: string, body: Buffer | string, options: Parameters<typeof send>[2] = {}) => send('PUT', `/upload/${id}?path=${encodeURIComponent(path)}`, { body, ...options });

/** Every file under a folder, relative, sorted. */
async function listFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(root.length + 1))
    .sort();
}

describe('uploading a folder', () => {
  it('streams the files into staging and moves the folder to uploads/<name>/ when finished', async () => {
    const id = await begin('field notes');
    const big = Buffer.alloc(MAX_FILE, 7);
    expect((await put(id, 'readme.md', '# Notes\n')).json).toEqual({ path: 'readme.md', bytes: 8 });
    expect((await put(id, 'area/deep/gauge.md', 'tide 3.2 m\n')).status).toBe(200);
    expect((await put(id, 'area/big.bin', big)).status).toBe(200);
    expect((await put(id, './area/./dot.md', 'dots are dropped\n')).json?.path).toBe('area/dot.md');
    // Nothing is in the final place before the upload finishes.
    expect(await listFiles(join(uploadsDir, 'field notes'))).toEqual([]);
    const done = await send('POST', `/upload/${id}/finish`);
    expect(done.status).toBe(200);
    expect(done.json).toEqual({ path: join(uploadsDir, 'field notes'), files: 4, bytes: 8 + 11 + MAX_FILE + 17 });
    expect(await listFiles(join(uploadsDir, 'field notes'))).toEqual(['area/big.bin', 'area/deep/gauge.md', 'area/dot.md', 'readme.md']);
    expect(await readFile(join(uploadsDir, 'field notes', 'area', 'deep', 'gauge.md'), 'utf8')).toBe('tide 3.2 m\n');
    expect((await readFile(join(uploadsDir, 'field notes', 'area', 'big.bin'))).equals(big)).toBe(true);
    // No staging left, and the finished upload is closed.
    expect(await readdir(join(uploadsDir, '.staging'))).toEqual([]);
    expect((await put(id, 'late.md', 'x')).status).toBe(404);
  });

  it('replaces an earlier upload of the same name, and drops an unfinished one on DELETE', async () => {
    const first = await begin();
    await put(first, 'old.md', 'old');
    await send('POST', `/upload/${first}/finish`);
    const second = await begin();
    await put(second, 'new.md', 'new');
    expect(await listFiles(join(uploadsDir, 'notes'))).toEqual(['old.md']);
    await send('POST', `/upload/${second}/finish`);
    expect(await listFiles(join(uploadsDir, 'notes'))).toEqual(['new.md']);

    const third = await begin();
    await put(third, 'never.md', 'never');
    expect((await send('DELETE', `/upload/${third}`)).status).toBe(204);
    expect(await listFiles(join(uploadsDir, 'notes'))).toEqual(['new.md']);
    expect(await readdir(join(uploadsDir, '.staging'))).toEqual([]);
  });

  it('refuses a second copy of one path and a finish while nothing is known of the id', async () => {
    const id = await begin();
    expect((await put(id, 'a.md', 'a')).status).toBe(200);
    const again = await put(id, 'a.md', 'b');
    expect(again.status).toBe(409);
    expect(again.json?.error?.code).toBe('ALREADY_EXISTS');
    expect((await send('POST', '/upload/no-such-id/finish')).status).toBe(404);
  });
});

describe('the doors', () => {
  it('refuses a missing or wrong token with 401, before any file is written', async () => {
    for (const token of [null, '', 'wrong', TOKEN.slice(0, -1), `${TOKEN}x`]) {
      expect((await send('POST', '/upload?name=x', { token })).status).toBe(401);
    }
    const id = await begin();
    expect((await put(id, 'a.md', 'secret', { token: 'wrong' })).status).toBe(401);
    await send('POST', `/upload/${id}/finish`);
    expect(await listFiles(join(uploadsDir, 'notes'))).toEqual([]);
  });

  it('refuses a foreign, missing or look-alike Origin and a wrong Host with 403', async () => {
    for (const origin of [null, 'http://evil.example', `http://127.0.0.1:${host.port + 1}`, 'null', `https://127.0.0.1:${host.port}`]) {
      expect((await send('POST', '/upload?name=x', { origin })).status).toBe(403);
    }
    expect((await send('POST', '/upload?name=x', { headers: { Host: `evil.example:${host.port}` }, origin: `http://evil.example:${host.port}` })).status).toBe(403);
    expect(await listFiles(uploadsDir)).toEqual([]);
  });

  it('refuses traversal, absolute, NUL and back-slash names', async () => {
    const id = await begin();
    const bad = ['../escape.md', 'a/../../escape.md', '..', '/etc/passwd', '//etc/passwd', 'C:/x.md', 'c:\\x.md', 'a\\..\\b.md', 'a/b\\c.md', 'nul\0.md', 'a//b.md', '%2e%2e/x.md', 'a/%2F/b', ''];
    for (const path of bad) {
      const answer = await put(id, path, 'x');
      expect(answer.status, path).toBe(400);
      expect(['PATH_ESCAPE', 'INVALID_INPUT', 'INVALID_URI'], path).toContain(answer.json?.error?.code);
    }
    for (const name of ['..', '.', '../x', 'a/b', 'a\\b', '.hidden', '']) {
      expect((await send('POST', `/upload?name=${encodeURIComponent(name)}`)).status, name).toBe(400);
    }
    await send('POST', `/upload/${id}/finish`);
    // Nothing landed anywhere: not in the upload, not beside it, not above the workspace.
    expect(await listFiles(join(dir, 'workspace'))).toEqual([]);
    expect((await readdir(dir)).sort()).toEqual(['renderer', 'workspace']);
  });

  it('names every refused path in the guard', () => {
    expect(() => uploadSegments('a/../b')).toThrow(/"\.\." leaves the workspace/);
    expect(() => uploadSegments('/abs')).toThrow(/absolute path/);
    expect(uploadSegments('a/./b.md')).toEqual(['a', 'b.md']);
  });
});

describe('size limits', () => {
  it('refuses a file over the per-file limit with 413 and a clear message, and keeps nothing of it', async () => {
    const id = await begin();
    const answer = await put(id, 'huge.bin', Buffer.alloc(MAX_FILE + 1));
    expect(answer.status).toBe(413);
    expect(answer.json?.error).toEqual({ code: 'TOO_LARGE', message: `huge.bin is ${MAX_FILE + 1} bytes; a file may have at most ${MAX_FILE}` });
    expect((await put(id, 'small.md', 'fits')).status).toBe(200);
    expect((await send('POST', `/upload/${id}/finish`)).json?.files).toBe(1);
    expect(await listFiles(join(uploadsDir, 'notes'))).toEqual(['small.md']);
  });

  it('refuses the file that would take the upload over its limit', async () => {
    const id = await begin();
    const chunk = Buffer.alloc(MAX_FILE, 1);
    expect((await put(id, '1.bin', chunk)).status).toBe(200);
    expect((await put(id, '2.bin', chunk)).status).toBe(200);
    const third = await put(id, '3.bin', chunk);
    expect(third.status).toBe(413);
    expect(third.json?.error?.message).toMatch(/an upload may have at most 163840/);
    expect((await put(id, '4.bin', 'small')).status).toBe(200);
    expect((await send('POST', `/upload/${id}/finish`)).json).toMatchObject({ files: 3, bytes: 2 * MAX_FILE + 5 });
  });

  it('requires a Content-Length (411), and a body cut short leaves no file behind', async () => {
    const id = await begin();
    const chunked = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        { host: '127.0.0.1', port: host.port, path: `/upload/${id}?path=c.md`, method: 'PUT', headers: { Host: `127.0.0.1:${host.port}`, Origin: host.origin, 'X-Cairn-Token': TOKEN, 'Transfer-Encoding': 'chunked' } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end('abc');
    });
    expect(chunked).toBe(411);

    // Announce 1000 bytes, send 10, then drop the connection: a half-uploaded file.
    await new Promise<void>((resolve) => {
      const req = httpRequest({ host: '127.0.0.1', port: host.port, path: `/upload/${id}?path=half.md`, method: 'PUT', headers: { Host: `127.0.0.1:${host.port}`, Origin: host.origin, 'X-Cairn-Token': TOKEN, 'Content-Length': '1000' } });
      req.on('error', () => resolve());
      req.write('0123456789', () => setTimeout(() => req.destroy(), 50));
      req.on('close', () => resolve());
    });
    // The host notices the cut; wait until it has cleaned up, then finish.
    const partsDir = join(uploadsDir, '.staging', id, 'parts');
    for (let i = 0; i < 100 && (await readdir(partsDir)).length > 0; i += 1) await new Promise((r) => setTimeout(r, 20));
    expect(await readdir(partsDir)).toEqual([]);
    const done = await send('POST', `/upload/${id}/finish`);
    expect(done.json).toMatchObject({ files: 0, bytes: 0 });
    expect(await listFiles(join(uploadsDir, 'notes'))).toEqual([]);
  });
});

describe("the renderer's uploadFolder against the host", () => {
  // What the page's fetch sends on its own: the Origin of the page.
  const pageFetch: typeof fetch = (input, init) => fetch(`${host.origin}${String(input)}`, { ...init, headers: { ...(init?.headers as Record<string, string>), Origin: host.origin } });

  it('uploads every file it can, reports the refused ones per file, and counts files and bytes', async () => {
    const progress: UploadProgress[] = [];
    const files = [
      { path: 'a.md', file: new File(['alpha\n'], 'a.md') },
      { path: 'deep/b.md', file: new File(['beta beta\n'], 'b.md') },
      { path: 'huge.bin', file: new File([new Uint8Array(MAX_FILE + 10)], 'huge.bin') },
      { path: 'bad\\name.md', file: new File(['x'], 'bad') },
    ];
    const outcome = await uploadFolder({ name: 'mixed', files }, { token: TOKEN, fetch: pageFetch, onProgress: (p) => progress.push(p), concurrency: 2 });
    expect(outcome.path).toBe(join(uploadsDir, 'mixed'));
    expect(outcome).toMatchObject({ files: 2, bytes: 16 });
    expect(outcome.failures.map((f) => [f.path, f.code]).sort()).toEqual([
      ['bad\\name.md', 'PATH_ESCAPE'],
      ['huge.bin', 'TOO_LARGE'],
    ]);
    expect(outcome.failures.find((f) => f.code === 'TOO_LARGE')?.message).toMatch(/a file may have at most 65536/);
    expect(progress.at(-1)).toMatchObject({ files: 2, failed: 2, totalFiles: 4, bytes: 16, current: null });
    // Progress only grows.
    for (let i = 1; i < progress.length; i += 1) expect(progress[i]!.files + progress[i]!.failed).toBeGreaterThanOrEqual(progress[i - 1]!.files + progress[i - 1]!.failed);
    expect(await listFiles(join(uploadsDir, 'mixed'))).toEqual(['a.md', 'deep/b.md']);
  });

  it('fails as a whole on a wrong token, and when no file gets through', async () => {
    const one = { name: 'x', files: [{ path: 'a.md', file: new File(['a'], 'a.md') }] };
    await expect(uploadFolder(one, { token: 'wrong', fetch: pageFetch })).rejects.toMatchObject({ name: 'UploadError', code: 'UNAUTHORIZED' });
    const none = { name: 'y', files: [{ path: '../up.md', file: new File(['a'], 'up.md') }] };
    const error = await uploadFolder(none, { token: TOKEN, fetch: pageFetch }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UploadError);
    expect((error as UploadError).message).toMatch(/No file could be uploaded/);
    expect(await listFiles(uploadsDir)).toEqual([]);
  });
});

describe('without an uploads folder', () => {
  it('answers 404', async () => {
    const plain = await startWebHost({ engine, rendererDir: join(dir, 'renderer'), token: TOKEN });
    try {
      const answer = await new Promise<number>((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port: plain.port, path: '/upload?name=x', method: 'POST', headers: { Host: `127.0.0.1:${plain.port}`, Origin: plain.origin, 'X-Cairn-Token': TOKEN } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
      expect(answer).toBe(404);
    } finally {
      await plain.close();
    }
  });
});
