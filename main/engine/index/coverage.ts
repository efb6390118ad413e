/**
 * How much of a query a record covers, each query term weighted by its rarity in the index
 * (BM25's IDF over the index's own full-text statistics). A record matching only a frequent term
 * of the query ("last", "use", "文件") covers little of it, however well that term ranks it: its
 * score is scaled down so it falls under the relevance floor (issue 19), while a record holding
 * the query's rare, specific terms keeps its score. Terms are the full-text index's own
 * (`searchTerms`: stemmed words, Chinese bigrams), so this works alike for every language.
 *
 * @example
 * const weights = termWeights(['undo', 'last', 'commit'], { total: 400, counts: [0, 40, 0] });
 * coverage('the last section', weights) // 1/3: "undo" and "commit" weigh as much as "last", the rarest held
 */
import { searchTerms } from '../../lib/text-analysis.js';

/**
 * The share of the query's weight at or above which a record keeps its whole score; below it the
 * score is scaled by share / COVERAGE_FULL. Half: a record holding the rarer half of a question
 * answers it as far as words can tell (tuned on the retrieval dev set, bench/RESULTS.md).
 */
export const COVERAGE_FULL = 0.5;

/** Records counted per term at most: past this a term is common whatever its exact count. */
export const TERM_COUNT_CAP = 2000;

/**
 * BM25's IDF of each distinct term: `ln(1 + (N − n + 0.5) / (n + 0.5))`. A term no record holds
 * weighs as much as the rarest term of the query that some record holds: it may be the question's
 * point ("undo" over notes that never mention it), or only a form the texts do not use ("drop"
 * where they say "dropped"), and the index cannot tell which. Left at its own IDF it would outweigh
 * every word the index has, and any hit would be weak; left out, a question whose specific words
 * are all missing would be carried by its common ones.
 */
export function termWeights(terms: readonly string[], stats: { total: number; counts: readonly number[] }): Map<string, number> {
  const idf = (n: number) => Math.log(1 + (stats.total - n + 0.5) / (n + 0.5));
  const counts = terms.map((_, i) => Math.min(stats.counts[i] ?? 0, stats.total));
  const held = counts.filter((n) => n > 0);
  const unseen = held.length > 0 ? idf(Math.min(...held)) : idf(0);
  return new Map(terms.map((term, i) => [term, (counts[i] as number) > 0 ? idf(counts[i] as number) : unseen]));
}

/** The IDF-weighted share of the query's terms that `text` holds, in [0, 1]; 1 when the query has no terms. */
export function coverage(text: string, weights: ReadonlyMap<string, number>): number {
  let all = 0;
  for (const weight of weights.values()) all += weight;
  if (all <= 0) return 1;
  const held = new Set(searchTerms(text).filter((term) => weights.has(term)));
  let covered = 0;
  for (const term of held) covered += weights.get(term) as number;
  return covered / all;
}

/**
 * The factor a record's score is multiplied by for the floor. A record holding none of the
 * query's terms covers none of it: whatever raised its score (a vector near the query's, its
 * session's match, a neighbour's lift) said nothing of its own words, so it is a weak match.
 */
export function coverageFactor(share: number): number {
  return Math.min(1, Math.max(0, share) / COVERAGE_FULL);
}
