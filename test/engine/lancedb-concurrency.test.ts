/**
 * The index is shared: another thread, another process (or, on object storage, another machine)
 * writes the same table while this one reads and writes. These tests run the real adapter in a
 * worker_thread and in a child process (bundled with esbuild, as the app bundles its workers).
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

vi.hoisted(() => {
  process.env.LANCEDB_LOG ??= 'error';
});

import { openLanceStore } from '../../main/adapters/store/lancedb/index.js';
import type { VectorRecord, VectorStore } from '../../main/engine/ports/vector-store.js';
import { bundleForTest, type TestBundle } from '../support/rpc-bundle.js';

const DIMS = 32;

/** A deterministic unit vector per seed; the same function runs in the worker and the child. */
const VECTOR_SOURCE = `
function vectorFor(seed, dims) {
  const v = new Float32Array(dims);
  let x = (seed * 2654435761) >>> 0 || 1;
  let sum = 0;
  for (let i = 0; i < dims; i += 1) { x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0; v[i] = x / 4294967295 - 0.5; sum += v[i] * v[i]; }
  const inv = 1 / Math.sqrt(sum);
  for (let i = 0; i < dims; i += 1) v[i] *= inv;
  return v;
}
function record(id, text, seed, dims) {
  const uri = 'ctx://resources/' + id + '.md';
  return { id, uri, parent_uri: 'ctx://resources/', level: 2, context_type: 'resource', category: 'document', text,
    vector: vectorFor(seed, dims), embed_model: 'test', tokens: 1, content_hash: 'h', updated_at: '2024-01-01T00:00:00Z', provenance: {} };
}
`;
const { vectorFor, record } = new Function(`${VECTOR_SOURCE}; return { vectorFor, record };`)() as {
  vectorFor: (seed: number, dims: number) => Float32Array;
  record: (id: string, text: string, seed: number, dims: number) => VectorRecord;
};

/**
 * The writer that runs elsewhere: opens its own store, says "ready", waits for "go", then runs
 * `batches` upserts of `perBatch` records named `{prefix}-{n}` (text "{word} n"), upserts the
 * shared ids each batch, and deletes the ids listed in `remove`.
 */
const WRITER_SOURCE = `
${VECTOR_SOURCE}
async function runWriter(bundleUrl, options, say, waitForGo) {
  const { openLanceStore } = await import(bundleUrl);
  const store = await openLanceStore({ uri: options.dir, dimensions: options.dims, maxUnindexedRows: options.maxUnindexedRows ?? 2000 });
  say({ type: 'ready' });
  await waitForGo();
  let n = 0;
  for (let b = 0; b < options.batches; b += 1) {
    const rows = [];
    for (let i = 0; i < options.perBatch; i += 1, n += 1) rows.push(record(options.prefix + '-' + n, options.word + ' ' + n, options.seedBase + n, options.dims));
    for (const id of options.shared ?? []) rows.push(record(id, 'shared written by ' + options.prefix, 7, options.dims));
    await store.upsert(rows);
  }
  for (const uri of options.remove ?? []) await store.deleteByUriPrefix(uri);
  const count = await store.count();
  await store.close();
  say({ type: 'done', written: n, count });
}
`;

interface WriterOptions {
  dir: string;
  dims: number;
  prefix: string;
  word: string;
  seedBase: number;
  batches: number;
  perBatch: number;
  shared?: string[];
  remove?: string[];
  maxUnindexedRows?: number;
}

interface Remote {
  ready: Promise<void>;
  go(): void;
  done: Promise<{ written: number; count: number }>;
}

function inWorker(bundle: TestBundle, options: WriterOptions): Remote {
  const code = `
const { parentPort, workerData } = require('node:worker_threads');
${WRITER_SOURCE}
const go = new Promise((resolve) => parentPort.once('message', resolve));
runWriter(workerData.bundleUrl, workerData.options, (m) => parentPort.postMessage(m), () => go)
  .catch((error) => parentPort.postMessage({ type: 'error', error: String(error && error.stack || error) }));
`;
  const worker = new Worker(code, { eval: true, workerData: { bundleUrl: bundle.url.href, options } });
  let onReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  const done = new Promise<{ written: number; count: number }>((resolve, reject) => {
    worker.on('message', (m: { type: string; error?: string; written?: number; count?: number }) => {
      if (m.type === 'ready') onReady();
      if (m.type === 'done') resolve({ written: m.written as number, count: m.count as number });
      if (m.type === 'error') reject(new Error(`worker failed: ${m.error}`));
    });
    worker.on('error', reject);
    worker.on('exit', (code) => {
      if (code !== 0) reject(new Error(`worker exited with ${code}`));
    });
  });
  void done.finally(() => void worker.terminate()).catch(() => {});
  return { ready, go: () => worker.postMessage('go'), done };
}

function inChildProcess(bundle: TestBundle, options: WriterOptions): Remote {
  const code = `
${WRITER_SOURCE}
const go = new Promise((resolve) => process.stdin.once('data', resolve));
runWriter(${JSON.stringify(bundle.url.href)}, ${JSON.stringify(options)}, (m) => process.stdout.write(JSON.stringify(m) + '\\n'), () => go)
  .then(() => process.exit(0))
  .catch((error) => { process.stderr.write(String(error && error.stack || error)); process.exit(1); });
`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { env: { ...process.env, LANCEDB_LOG: 'error' }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let onReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  let buffered = '';
  let result: { written: number; count: number } | undefined;
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    let newline: number;
    while ((newline = buffered.indexOf('\n')) !== -1) {
      const m = JSON.parse(buffered.slice(0, newline)) as { type: string; written: number; count: number };
      buffered = buffered.slice(newline + 1);
      if (m.type === 'ready') onReady();
      if (m.type === 'done') result = { written: m.written, count: m.count };
    }
  });
  const done = new Promise<{ written: number; count: number }>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0 && result) resolve(result);
      else reject(new Error(`child exited with ${code}: ${stderr}`));
    });
  });
  return { ready, go: () => child.stdin.end('go\n'), done };
}

let bundle: TestBundle;
let tmp: string;
let dir: string;
let store: VectorStore;

beforeAll(async () => {
  bundle = await bundleForTest('main/adapters/store/lancedb/index.ts');
});
afterAll(async () => {
  await bundle?.dispose();
});
beforeEach(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'cairn-lancedb-mt-'));
  dir = join(tmp, 'index');
  store = await openLanceStore({ uri: dir, dimensions: DIMS });
});
afterEach(async () => {
  await store.close();
  await rm(tmp, { recursive: true, force: true });
});

describe('LanceDB store shared between threads and processes', () => {
  it("a long-lived handle sees another thread's inserts and deletes at once", async () => {
    await store.upsert([record('main-0', 'main row zero', 1, DIMS), record('main-1', 'main row one', 2, DIMS), record('main-2', 'main row two', 3, DIMS)]);
    // Read first, so this handle has a version it could keep serving.
    expect(await store.count()).toBe(3);
    expect(await store.textSearch({ query: 'zebra', k: 50 })).toHaveLength(0);

    const writer = inWorker(bundle, { dir, dims: DIMS, prefix: 'w', word: 'zebra', seedBase: 1000, batches: 4, perBatch: 5, remove: ['ctx://resources/main-1.md'] });
    await writer.ready;
    writer.go();
    const { written } = await writer.done;
    expect(written).toBe(20);

    expect(await store.count()).toBe(22);
    expect(await store.textSearch({ query: 'zebra', k: 50 })).toHaveLength(20);
    expect(await store.get(['main-1'])).toEqual([]);
    const nearest = await store.vectorSearch({ vector: vectorFor(1007, DIMS), k: 1 });
    expect(nearest[0]?.record.id).toBe('w-7');
    expect(nearest[0]?.score).toBeCloseTo(1, 5);
  });

  it("sees a child process's writes the same way", async () => {
    expect(await store.count()).toBe(0);
    const writer = inChildProcess(bundle, { dir, dims: DIMS, prefix: 'p', word: 'quokka', seedBase: 5000, batches: 2, perBatch: 10 });
    await writer.ready;
    writer.go();
    await writer.done;
    expect(await store.count()).toBe(20);
    expect((await store.textSearch({ query: 'quokka 13', k: 1 }))[0]?.record.id).toBe('p-13');
  });

  it('three writers (this thread, a worker, a child process) commit concurrently and lose nothing', async () => {
    const shared = ['shared-a', 'shared-b'];
    const worker = inWorker(bundle, { dir, dims: DIMS, prefix: 'w', word: 'wombat', seedBase: 1000, batches: 15, perBatch: 8, shared, maxUnindexedRows: 40 });
    const child = inChildProcess(bundle, { dir, dims: DIMS, prefix: 'c', word: 'caracal', seedBase: 3000, batches: 15, perBatch: 8, shared, remove: ['ctx://resources/c-0.md'] });
    await Promise.all([worker.ready, child.ready]);
    worker.go();
    child.go();
    // This thread writes at the same time through its own handle, optimizing as it goes too.
    const local = await openLanceStore({ uri: dir, dimensions: DIMS, maxUnindexedRows: 30 });
    try {
      for (let b = 0; b < 15; b += 1) {
        const rows = Array.from({ length: 8 }, (_, i) => record(`m-${b * 8 + i}`, `marmot ${b * 8 + i}`, 2000 + b * 8 + i, DIMS));
        await local.upsert([...rows, ...shared.map((id) => record(id, 'shared written by m', 7, DIMS))]);
      }
      await Promise.all([worker.done, child.done]);
    } finally {
      await local.close();
    }
    expect(await store.count()).toBe(3 * 120 - 1 + shared.length);
    for (const prefix of ['w', 'c', 'm']) {
      expect(await store.count({ uriPrefix: `ctx://resources/${prefix}-` })).toBe(prefix === 'c' ? 119 : 120);
    }
    expect((await store.get(shared)).map((r) => r.id).sort()).toEqual(shared);
    // Every writer's rows are searchable both ways.
    for (const [word, id, seed] of [['wombat', 'w-100', 1100], ['caracal', 'c-37', 3037], ['marmot', 'm-5', 2005]] as const) {
      expect(await store.textSearch({ query: word, k: 200 })).toHaveLength(word === 'caracal' ? 119 : 120);
      expect((await store.vectorSearch({ vector: vectorFor(seed, DIMS), k: 1 }))[0]?.record.id).toBe(id);
    }
  });

  it('two handles in one process upsert the same ids at once and the table stays one row per id', async () => {
    const other = await openLanceStore({ uri: dir, dimensions: DIMS });
    try {
      const ids = Array.from({ length: 30 }, (_, i) => `same-${i}`);
      const write = (target: VectorStore, word: string) =>
        Promise.all(Array.from({ length: 6 }, (_, round) => target.upsert(ids.slice(round * 5, round * 5 + 10).map((id, i) => record(id, `${word} ${i}`, i, DIMS)))));
      await Promise.all([write(store, 'left'), write(other, 'right')]);
      expect(await store.count()).toBe(30);
      expect((await store.get(ids)).length).toBe(30);
    } finally {
      await other.close();
    }
  });
});
