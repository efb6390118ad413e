/**
 * Marks a query's terms in a snippet. Terms come from `Intl.Segmenter` (word granularity), so a
 * Chinese query without spaces still yields its words; the whole query is a term too, so a
 * phrase is marked as one piece where it occurs whole.
 */
const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]/u;

export interface TextPart {
  text: string;
  match: boolean;
}

/** The distinct terms of a query worth marking: words of two letters or more, and any CJK word. */
export function queryTerms(query: string, locale = 'en'): string[] {
  const trimmed = query.trim();
  if (!trimmed) return [];
  const terms = new Set<string>();
  if (trimmed.length <= 64) terms.add(trimmed.toLowerCase());
  const segmenter = typeof Intl !== 'undefined' && 'Segmenter' in Intl ? new Intl.Segmenter(CJK.test(trimmed) ? 'zh' : locale, { granularity: 'word' }) : null;
  const words = segmenter ? [...segmenter.segment(trimmed)].filter((s) => s.isWordLike).map((s) => s.segment) : trimmed.split(/[\s\p{P}]+/u);
  for (const word of words) {
    if (word.length >= 2 || CJK.test(word)) terms.add(word.toLowerCase());
  }
  return [...terms];
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Splits `text` into plain and matching parts; the longest term wins where terms overlap. A term
 * in a spaced script matches at the start of a word (`wind` marks `windy`, not `rewind`); a CJK
 * term matches anywhere, since those scripts do not put spaces between words.
 */
export function highlightParts(text: string, terms: readonly string[]): TextPart[] {
  const usable = terms.filter((term) => term.length > 0).sort((a, b) => b.length - a.length);
  if (usable.length === 0 || !text) return text ? [{ text, match: false }] : [];
  const pattern = new RegExp(usable.map((term) => (CJK.test(term[0]!) ? escape(term) : `(?<![\\p{L}\\p{N}])${escape(term)}`)).join('|'), 'giu');
  const parts: TextPart[] = [];
  let last = 0;
  for (const found of text.matchAll(pattern)) {
    const start = found.index;
    if (start > last) parts.push({ text: text.slice(last, start), match: false });
    parts.push({ text: found[0], match: true });
    last = start + found[0].length;
  }
  if (last < text.length) parts.push({ text: text.slice(last), match: false });
  return parts;
}
