/**
 * What the Home view can learn from a drop, and how it groups skips. Pure, so it is unit-tested.
 *
 * A browser never tells a page where a dropped folder lives on disk; it only hands over file
 * contents. Some sources do put the location in the drag data: a file manager's `text/uri-list`
 * (`file:///home/me/notes`), or a path dragged as text. Those are taken; anything else is not.
 */
import { CodeSummaryMode, type Skip } from '../../../shared/types/ingest';

export const CODE_MODES = CodeSummaryMode.options;

/** An absolute local path from the drag data, or null when the drop carries none. */
export function pathFromDrop(data: { uriList?: string; text?: string }): string | null {
  const uri = (data.uriList ?? '')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .find((line) => line && !line.startsWith('#'));
  if (uri?.toLowerCase().startsWith('file://')) {
    try {
      const url = new URL(uri);
      if (url.host && url.host !== 'localhost') return null;
      const path = decodeURIComponent(url.pathname);
      // file:///C:/x on Windows: drop the slash before the drive letter.
      return /^\/[a-z]:\//i.test(path) ? path.slice(1) : path;
    } catch {
      return null;
    }
  }
  const text = (data.text ?? '').trim();
  if (text && !text.includes('\n') && (text.startsWith('/') || /^[a-z]:[\\/]/i.test(text))) return text;
  if (text.toLowerCase().startsWith('file://')) return pathFromDrop({ uriList: text });
  return null;
}

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
