import { describe, expect, it } from 'vitest';
import type { NodeMeta } from '../../../shared/types/node.js';
import { documentsOf, rankHits, type RankInput } from './rank.js';
import type { SearchHit } from './search-index.js';

function hit(uri: string, level: 0 | 1 | 2, score: number, extra: Partial<SearchHit> = {}): SearchHit {
  const parent = uri.replace(/[^/]+\/?$/, '');
  return {
    id: `${uri}#${level}`,
    uri,
    parent_uri: parent,
    level,
    score,
    snippet: `text of ${uri}`,
    highlights: [],
    heading: null,
    content_hash: `hash of ${uri}#${level}`,
    coverage: 1,
    context_type: 'resource',
    category: 'markdown',
    provenance: { source: null, lines: null, message_ids: [] },
    ...extra,
  };
}

const own = (h: SearchHit, title = h.uri.split('/').filter(Boolean).pop()!): RankInput => ({ hit: h, document: { uri: h.uri, title } });
const inDoc = (h: SearchHit, uri: string, title: string): RankInput => ({ hit: h, document: { uri, title } });

describe('rankHits', () => {
  it('is one list by relevance whatever the level: a strong L2 hit comes before weaker L0 hits', () => {
    const ranked = rankHits([own(hit('ctx://resources/a/', 0, 0.27)), own(hit('ctx://resources/b.md', 1, 0.2)), own(hit('ctx://resources/pool.md', 2, 1))], { weakBelow: 0 });
    expect(ranked.map((r) => [r.uri, r.score])).toEqual([
      ['ctx://resources/pool.md', 1],
      ['ctx://resources/a/', 0.27],
      ['ctx://resources/b.md', 0.2],
    ]);
    expect(ranked[0]).toMatchObject({ scope: 'resources', weak: false, also_at: [] });
  });

  it('merges the hits of a document’s sections and of its own L0/L1 under it, best first, titled by the document', () => {
    const doc = 'ctx://resources/guide.md/';
    const ranked = rankHits(
      [
        own(hit('ctx://resources/other.md', 2, 0.9)),
        inDoc(hit(`${doc}02-part.md`, 2, 0.95, { heading: 'Connection pools' }), doc, 'Database guide'),
        inDoc(hit(`${doc}05-part.md`, 2, 0.5, { heading: 'Timeouts' }), doc, 'Database guide'),
        inDoc(hit(doc, 0, 0.4), doc, 'Database guide'),
      ],
      { weakBelow: 0 },
    );
    expect(ranked.map((r) => r.uri)).toEqual([doc, 'ctx://resources/other.md']);
    expect(ranked[0]!.title).toBe('Database guide');
    expect(ranked[0]!.score).toBe(0.95);
    expect(ranked[0]!.hits.map((h) => [h.uri, h.level, h.heading])).toEqual([
      [`${doc}02-part.md`, 2, 'Connection pools'],
      [`${doc}05-part.md`, 2, 'Timeouts'],
      [doc, 0, null],
    ]);
  });

  it('collapses identical content into one hit and lists the other places as “also at”', () => {
    const a = hit('ctx://resources/notes/pool.md', 2, 0.8, { content_hash: 'same' });
    const b = hit('ctx://resources/backup/pool.md', 2, 0.8, { content_hash: 'same' });
    const c = hit('ctx://resources/notes/other.md', 2, 0.7);
    const ranked = rankHits([own(a), own(b), own(c)], { weakBelow: 0 });
    expect(ranked.map((r) => r.uri)).toEqual(['ctx://resources/notes/pool.md', 'ctx://resources/notes/other.md']);
    expect(ranked[0]!.also_at).toEqual(['ctx://resources/backup/pool.md']);
    expect(ranked[0]!.hits[0]!.also_at).toEqual(['ctx://resources/backup/pool.md']);
    // The same text at another level is not a copy.
    const summary = hit('ctx://resources/backup/pool.md', 0, 0.75, { content_hash: 'same' });
    expect(rankHits([own(a), own(summary)], { weakBelow: 0 })).toHaveLength(2);
  });

  it('folds a copied document into the one that ranks first, section by section', () => {
    const first = 'ctx://resources/guide.md/';
    const copy = 'ctx://resources/old/guide.md/';
    const section = (doc: string, name: string, score: number) => inDoc(hit(`${doc}${name}`, 2, score, { content_hash: name }), doc, 'Guide');
    const ranked = rankHits([section(copy, '01-a.md', 0.9), section(first, '01-a.md', 0.9), section(first, '02-b.md', 0.6), section(copy, '02-b.md', 0.6)], { weakBelow: 0 });
    expect(ranked).toHaveLength(1);
    // Equal scores: the index breaks ties by id, so the input order decides which copy shows.
    expect(ranked[0]!.uri).toBe(copy);
    expect(ranked[0]!.hits.map((h) => h.uri)).toEqual([`${copy}01-a.md`, `${copy}02-b.md`]);
    expect(ranked[0]!.also_at).toEqual([first]);
  });

  it('flags results under the floor as weak, by their best hit', () => {
    const doc = 'ctx://resources/d.md/';
    const ranked = rankHits([own(hit('ctx://resources/strong.md', 2, 0.9)), inDoc(hit(`${doc}01.md`, 2, 0.35), doc, 'D'), inDoc(hit(`${doc}02.md`, 2, 0.1), doc, 'D'), own(hit('ctx://resources/noise.md', 2, 0.2))], {
      weakBelow: 0.3,
    });
    expect(ranked.map((r) => [r.uri, r.weak])).toEqual([
      ['ctx://resources/strong.md', false],
      [doc, false],
      ['ctx://resources/noise.md', true],
    ]);
  });

  it('lists a result made weak by its coverage after the strong ones, each part in score order', () => {
    // One common word of the query carried the first hit (coverage 0.4): weak at 0.9 × 0.4.
    const common = hit('ctx://resources/last.md', 2, 0.9, { coverage: 0.4 });
    const ranked = rankHits([own(common), own(hit('ctx://resources/answer.md', 2, 0.8)), own(hit('ctx://resources/noise.md', 2, 0.2)), own(hit('ctx://resources/also.md', 2, 0.5))], { weakBelow: 0.45 });
    expect(ranked.map((r) => [r.uri, r.weak])).toEqual([
      ['ctx://resources/answer.md', false],
      ['ctx://resources/also.md', false],
      ['ctx://resources/last.md', true],
      ['ctx://resources/noise.md', true],
    ]);
  });

  it('keeps each conversation message its own result', () => {
    const session = 'ctx://session/chat.jsonl';
    const m1 = hit(session, 2, 0.9, { id: `${session}#m1`, content_hash: 'h1', provenance: { source: null, lines: null, message_ids: ['m1'] } });
    const m2 = hit(session, 2, 0.8, { id: `${session}#m2`, content_hash: 'h2', provenance: { source: null, lines: null, message_ids: ['m2'] } });
    const ranked = rankHits([own(m1, 'chat'), own(m2, 'chat')], { weakBelow: 0 });
    expect(ranked.map((r) => r.hits.map((h) => h.provenance.message_ids))).toEqual([[['m1']], [['m2']]]);
  });

  it('puts a message’s lifted neighbour under it as its context, never as a result of its own; one whose lifter is not listed stands alone', () => {
    const session = 'ctx://session/chat/s1.md';
    const message = (id: string, score: number, extra: Partial<SearchHit> = {}) =>
      hit(session, 2, score, { id: `${session}#m:${id}`, content_hash: id, context_type: 'session', provenance: { source: null, lines: null, message_ids: [id] }, ...extra });
    const ranked = rankHits(
      [
        own(message('m3', 1.1)),
        // A reply with no word of the query, lifted by m3 to just under it, and weak by itself.
        own(message('m4', 1.09, { neighbour_of: 'm3', coverage: 0 })),
        own(hit('ctx://resources/notes.md', 2, 0.95)),
        own(message('m9', 0.9)),
        own(message('m2', 0.5, { neighbour_of: 'm3' })),
        own(message('m8', 0.4, { neighbour_of: 'm7' })),
      ],
      { weakBelow: 0.5 },
    );
    expect(ranked.map((r) => [r.uri, r.hits.map((h) => [h.provenance.message_ids[0] ?? null, h.neighbour_of ?? null]), r.weak])).toEqual([
      [
        session,
        [
          ['m3', null],
          ['m4', 'm3'],
          ['m2', 'm3'],
        ],
        false,
      ],
      ['ctx://resources/notes.md', [[null, null]], false],
      [session, [['m9', null]], false],
      // m7 is not among the hits: its neighbour is judged by itself.
      [session, [['m8', null]], true],
    ]);
  });

  it('makes a memory one result: its abstract, overview and content name the same messages', () => {
    const memory = 'ctx://user/memories/semantic/mem_1.md';
    const from = { source: null, lines: null, message_ids: ['m26'] };
    const levels = ([2, 1, 0] as const).map((level, i) => hit(memory, level, 1 - i / 10, { context_type: 'memory', provenance: from }));
    const ranked = rankHits(levels.map((h) => own(h, 'Decision: use a pool')), { weakBelow: 0 });
    expect(ranked).toHaveLength(1);
    expect(ranked[0]!.hits.map((h) => h.level)).toEqual([2, 1, 0]);
  });
});

describe('documentsOf', () => {
  const meta = (uri: string, extra: Partial<NodeMeta>): NodeMeta => ({ uri, kind: uri.endsWith('/') ? 'dir' : 'file', context_type: 'resource', created_at: '', updated_at: '', ...extra });
  const metas = new Map<string, NodeMeta>([
    ['ctx://resources/docs/', meta('ctx://resources/docs/', {})],
    ['ctx://resources/docs/guide.md/', meta('ctx://resources/docs/guide.md/', { document: true, title: 'Database guide', source_path: '/src/guide.md' })],
    ['ctx://resources/docs/guide.md/03-pools/', meta('ctx://resources/docs/guide.md/03-pools/', { document: true })],
    ['ctx://resources/docs/plain.md/', meta('ctx://resources/docs/plain.md/', { document: true, source_path: '/src/plain.md' })],
    ['ctx://resources/docs/readme.md', meta('ctx://resources/docs/readme.md', { title: 'Read me first' })],
  ]);
  const fs = { readMetaOf: async (uri: string) => metas.get(uri) ?? null };

  it('puts a section, however deep, under its outermost document directory, with the document’s title', async () => {
    const [deep, top, plain, file, code] = await documentsOf(fs, [
      hit('ctx://resources/docs/guide.md/03-pools/02-part.md', 2, 1),
      hit('ctx://resources/docs/guide.md/', 1, 0.5),
      hit('ctx://resources/docs/plain.md/01-part.txt', 2, 0.4),
      hit('ctx://resources/docs/readme.md', 0, 0.3),
      hit('ctx://resources/docs/main.ts', 2, 0.2),
    ]);
    expect(deep!.document).toEqual({ uri: 'ctx://resources/docs/guide.md/', title: 'Database guide' });
    expect(top!.document).toEqual({ uri: 'ctx://resources/docs/guide.md/', title: 'Database guide' });
    // Without a title in its meta, a document is named after its source file.
    expect(plain!.document).toEqual({ uri: 'ctx://resources/docs/plain.md/', title: 'plain.md' });
    expect(file!.document).toEqual({ uri: 'ctx://resources/docs/readme.md', title: 'Read me first' });
    expect(code!.document).toEqual({ uri: 'ctx://resources/docs/main.ts', title: 'main.ts' });
  });

  it('titles a memory by its title and a message by its conversation, not by their file names', async () => {
    const session = (uri: string, extra: Partial<NodeMeta>) => meta(uri, { context_type: 'session', ...extra });
    metas.set('ctx://session/pool-leak/', session('ctx://session/pool-leak/', { title: 'A leaked pool connection' }));
    metas.set('ctx://session/pool-leak/s1.md', session('ctx://session/pool-leak/s1.md', {}));
    metas.set('ctx://user/memories/semantic/mem_1.md', { ...meta('ctx://user/memories/semantic/mem_1.md', { context_type: 'memory' }), memory: { title: 'Decision: use a pool' } } as NodeMeta);
    const from = (id: string) => ({ source: null, lines: null, message_ids: [id] });
    const [message, memory] = await documentsOf(fs, [
      hit('ctx://session/pool-leak/s1.md', 2, 0.9, { context_type: 'session', provenance: from('m6') }),
      hit('ctx://user/memories/semantic/mem_1.md', 1, 0.8, { context_type: 'memory', provenance: from('m26') }),
    ]);
    expect(message!.document.title).toBe('A leaked pool connection');
    expect(memory!.document.title).toBe('Decision: use a pool');
  });
});
