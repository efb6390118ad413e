/**
 * The LanceDB VectorStore against a real LanceDB in a temporary folder: writes, deletes that
 * keep mv and rm in step, filters, full-text freshness, and the round trip of every field.
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
import { tableSchema, toArrowTable } from '../../main/adapters/store/lancedb/arrow-codec.js';
import { roundToFloat16 } from '../../main/adapters/store/lancedb/float16.js';
import { embedText } from '../../main/adapters/embed/local.js';
import type { VectorRecord, VectorStore } from '../../main/engine/ports/vector-store.js';
import type { ContextType } from '../../shared/types/node.js';
import { CairnError } from '../../shared/errors.js';

const DIMS = 64;
let tmp: string;
let store: VectorStore;

beforeEach(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'cairn-lancedb-'));
  store = await openLanceStore({ uri: join(tmp, 'index'), dimensions: DIMS });
});
afterEach(async () => {
  await store.close();
  await rm(tmp, { recursive: true, force: true });
});

function parentOf(uri: string): string | null {
  const bare = uri.endsWith('/') ? uri.slice(0, -1) : uri;
  const cut = bare.lastIndexOf('/');
  return cut <= 'ctx://'.length ? null : bare.slice(0, cut + 1);
}

function rec(uri: string, level: 0 | 1 | 2, text: string, extra: Partial<VectorRecord> = {}): VectorRecord {
  return {
    id: `${uri}#${level}`,
    uri,
    parent_uri: parentOf(uri),
    level,
    context_type: 'resource' as ContextType,
    category: 'document',
    text,
    vector: embedText(text, DIMS),
    embed_model: 'test-model',
    tokens: text.length,
    content_hash: `hash-${text.length}`,
    updated_at: '2024-05-08T13:56:00.000Z',
    provenance: { source: `/src/${uri.slice('ctx://'.length)}` },
    ...extra,
  };
}

async function dirBytes(dir: string): Promise<number> {
  let bytes = 0;
  for (const name of await readdir(dir)) bytes += (await stat(join(dir, name))).size;
  return bytes;
}

async function uris(filter?: Parameters<VectorStore['count']>[0]): Promise<string[]> {
  const rows = await store.find({ filter, limit: 10_000 });
  return [...new Set(rows.map((r) => r.uri))].sort();
}

describe('LanceDB store: writes', () => {
  it('upsert replaces a record by id and keeps one row per id', async () => {
    await store.upsert([rec('ctx://resources/docs/a.md', 2, 'first version about storms')]);
    await store.upsert([rec('ctx://resources/docs/a.md', 2, 'second version about antennas', { embed_model: 'other-model' })]);
    expect(await store.count()).toBe(1);
    const [row] = await store.get(['ctx://resources/docs/a.md#2']);
    expect(row?.text).toBe('second version about antennas');
    expect(row?.embed_model).toBe('other-model');
    // The full-text column followed the text: the old words are gone, the new ones are found.
    expect(await store.textSearch({ query: 'storms', k: 5 })).toHaveLength(0);
    expect((await store.textSearch({ query: 'antenna', k: 5 })).map((h) => h.record.id)).toEqual(['ctx://resources/docs/a.md#2']);
  });

  it('keeps the last of two records with the same id in one call', async () => {
    await store.upsert([rec('ctx://resources/x.md', 2, 'one'), rec('ctx://resources/x.md', 2, 'two')]);
    expect(await store.count()).toBe(1);
    expect((await store.get(['ctx://resources/x.md#2']))[0]?.text).toBe('two');
  });

  it('round-trips every field, provenance and the vector', async () => {
    const vector = embedText('parser registry', DIMS);
    await store.upsert([
      rec('ctx://session/s1/messages.md', 2, 'user asked about the parser', {
        context_type: 'session',
        category: 'conversation',
        vector,
        tokens: 42,
        content_hash: 'abc',
        provenance: { source: '/chats/export.json', lines: [3, 9], pages: [1, 2], message_ids: ['s1:1', 's1:2'] },
      }),
      rec('ctx://resources/plain.md', 1, 'no provenance at all', { provenance: {}, parent_uri: null }),
    ]);
    const byId = new Map((await store.get(['ctx://session/s1/messages.md#2', 'ctx://resources/plain.md#1', 'missing#2'])).map((r) => [r.id, r]));
    expect(byId.size).toBe(2);
    const row = byId.get('ctx://session/s1/messages.md#2');
    expect(row).toMatchObject({
      uri: 'ctx://session/s1/messages.md',
      parent_uri: 'ctx://session/s1/',
      level: 2,
      context_type: 'session',
      category: 'conversation',
      tokens: 42,
      content_hash: 'abc',
      updated_at: '2024-05-08T13:56:00.000Z',
      provenance: { source: '/chats/export.json', lines: [3, 9], pages: [1, 2], message_ids: ['s1:1', 's1:2'] },
    });
    // Vectors are stored as 16-bit floats: each component comes back as its nearest half.
    expect(Array.from(row?.vector ?? [])).toEqual(Array.from(roundToFloat16(vector)));
    expect(byId.get('ctx://resources/plain.md#1')).toMatchObject({ parent_uri: null, provenance: {} });
  });

  it('rejects vectors of the wrong length and URIs that are not ctx:// URIs', async () => {
    await expect(store.upsert([rec('ctx://resources/a.md', 2, 'x', { vector: new Float32Array(DIMS + 1) })])).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(store.upsert([rec('file:///etc/passwd', 2, 'x')])).rejects.toMatchObject({ code: 'INVALID_URI' });
    const nan = embedText('x', DIMS);
    nan[3] = Number.NaN;
    await expect(store.upsert([rec('ctx://resources/a.md', 2, 'x', { vector: nan })])).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(await store.count()).toBe(0);
  });
});

describe('LanceDB store: deleteByUriPrefix keeps mv and rm in step', () => {
  const tree = [
    rec('ctx://resources/a/', 0, 'dir a abstract'),
    rec('ctx://resources/a/', 1, 'dir a overview'),
    rec('ctx://resources/a/one.md', 2, 'one'),
    rec('ctx://resources/a/deep/', 0, 'deep abstract'),
    rec('ctx://resources/a/deep/two.md', 2, 'two'),
    rec('ctx://resources/ab/', 0, 'sibling with a common prefix'),
    rec('ctx://resources/ab/three.md', 2, 'three'),
    rec('ctx://resources/a.md', 2, 'a file next to the directory'),
    rec('ctx://resources/a b/four.md', 2, 'a space'),
    rec('ctx://user/memories/a/five.md', 2, 'another scope'),
  ];

  it('removes a directory and everything below it, and nothing else', async () => {
    await store.upsert(tree);
    const removed = await store.deleteByUriPrefix('ctx://resources/a/');
    expect(removed).toBe(5);
    expect(await uris()).toEqual([
      'ctx://resources/a b/four.md',
      'ctx://resources/a.md',
      'ctx://resources/ab/',
      'ctx://resources/ab/three.md',
      'ctx://user/memories/a/five.md',
    ]);
  });

  it('treats a directory URI without its slash as the same directory', async () => {
    await store.upsert(tree);
    await store.deleteByUriPrefix('ctx://resources/a');
    expect(await uris({ uriPrefix: 'ctx://resources/a' })).toEqual(['ctx://resources/a b/four.md', 'ctx://resources/a.md', 'ctx://resources/ab/', 'ctx://resources/ab/three.md']);
  });

  it('removes a single file with all its levels', async () => {
    await store.upsert([...tree, rec('ctx://resources/a/one.md', 0, 'one abstract'), rec('ctx://resources/a/one.md', 1, 'one overview')]);
    expect(await store.deleteByUriPrefix('ctx://resources/a/one.md')).toBe(3);
    expect(await store.count({ uriPrefix: 'ctx://resources/a/' })).toBe(4);
    expect(await store.count()).toBe(tree.length - 1);
  });

  it('handles quotes, %, _ and non-ASCII in URIs, and backslashes in values, literally', async () => {
    const odd = [
      rec("ctx://resources/it's 100%_文档/", 0, 'odd dir'),
      rec("ctx://resources/it's 100%_文档/读我.md", 2, 'odd file'),
      rec("ctx://resources/it's 100%X文档/keep.md", 2, 'must survive: % and _ are not wildcards'),
      rec('ctx://resources/plain/keep.md', 2, 'a backslash in a value is literal too', { category: 'back\\slash' }),
    ];
    await store.upsert(odd);
    expect(await store.count({ uriPrefix: "ctx://resources/it's 100%_" })).toBe(2);
    expect(await store.deleteByUriPrefix("ctx://resources/it's 100%_文档/")).toBe(2);
    expect(await uris()).toEqual(["ctx://resources/it's 100%X文档/keep.md", 'ctx://resources/plain/keep.md']);
    expect(await store.count({ categories: ['back\\slash'] })).toBe(1);
    expect((await store.listByParent("ctx://resources/it's 100%X文档/")).map((r) => r.uri)).toEqual(["ctx://resources/it's 100%X文档/keep.md"]);
  });

  it('a move is a delete under the old URI and an upsert under the new one', async () => {
    await store.upsert(tree);
    const moved = (await store.find({ filter: { uriPrefix: 'ctx://resources/a/' }, limit: 100, withVectors: true })).map((r) => {
      const uri = r.uri.replace('ctx://resources/a/', 'ctx://resources/z/');
      return { ...r, id: `${uri}#${r.level}`, uri, parent_uri: parentOf(uri), vector: r.vector as Float32Array };
    });
    await store.deleteByUriPrefix('ctx://resources/a/');
    await store.upsert(moved);
    expect(await store.count({ uriPrefix: 'ctx://resources/a/' })).toBe(0);
    expect(await uris({ uriPrefix: 'ctx://resources/z/' })).toEqual(['ctx://resources/z/', 'ctx://resources/z/deep/', 'ctx://resources/z/deep/two.md', 'ctx://resources/z/one.md']);
    expect(await store.count()).toBe(tree.length);
  });

  it('refuses a URI without a scheme rather than deleting by accident', async () => {
    await store.upsert(tree);
    await expect(store.deleteByUriPrefix('')).rejects.toBeInstanceOf(CairnError);
    await expect(store.deleteByUriPrefix('/')).rejects.toMatchObject({ code: 'INVALID_URI' });
    expect(await store.count()).toBe(tree.length);
  });
});

describe('LanceDB store: filters', () => {
  beforeEach(async () => {
    await store.upsert([
      rec('ctx://resources/docs/', 0, 'storm documentation abstract'),
      rec('ctx://resources/docs/', 1, 'storm documentation overview'),
      rec('ctx://resources/docs/guide.md', 2, 'storm guide text', { category: 'guide' }),
      rec('ctx://resources/docs/api.ts', 2, 'storm api code', { category: 'code' }),
      rec('ctx://user/memories/events/storm.md', 2, 'storm memory', { context_type: 'memory', category: 'event' }),
      rec('ctx://agent/skills/storm/', 0, 'storm skill', { context_type: 'skill', category: 'skill' }),
      rec('ctx://session/s1/', 1, 'storm session', { context_type: 'session', category: 'conversation', embed_model: 'old-model' }),
    ]);
  });

  it('filters by scope, level, context type, category, URI prefix and model, in every query kind', async () => {
    expect(await store.count({ scope: 'resources' })).toBe(4);
    expect(await store.count({ scope: ['user', 'agent'] })).toBe(2);
    expect(await store.count({ levels: [0, 1] })).toBe(4);
    expect(await store.count({ levels: [2], scope: 'resources' })).toBe(2);
    expect(await store.count({ contextTypes: ['memory', 'skill'] })).toBe(2);
    expect(await store.count({ categories: ['guide', 'code'] })).toBe(2);
    expect(await store.count({ uriPrefix: 'ctx://resources/docs/' })).toBe(4);
    expect(await store.count({ embedModel: 'old-model' })).toBe(1);
    expect(await store.count({ notEmbedModel: 'old-model' })).toBe(6);
    expect(await store.count({ levels: [] })).toBe(0);
    expect(await store.count({ categories: ["it's"] })).toBe(0);

    const query = embedText('storm', DIMS);
    const vector = await store.vectorSearch({ vector: query, k: 10, filter: { scope: 'resources', levels: [2] } });
    expect(vector.map((h) => h.record.uri).sort()).toEqual(['ctx://resources/docs/api.ts', 'ctx://resources/docs/guide.md']);
    const text = await store.textSearch({ query: 'storm', k: 10, filter: { contextTypes: ['memory'] } });
    expect(text.map((h) => h.record.uri)).toEqual(['ctx://user/memories/events/storm.md']);
    const children = await store.listByParent('ctx://resources/docs/', { categories: ['code'] });
    expect(children.map((r) => r.uri)).toEqual(['ctx://resources/docs/api.ts']);
    const several = await store.listByParent(['ctx://resources/docs/', 'ctx://user/memories/events/'], { levels: [2] });
    expect(several.map((r) => r.uri).sort()).toEqual(['ctx://resources/docs/api.ts', 'ctx://resources/docs/guide.md', 'ctx://user/memories/events/storm.md']);
    expect(several.every((r) => r.vector?.length === DIMS)).toBe(true);
    expect(await store.listByParent([])).toEqual([]);
  });

  it('filters before taking the top k (a small k still finds the filtered rows)', async () => {
    // Six rows match "storm" better than or as well as the one memory; k = 1 must still return the memory.
    const text = await store.textSearch({ query: 'storm', k: 1, filter: { scope: 'user' } });
    expect(text.map((h) => h.record.uri)).toEqual(['ctx://user/memories/events/storm.md']);
    const vector = await store.vectorSearch({ vector: embedText('storm skill', DIMS), k: 1, filter: { categories: ['event'] } });
    expect(vector.map((h) => h.record.uri)).toEqual(['ctx://user/memories/events/storm.md']);
  });

  it('lists the distinct embedding models', async () => {
    expect(await store.embedModels()).toEqual(['old-model', 'test-model']);
  });
});

describe('LanceDB store: search', () => {
  it('scores vectors by cosine similarity in [0, 1], best first', async () => {
    await store.upsert([rec('ctx://resources/a.md', 2, 'weather station uplink'), rec('ctx://resources/b.md', 2, 'parser registry for markdown')]);
    const hits = await store.vectorSearch({ vector: embedText('weather station uplink', DIMS), k: 2 });
    expect(hits[0]?.record.uri).toBe('ctx://resources/a.md');
    expect(hits[0]?.score).toBeCloseTo(1, 5);
    expect(hits[1]?.score).toBeGreaterThanOrEqual(0);
    expect(hits[1]?.score).toBeLessThan(0.5);
  });

  it('finds rows by full text right after they are written, and ranks them right while the index catches up', async () => {
    // A fresh table: the first rows are searchable at once.
    await store.upsert(Array.from({ length: 10 }, (_, i) => rec(`ctx://resources/q/${i}.md`, 2, `quokka ${i}`)));
    expect((await store.textSearch({ query: 'quokka 7', k: 3 }))[0]?.record.uri).toBe('ctx://resources/q/7.md');
    // Rows the index has not seen yet, with words it has never seen, rank by their own match.
    await store.upsert(Array.from({ length: 10 }, (_, i) => rec(`ctx://resources/w/${i}.md`, 2, `wombat ${i + 100}`)));
    expect((await store.textSearch({ query: 'wombat 104', k: 3 }))[0]?.record.uri).toBe('ctx://resources/w/4.md');
    expect((await store.textSearch({ query: 'quokka 3', k: 3 }))[0]?.record.uri).toBe('ctx://resources/q/3.md');
    // A changed text: the old words stop matching, the new ones match.
    await store.upsert([rec('ctx://resources/q/1.md', 2, 'renamed to omega')]);
    expect((await store.textSearch({ query: 'quokka', k: 20 })).map((h) => h.record.uri)).not.toContain('ctx://resources/q/1.md');
    expect((await store.textSearch({ query: 'omega', k: 5 })).map((h) => h.record.uri)).toEqual(['ctx://resources/q/1.md']);
    // Deleting every row the index had seen must not leave the rest unrankable.
    await store.deleteByUriPrefix('ctx://resources/q/');
    await store.upsert([rec('ctx://resources/late.md', 2, 'wombat latecomer')]);
    expect((await store.textSearch({ query: 'wombat 107', k: 3 }))[0]?.record.uri).toBe('ctx://resources/w/7.md');
    expect((await store.textSearch({ query: 'latecomer', k: 3 })).map((h) => h.record.uri)).toEqual(['ctx://resources/late.md']);
  });

  it('keeps finding rows when many are written between optimizations', async () => {
    const small = await openLanceStore({ uri: join(tmp, 'index2'), dimensions: DIMS, maxUnindexedRows: 5 });
    try {
      for (let batch = 0; batch < 6; batch += 1) {
        await small.upsert(Array.from({ length: 4 }, (_, i) => rec(`ctx://resources/b${batch}/${i}.md`, 2, `batch${batch} item${i} shared`)));
        expect((await small.textSearch({ query: `batch${batch} item${batch % 4}`, k: 1 }))[0]?.record.uri).toBe(`ctx://resources/b${batch}/${batch % 4}.md`);
      }
      expect(await small.textSearch({ query: 'shared', k: 100 })).toHaveLength(24);
    } finally {
      await small.close();
    }
  });

  it('searches Chinese text by characters and bigrams, and English by stems', async () => {
    await store.upsert([
      rec('ctx://resources/zh/快速入门.md', 2, '快速入门：安装向量数据库并配置嵌入模型。'),
      rec('ctx://resources/zh/运维.md', 2, '暴风雨期间上行链路中断，我们切换到备用频率。'),
      rec('ctx://resources/en/parsers.md', 2, 'Parsers are registered by extension.'),
    ]);
    expect((await store.textSearch({ query: '向量数据库', k: 3 }))[0]?.record.uri).toBe('ctx://resources/zh/快速入门.md');
    expect((await store.textSearch({ query: '链路为什么中断', k: 3 }))[0]?.record.uri).toBe('ctx://resources/zh/运维.md');
    expect((await store.textSearch({ query: 'parsing', k: 3 }))[0]?.record.uri).toBe('ctx://resources/en/parsers.md');
    // Only stop words: nothing to search for, and no error.
    expect(await store.textSearch({ query: 'the of and', k: 3 })).toEqual([]);
  });
});

describe('LanceDB store: index upkeep', () => {
  async function ftsStats(uri: string) {
    const db = await lancedb.connect(uri);
    try {
      const table = await db.openTable('context');
      const fts = (await table.listIndices()).find((index) => index.indexType === 'FTS');
      return fts ? await table.indexStats(fts.name) : undefined;
    } finally {
      db.close();
    }
  }

  it('creates the full-text index with the first rows, folds new rows in when writes pause, and on request', async () => {
    const uri = join(tmp, 'upkeep');
    const idle = await openLanceStore({ uri, dimensions: DIMS, idleOptimizeMs: 100 });
    try {
      expect(await ftsStats(uri)).toBeUndefined();
      await idle.upsert(Array.from({ length: 20 }, (_, i) => rec(`ctx://resources/a${i}.md`, 2, `alpha ${i}`)));
      expect(await ftsStats(uri)).toMatchObject({ numIndexedRows: 20, numUnindexedRows: 0 });
      await idle.upsert(Array.from({ length: 5 }, (_, i) => rec(`ctx://resources/b${i}.md`, 2, `beta ${i}`)));
      expect(await ftsStats(uri)).toMatchObject({ numIndexedRows: 20, numUnindexedRows: 5 });
      await vi.waitFor(async () => expect(await ftsStats(uri)).toMatchObject({ numIndexedRows: 25, numUnindexedRows: 0 }), { timeout: 10_000, interval: 50 });
    } finally {
      await idle.close();
    }
    const manual = await openLanceStore({ uri, dimensions: DIMS, idleOptimizeMs: 0 });
    try {
      await manual.upsert(Array.from({ length: 5 }, (_, i) => rec(`ctx://resources/c${i}.md`, 2, `gamma ${i}`)));
      expect(await ftsStats(uri)).toMatchObject({ numUnindexedRows: 5 });
      await manual.optimize();
      expect(await ftsStats(uri)).toMatchObject({ numIndexedRows: 30, numUnindexedRows: 0 });
    } finally {
      await manual.close();
    }
  });
});

describe('LanceDB store: opening', () => {
  it('reopens an existing table and refuses other dimensions unless asked to recreate', async () => {
    await store.upsert([rec('ctx://resources/a.md', 2, 'kept')]);
    const again = await openLanceStore({ uri: join(tmp, 'index'), dimensions: DIMS });
    expect(await again.count()).toBe(1);
    await again.close();
    await expect(openLanceStore({ uri: join(tmp, 'index'), dimensions: DIMS * 2 })).rejects.toMatchObject({ code: 'INDEX_FAILED', details: { reason: 'dimension-mismatch' } });
    const recreated = await openLanceStore({ uri: join(tmp, 'index'), dimensions: DIMS * 2, onDimensionMismatch: 'recreate' });
    expect(recreated.dimensions).toBe(DIMS * 2);
    expect(await recreated.count()).toBe(0);
    await recreated.close();
  });

  it('stores vectors as 16-bit floats, and a stored vector written back is unchanged', async () => {
    await store.upsert([rec('ctx://resources/a.md', 2, 'half precision antennas')]);
    const db = await lancedb.connect(join(tmp, 'index'));
    const table = await db.openTable('context');
    expect((await table.schema()).fields.find((f) => f.name === 'vector')?.type.toString()).toBe(`List<FixedSizeList[${DIMS}]<Float16>>`);
    table.close();
    db.close();
    const [first] = await store.get(['ctx://resources/a.md#2']);
    await store.upsert([{ ...rec('ctx://resources/a.md', 2, 'half precision antennas'), vector: first!.vector! }]);
    const [second] = await store.get(['ctx://resources/a.md#2']);
    expect(Array.from(second!.vector!)).toEqual(Array.from(first!.vector!));
  });

  it('holds records without a vector: full text finds them, vector search never does, and they store no vector', async () => {
    expect(store.vectorsOptional).toBe(true);
    const texts = Array.from({ length: 30 }, (_, i) => `note ${i} about ${i % 2 ? 'storm fronts' : 'antenna cables'} and item${i}`);
    // Even rows come without a vector.
    await store.upsert(texts.map((text, i) => rec(`ctx://resources/notes/n${i}.md`, 2, text, i % 2 === 0 ? { vector: null } : {})));
    expect(await store.count()).toBe(30);
    expect((await store.textSearch({ query: 'item4', k: 3 }))[0]?.record.uri).toBe('ctx://resources/notes/n4.md');
    const hits = await store.vectorSearch({ vector: embedText('antenna cables item4', DIMS), k: 30 });
    expect(hits.map((hit) => hit.record.uri).sort()).toEqual(texts.map((_, i) => `ctx://resources/notes/n${i}.md`).filter((_, i) => i % 2 === 1).sort());
    expect((await store.vectorSearch({ vector: embedText('note 5', DIMS), k: 1, exact: true, filter: { parentUris: ['ctx://resources/notes/'] } }))[0]?.record.uri).toBe('ctx://resources/notes/n5.md');
    const [without, withVector] = await store.get(['ctx://resources/notes/n4.md#2', 'ctx://resources/notes/n5.md#2']).then((rows) => rows.sort((a, b) => a.id.localeCompare(b.id)));
    expect(without?.vector).toBeUndefined();
    expect(Array.from(withVector!.vector!)).toEqual(Array.from(roundToFloat16(embedText(texts[5]!, DIMS))));
    // What a row without a vector costs: the same rows, all with vectors, take DIMS × 2 bytes more each.
    const sizes: number[] = [];
    for (const [name, vectorless] of [['all', false], ['half', true]] as const) {
      const db = await lancedb.connect(join(tmp, name));
      const schema = tableSchema(DIMS);
      const table = await db.createEmptyTable('context', schema);
      await table.add(toArrowTable(schema, texts.map((text, i) => rec(`ctx://resources/notes/n${i}.md`, 2, text, vectorless && i % 2 === 0 ? { vector: null } : {})), DIMS));
      const field = (await table.schema()).fields.find((f) => f.name === 'vector');
      expect(field?.type.toString()).toBe(`List<FixedSizeList[${DIMS}]<Float16>>`);
      table.close();
      db.close();
      sizes.push(await dirBytes(join(tmp, name, 'context.lance', 'data')));
    }
    expect((sizes[0] as number) - (sizes[1] as number)).toBeGreaterThanOrEqual(15 * DIMS * 2 * 0.9);
  });

  it('keeps a table made with one fixed-size vector per row as it is, and refuses a record without a vector there', async () => {
    await store.close();
    const uri = join(tmp, 'fixed-index');
    const db = await lancedb.connect(uri);
    const fixed = tableSchema(DIMS, 'float16');
    const old = await db.createEmptyTable('context', fixed);
    await old.add(toArrowTable(fixed, [rec('ctx://resources/a.md', 2, 'antenna cables')], DIMS));
    old.close();
    db.close();
    store = await openLanceStore({ uri, dimensions: DIMS });
    expect(store.vectorsOptional).toBe(false);
    await expect(store.upsert([rec('ctx://resources/b.md', 2, 'storm fronts', { vector: null })])).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await store.upsert([rec('ctx://resources/b.md', 2, 'storm fronts')]);
    expect((await store.vectorSearch({ vector: embedText('storm fronts', DIMS), k: 1 }))[0]?.record.uri).toBe('ctx://resources/b.md');
  });

  it('converts a table of 32-bit vectors (made before 16-bit ones) on open, keeping its rows and what search finds', async () => {
    await store.close();
    const uri = join(tmp, 'old-index');
    const texts = Array.from({ length: 40 }, (_, i) => `note ${i} about ${i % 2 ? 'storm fronts' : 'antenna cables'} and item${i}`);
    const records = texts.map((text, i) => rec(`ctx://resources/notes/n${i}.md`, 2, text));
    const db = await lancedb.connect(uri);
    const oldSchema = tableSchema(DIMS, 'float32');
    const old = await db.createEmptyTable('context', oldSchema);
    await old.add(toArrowTable(oldSchema, records, DIMS));
    // LanceDB refuses to cast an indexed column: the old table's ANN index must not stop the conversion.
    await old.createIndex('vector', { config: lancedb.Index.ivfFlat({ distanceType: 'cosine', numPartitions: 2 }) });
    old.close();
    store = await openLanceStore({ uri, dimensions: DIMS, annMinRows: 20 });
    const table = await db.openTable('context');
    expect((await table.schema()).fields.find((f) => f.name === 'vector')?.type.toString()).toBe(`FixedSizeList[${DIMS}]<Float16>`);
    expect(await table.countRows()).toBe(40);
    table.close();
    db.close();
    expect(await store.count()).toBe(40);
    const query = embedText('antenna cables item4', DIMS);
    const hits = await store.vectorSearch({ vector: query, k: 3 });
    expect(hits[0]?.record.uri).toBe('ctx://resources/notes/n4.md');
    const [row] = await store.get(['ctx://resources/notes/n7.md#2']);
    expect(Array.from(row!.vector!)).toEqual(Array.from(roundToFloat16(records[7]!.vector!)));
    // Writes after the conversion go in as 16-bit vectors too, and the ANN index is trained again over them.
    await store.upsert([rec('ctx://resources/notes/new.md', 2, 'written after the conversion')]);
    expect(await store.count()).toBe(41);
    await store.optimize();
    const again = await lancedb.connect(uri);
    const converted = await again.openTable('context');
    expect((await converted.listIndices()).some((index) => index.columns.includes('vector'))).toBe(true);
    converted.close();
    again.close();
    expect((await store.vectorSearch({ vector: query, k: 3 }))[0]?.record.uri).toBe('ctx://resources/notes/n4.md');
  });

  it('fails with INDEX_FAILED after close instead of touching a closed table', async () => {
    await store.close();
    await expect(store.count()).rejects.toMatchObject({ code: 'INDEX_FAILED' });
  });
});
