/**
 * Weak matches on real files: the sample tree's texts in a real LanceDB (temporary folder), the
 * local embedder, hybrid search and the ranked list a person reads (issue 19 item 1). A question
 * none of the files answers, whose only word in them is a common one ("last"), must come back
 * as weak matches however high that word ranks a file; a question in the files' own specific
 * words must not.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

vi.hoisted(() => {
  process.env.LANCEDB_LOG ??= 'error';
});

import { createLocalEmbedder } from '../../main/adapters/embed/local.js';
import { openLanceStore } from '../../main/adapters/store/lancedb/index.js';
import { rankHits, WEAK_BELOW } from '../../main/engine/index/rank.js';
import { createSearchIndex, type SearchIndex } from '../../main/engine/index/search-index.js';
import type { VectorStore } from '../../main/engine/ports/vector-store.js';
import { searchTerms } from '../../main/lib/text-analysis.js';

const DIMS = 512;
const SAMPLE = join(__dirname, '../../assets/sample');
const FILES = ['README.md', 'docs/architecture.md', 'docs/operations.md', 'docs/zh/快速入门.md', 'notes/2024-05-08-storm-review.md', 'src/api.ts', 'src/station.py', 'src/uplink.go', 'build.log'];

let tmp: string;
let store: VectorStore;
let index: SearchIndex;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'cairn-weak-'));
  store = await openLanceStore({ uri: join(tmp, 'index'), dimensions: DIMS });
  index = createSearchIndex({ embedder: createLocalEmbedder({ dimensions: DIMS }), store });
  const records = await Promise.all(
    FILES.map(async (file) => {
      const text = await readFile(join(SAMPLE, file), 'utf8');
      const uri = `ctx://resources/sample/${file}`;
      return { id: `${uri}#2`, uri, parent_uri: uri.replace(/[^/]+$/, ''), level: 2 as const, context_type: 'resource' as const, category: 'document', text, tokens: text.length, content_hash: `h-${file}`, updated_at: '2024-05-08T13:56:00.000Z', provenance: { source: join(SAMPLE, file) } };
    }),
  );
  await index.upsert(records);
});
afterAll(async () => {
  await store.close();
  await rm(tmp, { recursive: true, force: true });
});

async function ranked(text: string) {
  const hits = await index.search({ text, mode: 'hybrid', k: 10 });
  return { hits, results: rankHits(hits.map((hit) => ({ hit, document: { uri: hit.uri, title: hit.uri } })), { weakBelow: WEAK_BELOW.hybrid }) };
}

describe('weak matches', () => {
  it('a file matching only a common word of the question is weak, even when it ranks first with a high score', async () => {
    const { hits, results } = await ranked('how do I undo the last commit');
    const top = hits[0];
    expect(top).toBeDefined();
    // The premise: "last" alone ranks a file high enough to pass the score floor...
    expect(top?.score).toBeGreaterThanOrEqual(WEAK_BELOW.hybrid);
    // ...and it is the only word of the question the top file holds.
    const held = new Set(searchTerms((await store.get([top?.id ?? '']))[0]?.text ?? ''));
    expect(['undo', 'last', 'commit'].filter((term) => held.has(term))).toEqual(['last']);
    expect(results.length).toBeGreaterThan(0);
    expect(results.filter((r) => !r.weak).map((r) => r.uri)).toEqual([]);
  });

  it('a file holding the question\'s specific words keeps its score and is not weak', async () => {
    const { hits, results } = await ranked('what did the storm review decide about the uplink');
    expect(results[0]?.uri).toBe('ctx://resources/sample/notes/2024-05-08-storm-review.md');
    expect(results[0]?.weak).toBe(false);
    expect(hits[0]?.coverage).toBe(1);
  });

  it('works alike for Chinese: a question only sharing a common word with the files is weak', async () => {
    const { results } = await ranked('如何撤销上一次提交');
    expect(results.length).toBeGreaterThan(0);
    expect(results.every((r) => r.weak)).toBe(true);
  });
});
