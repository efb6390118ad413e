/**
 * The search index end to end: the local embedder, a real LanceDB in a temporary folder, and
 * the four search modes over a small tree of directories (L0/L1) and files (L2), in English and
 * Chinese, with sessions that carry message ids.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

vi.hoisted(() => {
  process.env.LANCEDB_LOG ??= 'error';
});

import { createLocalEmbedder } from '../../main/adapters/embed/local.js';
import { openLanceStore } from '../../main/adapters/store/lancedb/index.js';
import { createSearchIndex, reciprocalRankFusion, type SearchIndex } from '../../main/engine/index/search-index.js';
import type { IndexInput } from '../../main/engine/ports/context-index.js';
import type { EmbeddingModel } from '../../main/engine/ports/embedding-model.js';
import type { VectorStore } from '../../main/engine/ports/vector-store.js';
import type { ContextType, Provenance } from '../../shared/types/node.js';

const DIMS = 512;
let tmp: string;
let store: VectorStore;
let index: SearchIndex;

function parentOf(uri: string): string | null {
  const bare = uri.endsWith('/') ? uri.slice(0, -1) : uri;
  const cut = bare.lastIndexOf('/');
  return cut <= 'ctx://'.length ? null : bare.slice(0, cut + 1);
}

function input(uri: string, level: 0 | 1 | 2, text: string, extra: { category?: string; context_type?: ContextType; provenance?: Provenance } = {}): IndexInput {
  return {
    id: `${uri}#${level}`,
    uri,
    parent_uri: parentOf(uri),
    level,
    context_type: extra.context_type ?? 'resource',
    category: extra.category ?? (uri.endsWith('/') ? 'directory' : 'document'),
    text,
    tokens: text.length,
    content_hash: `h${text.length}`,
    updated_at: '2024-05-08T13:56:00.000Z',
    provenance: extra.provenance ?? { source: `/sample/${uri.slice('ctx://resources/'.length)}` },
  };
}

/** A small workspace: two document folders, a runbook folder whose leaves say little by themselves, notes, Chinese docs and a session. */
const CORPUS: IndexInput[] = [
  input('ctx://resources/ops/', 0, 'Operations: running the weather station, its network and its recovery procedures'),
  input('ctx://resources/ops/storm/', 0, 'Storm recovery runbook: how to recover the station after a storm or severe weather'),
  input('ctx://resources/ops/storm/', 1, '# Storm recovery\n- Restoring power after a storm\n- Recovering the uplink\n- Checks once the weather clears'),
  input('ctx://resources/ops/storm/re-point.md', 2, 'Re-point the dish to 41.2 degrees azimuth, then switch the modem to the backup frequency.', { provenance: { source: '/sample/ops/storm/re-point.md', lines: [12, 18] } }),
  input('ctx://resources/ops/storm/power.md', 2, 'Reset breaker B2 and confirm the battery bank reads above 48 volts before powering the rack.'),
  input('ctx://resources/ops/network/', 0, 'Network configuration: addresses, VLANs and the modem settings'),
  input('ctx://resources/ops/network/vlans.md', 2, 'VLAN 20 carries telemetry; VLAN 30 carries management traffic. Trunk ports tag both.'),
  input('ctx://resources/ops/network/modem.md', 2, 'Error code E4417 means the modem lost carrier lock; it retries on its own every thirty seconds.'),
  input('ctx://resources/ops/network/antenna.md', 2, 'Antenna alignment drifts in strong wind; the antenna mount needs a torque check each season.'),
  input('ctx://resources/notes/', 0, 'Personal notes and daily logs'),
  input('ctx://resources/notes/2024-05-08.md', 2, 'Storm watch today: clouds built up but the storm stayed quiet over the valley.'),
  input('ctx://resources/notes/2024-05-09.md', 2, 'Lunch meeting about budget planning for next quarter and the new parser library.'),
  input('ctx://resources/docs/', 0, 'Developer documentation for the ingest pipeline'),
  input('ctx://resources/docs/parsers.md', 2, 'Parsers are registered by file extension and by content sniffing; Markdown, PDF and code each have one.'),
  input('ctx://resources/docs/splitting.md', 2, 'Documents over 1024 tokens are split by headings; small sections merge with their neighbours.'),
  input('ctx://resources/zh/', 0, '中文文档：快速入门和运维说明'),
  input('ctx://resources/zh/快速入门.md', 2, '快速入门：安装向量数据库，配置嵌入模型，然后导入第一个文件夹。'),
  input('ctx://resources/zh/运维.md', 2, '暴风雨期间上行链路中断，我们把调制解调器切换到备用频率，并重新校准天线。'),
  input('ctx://session/s1/', 1, 'Conversation about the storm outage and the backup frequency', { context_type: 'session', category: 'conversation' }),
  input('ctx://session/s1/messages.md', 2, 'Ana: the uplink dropped at 13:56. Bo: switching to the backup frequency now.', {
    context_type: 'session',
    category: 'conversation',
    provenance: { source: '/chats/storm.json', message_ids: ['s1:1', 's1:2'] },
  }),
];

beforeEach(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'cairn-search-'));
  store = await openLanceStore({ uri: join(tmp, 'index'), dimensions: DIMS });
  index = createSearchIndex({ embedder: createLocalEmbedder({ dimensions: DIMS }), store });
  await index.upsert(CORPUS);
});
afterEach(async () => {
  await store.close();
  await rm(tmp, { recursive: true, force: true });
});

const uris = (hits: { uri: string }[]) => hits.map((h) => h.uri);

describe('search modes', () => {
  it('hybrid ranks both an exact-term match and a near match (misspelt words) at the top, where full text alone misses the near one', async () => {
    // Full text sees the error code only; the vector also sees the misspelt words through shared character trigrams.
    const query = 'E4417 antena alinment';
    const hybrid = await index.search({ text: query, k: 3 });
    expect(uris(hybrid).slice(0, 2).sort()).toEqual(['ctx://resources/ops/network/antenna.md', 'ctx://resources/ops/network/modem.md']);
    const fts = await index.search({ text: query, k: 3, mode: 'fts' });
    expect(uris(fts)).toEqual(['ctx://resources/ops/network/modem.md']);
    const vector = await index.search({ text: query, k: 3, mode: 'vector' });
    expect(uris(vector)).toContain('ctx://resources/ops/network/antenna.md');
    for (const hit of [...hybrid, ...fts, ...vector]) {
      expect(hit.score).toBeGreaterThanOrEqual(0);
      expect(hit.score).toBeLessThanOrEqual(1);
    }
    // Fused scores: first in both lists would be 1; first in one list only is 0.5.
    expect(hybrid[0]?.score).toBeGreaterThan(0.5);
  });

  it('hierarchical finds a leaf through the directory that matches, where direct search does not', async () => {
    const query = 'how to recover after a storm';
    const leaf = 'ctx://resources/ops/storm/re-point.md';
    const direct = await index.search({ text: query, k: 4, mode: 'hybrid', filter: { levels: [2] } });
    expect(uris(direct)).not.toContain(leaf);
    const hierarchical = await index.search({ text: query, k: 4, mode: 'hierarchical', filter: { levels: [2] } });
    expect(uris(hierarchical)).toContain(leaf);
    expect(uris(hierarchical)).toContain('ctx://resources/ops/storm/power.md');
    const hit = hierarchical.find((h) => h.uri === leaf);
    expect(hit?.provenance).toEqual({ source: '/sample/ops/storm/re-point.md', lines: [12, 18], message_ids: [] });
    // Without a level filter the directory itself comes first.
    const all = await index.search({ text: query, k: 3, mode: 'hierarchical' });
    expect(all[0]?.uri).toBe('ctx://resources/ops/storm/');
  });

  it('answers Chinese queries in every mode, with a snippet around the match', async () => {
    for (const mode of ['hybrid', 'fts', 'vector', 'hierarchical'] as const) {
      const hits = await index.search({ text: '上行链路为什么中断', k: 3, mode });
      expect(hits[0]?.uri, mode).toBe('ctx://resources/zh/运维.md');
    }
    const [hit] = await index.search({ text: '怎么配置嵌入模型', k: 1 });
    expect(hit?.uri).toBe('ctx://resources/zh/快速入门.md');
    expect(hit?.snippet).toContain('配置嵌入模型');
  });

  it('names the messages a session hit comes from', async () => {
    const [hit] = await index.search({ text: 'when did the uplink drop', k: 1, filter: { scope: 'session', levels: [2] } });
    expect(hit).toMatchObject({
      uri: 'ctx://session/s1/messages.md',
      level: 2,
      context_type: 'session',
      category: 'conversation',
      provenance: { source: '/chats/storm.json', lines: null, message_ids: ['s1:1', 's1:2'] },
    });
  });
});

describe('search options', () => {
  it('honours top_k, min_score and filters, with one hit per URI', async () => {
    const hits = await index.search({ text: 'storm', k: 50 });
    expect(new Set(uris(hits)).size).toBe(hits.length);
    expect((await index.search({ text: 'storm', k: 2 })).length).toBe(2);

    const minScore = 0.6;
    const strong = await index.search({ text: 'storm', k: 50, minScore });
    expect(strong.length).toBeGreaterThan(0);
    expect(strong.length).toBeLessThan(hits.length);
    expect(strong.every((h) => h.score >= minScore)).toBe(true);

    const scoped = await index.search({ text: 'storm', k: 50, filter: { scope: 'session' } });
    expect(scoped.length).toBeGreaterThan(0);
    expect(scoped.every((h) => h.uri.startsWith('ctx://session/'))).toBe(true);
    const underOps = await index.search({ text: 'storm', k: 50, filter: { uriPrefix: 'ctx://resources/ops/' }, mode: 'hierarchical' });
    expect(underOps.length).toBeGreaterThan(0);
    expect(underOps.every((h) => h.uri.startsWith('ctx://resources/ops/'))).toBe(true);
    const directories = await index.search({ text: 'storm', k: 50, filter: { levels: [0, 1], categories: ['directory'] } });
    expect(directories.length).toBeGreaterThan(0);
    expect(directories.every((h) => h.uri.endsWith('/') && h.category === 'directory')).toBe(true);
  });

  it('breaks score ties in natural order of the node: 2.4.0 before 2.39.5', async () => {
    const text = 'Release notes: the anemometer calibration drift is fixed.';
    await index.upsert(['2.39.5', '2.4.0', '10.0.0'].map((version) => input(`ctx://resources/releases/${version}.md`, 2, text)));
    const hits = await index.search({ text: 'anemometer calibration drift', k: 3, mode: 'fts' });
    expect(new Set(hits.map((h) => h.score)).size).toBe(1);
    expect(uris(hits)).toEqual(['ctx://resources/releases/2.4.0.md', 'ctx://resources/releases/2.39.5.md', 'ctx://resources/releases/10.0.0.md']);
  });

  it('rejects impossible options with INVALID_INPUT and returns nothing for an empty query', async () => {
    await expect(index.search({ text: 'storm', k: 0 })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(index.search({ text: 'storm', minScore: 2 })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(index.search({ text: 'storm', mode: 'fuzzy' as never })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(await index.search({ text: '   ' })).toEqual([]);
  });

  it('lets a reranker reorder the candidates', async () => {
    const reranked = createSearchIndex({
      embedder: createLocalEmbedder({ dimensions: DIMS }),
      store,
      reranker: async (_query, candidates) => candidates.map((c) => (c.uri.includes('vlans') ? 0.99 : c.score / 2)),
    });
    const hits = await reranked.search({ text: 'storm', k: 3 });
    expect(hits[0]?.uri).toBe('ctx://resources/ops/network/vlans.md');
    expect(hits[0]?.score).toBe(0.99);
  });

  it('fuses ranks by reciprocal rank fusion, normalised so first in every list is 1', () => {
    const fused = reciprocalRankFusion([
      ['a', 'b', 'c'],
      ['b', 'a'],
    ]);
    expect(fused.get('a')).toBeCloseTo(fused.get('b') as number, 12);
    expect(fused.get('a')).toBeCloseTo((1 / 61 + 1 / 62) / (2 / 61), 12);
    expect(fused.get('c')).toBeCloseTo(1 / 63 / (2 / 61), 12);
    expect(reciprocalRankFusion([['x'], ['x']]).get('x')).toBe(1);
  });

  it('weights the lists: with the local embedder full text leads and vectors add what it misses', () => {
    const fused = reciprocalRankFusion([['a', 'b'], ['b', 'c']], 20, [1, 0.5]);
    // First in full text beats first in vectors; both lists still count.
    expect(fused.get('b') as number).toBeGreaterThan(fused.get('a') as number);
    expect(fused.get('a') as number).toBeGreaterThan(fused.get('c') as number);
    expect(fused.get('b')).toBeCloseTo((1 / 22 + 0.5 / 21) / (1.5 / 21), 12);
    expect(reciprocalRankFusion([['x'], ['x']], 20, [1, 0.5]).get('x')).toBe(1);
  });
});

describe('embedding context', () => {
  const reply = (context: string): IndexInput => ({
    ...input('ctx://session/race/s2.md', 2, '[2024-04-08] Ben: I finished! 1 hour 52 minutes.', { context_type: 'session', category: 'message', provenance: { source: '/chats/race.json', message_ids: ['s2:2'] } }),
    id: 'ctx://session/race/s2.md#m:s2:2',
    content_hash: `reply:${context}`,
    embed_context: context,
  });

  it('finds a message through its neighbours by vector, never by full text, and shows only its own words', async () => {
    await index.upsert([reply('So?? How did the Berlin half marathon go?\nUnder two hours on your first half marathon is amazing.')]);
    const vector = await index.search({ text: 'Berlin half marathon time', k: 3, mode: 'vector' });
    expect(uris(vector)).toContain('ctx://session/race/s2.md');
    const fts = await index.search({ text: 'Berlin marathon', k: 10, mode: 'fts' });
    expect(uris(fts)).not.toContain('ctx://session/race/s2.md');
    const hit = vector.find((h) => h.uri === 'ctx://session/race/s2.md');
    expect(hit?.snippet).toContain('52 minutes');
    expect(hit?.snippet).not.toContain('Berlin');
    expect(hit?.provenance.message_ids).toEqual(['s2:2']);
  });

  it('embeds the message again when its context changes, and only then', async () => {
    let embedded: string[] = [];
    const local = createLocalEmbedder({ dimensions: DIMS });
    const counting: EmbeddingModel = {
      ...local,
      modelId: local.modelId,
      async embed(options) {
        embedded.push(...options.texts);
        return local.embed(options);
      },
    };
    const again = createSearchIndex({ embedder: counting, store });
    await again.upsert([reply('How did Berlin go?')]);
    expect(embedded).toEqual(['[2024-04-08] Ben: I finished! 1 hour 52 minutes.\nHow did Berlin go?']);
    embedded = [];
    await again.upsert([reply('How did Berlin go?')]);
    expect(embedded).toEqual([]);
    await again.upsert([reply('How did Valencia go?')]);
    expect(embedded).toHaveLength(1);
    expect((await again.search({ text: 'Valencia', k: 1, mode: 'vector' }))[0]?.uri).toBe('ctx://session/race/s2.md');
  });
});

describe('index upkeep', () => {
  it('removeUnder keeps search in step with rm and mv, and leaves siblings alone', async () => {
    await index.upsert([input('ctx://resources/opsx/', 0, 'A sibling folder about storm shelters'), input('ctx://resources/opsx/shelter.md', 2, 'Storm shelter keys hang by the door.')]);
    await index.removeUnder('ctx://resources/ops/');
    const hits = await index.search({ text: 'storm antenna modem shelter', k: 50 });
    expect(uris(hits).filter((u) => u.startsWith('ctx://resources/ops/'))).toEqual([]);
    expect(uris(hits)).toContain('ctx://resources/opsx/shelter.md');
  });

  it('embeds only records whose text changed', async () => {
    let embedded = 0;
    const local = createLocalEmbedder({ dimensions: DIMS });
    const counting: EmbeddingModel = {
      ...local,
      modelId: local.modelId,
      async embed(options) {
        embedded += options.texts.length;
        return local.embed(options);
      },
    };
    const again = createSearchIndex({ embedder: counting, store });
    await again.upsert(CORPUS);
    expect(embedded).toBe(0);
    const changed = { ...(CORPUS[6] as IndexInput), text: 'VLAN 40 now carries telemetry.' };
    await again.upsert([...CORPUS.slice(0, 6), changed]);
    expect(embedded).toBe(1);
    expect((await again.search({ text: 'VLAN 40', k: 1, mode: 'vector' }))[0]?.uri).toBe('ctx://resources/ops/network/vlans.md');
  });

  it("gives a resource file's L0 and L1 no vector (its L2 has one), keeps them for directories and sessions, and full text still finds them", async () => {
    let embedded: string[] = [];
    const local = createLocalEmbedder({ dimensions: DIMS });
    const counting: EmbeddingModel = {
      ...local,
      modelId: local.modelId,
      async embed(options) {
        embedded.push(...options.texts);
        return local.embed(options);
      },
    };
    const counted = createSearchIndex({ embedder: counting, store });
    const file = 'ctx://resources/docs/sniffing.md';
    const session = 'ctx://session/s2/chat.json';
    const records = [
      input(file, 0, 'Content sniffing: how a parser is chosen without an extension'),
      input(file, 1, '# Content sniffing\n- magic bytes decide the parser when a file has no extension'),
      input(file, 2, 'A file without an extension is sniffed: its first bytes (magic numbers) choose the parser.'),
      input('ctx://resources/docs/sniff/', 0, 'Sniffing rules for files without extensions'),
      input(session, 1, 'Ana: which parser reads a file without an extension?', { context_type: 'session', category: 'message', provenance: { message_ids: ['s2:1'] } }),
    ];
    await counted.upsert(records);
    expect(embedded).toEqual([records[2]!.text, records[3]!.text, records[4]!.text]);
    const stored = new Map((await store.get(records.map((r) => r.id))).map((r) => [r.id, r]));
    expect([`${file}#0`, `${file}#1`, `${file}#2`, 'ctx://resources/docs/sniff/#0', `${session}#1`].map((id) => stored.get(id)?.vector !== undefined)).toEqual([false, false, true, true, true]);
    expect(stored.get(`${file}#0`)?.embed_model).toBe(local.modelId);
    const levelZero = await counted.search({ text: 'content sniffing parser', k: 5, mode: 'hybrid', filter: { levels: [0] } });
    expect(uris(levelZero)).toContain(file);
    expect(uris(await counted.search({ text: 'magic bytes', k: 3, mode: 'vector' }))).toContain(file);
    // Written again unchanged: nothing is embedded, the L0/L1 stay without a vector.
    embedded = [];
    await counted.upsert(records);
    expect(embedded).toEqual([]);
    expect((await store.get([`${file}#1`]))[0]?.vector).toBeUndefined();
  });

  it('re-embeds every record when the embedding model changes, and searches only current vectors meanwhile', async () => {
    // Another model with the same dimensions: same features, different hashing seed in effect (a permuted vector).
    const local = createLocalEmbedder({ dimensions: DIMS });
    const permute = (v: Float32Array) => Float32Array.from(v, (_, i) => v[(i * 7 + 3) % DIMS] as number);
    const next: EmbeddingModel = {
      provider: 'test',
      modelId: 'next-model-v2',
      dimensions: DIMS,
      maxBatchSize: 8,
      async embed(options) {
        const { vectors } = await local.embed(options);
        return { vectors: vectors.map(permute) };
      },
    };
    const upgraded = createSearchIndex({ embedder: next, store });
    expect(await store.embedModels()).toEqual([local.modelId]);
    // Until re-embedded, vector search with the new model has nothing comparable to look at.
    expect(await upgraded.search({ text: 'backup frequency', k: 5, mode: 'vector' })).toEqual([]);
    // Full text does not depend on vectors.
    expect((await upgraded.search({ text: 'backup frequency', k: 5, mode: 'fts' })).length).toBeGreaterThan(0);

    let progress = 0;
    const { reembedded } = await upgraded.reembedAll({ batchSize: 7, onProgress: (n) => (progress = n) });
    expect(reembedded).toBe(CORPUS.length);
    expect(progress).toBe(CORPUS.length);
    expect(await store.embedModels()).toEqual(['next-model-v2']);
    expect(await store.count()).toBe(CORPUS.length);
    expect((await upgraded.search({ text: '41.2 degrees azimuth', k: 1, mode: 'vector' }))[0]?.uri).toBe('ctx://resources/ops/storm/re-point.md');
    expect((await upgraded.reembedAll()).reembedded).toBe(0);
  });
});
