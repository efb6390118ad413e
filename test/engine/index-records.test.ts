/**
 * Every writer of index records shapes them alike: the records the ingest, the DAG, the session
 * import and the memory store write into a real LanceDB index are exactly the ones a rebuild
 * from the files makes again (ids, categories, content hashes, texts, provenance, vectors). A
 * drift here shows as search hits whose badge changes after `cairn reindex`, and as vectors
 * re-embedded for nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine } from '../../main/engine/engine.js';
import { inProcessParseRunner } from '../../main/engine/parse/runner.js';
import { defaultIndexUri, lazySearchIndex } from '../../main/host/open-index.js';
import { openLanceStore } from '../../main/adapters/store/lancedb/index.js';
import { createLocalEmbedder } from '../../main/adapters/embed/local.js';
import type { StoredRecord } from '../../main/engine/ports/vector-store.js';

const ROOT = join(import.meta.dirname, '../..');
const CONVERSATION = join(ROOT, 'test/fixtures/conversations/choosing-a-database.json');

let tmp: string;
let workspace: string;

/** Every record in the workspace's index, by id, vectors as plain arrays so they compare by value. */
async function readIndex(): Promise<Record<string, Omit<StoredRecord, 'vector'> & { vector: number[] }>> {
  const store = await openLanceStore({ uri: defaultIndexUri(workspace), dimensions: createLocalEmbedder().dimensions, idleOptimizeMs: 0 });
  try {
    const records = await store.find({ limit: 100_000, withVectors: true });
    return Object.fromEntries(records.sort((a, b) => (a.id < b.id ? -1 : 1)).map((r) => [r.id, { ...r, vector: Array.from(r.vector ?? []) }]));
  } finally {
    await store.close();
  }
}

function openEngine() {
  return createEngine({ workspace, parser: inProcessParseRunner(), index: lazySearchIndex(workspace, { idleOptimizeMs: 0 }) });
}

let written: Awaited<ReturnType<typeof readIndex>>;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'cairn-index-records-'));
  workspace = join(tmp, 'workspace');
  // The sample has a Markdown guide split into sections (assets/sample/docs/architecture.md), code summarized
  // by its skeleton at ingest (src/station.py) and code and text the DAG summarizes.
  const source = join(tmp, 'sample');
  await cp(join(ROOT, 'assets/sample'), source, { recursive: true });
  await writeFile(join(source, 'notes/todo.txt'), 'Replace the antenna cable at station 7.\nCheck the uplink retries after the storm.\n');

  const engine = await openEngine();
  try {
    await engine.call('ingest:start', { path: source });
    await engine.call('sessions:import', { path: CONVERSATION });
    await engine.call('memories:commit', {
      candidates: [{ category: 'preference', title: 'Dark theme', content: 'Ana prefers the dark theme in her editor.', keywords: ['theme'], message_ids: ['s1:4'], conversation_id: 'c1', confidence: 0.9 }],
    });
    await engine.call('summarize:run', {});
  } finally {
    await engine.dispose();
  }
  written = await readIndex();
}, 120_000);

afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('index records', () => {
  it('cover every kind of node the tree holds', () => {
    const ids = Object.keys(written);
    const sample = 'ctx://resources/sample/';
    const section = ids.find((id) => id.startsWith(`${sample}docs/architecture.md/`) && !id.slice(0, -2).endsWith('/') && id.endsWith('#0'));
    // Written by the DAG (a section's L0, a small file's), the ingest (every L2, a skeleton's L0), the memory store and the session import.
    expect(section, 'a section of the split guide with its L0').toBeDefined();
    expect(ids).toContain(section!.replace(/#0$/, '#2'));
    for (const id of ['docs/architecture.md/#0', 'src/uplink.go#0', 'src/uplink.go#2', 'src/station.py#0', 'notes/todo.txt#1', 'notes/todo.txt#2', '#0']) expect(ids).toContain(`${sample}${id}`);
    expect(ids.some((id) => id.startsWith('ctx://session/') && id.includes('#m:'))).toBe(true);
    expect(ids.some((id) => id.startsWith('ctx://user/memories/preference/') && id.endsWith('.md#2'))).toBe(true);
    expect(ids).toContain('ctx://user/memories/preference/#0');
  });

  it('give every level of a node one category: its format for a file, what it is for the rest', () => {
    const byUri = new Map<string, Set<string>>();
    for (const record of Object.values(written)) byUri.set(record.uri, (byUri.get(record.uri) ?? new Set()).add(record.category));
    for (const [uri, categories] of byUri) expect([uri, [...categories]]).toEqual([uri, [expect.any(String)]]);
    const category = (uri: string) => [...byUri.get(uri)!][0];
    expect(category('ctx://resources/sample/src/uplink.go')).toBe('code');
    expect(category('ctx://resources/sample/notes/todo.txt')).toBe('text');
    expect(category('ctx://resources/sample/docs/operations.md')).toBe('markdown');
    expect(category('ctx://resources/sample/docs/')).toBe('directory');
  });

  it('are made again exactly by a rebuild from the files', async () => {
    const engine = await openEngine();
    try {
      const { records } = await engine.call('index:rebuild', {});
      expect(records).toBe(Object.keys(written).length);
    } finally {
      await engine.dispose();
    }
    const rebuilt = await readIndex();
    expect(Object.keys(rebuilt)).toEqual(Object.keys(written));
    for (const id of Object.keys(written)) expect(rebuilt[id], id).toEqual(written[id]);
  }, 120_000);
});
