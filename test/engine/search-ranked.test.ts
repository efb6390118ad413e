/**
 * The ranked search list through the engine, with a real LanceDB index: a document long enough
 * to be split into sections, an identical copy of it elsewhere, and a small file copied twice.
 * The sections' hits merge under their document, the copies collapse into "also at".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine, type Engine } from '../../main/engine/engine.js';
import { inProcessParseRunner } from '../../main/engine/parse/runner.js';
import { lazySearchIndex } from '../../main/host/open-index.js';

let workspace: string;
let folder: string;
let engine: Engine;

/** About `n` tokens of prose about harbours and tides, none of it about pools. */
function filler(seed: string, n: number): string {
  const words = ['harbour', 'tide', 'pier', 'gauge', 'sensor', 'reading', 'station', 'window', 'forecast', 'weather', 'swell', 'buoy', 'mooring', 'channel'];
  const sentences: string[] = [];
  for (let i = 0; sentences.join(' ').length < n * 5; i += 1) {
    sentences.push(`The ${words[i % words.length]} ${seed} ${words[(i * 7 + 3) % words.length]} number ${i} was logged at the ${words[(i * 5 + 1) % words.length]} office.`);
  }
  return sentences.join(' ');
}

const GUIDE = [
  '# Database guide',
  '',
  filler('intro', 700),
  '',
  '## Connection pools',
  '',
  'The connection pool keeps database connections open. Size the connection pool to the number of workers; a pool that is too small makes requests wait for a free connection.',
  '',
  filler('pools', 700),
  '',
  '## Timeouts',
  '',
  'When the pool is exhausted, a request waits for a connection until its timeout, then fails with a clear error.',
  '',
  filler('timeouts', 700),
  '',
].join('\n');

beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'cairn-ranked-'));
  folder = join(workspace, 'src', 'handbook');
  await mkdir(join(folder, 'old'), { recursive: true });
  await writeFile(join(folder, 'guide.md'), GUIDE);
  await cp(join(folder, 'guide.md'), join(folder, 'old', 'guide.md'));
  await writeFile(join(folder, 'tips.md'), '# Pool tips\n\nRestart the connection pool after changing its size.\n');
  await cp(join(folder, 'tips.md'), join(folder, 'old', 'tips.md'));
  engine = await createEngine({ workspace, parser: inProcessParseRunner(), index: lazySearchIndex(workspace, { idleOptimizeMs: 0 }) });
  await engine.call('ingest:start', { path: folder, summarize: false });
}, 120_000);
afterAll(async () => {
  await engine?.dispose();
  await rm(workspace, { recursive: true, force: true });
});

describe('the ranked search list', { timeout: 60_000 }, () => {
  it('merges a document’s sections under it and collapses identical copies into “also at”', async () => {
    const root = 'ctx://resources/handbook/';
    const listing = await engine.call('fs:ls', { uri: `${root}guide.md/` });
    expect(listing.entries.length).toBeGreaterThanOrEqual(3);

    const { hits, ranked, weak_below: floor } = await engine.call('search:query', { query: 'connection pool size', mode: 'fts', topK: 20 });
    // The raw hits still hold both copies of each section and file.
    expect(hits.some((h) => h.uri.startsWith(`${root}old/guide.md/`))).toBe(true);

    const guides = ranked.filter((r) => r.uri.includes('guide.md'));
    expect(guides).toHaveLength(1);
    const guide = guides[0]!;
    expect(guide).toMatchObject({ uri: `${root}guide.md/`, title: 'Database guide', scope: 'resources', also_at: [`${root}old/guide.md/`] });
    // Its best section first, titled by its heading, the other section under it.
    expect(guide.hits.map((h) => h.heading)).toEqual(['Connection pools', 'Timeouts']);
    expect(guide.hits[0]!.uri.startsWith(`${root}guide.md/`)).toBe(true);
    expect(guide.hits[0]!.also_at).toHaveLength(1);
    expect(guide.hits[0]!.also_at[0]!.startsWith(`${root}old/guide.md/`)).toBe(true);
    expect(guide.score).toBe(guide.hits[0]!.score);
    expect(guide.weak).toBe(guide.score < floor);

    const tips = ranked.filter((r) => r.uri.endsWith('tips.md'));
    expect(tips).toHaveLength(1);
    expect(tips[0]!.title).toBe('Pool tips');
    expect([tips[0]!.uri, ...tips[0]!.also_at].sort()).toEqual([`${root}old/tips.md`, `${root}tips.md`]);

    // Highlights mark the query's words in the snippet, whole.
    const best = guide.hits[0]!;
    const marked = best.highlights.map(([start, end]) => best.snippet.slice(start, end).toLowerCase());
    expect(marked).toContain('connection');
    expect(marked.filter((word) => !/^(connections?|pools?|size)$/.test(word))).toEqual([]);
  });

  it('merges the same way in hybrid search, the default', async () => {
    const { ranked } = await engine.call('search:query', { query: 'connection pool size', topK: 20 });
    expect(ranked.filter((r) => r.uri.includes('guide.md')).map((r) => [r.uri, r.title])).toEqual([['ctx://resources/handbook/guide.md/', 'Database guide']]);
    expect(ranked.filter((r) => r.uri.endsWith('tips.md'))).toHaveLength(1);
    for (let i = 1; i < ranked.length; i += 1) expect(ranked[i]!.score).toBeLessThanOrEqual(ranked[i - 1]!.score);
  });
});
