/**
 * The retrieval evaluation on the labelled dev set (test/fixtures/retrieval), the same run as
 * `npm run eval:retrieval`: the local embedder, a real LanceDB index in a temporary folder, every
 * question in every mode. Floors sit a few points under the figures in bench/RESULTS.md, so a
 * change that makes retrieval worse fails here.
 *
 * The issue asks hybrid to beat both single modes. With the local embedder (hashed features,
 * WordNet links, static IDF, messages embedded with their neighbours) it does on every measure;
 * the margin over full text is small (R@10 +0.4, MRR +0.017 in bench/RESULTS.md), so the check
 * holds hybrid at or above both rather than a fixed distance ahead.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

vi.hoisted(() => {
  process.env.LANCEDB_LOG ??= 'error';
});

import { buildRecords, loadDevSet, runDevSetEval, type EvalReport, type Metrics } from '../../bench/lib/retrieval-eval.js';
import { createLocalEmbedder } from '../../main/adapters/embed/local.js';

const FIXTURES = join(import.meta.dirname, '../fixtures/retrieval');
let tmp: string;
let report: EvalReport;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'cairn-eval-retrieval-'));
  report = await runDevSetEval({ fixtures: FIXTURES, embedder: createLocalEmbedder(), indexDir: join(tmp, 'index') });
}, 120_000);
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const overall = (mode: string): Metrics => {
  const found = report.modes.find((m) => m.mode === mode);
  if (!found) throw new Error(`no ${mode} in the report`);
  return found.overall;
};

describe('retrieval dev set', () => {
  it('holds at least 80 questions over documents and conversations in English and Chinese, each answered by passages or messages of the set', () => {
    const set = loadDevSet(FIXTURES);
    expect(set.questions.length).toBeGreaterThanOrEqual(80);
    for (const lang of ['en', 'zh']) for (const source of ['doc', 'conv']) expect(set.questions.filter((q) => q.lang === lang && q.source === source).length).toBeGreaterThanOrEqual(20);
    expect(new Set(set.questions.map((q) => q.id)).size).toBe(set.questions.length);
    // runDevSetEval refuses labels that name nothing; here, every message record names its message.
    const { records, evidenceOf } = buildRecords(set);
    const messages = records.filter((r) => r.context_type === 'session' && r.level === 2);
    expect(messages.length).toBeGreaterThan(150);
    for (const r of messages) expect(evidenceOf.get(r.uri)).toBe(`${r.uri.split('/')[3]}/${r.provenance.message_ids?.[0]}`);
  });
});

describe('retrieval quality (local embedder)', () => {
  it('reports every mode over every question', () => {
    expect(report.modes.map((m) => m.mode)).toEqual(['fts', 'vector', 'hybrid', 'hierarchical']);
    for (const m of report.modes) {
      expect(m.overall.questions).toBe(report.questions);
      expect(m.groups.en!.questions + m.groups.zh!.questions).toBe(report.questions);
      expect(m.groups.doc!.questions + m.groups.conv!.questions).toBe(report.questions);
    }
  });

  it('stays at or above the recorded figures', () => {
    // bench/RESULTS.md, "Retrieval quality": fts 86.0 / 0.740, vector 83.8 / 0.599, hybrid 86.4 / 0.757, hierarchical 89.9 / 0.744.
    const floors: Record<string, [number, number]> = { fts: [0.83, 0.71], vector: [0.8, 0.57], hybrid: [0.84, 0.73], hierarchical: [0.87, 0.71] };
    for (const [mode, [recall10, mrr]] of Object.entries(floors)) {
      expect(overall(mode).recall10, `${mode} recall@10`).toBeGreaterThanOrEqual(recall10);
      expect(overall(mode).mrr, `${mode} MRR`).toBeGreaterThanOrEqual(mrr);
    }
  });

  it('fuses better than either mode alone', () => {
    const [fts, vector, hybrid] = [overall('fts'), overall('vector'), overall('hybrid')];
    for (const single of [fts, vector]) {
      expect(hybrid.recall1).toBeGreaterThan(single.recall1);
      expect(hybrid.recall5).toBeGreaterThan(single.recall5);
      expect(hybrid.recall10).toBeGreaterThanOrEqual(single.recall10);
      expect(hybrid.mrr).toBeGreaterThan(single.mrr);
    }
    // Walking down from matching documents and sessions finds what direct search misses.
    expect(overall('hierarchical').recall10).toBeGreaterThanOrEqual(hybrid.recall10);
  });
});
