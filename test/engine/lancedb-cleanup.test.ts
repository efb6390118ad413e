/**
 * The LanceDB store removes the versions its writes and compactions replace, against a real
 * LanceDB in a temporary folder: what is left on disk is the current version, searches answer
 * the same before and after, a search running while versions are removed answers right, and a
 * handle still holding a removed version keeps answering.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

vi.hoisted(() => {
  // Read by LanceDB's native module when it loads: keeps Rust warnings out of the test output.
  process.env.LANCEDB_LOG ??= 'error';
});

import * as lancedb from '@lancedb/lancedb';
import { openLanceStore } from '../../main/adapters/store/lancedb/index.js';
import type { LanceStoreOptions } from '../../main/adapters/store/lancedb/index.js';
import { embedText } from '../../main/adapters/embed/local.js';
import type { VectorRecord, VectorStore } from '../../main/engine/ports/vector-store.js';

const DIMS = 64;
const WORDS = 'storm uplink antenna modem battery breaker telemetry parser registry schema vector table query filter shard lock queue worker retry cache timeout'.split(' ');
let tmp: string;
let uri: string;
const opened: VectorStore[] = [];

async function open(options: Partial<LanceStoreOptions> = {}): Promise<VectorStore> {
  const store = await openLanceStore({ uri, dimensions: DIMS, idleOptimizeMs: 0, ...options });
  opened.push(store);
  return store;
}

beforeEach(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'cairn-lancedb-cleanup-'));
  uri = join(tmp, 'index');
});
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
  await rm(tmp, { recursive: true, force: true });
});

/** Row `i`: two words of its own (a full-text query finds exactly it) and `tag`, which a rewrite changes. */
function row(i: number, tag: string): VectorRecord {
  const text = `${WORDS[i % WORDS.length]} ${WORDS[(i * 7 + 3) % WORDS.length]} note${i} ${tag}`;
  return {
    id: `ctx://resources/docs/n${i}.md#2`,
    uri: `ctx://resources/docs/n${i}.md`,
    parent_uri: 'ctx://resources/docs/',
    level: 2,
    context_type: 'resource',
    category: 'markdown',
    text,
    vector: embedText(text, DIMS),
    embed_model: 'test-model',
    tokens: 4,
    content_hash: `${i}-${tag}`,
    updated_at: '2024-05-08T13:56:00.000Z',
    provenance: {},
  };
}

const ROWS = 120;
const rows = (tag: string) => Array.from({ length: ROWS }, (_, i) => row(i, tag));

/** Writes the rows in `batches` commits, as the ingest's buffered writes do. */
async function writeInBatches(store: VectorStore, records: VectorRecord[], batches: number): Promise<void> {
  const size = Math.ceil(records.length / batches);
  for (let start = 0; start < records.length; start += size) await store.upsert(records.slice(start, start + size));
}

/** What is on disk: bytes of every file, the table's versions, data files and index folders (and the empty ones). */
async function onDisk(): Promise<{ bytes: number; versions: number; dataFiles: number; indexFolders: number; emptyIndexFolders: number }> {
  // The store removes files in the background: a look that meets one going looks again.
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await lookOnDisk();
    } catch (error) {
      if (attempt >= 50 || !/ENOENT|not found/i.test(String(error))) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

async function lookOnDisk() {
  const table = join(uri, 'context.lance');
  const walk = async (dir: string): Promise<number> => {
    let bytes = 0;
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      bytes += entry.isDirectory() ? await walk(path) : (await stat(path)).size;
    }
    return bytes;
  };
  const folders = await readdir(join(table, '_indices'));
  const contents = await Promise.all(folders.map((name) => readdir(join(table, '_indices', name))));
  const db = await lancedb.connect(uri);
  const handle = await db.openTable('context');
  try {
    return {
      bytes: await walk(uri),
      versions: (await handle.listVersions()).length,
      dataFiles: (await readdir(join(table, 'data'))).length,
      indexFolders: folders.length,
      emptyIndexFolders: contents.filter((files) => files.length === 0).length,
    };
  } finally {
    handle.close();
    db.close();
  }
}

/** Resolves once the store has removed every replaced version and the folders they leave empty (in the background, once due). */
const oneVersionLeft = () =>
  until(async () => {
    const { versions, emptyIndexFolders } = await onDisk();
    return versions === 1 && emptyIndexFolders === 0;
  }, 10_000);

/** The ids a full-text and a vector search give for each of a few rows' own words, in order. */
async function answers(store: VectorStore): Promise<string[][]> {
  const out: string[][] = [];
  for (const i of [0, 17, 61, 119]) {
    out.push((await store.textSearch({ query: `note${i}`, k: 3 })).map((hit) => hit.record.id));
    out.push((await store.vectorSearch({ vector: row(i, 'v1').vector!, k: 3 })).map((hit) => hit.record.id));
  }
  return out;
}

const until = async (condition: () => Promise<boolean>, ms: number) => {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Not reached within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

describe('LanceDB store: replaced versions', () => {
  it('keeps versions for keepReplacedMs after they are replaced, then removes them in the background, searches answering the same', async () => {
    const store = await open({ keepReplacedMs: 1500 });
    await writeInBatches(store, rows('v1'), 12);
    await store.optimize();
    const before = await answers(store);
    expect(before.filter((ids) => ids.length > 0)).toHaveLength(8);
    await writeInBatches(store, rows('v1'), 12);
    await store.optimize();
    // Replaced a moment ago: a query in another process may still be reading them.
    const young = await onDisk();
    expect(young.versions).toBeGreaterThan(2);

    await oneVersionLeft();
    const settled = await onDisk();
    expect(settled.dataFiles).toBe(1);
    expect(settled.bytes).toBeLessThan(young.bytes / 2);
    expect(await answers(store)).toEqual(before);
  }, 60_000);

  it('does not grow when the same rows are written again and again', async () => {
    const store = await open({ keepReplacedMs: 300 });
    await writeInBatches(store, rows('v1'), 6);
    await store.optimize();
    await oneVersionLeft();
    const first = await onDisk();
    for (let round = 0; round < 3; round += 1) {
      await writeInBatches(store, rows('v1'), 6);
      await store.optimize();
    }
    await oneVersionLeft();
    const last = await onDisk();
    expect(last.indexFolders).toBe(first.indexFolders);
    expect(last.bytes).toBeLessThanOrEqual(first.bytes * 1.05);
  }, 60_000);

  it('with cleanupOnClose, close() waits for the last versions to come of age and removes them', async () => {
    const store = await openLanceStore({ uri, dimensions: DIMS, idleOptimizeMs: 0, keepReplacedMs: 800, cleanupOnClose: true });
    await writeInBatches(store, rows('v1'), 6);
    await store.optimize();
    expect((await onDisk()).versions).toBeGreaterThan(1);
    const started = Date.now();
    await store.close();
    expect(Date.now() - started).toBeLessThan(5000);
    expect((await onDisk()).versions).toBe(1);
  }, 60_000);

  it('answers every search right while another handle rewrites the table and removes what it replaced', async () => {
    // Removes what it replaced almost at once: the reader's queries meet removed files, and ask again.
    const writer = await open({ keepReplacedMs: 50 });
    await writer.upsert(rows('v1'));
    await writer.optimize();
    const reader = await open();
    const expected = await answers(reader);
    let writing = true;
    let rounds = 0;
    const rewrites = (async () => {
      try {
        for (; rounds < 6; rounds += 1) {
          await writeInBatches(writer, rows('v1'), 4);
          await writer.optimize();
        }
      } finally {
        writing = false;
      }
    })();
    let searches = 0;
    while (writing) {
      expect(await answers(reader)).toEqual(expected);
      searches += 1;
    }
    await rewrites;
    expect(rounds).toBe(6);
    expect(searches).toBeGreaterThan(0);
    await oneVersionLeft();
    expect(await answers(reader)).toEqual(expected);
  }, 120_000);

  it('a handle still holding a version that was removed asks again on the latest one', async () => {
    const writer = await open({ keepReplacedMs: 200 });
    await writer.upsert(rows('v1'));
    await writer.optimize();
    // Never looks for newer versions on its own: it keeps reading the version it opened.
    const stale = await open({ readConsistencySeconds: 3600 });
    expect((await stale.textSearch({ query: 'note5', k: 1 }))[0]?.record.text).toBe(row(5, 'v1').text);

    await writeInBatches(writer, rows('v2'), 3);
    await writer.optimize();
    await oneVersionLeft();

    // Its version's files are gone: reading the rows it finds fails, and it reads the latest instead.
    expect((await stale.textSearch({ query: 'note5', k: 1 }))[0]?.record.text).toBe(row(5, 'v2').text);
    expect((await stale.vectorSearch({ vector: row(7, 'v2').vector!, k: 1 }))[0]?.record.text).toBe(row(7, 'v2').text);
    expect((await stale.get([row(9, 'v2').id]))[0]?.text).toBe(row(9, 'v2').text);
  }, 60_000);
});
