/**
 * Browser mode's export download (issue 21): the web host on 127.0.0.1 over a real engine and
 * workspace (the sample folder ingested, a conversation imported and committed to memories)
 * answers `GET /export` with the token only: a json or jsonl export as its file, a Markdown or
 * ContextFS export as a .tar.gz that `tar -xzf` unpacks into a folder `cairn import` reads back,
 * each of every scope or one. The page's own client (renderer/features/export/download-client.ts) is the
 * one asking.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../main/engine/engine.js';
import { inProcessParseRunner } from '../../main/engine/parse/runner.js';
import { lazySearchIndex } from '../../main/host/open-index.js';
import { startWebHost, type WebHost } from '../../main/host/web-host.js';
import { fetchExport } from '../../renderer/features/export/download-client.js';
import { CairnError } from '../../shared/errors.js';

const ROOT = join(import.meta.dirname, '../..');
const TOKEN = 'export-token-0123456789abcdefghijklmnopqrs';
let dir: string;
let source: Engine;
let host: WebHost;
const engines: Engine[] = [];

async function open(workspace: string): Promise<Engine> {
  const engine = await createEngine({ workspace, parser: inProcessParseRunner(), index: lazySearchIndex(workspace, { idleOptimizeMs: 0 }) });
  engines.push(engine);
  return engine;
}

const options = () => ({ token: TOKEN, base: host.origin });

/** A raw GET with exactly these headers (Host included). */
function get(path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: host.port, path, method: 'GET', headers: { Host: `127.0.0.1:${host.port}`, ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cairn-export-download-'));
  source = await open(join(dir, 'source'));
  await source.call('ingest:start', { path: join(ROOT, 'assets/sample') });
  await source.call('sessions:import', { path: join(ROOT, 'test/fixtures/chains/en-memory-leak.json'), commit: true });
  await mkdir(join(dir, 'renderer'), { recursive: true });
  await writeFile(join(dir, 'renderer', 'index.html'), '<!doctype html><title>Cairn</title>');
  await mkdir(join(dir, 'host-temp'));
  host = await startWebHost({ engine: source, rendererDir: join(dir, 'renderer'), token: TOKEN, tempDir: join(dir, 'host-temp') });
}, 180_000);

afterAll(async () => {
  await host?.close();
  for (const engine of engines) await engine.dispose().catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
});

describe('GET /export', () => {
  it('downloads a json export as its file, with what was written, and leaves nothing behind on the host', async () => {
    const { result, blob } = await fetchExport({ format: 'json' }, options());
    expect(result.out).toMatch(/^cairn-export-\d{8}-\d{6}\.json$/);
    const doc = JSON.parse(await blob.text()) as { format: string; memories: unknown[]; sessions: unknown[]; nodes: Array<{ uri: string }> };
    expect(doc.format).toBe('cairn-export');
    expect(doc.memories).toHaveLength(result.memories);
    expect(result.memories).toBeGreaterThan(3);
    expect(doc.sessions).toHaveLength(1);
    expect(doc.nodes.some((n) => n.uri.startsWith('ctx://resources/sample/'))).toBe(true);
    expect(result.bytes).toBe(blob.size);
    // The host removes its temp copy once the answer is sent.
    await expect.poll(() => readdir(join(dir, 'host-temp'))).toEqual([]);
  });

  it('downloads one scope only, as the CLI exports it with --scope', async () => {
    const { result, blob } = await fetchExport({ format: 'jsonl', scope: 'session' }, options());
    expect(result.out).toMatch(/^cairn-export-\d{8}-\d{6}-session\.jsonl$/);
    const types = new Set((await blob.text()).trim().split('\n').map((line) => (JSON.parse(line) as { type: string }).type));
    expect([...types].sort()).toEqual(['analysis', 'chain', 'cluster', 'conversation', 'header']);
    expect(result).toMatchObject({ memories: 0, conversations: 1, nodes: 0 });
  });

  for (const format of ['markdown', 'contextfs'] as const) {
    it(`downloads a ${format} export as a .tar.gz that unpacks into a folder cairn import reads back`, async () => {
      const { result, blob } = await fetchExport({ format }, options());
      expect(result.out).toMatch(new RegExp(`^cairn-export-\\d{8}-\\d{6}-${format}\\.tar\\.gz$`));
      const archive = join(dir, result.out);
      await writeFile(archive, Buffer.from(await blob.arrayBuffer()));
      const unpacked = join(dir, `unpacked-${format}`);
      await mkdir(unpacked);
      execFileSync('tar', ['-xzf', archive, '-C', unpacked]);
      const folder = join(unpacked, result.out.replace(/\.tar\.gz$/, ''));
      expect(await readdir(unpacked)).toEqual([result.out.replace(/\.tar\.gz$/, '')]);
      expect(JSON.parse(await readFile(join(folder, 'cairn-export.json'), 'utf8'))).toMatchObject({ format: 'cairn-export', kind: format });

      const target = await open(join(dir, `imported-${format}`));
      const imported = await target.call('import:run', { path: folder });
      expect(imported.format).toBe(format);
      expect(imported.added.memories).toBe(result.memories);
      expect((await target.call('sessions:list', {})).conversations.map((c) => c.id)).toEqual(['en-memory-leak']);
      const memories = (await target.call('memories:list', { limit: 1000 })).memories.map((m) => m.id).sort();
      expect(memories).toEqual((await source.call('memories:list', { limit: 1000 })).memories.map((m) => m.id).sort());
    }, 60_000);
  }

  it('refuses without the token, with a wrong one, from another Host, and a bad format', async () => {
    expect((await get('/export?format=json', {})).status).toBe(401);
    expect((await get('/export?format=json', { 'X-Cairn-Token': `${TOKEN.slice(0, -1)}x` })).status).toBe(401);
    // The token in the URL, as on the page, is not taken for a download: only the header.
    expect((await get(`/export?format=json&token=${TOKEN}`, {})).status).toBe(401);
    expect((await get('/export?format=json', { 'X-Cairn-Token': TOKEN, Host: 'evil.example:80' })).status).toBe(403);
    const bad = await fetchExport({ format: 'yaml' as never }, options()).catch((e: unknown) => e);
    expect(CairnError.is(bad, 'INVALID_INPUT')).toBe(true);
    expect((bad as CairnError).message).toMatch(/format/);
    const refused = await fetchExport({ format: 'json' }, { ...options(), token: 'wrong' }).catch((e: unknown) => e);
    expect((refused as Error).message).toMatch(/Unauthorized/);
  });
});
