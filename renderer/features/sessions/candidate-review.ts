/** What the candidate review decides without React: which candidates a threshold takes, and a memory's before/after as lines. */
import type { ProposedCandidate } from '../../../shared/contracts/api';

/**
 * The candidates "accept all above X" accepts: confidence at least `threshold`. Updates of a
 * pinned memory are left out: each is the person's text and is accepted one by one.
 */
export function aboveThreshold(candidates: ProposedCandidate[], threshold: number): ProposedCandidate[] {
  return candidates.filter((c) => c.kind !== 'update' && c.candidate.confidence >= threshold);
}

export interface DiffLine {
  op: 'same' | 'removed' | 'added';
  text: string;
}

/** The lines of `before` and `after` in order, each kept, removed or added (a longest-common-subsequence diff). */
export function lineDiff(before: string, after: string): DiffLine[] {
  const a = before.split('\n');
  const b = after.split('\n');
  // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
  const lcs = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i -= 1) for (let j = b.length - 1; j >= 0; j -= 1) lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push({ op: 'same', text: a[i]! });
      i += 1;
      j += 1;
    } else if (i < a.length && (j >= b.length || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) {
      out.push({ op: 'removed', text: a[i]! });
      i += 1;
    } else {
      out.push({ op: 'added', text: b[j]! });
      j += 1;
    }
  }
  return out;
}
