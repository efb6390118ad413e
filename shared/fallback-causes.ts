/**
 * A run's fallbacks and their causes in one line, alike at the end of `cairn ingest`,
 * `cairn summarize`, `cairn watch` and the sessions commands, and on Home's result:
 * "29 fallbacks: 27 × HTTP 500 'injected fault', 2 × invalid JSON". The causes are structured
 * (shared/llm-cause.ts), counted per group of causes alike (`fallback_causes`).
 *
 * @example
 * formatFallbacks(3, [{ cause: { code: 'http_status', status: 500, message: 'injected fault' }, count: 2 }, { cause: { code: 'invalid_json' }, count: 1 }]);
 * // "3 fallbacks: 2 × HTTP 500 'injected fault', 1 × invalid JSON"
 */
import { formatCount } from './format.js';
import { causeKey, describeCause, englishCause, groupOf, type CauseCount, type SayCause, type StoredCause } from './llm-cause.js';

export type FallbackCauses = CauseCount[];

/** Counts one more fallback under its cause's group. */
export function countCause(causes: FallbackCauses, cause: StoredCause, count = 1): void {
  const key = causeKey(cause);
  const found = causes.find((c) => causeKey(c.cause) === key);
  if (found) found.count += count;
  else causes.push({ cause: typeof cause === 'string' ? cause : groupOf(cause), count });
}

/** The causes, most frequent first (ties in the order of their English text). */
export function groupedCauses(causes: FallbackCauses | undefined): CauseCount[] {
  const text = (c: StoredCause) => describeCause(c, englishCause);
  return (causes ?? []).filter(({ count }) => count > 0).sort((a, b) => b.count - a.count || text(a.cause).localeCompare(text(b.cause)));
}

/** "27 × HTTP 500 'injected fault', 2 × invalid JSON" ('' without causes), in English unless `say` is given. */
export function formatCauses(causes: FallbackCauses | undefined, locale = 'en', say: SayCause = englishCause): string {
  return groupedCauses(causes)
    .map(({ cause, count }) => `${formatCount(count, locale)} × ${describeCause(cause, say)}`)
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
  const merged: FallbackCauses = [];
  for (const run of runs) for (const { cause, count } of run.fallback_causes ?? []) countCause(merged, cause, count);
  return merged;
}
