/**
 * Shortening a block to a token budget, sentence-wise: its leading sentences that fit. When not
 * even the first sentence fits, that sentence is cut at a word boundary and ends in "…", so a
 * block larger than the whole budget can still give something. Given the question's terms, a
 * block keeps its head and the sentences that match the question instead, when those say more
 * of it than the leading ones (`matchingExcerpt`).
 *
 * Counts are in the block's own units: a caller may give token counts from another tokenizer,
 * so a piece's count is its o200k_base count times token_count / countTokens(content).
 */
import { countTokens } from '../../lib/tokens.js';
import { splitSentences } from '../summarize/extractive-text.js';
import { searchTerms } from '../../lib/text-analysis.js';

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
  /**
   * The question's terms (`searchTerms` of it). A block that must be shortened then keeps its
   * head and the sentences holding the most of them, when those hold more of them than its
   * leading sentences: with little room, a page's leading sentences are often its title alone
   * ("(excerpt) # Database backups"), which answers nothing.
   */
  queryTerms?: ReadonlySet<string>;
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
    const terms = options.queryTerms;
    if (terms && terms.size > 0) {
      const matching = matchingExcerpt(source.content, ends, terms, max, units);
      if (matching && matching.covered > (best >= 0 ? coverage(prefix(best), terms) : 0)) return { content: matching.content, token_count: matching.token_count, shortened: true };
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

const HEADING = /^#{1,6}\s/;
/** What stands for sentences an excerpt leaves out between two it keeps. */
export const GAP = ' … ';
export const GAP_LINES = '\n…\n';

/** A query term's weight in a sentence: a word or a CJK bigram 2, a single character 1 (snippets weigh them so). */
function termWeight(term: string): number {
  return term.length === 1 ? 1 : 2;
}

/** The weight of the query terms a text holds, each counted once. */
function matchWeight(text: string, terms: ReadonlySet<string>): number {
  let weight = 0;
  for (const term of new Set(searchTerms(text))) if (terms.has(term)) weight += termWeight(term);
  return weight;
}

/** The weight of the question's terms a piece holds outside its headings (they name the page, not the answer). */
function coverage(text: string, terms: ReadonlySet<string>): number {
  return matchWeight(
    text
      .split('\n')
      .filter((line) => !HEADING.test(line.trim()))
      .join('\n'),
    terms,
  );
}

interface Sentence {
  text: string;
  start: number;
  end: number;
}

/** A line that starts a Markdown block of its own (heading, list item, table row, quote, fence) and continues no sentence. */
const BLOCK_START = /^\s*(#{1,6}\s|[-*+]\s|\d+[.)]\s|\||>|```)/;
const SENTENCE_END = /[.!?。！？:;…]["'”’)\]]*$/;

/**
 * The sentences of a block, whole: `sentenceEnds` ends one at every line end too, so a sentence
 * of a hard-wrapped paragraph is joined again across its line breaks here (an excerpt that takes
 * sentences out of their place must not take half of one). Indices follow the joined list.
 */
function sentencesOf(content: string, ends: readonly number[]): Sentence[] {
  const out: Sentence[] = [];
  for (let k = 0; k < ends.length; k += 1) {
    const from = k === 0 ? 0 : (ends[k - 1] as number);
    const raw = content.slice(from, ends[k]);
    const text = raw.trim();
    const last = out[out.length - 1];
    if (last && text && content[last.end] === '\n' && !content.startsWith('\n', last.end + 1) && !HEADING.test(last.text) && !SENTENCE_END.test(last.text) && !BLOCK_START.test(raw.replace(/^\s*\n/, ''))) {
      last.text = content.slice(last.start, ends[k]).trim();
      last.end = ends[k] as number;
      continue;
    }
    out.push({ text, start: from + (raw.length - raw.trimStart().length), end: ends[k] as number });
  }
  return out;
}

/**
 * The block's head (its first sentence: a page's title, a message's date and speaker), the
 * sentences that hold the most of the question's terms, each under the heading it stands under,
 * in reading order, within `max`. Left-out text between them is marked "…". Null when no
 * matching sentence fits beside the head. `covered` is the weight of the question's terms the
 * excerpt holds outside headings, to compare it with the leading sentences'.
 */
export function matchingExcerpt(
  content: string,
  ends: readonly number[],
  terms: ReadonlySet<string>,
  max: number,
  units: (text: string) => number,
): { content: string; token_count: number; covered: number } | null {
  const sentences = sentencesOf(content, ends);
  const weights = sentences.map((s, k) => (k === 0 || HEADING.test(s.text) || !s.text ? 0 : matchWeight(s.text, terms)));
  const candidates = weights
    .map((w, k) => [w, k] as const)
    .filter(([w]) => w > 0)
    .sort((a, b) => b[0] - a[0] || a[1] - b[1])
    .map(([, k]) => k);
  if (candidates.length === 0) return null;
  const headingOf = (k: number): number => {
    for (let h = k - 1; h > 0; h -= 1) if (HEADING.test((sentences[h] as Sentence).text)) return h;
    return 0;
  };
  const render = (chosen: ReadonlySet<number>): string => {
    const order = [...chosen].sort((a, b) => a - b);
    let out = '';
    let previous = -1;
    for (const k of order) {
      const sentence = sentences[k] as Sentence;
      if (previous === -1) out = sentence.text;
      else if (k === previous + 1) out += content.slice((sentences[previous] as Sentence).end, sentence.start) + sentence.text;
      // Left-out text is marked where it was: a line of its own when it held a line break.
      else out += (content.slice((sentences[previous] as Sentence).end, sentence.start).includes('\n') ? GAP_LINES : GAP) + sentence.text;
      previous = k;
    }
    return out;
  };
  const chosen = new Set<number>([0]);
  let picked = 0;
  let text = render(chosen);
  let count = units(text);
  for (const k of candidates) {
    // (Once no piece worth adding fits, the rest of a long page's matches are not rendered and counted one by one.)
    if (max - count < MIN_PIECE_TOKENS) break;
    const next = new Set(chosen).add(k).add(headingOf(k));
    const nextText = render(next);
    const nextCount = units(nextText);
    if (nextCount > max) continue;
    for (const i of next) chosen.add(i);
    text = nextText;
    count = nextCount;
    picked += 1;
  }
  return picked === 0 ? null : { content: text, token_count: count, covered: coverage(text, terms) };
}
