/**
 * Text analysis shared by the full-text index, the local embedder and snippets, so that all three
 * agree on what a "term" is: lower-cased, NFKC-folded words with light English stemming and
 * camelCase splitting, and, for CJK scripts (Han, kana, Hangul), overlapping character unigrams
 * and bigrams.
 *
 * Everything here is hand-written and table-free on purpose: `Intl.Segmenter`'s dictionaries
 * change with the ICU that ships in Node or Electron, and a tokenizer whose output changes with
 * the runtime would silently change stored vectors and index terms. Bumping ANALYZER_VERSION is
 * the one place to say "terms changed".
 *
 * @example
 * searchTerms('Parsers parse 快速入门') // ['pars', 'pars', '快速', '快', '速', '速入', '入', '入门', '门']
 */

/** Part of the local embedder's model id and of the full-text column's contract. */
export const ANALYZER_VERSION = 1;

/** A run of word characters (letters, digits, marks) or of CJK characters. */
export type RunKind = 'word' | 'cjk';

// Han (BMP blocks and compatibility), kana, Hangul: scripts written without spaces between words
// (Korean has spaces, but its particles glue to words, so character grams match better there too).
function isCjkCode(code: number): boolean {
  return (
    (code >= 0x4e00 && code <= 0x9fff) ||
    (code >= 0x3400 && code <= 0x4dbf) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0x3040 && code <= 0x30ff) ||
    (code >= 0x31f0 && code <= 0x31ff) ||
    (code >= 0xac00 && code <= 0xd7af) ||
    (code >= 0x1100 && code <= 0x11ff) ||
    (code >= 0x3130 && code <= 0x318f)
  );
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}\p{M}]/u;

const SEPARATOR = 0;
const WORD = 1;
const CJK = 2;

/** The class of the character at `i` (SEPARATOR, WORD or CJK) plus 4 × its width in UTF-16 units. */
function classAt(text: string, i: number): number {
  const code = text.charCodeAt(i);
  if (code < 0x80) {
    const isWord = (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57);
    return (isWord ? WORD : SEPARATOR) + 4;
  }
  if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
    const cp = text.codePointAt(i) ?? code;
    // CJK extension planes (U+20000 to U+3FFFF) are Han.
    if (cp >= 0x20000 && cp <= 0x3ffff) return CJK + 8;
    return (LETTER_OR_DIGIT.test(String.fromCodePoint(cp)) ? WORD : SEPARATOR) + 8;
  }
  if (isCjkCode(code)) return CJK + 4;
  return (LETTER_OR_DIGIT.test(text[i] as string) ? WORD : SEPARATOR) + 4;
}

/**
 * Calls `visit` for every maximal run of word characters (letters, digits, marks) and of CJK
 * characters, with UTF-16 offsets into `text`. Everything else (spaces, punctuation, `_`, `-`,
 * `'`) separates runs.
 */
export function scanRuns(text: string, visit: (kind: RunKind, start: number, end: number) => void): void {
  let i = 0;
  const n = text.length;
  while (i < n) {
    let packed = classAt(text, i);
    const runClass = packed & 3;
    if (runClass === SEPARATOR) {
      i += packed >> 2;
      continue;
    }
    const start = i;
    i += packed >> 2;
    while (i < n) {
      packed = classAt(text, i);
      if ((packed & 3) !== runClass) break;
      i += packed >> 2;
    }
    visit(runClass === CJK ? 'cjk' : 'word', start, i);
  }
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i += 1) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** Lower-cases a word run, folding compatibility forms (full-width letters and digits) first. */
export function normalizeWord(raw: string): string {
  return foldWidth(raw).toLowerCase();
}

/** NFKC for non-ASCII words (full-width Ｌａｎｃｅ becomes Lance); case is kept for camelCase splitting. */
function foldWidth(raw: string): string {
  return isAscii(raw) ? raw : raw.normalize('NFKC');
}

const CAMEL_BOUNDARY = /[a-z0-9][A-Z]|[A-Z][A-Z][a-z]/;

/**
 * Splits `parseCtxUri` into `parse ctx uri` and `HTTPServer` into `http server`; returns null
 * for words that are not compounds. Digits stay attached (`utf8`, `o200k`, `gpt4o`).
 */
export function splitCompound(raw: string): string[] | null {
  if (!CAMEL_BOUNDARY.test(raw)) return null;
  const parts = raw
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(' ')
    .filter((part) => part.length > 0);
  return parts.length > 1 ? parts : null;
}

const ENGLISH_STOP_WORDS = new Set(
  (
    'a an the and or but if then else of to in on at by for with from as is are was were be been being am ' +
    'it its this that these those there here i you he she we they me him her us them my your our their his ' +
    'do does did done doing have has had having not no nor so than too very can could will would should shall ' +
    'may might must what which who whom whose when where why how all any some such into onto about over under ' +
    'again also just only own same other each few more most both between through during before after above ' +
    'below up down out off because while until s t d ll m re ve don doesn didn isn aren wasn weren won wouldn ' +
    'shouldn couldn hasn haven hadn let lets yes yeah ok okay oh via per'
  ).split(' '),
);

/** English function words: down-weighted in vectors, left out of the full-text index. */
export function isStopWord(word: string): boolean {
  return ENGLISH_STOP_WORDS.has(word);
}

const CJK_STOP_CHARS = new Set([...'的了是在和与及或也就都而这那个之其着把被给对从于以为吗呢吧啊呀么嘛哦我你他她它们有一']);
const CJK_STOP_BIGRAMS = new Set(
  '我们 你们 他们 她们 它们 这个 那个 这些 那些 什么 怎么 如何 为何 可以 一个 没有 因为 所以 但是 然后 如果 自己 以及 还是 或者 就是 不是 这样 那样 的话 已经 也是 都是 是否 还有'.split(' '),
);

export function isCjkStopChar(char: string): boolean {
  return CJK_STOP_CHARS.has(char);
}

export function isCjkStopBigram(bigram: string): boolean {
  return CJK_STOP_BIGRAMS.has(bigram);
}

const VOWELS = /[aeiouy]/;

/** Words that end in -ed without being a past tense (-eed words are excluded by rule: need, speed). */
const NOT_PAST_TENSE = new Set(['embed', 'hundred', 'sacred', 'naked', 'wicked', 'kindred', 'rugged', 'ragged', 'crooked', 'jagged', 'wretched']);

function undouble(word: string): string {
  const n = word.length;
  if (n < 4) return word;
  const last = word[n - 1] as string;
  // Doubled consonants left by -ing/-ed/-er (running, stopped, planner); not l, s or z (tell, pass, buzz).
  if (last === word[n - 2] && !VOWELS.test(last) && last !== 'l' && last !== 's' && last !== 'z') return word.slice(0, -1);
  return word;
}

/**
 * A light English stemmer: plurals, -ing, -ed (not -eed), -er, -ly, -ation and a final -e, each only when a
 * stem of at least three letters (four for -er, -ly and -ation) remains. It aims for consistency
 * (parse, parser, parsers, parsing all give `pars`), not for dictionary words. Words that are
 * not plain ASCII letters, or shorter than four letters, are returned as they are.
 */
export function stem(word: string): string {
  const n = word.length;
  if (n < 4 || !/^[a-z]+$/.test(word)) return word;
  let w = word;
  // Plurals and third person.
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (/(?:[sxz]|ch|sh)es$/.test(w) && w.length > 4) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/[sui]s$/.test(w)) w = w.slice(0, -1);
  // Derivational and inflectional suffixes, longest first.
  if (w.endsWith('ation') && w.length - 5 >= 4) w = w.slice(0, -5);
  else if (w.endsWith('ing') && w.length - 3 >= 3 && VOWELS.test(w.slice(0, -3))) w = undouble(w.slice(0, -3));
  else if (w.endsWith('ed') && !w.endsWith('eed') && !NOT_PAST_TENSE.has(w) && w.length - 2 >= 3 && VOWELS.test(w.slice(0, -2))) w = undouble(w.slice(0, -2));
  else if (w.endsWith('er') && w.length - 2 >= 4) w = undouble(w.slice(0, -2));
  else if (w.endsWith('ly') && w.length - 2 >= 4) w = w.slice(0, -2);
  if (w.endsWith('e') && w.length >= 4) w = w.slice(0, -1);
  return w;
}

/** A word's index term: normalized and stemmed. */
export function wordTerm(normalized: string): string {
  return stem(normalized);
}

/**
 * Calls `emit` for each term of a word run: its stem, and for camelCase compounds the stems of
 * its parts too. Stop words and lone ASCII letters are skipped unless `keepStop` is set, in which
 * case `emit` gets `stop = true` for them.
 */
export function visitWordTerms(raw: string, emit: (term: string, normalized: string, stop: boolean) => void, keepStop = false): void {
  const folded = foldWidth(raw);
  const normalized = folded.toLowerCase();
  const parts = splitCompound(folded);
  const forms = parts ? [normalized, ...parts] : [normalized];
  for (const form of forms) {
    const stop = isStopWord(form) || (form.length === 1 && form >= 'a' && form <= 'z');
    if (stop && !keepStop) continue;
    emit(stop ? form : wordTerm(form), form, stop);
  }
}

/** Calls `emit` for each CJK unigram and overlapping bigram of a run that is not a stop gram. */
export function visitCjkTerms(run: string, emit: (term: string, start: number, end: number) => void): void {
  const chars = Array.from(run);
  let offset = 0;
  for (let i = 0; i < chars.length; i += 1) {
    const ch = chars[i] as string;
    const next = chars[i + 1];
    if (next !== undefined) {
      const bigram = ch + next;
      if (!isCjkStopBigram(bigram) && !(isCjkStopChar(ch) && isCjkStopChar(next))) emit(bigram, offset, offset + bigram.length);
    }
    if (!isCjkStopChar(ch)) emit(ch, offset, offset + ch.length);
    offset += ch.length;
  }
}

/**
 * The terms of a text in reading order, as the full-text index and snippets see them.
 * Repeated terms repeat (term frequency matters to BM25).
 */
export function searchTerms(text: string): string[] {
  const out: string[] = [];
  scanRuns(text, (kind, start, end) => {
    const run = text.slice(start, end);
    if (kind === 'cjk') visitCjkTerms(run, (term) => out.push(term));
    else for (const term of wordRunTerms(run)) out.push(term);
  });
  return out;
}

// Word runs already analysed by searchTerms, by their text: every record of an ingest goes
// through it for the full-text column, and a corpus' vocabulary is Zipfian, so most runs are a
// lookup. Long runs (hashes, base64) rarely repeat and are not kept; the map starts again when
// full (a few MB).
const MAX_CACHED_RUN = 48;
const RUN_CACHE_SIZE = 50_000;
const runTerms = new Map<string, readonly string[]>();

/** The terms of one word run, as visitWordTerms emits them (stop words left out). */
function wordRunTerms(run: string): readonly string[] {
  let terms = runTerms.get(run);
  if (terms === undefined) {
    const found: string[] = [];
    visitWordTerms(run, (term) => found.push(term));
    terms = found;
    if (run.length <= MAX_CACHED_RUN) {
      if (runTerms.size >= RUN_CACHE_SIZE) runTerms.clear();
      runTerms.set(run, terms);
    }
  }
  return terms;
}

/** Terms longer than this are dropped from the full-text column (LanceDB's own limit is 40 bytes). */
const MAX_TERM_CHARS = 32;

/**
 * The text stored in the full-text column: the terms joined by spaces, indexed by LanceDB with
 * its whitespace tokenizer, so Chinese and English are tokenized by the rules above and not by
 * LanceDB's (which has no CJK segmentation without a downloaded dictionary).
 */
export function ftsDocument(text: string): string {
  return searchTerms(text)
    .filter((term) => term.length <= MAX_TERM_CHARS)
    .join(' ');
}

/** A query for the full-text column: distinct terms, in order. Empty when nothing is searchable. */
export function ftsQuery(text: string): string {
  return [...new Set(searchTerms(text).filter((term) => term.length <= MAX_TERM_CHARS))].join(' ');
}

// Word segmentation for the memory engine (keywords, TF-IDF, topic labels), not for the search
// index: `ftsDocument`/`ftsQuery` keep their table-free grams above, because stored index terms
// must not change with the runtime's ICU. Memory topics are recomputed on every analysis, so
// there a runtime dictionary is fine, and words ("连接池", "数据库") read far better than bigrams.
let zhSegmenter: Intl.Segmenter | undefined;

// Single characters that ICU leaves alone and that are words by themselves (verbs, adverbs,
// localizers, measure words): they never glue to a neighbour. Other lone characters are pieces
// of a word ICU's dictionary lacks ("数据|库", "超|时", "文|档") and are glued back (see below).
const CJK_LONE_WORDS = new Set([...'只用要先再很更也都就还才又让给被把从在到向对和跟与里上下中内外前后多少好会能去来说看做住买吃走找等试没不每各该这那哪谁啥几点次个件种些年月日号天周']);

const CJK_STOP_WORDS = new Set([
  ...CJK_STOP_BIGRAMS,
  ...'一下 一些 这种 那种 这么 那么 怎样 时候 现在 其实 而且 不过 然后 可能 应该 需要 觉得 知道 比较 非常 一直 一起 另外 目前 之前 之后 以后 以前 这里 那里 哪里 大家 咱们 有点 一点 还是 只是 真的 确实 感觉 问题 东西 情况 的话 好的 对吧 是的 嗯嗯'.split(' '),
]);

/** Whether a CJK word says little about a topic (pronouns, connectives, fillers, lone function characters). */
export function isCjkStopWord(word: string): boolean {
  return CJK_STOP_WORDS.has(word) || Array.from(word).every((ch) => isCjkStopChar(ch) || CJK_LONE_WORDS.has(ch));
}

/**
 * The words of a CJK run by `Intl.Segmenter('zh', {granularity: 'word'})` (ICU's dictionary), with
 * its splits of unknown compounds repaired: consecutive lone characters that are not words by
 * themselves join ("超"+"时" → "超时"), and such a character after a word joins that word
 * ("连接"+"池" → "连接池"). Offsets are not kept: callers want the words.
 *
 * @example
 * segmentCjkWords('连接池配置错误导致超时') // ['连接池', '配置', '错误', '导致', '超时']
 */
export function segmentCjkWords(run: string): string[] {
  zhSegmenter ??= new Intl.Segmenter('zh', { granularity: 'word' });
  const pieces = [...zhSegmenter.segment(run)].filter((s) => s.isWordLike !== false).map((s) => s.segment);
  const out: string[] = [];
  // What the last output word is: a content word, a group of glued characters, or anything else.
  let last: 'word' | 'group' | 'other' = 'other';
  for (let i = 0; i < pieces.length; i += 1) {
    const piece = pieces[i] as string;
    if (!gluable(piece)) {
      out.push(piece);
      last = Array.from(piece).length > 1 && !isCjkStopWord(piece) ? 'word' : 'other';
      continue;
    }
    const next = pieces[i + 1];
    if (last === 'group' || (last === 'word' && !(next !== undefined && gluable(next)))) out[out.length - 1] += piece;
    else {
      out.push(piece);
      last = 'group';
    }
  }
  return out;
}

/** A lone character that is not a word by itself: a piece of a word ICU split. */
function gluable(piece: string): boolean {
  return Array.from(piece).length === 1 && !CJK_LONE_WORDS.has(piece) && !isCjkStopChar(piece);
}

/**
 * The terms of a text as the memory engine compares them (dedup similarity, contradictions, the
 * fusion signals): English words as the index has them (stemmed, no stop words) and CJK words
 * (segmentCjkWords) without stop words, in reading order, repeats kept. Words, not character
 * grams: "连接池" and "连接" are different terms, and a shared stop character counts for nothing.
 *
 * @example
 * wordTerms('The pool 连接池配置错误') // ['pool', '连接池', '配置', '错误']
 */
export function wordTerms(text: string): string[] {
  const out: string[] = [];
  scanRuns(text, (kind, start, end) => {
    const run = text.slice(start, end);
    if (kind === 'cjk') {
      for (const word of segmentCjkWords(run)) if (!isCjkStopWord(word)) out.push(word);
    } else visitWordTerms(run, (term) => out.push(term));
  });
  return out;
}

/** A [start, end) range of UTF-16 offsets into a text. */
export type TextRange = [start: number, end: number];

/** ICU's words of a CJK run with their offsets: what the marks are placed on. */
function chineseWords(run: string): { word: string; start: number }[] {
  zhSegmenter ??= new Intl.Segmenter('zh', { granularity: 'word' });
  return [...zhSegmenter.segment(run)].map((s) => ({ word: s.segment, start: s.index }));
}

/**
 * The ranges of `text` to mark for `query`, in order and not overlapping. A word of a spaced
 * script is marked whole, when its term (its stem, or a camelCase part's) is a term of the query:
 * never part of a word ("do" is not marked in "Documentation") and never a stop word ("the").
 * Chinese (and other CJK) text is marked by the words of ICU's 'zh' word segmenter that are words
 * of the query, and where a query word of two characters or more occurs whole. Unlike the index
 * terms above, this may use `Intl.Segmenter`: a change of ICU changes what is marked, never what
 * is stored.
 *
 * @example
 * highlightRanges('Documentation of the undo command', 'how do I undo the last commit') // [[21, 25]]
 */
export function highlightRanges(text: string, query: string): TextRange[] {
  const words = new Set<string>();
  const cjkWords = new Set<string>();
  scanRuns(query, (kind, start, end) => {
    const run = query.slice(start, end);
    if (kind === 'word') visitWordTerms(run, (term) => words.add(term));
    else for (const word of segmentCjkWords(run)) if (!isCjkStopWord(word)) cjkWords.add(word);
  });
  if (words.size === 0 && cjkWords.size === 0) return [];
  const ranges: TextRange[] = [];
  scanRuns(text, (kind, start, end) => {
    const run = text.slice(start, end);
    if (kind === 'word') {
      let hit = false;
      visitWordTerms(run, (term) => {
        hit ||= words.has(term);
      });
      if (hit) ranges.push([start, end]);
      return;
    }
    if (cjkWords.size === 0) return;
    for (const { word, start: at } of chineseWords(run)) if (cjkWords.has(word)) ranges.push([start + at, start + at + word.length]);
    for (const word of cjkWords) {
      if (word.length < 2) continue;
      for (let at = run.indexOf(word); at !== -1; at = run.indexOf(word, at + word.length)) ranges.push([start + at, start + at + word.length]);
    }
  });
  ranges.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const merged: TextRange[] = [];
  for (const range of ranges) {
    const last = merged[merged.length - 1];
    if (last && range[0] <= last[1]) last[1] = Math.max(last[1], range[1]);
    else merged.push([range[0], range[1]]);
  }
  return merged;
}
