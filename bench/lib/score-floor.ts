/**
 * Where the relevance floor of each search mode comes from (main/engine/index/rank.ts,
 * WEAK_BELOW): on the retrieval dev set, the scores of the hits that answer a question against
 * those of hits that cannot (a question searched over documents in the other language only,
 * where nothing answers it: the "Chinese query over English documents" case).
 *
 * For each mode, `floorKeeping(share)` is the highest score that keeps that share of the answering
 * hits (in the first 10) at or above it; the report also says how much of the noise falls below.
 */
import { openLanceStore } from '../../main/adapters/store/lancedb/index.js';
import { createSearchIndex, type SearchMode } from '../../main/engine/index/search-index.js';
import type { EmbeddingModel } from '../../main/engine/ports/embedding-model.js';
import { buildRecords, EVAL_MODES, loadDevSet } from './retrieval-eval.js';

export interface ModeScores {
  mode: SearchMode;
  /** Scores of hits in the first 10 that are evidence for their question. */
  relevant: number[];
  /** Scores of the other hits in the first 10 of the same searches. */
  irrelevant: number[];
  /** Scores of every hit in the first 10 of cross-language searches (nothing there answers). */
  noise: number[];
  /** The best score of each cross-language search. */
  noiseTop: number[];
}

export async function scoreDistributions(options: { fixtures: string; embedder: EmbeddingModel; indexDir: string; modes?: SearchMode[] }): Promise<ModeScores[]> {
  const set = loadDevSet(options.fixtures);
  const { records, evidenceOf } = buildRecords(set);
  const store = await openLanceStore({ uri: options.indexDir, dimensions: options.embedder.dimensions, idleOptimizeMs: 0 });
  try {
    const index = createSearchIndex({ embedder: options.embedder, store });
    await index.upsert(records);
    await index.optimize();
    const out: ModeScores[] = [];
    for (const mode of options.modes ?? EVAL_MODES) {
      const scores: ModeScores = { mode, relevant: [], irrelevant: [], noise: [], noiseTop: [] };
      for (const q of set.questions) {
        const hits = await index.search({ text: q.question, k: 10, mode, filter: { levels: [2] } });
        for (const hit of hits) (q.evidence.includes(evidenceOf.get(hit.uri) ?? '') ? scores.relevant : scores.irrelevant).push(hit.score);
        if (q.source !== 'doc') continue;
        const other = q.lang === 'en' ? 'zh' : 'en';
        const cross = await index.search({ text: q.question, k: 10, mode, filter: { levels: [2], uriPrefix: `ctx://resources/eval/${other}/` } });
        scores.noise.push(...cross.map((hit) => hit.score));
        if (cross[0]) scores.noiseTop.push(cross[0].score);
      }
      out.push(scores);
    }
    return out;
  } finally {
    await store.close();
  }
}

/** The highest floor (to 0.01) that keeps at least `share` of `relevant` at or above it. */
export function floorKeeping(relevant: readonly number[], share: number): number {
  const sorted = [...relevant].sort((a, b) => b - a);
  const keep = sorted[Math.max(0, Math.ceil(sorted.length * share) - 1)] ?? 0;
  return Math.floor(keep * 100) / 100;
}

const below = (scores: readonly number[], floor: number) => (scores.length === 0 ? 0 : scores.filter((s) => s < floor).length / scores.length);
const quantile = (scores: readonly number[], q: number) => {
  const sorted = [...scores].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
};

/** A Markdown table: per mode, score quantiles and what a floor keeping 90/95% of answers flags. */
export function formatFloors(modes: readonly ModeScores[]): string {
  const f = (x: number) => x.toFixed(2);
  const p = (x: number) => `${(x * 100).toFixed(0)}%`;
  const lines = [
    '| mode | answers p10 / p50 | others p50 | cross-language best p50 / p90 | floor keeping 95% of answers: answers / others / cross-language hits below | floor keeping 90% |',
    '|---|---|---|---|---|---|',
  ];
  for (const m of modes) {
    const f95 = floorKeeping(m.relevant, 0.95);
    const f90 = floorKeeping(m.relevant, 0.9);
    lines.push(
      `| ${m.mode} | ${f(quantile(m.relevant, 0.1))} / ${f(quantile(m.relevant, 0.5))} | ${f(quantile(m.irrelevant, 0.5))} | ${f(quantile(m.noiseTop, 0.5))} / ${f(quantile(m.noiseTop, 0.9))} | ` +
        `${f(f95)}: ${p(below(m.relevant, f95))} / ${p(below(m.irrelevant, f95))} / ${p(below(m.noise, f95))} | ${f(f90)}: ${p(below(m.relevant, f90))} / ${p(below(m.irrelevant, f90))} / ${p(below(m.noise, f90))} |`,
    );
  }
  return lines.join('\n');
}
