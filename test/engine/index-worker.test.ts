/**
 * The search index in its own worker thread (main/workers/index-worker-client.ts): the real
 * bundled worker over a real LanceDB folder, checked against the same index in this thread.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lazySearchIndex } from '../../main/host/open-index.js';
import type { IndexInput } from '../../main/engine/ports/context-index.js';
import { memoryLogger } from '../../main/engine/ports/logger.js';
import { workerSearchIndex } from '../../main/workers/index-worker-client.js';
import { CairnError } from '../../shared/errors.js';
import { bundleForTest, repoRoot, type TestBundle } from '../support/rpc-bundle.js';

let worker: TestBundle;
let crashWorker: TestBundle;
let idleChild: TestBundle;
let tmp: string;
let workspaces = 0;

beforeAll(async () => {
  [worker, crashWorker, idleChild] = await Promise.all([
    bundleForTest('main/workers/index.worker.ts'),
    bundleForTest('test/support/index-crash.worker.ts'),
    bundleForTest('test/support/index-idle-child.ts'),
  ]);
  tmp = await mkdtemp(join(tmpdir(), 'cairn-index-worker-'));
}, 60_000);
afterAll(async () => {
  await Promise.all([worker?.dispose(), crashWorker?.dispose(), idleChild?.dispose()]);
  await rm(tmp, { recursive: true, force: true });
});

const freshWorkspace = () => join(tmp, `ws-${++workspaces}`);

function record(uri: string, level: 0 | 1 | 2, text: string): IndexInput {
  return {
    id: `${uri}#${level}`,
    uri,
    parent_uri: uri.slice(0, uri.lastIndexOf('/', uri.length - 2) + 1),
    level,
    context_type: 'resource',
    category: uri.endsWith('/') ? 'directory' : 'document',
    text,
    tokens: text.length,
    content_hash: `h${text.length}`,
    updated_at: '2024-05-08T13:56:00.000Z',
    provenance: { source: `/sample/${uri.slice('ctx://resources/'.length)}`, lines: [1, 3] },
  };
}

const CORPUS: IndexInput[] = [
  record('ctx://resources/ops/', 0, 'Operations: running the weather station, its network and its recovery procedures'),
  record('ctx://resources/ops/storm/', 0, 'Storm recovery runbook: how to recover the station after a storm or severe weather'),
  record('ctx://resources/ops/storm/re-point.md', 2, 'Re-point the dish to 41.2 degrees azimuth, then switch the modem to the backup frequency.'),
  record('ctx://resources/ops/storm/power.md', 2, 'Reset breaker B2 and confirm the battery bank reads above 48 volts before powering the rack.'),
  record('ctx://resources/ops/network/modem.md', 2, 'Error code E4417 means the modem lost carrier lock; it retries on its own every thirty seconds.'),
  record('ctx://resources/notes/2024-05-08.md', 2, 'Storm watch today: clouds built up but the storm stayed quiet over the valley.'),
  record('ctx://resources/notes/2024-05-09.md', 2, 'Lunch meeting about budget planning for next quarter and the new parser library.'),
  record('ctx://resources/docs/parsers.md', 2, 'Parsers are registered by file extension and by content sniffing; Markdown, PDF and code each have one.'),
];

const QUERIES = ['storm recovery', 'modem backup frequency', 'battery volts', 'parser library'];

/** Rejects with what `promise` rejected with, or fails the test if it resolved. */
async function rejection(promise: Promise<unknown>): Promise<CairnError> {
  try {
    await promise;
  } catch (error) {
    expect(CairnError.is(error)).toBe(true);
    return error as CairnError;
  }
  throw new Error('Expected a rejection');
}

describe('the index worker', () => {
  it('writes, searches and removes as the same index in this thread does, same hits in the same order', async () => {
    const logger = memoryLogger();
    const remote = workerSearchIndex(freshWorkspace(), { idleOptimizeMs: 0, logger }, { workerUrl: worker.url });
    const local = lazySearchIndex(freshWorkspace(), { idleOptimizeMs: 0 });
    try {
      await Promise.all([remote.upsert(CORPUS), local.upsert(CORPUS)]);
      for (const mode of ['hybrid', 'fts'] as const) {
        for (const text of QUERIES) {
          const [there, here] = await Promise.all([remote.search({ text, mode, k: 5 }), local.search({ text, mode, k: 5 })]);
          expect(there.length, `${mode} "${text}"`).toBeGreaterThan(0);
          expect(there.map((hit) => hit.id), `${mode} "${text}"`).toEqual(here.map((hit) => hit.id));
          // The hits are plain data and arrive whole: scores, snippets, provenance.
          expect(there).toEqual(here);
        }
      }
      expect((await remote.search({ text: 'storm recovery', mode: 'fts' }))[0]?.uri).toBe('ctx://resources/ops/storm/');

      await Promise.all([remote.removeUnder('ctx://resources/ops/storm/'), local.removeUnder('ctx://resources/ops/storm/')]);
      const after = await remote.search({ text: 'storm recovery breaker dish', mode: 'hybrid', k: 10 });
      expect(after.length).toBeGreaterThan(0);
      expect(after.some((hit) => hit.uri.startsWith('ctx://resources/ops/storm/'))).toBe(false);
      expect(after.map((hit) => hit.id)).toEqual((await local.search({ text: 'storm recovery breaker dish', mode: 'hybrid', k: 10 })).map((hit) => hit.id));

      await remote.optimize();
      // The worker's log lines reach the host's logger at their level.
      expect(logger.lines).toContainEqual(expect.objectContaining({ level: 'debug', message: 'Search', fields: expect.objectContaining({ mode: 'fts' }) }));
    } finally {
      await Promise.all([remote.close?.(), local.close?.()]);
    }
  }, 60_000);

  it('hands a CairnError thrown in the worker back with its code and details', async () => {
    const index = workerSearchIndex(freshWorkspace(), { idleOptimizeMs: 0 }, { workerUrl: worker.url });
    try {
      await index.upsert(CORPUS.slice(0, 2));
      // Not a mode the index knows: search-index.ts throws INVALID_INPUT inside the worker.
      const bad = await rejection(index.search({ text: 'storm', mode: 'sideways' as 'fts' }));
      expect(bad.code).toBe('INVALID_INPUT');
      expect(bad.message).toContain('Unknown search mode "sideways"');
      expect(bad.details).toEqual({ mode: 'sideways' });
      expect((await rejection(index.search({ text: 'storm', k: 0 }))).code).toBe('INVALID_INPUT');
      // The worker is still serving.
      expect((await index.search({ text: 'storm', mode: 'fts' })).length).toBeGreaterThan(0);
    } finally {
      await index.close?.();
    }
  }, 60_000);

  it('rejects a search whose signal aborts with CANCELLED, and keeps serving', async () => {
    const index = workerSearchIndex(freshWorkspace(), { idleOptimizeMs: 0 }, { workerUrl: worker.url });
    try {
      await index.upsert(CORPUS);
      expect((await rejection(index.search({ text: 'storm', signal: AbortSignal.abort() }))).code).toBe('CANCELLED');
      // Aborted while the worker searches: the late answer (or the worker's own CANCELLED) is dropped.
      const controller = new AbortController();
      const searching = index.search({ text: 'storm recovery', mode: 'hybrid', signal: controller.signal });
      controller.abort();
      expect((await rejection(searching)).code).toBe('CANCELLED');
      expect((await index.search({ text: 'storm recovery', mode: 'fts' }))[0]?.uri).toBe('ctx://resources/ops/storm/');
    } finally {
      await index.close?.();
    }
  }, 60_000);

  it('rejects an aborted search at once, without waiting for the worker to answer', async () => {
    // The test worker never answers a search for "hang": only the abort can settle it.
    const index = workerSearchIndex(freshWorkspace(), { idleOptimizeMs: 0 }, { workerUrl: crashWorker.url });
    try {
      const controller = new AbortController();
      const searching = index.search({ text: 'hang', signal: controller.signal });
      setTimeout(() => controller.abort(), 20);
      const error = await rejection(searching);
      expect(error.code).toBe('CANCELLED');
      expect(error.message).toBe('Search cancelled');
    } finally {
      await index.close?.();
    }
  }, 60_000);

  it('fails the calls pending on a worker that dies with INDEX_FAILED, and starts a fresh one for the next call', async () => {
    const index = workerSearchIndex(freshWorkspace(), { idleOptimizeMs: 0 }, { workerUrl: crashWorker.url });
    try {
      await index.upsert(CORPUS);
      const hanging = rejection(index.search({ text: 'hang' }));
      const crashing = rejection(index.search({ text: 'crash' }));
      for (const error of await Promise.all([hanging, crashing])) {
        expect(error.code).toBe('INDEX_FAILED');
        expect(error.message).toBe('The index worker stopped (exit code 7)');
      }
      // A fresh worker opens the same index again: what the first one wrote is there.
      expect((await index.search({ text: 'storm recovery', mode: 'fts' }))[0]?.uri).toBe('ctx://resources/ops/storm/');
    } finally {
      await index.close?.();
    }
  }, 60_000);

  it('refuses calls once closed, and closing again is harmless', async () => {
    const index = workerSearchIndex(freshWorkspace(), { idleOptimizeMs: 0 }, { workerUrl: worker.url });
    await index.upsert(CORPUS.slice(0, 1));
    await index.close?.();
    await index.close?.();
    const error = await rejection(index.upsert(CORPUS.slice(1, 2)));
    expect(error.code).toBe('INDEX_FAILED');
    expect(error.message).toBe('Index upsert after close');
    expect((await rejection(index.search({ text: 'storm' }))).code).toBe('INDEX_FAILED');
    await expect(index.prepare?.()).resolves.toBeUndefined();
  }, 60_000);

  it('starts no worker before the first call, and prepare never rejects', async () => {
    // A worker entry that does not exist: nothing happens until the first call, and prepare swallows the failure.
    const index = workerSearchIndex(freshWorkspace(), {}, { workerUrl: new URL('./missing.worker.mjs', worker.url) });
    await index.optimize();
    await index.close?.();
    const broken = workerSearchIndex(freshWorkspace(), {}, { workerUrl: new URL('./missing.worker.mjs', worker.url) });
    await expect(broken.prepare?.()).resolves.toBeUndefined();
    expect((await rejection(broken.upsert(CORPUS.slice(0, 1)))).code).toBe('INDEX_FAILED');
    await broken.close?.();
  }, 60_000);

  it('does not keep a process alive once its worker is idle', async () => {
    const child = spawn(process.execPath, [idleChild.file, worker.url.href, freshWorkspace()], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        resolve(null);
      }, 20_000);
      child.on('exit', (exitCode) => {
        clearTimeout(timer);
        resolve(exitCode);
      });
    });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toBe('found ctx://resources/idle.md\n');
  }, 30_000);
});
