/**
 * Splits a snippet into plain and marked parts by the ranges the engine computed for the query
 * (main/lib/text-analysis.ts, highlightRanges: whole words, no stop words, Chinese by words), so
 * the view marks exactly what the engine means by a match and has no matching rules of its own.
 */
export interface TextPart {
  text: string;
  match: boolean;
}

/** Plain and marked parts of `text`; ranges out of order, overlapping or out of bounds are skipped. */
export function highlightParts(text: string, ranges: readonly (readonly [number, number])[]): TextPart[] {
  const parts: TextPart[] = [];
  let last = 0;
  for (const [start, end] of ranges) {
    if (start < last || end <= start || end > text.length) continue;
    if (start > last) parts.push({ text: text.slice(last, start), match: false });
    parts.push({ text: text.slice(start, end), match: true });
    last = end;
  }
  if (last < text.length) parts.push({ text: text.slice(last), match: false });
  return parts;
}
