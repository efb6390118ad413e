/**
 * `cairn search` and `cairn reindex` as a user runs them: the built CLI over a temp workspace
 * holding the sample (English and Chinese docs, code), a real LanceDB index under
 * `.cairn/index`, opened directly only to count its rows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openLanceStore } from '../../main/adapters/store/lancedb/index.js';

const ROOT = join(import.meta.dirname, '../..');
const CLI = join(ROOT, 'dist-main/cli.js');
const SAMPLE = join(ROOT, 'assets/sample');
let workspace: string;

interface Hit {
  uri: string;
  level: number;
  score: number;
  snippet: string;
  context_type: string;
  provenance: { source: string | null; lines: [number, number] | null; message_ids: string[] };
  /** A conversation message's lifted neighbour: that message's id. */
  neighbour_of?: string;
}

interface Ranked {
  uri: string;
  title: string;
  score: number;
  weak: boolean;
  also_at: string[];
  hits: (Hit & { heading: string | null; also_at: string[] })[];
}

function cairn(...args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, CAIRN_WORKSPACE: workspace };
  // The test must use the local embedder and the workspace's own index whatever the shell has set.
  delete env.CAIRN_EMBED_MODEL;
  delete env.CAIRN_INDEX_URI;
  const run = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

function search(...args: string[]): Hit[] {
  const run = cairn('search', ...args, '--json');
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout).hits;
}

/** Rows in the index, and distinct ids among them (equal when nothing is duplicated). */
async function countRecords(): Promise<{ rows: number; ids: number }> {
  const store = await openLanceStore({ uri: join(workspace, '.cairn/index'), dimensions: 512, idleOptimizeMs: 0 });
  try {
    const rows = await store.count();
    const ids = new Set((await store.find({ limit: 100_000 })).map((r) => r.id)).size;
    return { rows, ids };
  } finally {
    await store.close();
  }
}

beforeAll(async () => {
  if (!existsSync(CLI)) execFileSync(process.execPath, [join(ROOT, 'scripts/build-main.mjs')], { cwd: ROOT });
  workspace = await mkdtemp(join(tmpdir(), 'cairn-search-'));
  const ingest = cairn('ingest', SAMPLE, '--json', '--workers', '0');
  expect(ingest.code, ingest.stderr).toBe(0);
}, 120_000);
afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

describe('cairn search', { timeout: 180_000 }, () => {
  it('finds the right node for an English query, in the documented JSON shape', () => {
    const hits = search('battery voltage antenna cable corrupted packets', '--top-k', '5');
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.length).toBeLessThanOrEqual(5);
    expect(hits[0]!.uri).toBe('ctx://resources/sample/docs/operations.md');
    expect(hits[0]).toMatchObject({ level: expect.any(Number), score: expect.any(Number), snippet: expect.any(String), context_type: 'resource' });
    expect(hits[0]!.provenance.source).toBe(join(SAMPLE, 'docs/operations.md'));
    expect(hits[0]!.provenance.message_ids).toEqual([]);
    for (let i = 1; i < hits.length; i += 1) expect(hits[i]!.score).toBeLessThanOrEqual(hits[i - 1]!.score);
  });

  it('prints the ranked list: one result per document, titled by its heading, its other sections under it', () => {
    const run = cairn('search', 'uplink retries architecture', '--json', '--top-k', '20');
    expect(run.code, run.stderr).toBe(0);
    const { hits, ranked, weak_below: floor } = JSON.parse(run.stdout) as { hits: Hit[]; ranked: Ranked[]; weak_below: number };
    expect(floor).toBeGreaterThan(0);
    // Every hit is in exactly one result (the sample holds no copies to collapse), and results are ordered by their best hit.
    expect(ranked.flatMap((r) => r.hits.map((h) => `${h.uri}#${h.level}`)).sort()).toEqual(hits.map((h) => `${h.uri}#${h.level}`).sort());
    for (let i = 1; i < ranked.length; i += 1) expect(ranked[i]!.score).toBeLessThanOrEqual(ranked[i - 1]!.score);
    // Under the floor is weak; above it, a result is weak when it covers little of the query
    // (score × coverage, rank.ts), and weak results come after the strong ones.
    for (const result of ranked) {
      if (result.score < floor) expect(result.weak).toBe(true);
      expect(result.title).not.toMatch(/^\d+-/);
    }
    expect(ranked.findIndex((r) => r.weak) === -1 || ranked.slice(ranked.findIndex((r) => r.weak)).every((r) => r.weak)).toBe(true);
    // architecture.md is long enough to be split into sections: its hits are one result, titled by its first heading.
    const doc = ranked.filter((r) => r.uri.startsWith('ctx://resources/sample/docs/architecture.md/'));
    expect(doc.map((r) => [r.uri, r.title])).toEqual([['ctx://resources/sample/docs/architecture.md/', 'Tidewater architecture']]);
    expect(doc[0]!.hits.length).toBeGreaterThan(1);
    expect(doc[0]!.hits.some((h) => h.uri !== doc[0]!.uri && h.heading !== null)).toBe(true);

    const text = cairn('search', 'uplink retries architecture', '--top-k', '20');
    expect(text.stdout).toMatch(/^\d\.\d{3} {2}Tidewater architecture {2}L\d resources {2}ctx:\/\/resources\/sample\/docs\/architecture\.md\/$/m);
    expect(text.stdout).toMatch(/^ +\+ \d+ more in this document: /m);
    if (ranked.some((r) => r.weak)) expect(text.stdout).toMatch(/^-- \d+ weak match(es)? \(score under [\d.]+\): probably not what you are looking for --$/m);
  });

  it('finds the Chinese guide for a Chinese query, in every retrieval mode', () => {
    for (const mode of ['hybrid', 'fts', 'vector']) {
      const hits = search('电池电压', '--mode', mode, '--top-k', '3');
      expect(hits[0]?.uri, mode).toBe('ctx://resources/sample/docs/zh/快速入门.md');
    }
    const readable = cairn('search', '电池电压', '--top-k', '1');
    expect(readable.code).toBe(0);
    // Score, the document's title (its first heading), level and scope, URI; then the best hit's snippet.
    expect(readable.stdout).toMatch(/^\d\.\d{3} {2}Tidewater 快速入门 {2}L[012] resources {2}ctx:\/\/resources\/sample\/docs\/zh\/快速入门\.md\n {7}\S/);
  });

  it('hierarchical mode reaches the leaves under a matching directory', () => {
    // The words of src/'s abstract; the files below say them only in passing, or not at all.
    const hits = search('base server packet windows station', '--mode', 'hierarchical', '--level', '2', '--top-k', '5');
    expect(hits.every((h) => h.level === 2)).toBe(true);
    const fromSrc = hits.filter((h) => h.uri.startsWith('ctx://resources/sample/src/')).map((h) => h.uri);
    expect(fromSrc.sort()).toEqual(['ctx://resources/sample/src/api.ts', 'ctx://resources/sample/src/station.py', 'ctx://resources/sample/src/uplink.go']);
  });

  it('filters by level and scope', () => {
    for (const level of [0, 1, 2]) {
      const hits = search('uplink packet retries', '--level', String(level));
      expect(hits.length, `level ${level}`).toBeGreaterThan(0);
      expect(hits.every((h) => h.level === level)).toBe(true);
    }
    // Directories have only L0/L1; files have L2.
    expect(search('uplink', '--level', '2').every((h) => !h.uri.endsWith('/'))).toBe(true);
    expect(search('uplink', '--scope', 'user')).toEqual([]);
  });

  it('runs one query per line with --queries, in one process', async () => {
    const file = join(workspace, 'queries.txt');
    await writeFile(file, '电池电压\n\nstorm review decisions\n');
    const run = cairn('search', '--queries', file, '--json', '--top-k', '2');
    expect(run.code, run.stderr).toBe(0);
    const { results } = JSON.parse(run.stdout) as { results: { query: string; hits: Hit[] }[] };
    expect(results.map((r) => r.query)).toEqual(['电池电压', 'storm review decisions']);
    expect(results[0]!.hits[0]!.uri).toBe('ctx://resources/sample/docs/zh/快速入门.md');
    expect(results[1]!.hits.map((h) => h.uri).join(' ')).toContain('storm-review.md');
    expect(results.every((r) => r.hits.length <= 2)).toBe(true);
  });

  it('rejects bad flags with INVALID_INPUT and exit code 2', () => {
    const run = cairn('search', 'x', '--mode', 'fuzzy', '--json');
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout).error.code).toBe('INVALID_INPUT');
    expect(cairn('search', '--json').code).toBe(2);
  });

  it('re-ingesting does not duplicate records; reindex after deleting the index restores the same results', async () => {
    const before = await countRecords();
    expect(before.rows).toBeGreaterThan(20);
    expect(before.ids).toBe(before.rows);

    const again = cairn('ingest', SAMPLE, '--json', '--workers', '0');
    expect(again.code, again.stderr).toBe(0);
    expect(await countRecords()).toEqual(before);

    const queries = [['电池电压'], ['battery voltage antenna cable corrupted packets'], ['base server packet windows station', '--mode', 'hierarchical']];
    const expected = queries.map((q) => search(...q));

    await rm(join(workspace, '.cairn/index'), { recursive: true, force: true });
    expect(search('电池电压')).toEqual([]);

    const rebuilt = cairn('reindex', '--json');
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    const { records, ms } = JSON.parse(rebuilt.stdout);
    expect(records).toBe(before.rows);
    expect(ms).toBeGreaterThanOrEqual(0);
    expect(await countRecords()).toEqual(before);

    queries.forEach((q, i) => {
      const hits = search(...q);
      expect(hits.map((h) => [h.uri, h.level])).toEqual(expected[i]!.map((h) => [h.uri, h.level]));
      hits.forEach((h, j) => expect(h.score).toBeCloseTo(expected[i]![j]!.score, 6));
    });

    // Idempotent: a second rebuild over a live index writes the same rows, no more.
    expect(JSON.parse(cairn('reindex', '--json').stdout).records).toBe(before.rows);
    expect(await countRecords()).toEqual(before);
  }, 120_000);
});

describe('cairn search over a conversation', { timeout: 120_000 }, () => {
  let conversation: string;
  beforeAll(async () => {
    conversation = await mkdtemp(join(tmpdir(), 'cairn-search-conversation-'));
    const imported = cairn('sessions', 'import', join(ROOT, 'test/fixtures/memory-dev/en-debug-pool-leak.json'), '--workspace', conversation);
    expect(imported.code, imported.stderr).toBe(0);
  }, 60_000);
  afterAll(async () => {
    await rm(conversation, { recursive: true, force: true });
  });

  it('prints a message’s lifted neighbours under it, "in context", never as results of their own', () => {
    const query = 'how do I reproduce the leak locally';
    const run = cairn('search', query, '--json', '--workspace', conversation);
    expect(run.code, run.stderr).toBe(0);
    const { ranked } = JSON.parse(run.stdout) as { ranked: Ranked[] };
    const lifters = ranked.filter((r) => r.hits.some((h) => h.neighbour_of));
    expect(lifters.length).toBeGreaterThan(0);
    const results = new Set(ranked.map((r) => r.hits[0]!.provenance.message_ids[0]));
    for (const result of lifters) {
      const [own, ...context] = result.hits;
      expect(own!.neighbour_of).toBeUndefined();
      for (const hit of context) {
        expect(hit.neighbour_of).toBe(own!.provenance.message_ids[0]);
        expect(results.has(hit.provenance.message_ids[0])).toBe(false);
      }
    }
    // The text: each neighbour's line, indented, right under its message's lines.
    const text = cairn('search', query, '--workspace', conversation);
    expect(text.code, text.stderr).toBe(0);
    const lines = text.stdout.split('\n');
    const context = lines.flatMap((line, i) => (line.startsWith('         in context: ') ? [i] : []));
    expect(context.length).toBe(lifters.reduce((n, r) => n + r.hits.length - 1, 0));
    for (const i of context) expect(lines[i - 1], text.stdout).toMatch(/^ {7}content: |^ {9}in context: /);
    expect(lines[context[0]!]!.slice('         in context: '.length, 40)).toBe(lifters[0]!.hits[1]!.snippet.slice(0, 40 - '         in context: '.length));
  });
});
