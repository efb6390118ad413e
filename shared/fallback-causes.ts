/**
 * A run's fallbacks and their causes in one line, alike at the end of `cairn ingest`,
 * `cairn summarize` and `cairn watch` and on Home's result:
 * "29 fallbacks: 27 × HTTP 500 'injected fault', 2 × invalid JSON". The causes are the groups of
 * main/engine/llm/failure-cause.ts, counted per run by the DAG (`DagRunResult.fallback_causes`).
 *
 * @example
 * formatFallbacks(3, { "HTTP 500 'injected fault'": 2, 'invalid JSON': 1 });
 * // "3 fallbacks: 2 × HTTP 500 'injected fault', 1 × invalid JSON"
 */
import { formatCount } from './format.js';

export type FallbackCauses = Record<string, number>;

/** The causes, most frequent first (ties in the order of their names). */
export function groupedCauses(causes: FallbackCauses | undefined): Array<{ cause: string; count: number }> {
  return Object.entries(causes ?? {})
    .filter(([, count]) => count > 0)
    .map(([cause, count]) => ({ cause, count }))
    .sort((a, b) => b.count - a.count || a.cause.localeCompare(b.cause));
}

/** "27 × HTTP 500 'injected fault', 2 × invalid JSON" ('' without causes). */
export function formatCauses(causes: FallbackCauses | undefined, locale = 'en'): string {
  return groupedCauses(causes)
    .map(({ cause, count }) => `${formatCount(count, locale)} × ${cause}`)
    .join(', ');
}

/** "0 fallbacks", "1 fallback: 1 × timeout after 60000 ms", "29 fallbacks: 27 × …". */
export function formatFallbacks(count: number, causes: FallbackCauses | undefined): string {
  const head = `${formatCount(count)} ${count === 1 ? 'fallback' : 'fallbacks'}`;
  const list = formatCauses(causes);
  return list ? `${head}: ${list}` : head;
}

/** Adds the causes of several runs together. */
export function mergeCauses(runs: ReadonlyArray<{ fallback_causes?: FallbackCauses | undefined }>): FallbackCauses {
  const merged: FallbackCauses = {};
  for (const run of runs) for (const [cause, count] of Object.entries(run.fallback_causes ?? {})) merged[cause] = (merged[cause] ?? 0) + count;
  return merged;
}
