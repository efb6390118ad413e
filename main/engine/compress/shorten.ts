/**
 * Shortening a block to a token budget, sentence-wise: its leading sentences that fit. When not
 * even the first sentence fits, that sentence is cut at a word boundary and ends in "…", so a
 * block larger than the whole budget can still give something.
 *
 * Counts are in the block's own units: a caller may give token counts from another tokenizer,
 * so a piece's count is its o200k_base count times token_count / countTokens(content).
 */
import { countTokens } from '../../lib/tokens.js';
import { splitSentences } from '../summarize/extractive-text.js';

/** Below this many tokens of room a fragment is not worth adding: the block is left out instead. */
export const MIN_PIECE_TOKENS = 8;
/**
 * A sentence cut in the middle says less than a whole one: only worth it with this much room
 * (a block larger than the budget whose first sentence alone is too long), not to fill a gap.
 */
export const MIN_CUT_TOKENS = 32;
/**
 * Trying to shorten a block tokenizes it. When this many blocks in a row could not be fitted
 * into the room left (their first sentence is longer than it), the rest are not tried: it keeps
 * 10k blocks within milliseconds when the last few dozen tokens of a budget cannot be used.
 */
export const MAX_FAILED_FITS = 64;

export interface TextSource {
  content: string;
  token_count: number;
}

export interface Piece {
  content: string;
  token_count: number;
  shortened: boolean;
}

const ELLIPSIS = '…';

export interface TextFitter {
  /**
   * The longest leading part of the text within `max` tokens: the whole text when it fits,
   * null when less than MIN_PIECE_TOKENS of room is left or nothing fits.
   */
  fit(max: number): Piece | null;
  /** Tokens of any text in this block's units. */
  units(text: string): number;
}

export interface FitOptions {
  /**
   * False: never cut inside a sentence; a block whose first sentence does not fit is left out
   * (context packs: a fragment such as "…lea…" costs tokens and says nothing). Default true.
   */
  cutSentences?: boolean;
}

/** Sentence boundaries and prefix counts are computed on first need and reused across calls. */
export function textFitter(source: TextSource, options: FitOptions = {}): TextFitter {
  let ends: number[] | undefined;
  let scale: number | undefined;
  const unitsAt = new Map<number, number>();

  const units = (text: string): number => {
    scale ??= scaleOf(source);
    return Math.ceil(countTokens(text) * scale - 1e-9);
  };
  const prefix = (k: number): string => source.content.slice(0, (ends as number[])[k]).trimEnd();
  const prefixUnits = (k: number): number => {
    let n = unitsAt.get(k);
    if (n === undefined) unitsAt.set(k, (n = units(prefix(k))));
    return n;
  };

  const fit = (max: number): Piece | null => {
    if (source.token_count <= max) return { content: source.content, token_count: source.token_count, shortened: false };
    if (max < MIN_PIECE_TOKENS) return null;
    ends ??= sentenceEnds(source.content);
    // The last end is the whole text, which does not fit: search the proper prefixes only.
    let lo = 0;
    let hi = ends.length - 2;
    let best = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (prefixUnits(mid) <= max) {
        best = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (best >= 0) return { content: prefix(best), token_count: prefixUnits(best), shortened: true };
    return max >= MIN_CUT_TOKENS && options.cutSentences !== false ? cutFirstSentence(source.content.slice(0, ends[0]).trim(), max, units) : null;
  };
  return { fit, units };
}

function scaleOf(source: TextSource): number {
  const real = countTokens(source.content);
  return real > 0 && source.token_count > 0 ? source.token_count / real : 1;
}

/**
 * Character offsets where a sentence ends (the last is the end of the text). Lines end
 * sentences too: lists, headings and code lines have no full stop.
 */
export function sentenceEnds(content: string): number[] {
  const ends: number[] = [];
  let lineStart = 0;
  while (lineStart <= content.length) {
    const newline = content.indexOf('\n', lineStart);
    const lineEnd = newline === -1 ? content.length : newline;
    const line = content.slice(lineStart, lineEnd);
    let cursor = 0;
    for (const sentence of splitSentences(line)) {
      const at = line.indexOf(sentence, cursor);
      // splitSentences returns trimmed slices of the line, so it is always found; guard anyway.
      cursor = at === -1 ? cursor : at + sentence.length;
      ends.push(lineStart + cursor);
    }
    if (newline === -1) break;
    lineStart = newline + 1;
  }
  if (ends.length === 0 || ends[ends.length - 1] !== content.length) ends.push(content.length);
  return ends;
}

/** The longest head of `sentence` (plus "…") within `max`, cut after a space where one is near. */
function cutFirstSentence(sentence: string, max: number, units: (text: string) => number): Piece | null {
  const chars = [...sentence];
  let lo = 1;
  let hi = chars.length - 1;
  let best = 0;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (units(chars.slice(0, mid).join('') + ELLIPSIS) <= max) {
      best = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  if (best === 0) return null;
  let head = chars.slice(0, best).join('');
  const space = head.lastIndexOf(' ');
  // Break at a space only when that keeps most of the text (Chinese has no spaces to break at).
  if (space > head.length * 0.6) head = head.slice(0, space);
  const content = head.trimEnd() + ELLIPSIS;
  return { content, token_count: units(content), shortened: true };
}
