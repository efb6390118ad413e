/**
 * The Home view's code modes, and how it groups skips. Pure, so it is unit-tested. (What a drop
 * says about paths is in ../upload/drop-path.ts, shared with the Sessions view.)
 */
import { CodeSummaryMode, type Skip } from '../../../shared/types/ingest';

export const CODE_MODES = CodeSummaryMode.options;

export interface SkipGroup {
  reason: Skip['reason'];
  skips: Skip[];
}

/** Skips grouped by reason, the largest group first, paths sorted within a group. */
export function groupSkips(skips: readonly Skip[]): SkipGroup[] {
  const groups = new Map<Skip['reason'], Skip[]>();
  for (const skip of skips) {
    const list = groups.get(skip.reason);
    if (list) list.push(skip);
    else groups.set(skip.reason, [skip]);
  }
  return [...groups.entries()]
    .map(([reason, list]) => ({ reason, skips: [...list].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)) }))
    .sort((a, b) => b.skips.length - a.skips.length || (a.reason < b.reason ? -1 : 1));
}
