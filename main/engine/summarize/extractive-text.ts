/**
 * Language-level helpers of the extractive summarizer: which language a text is in, how it
 * splits into sentences and terms, and the few structural words an overview needs in that
 * language. Chinese, Japanese and Korean runs are segmented with Intl.Segmenter; Latin text
 * with a regular expression, which is many times faster and gives the same words.
 */

export type ContentLanguage = 'en' | 'zh' | 'ja' | 'ko';

const HAN = /\p{Script=Han}/u;
const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;
const HANGUL = /\p{Script=Hangul}/u;
const LATIN = /\p{Script=Latin}/u;

/** Most characters looked at to decide the language: a fair sample, not the whole megabyte. */
const SAMPLE_CHARS = 20_000;

/** The language of a text by script counts (any Latin-script text counts as 'en'). */
export function detectLanguage(text: string): ContentLanguage {
  const sample = sampleOf(text);
  let han = 0;
  let kana = 0;
  let hangul = 0;
  let latin = 0;
  for (const ch of sample) {
    if (HAN.test(ch)) han += 1;
    else if (KANA.test(ch)) kana += 1;
    else if (HANGUL.test(ch)) hangul += 1;
    else if (LATIN.test(ch)) latin += 1;
  }
  // A CJK character carries about as much as a short Latin word (three to five letters).
  const cjk = han + kana + hangul;
  if (cjk * 3 <= latin || cjk === 0) return 'en';
  if (hangul > han + kana) return 'ko';
  if (kana * 10 > han) return 'ja';
  return 'zh';
}

function sampleOf(text: string): string {
  if (text.length <= SAMPLE_CHARS) return text;
  // Three slices (start, middle, end), so a long English preface does not hide a Chinese body.
  const part = Math.floor(SAMPLE_CHARS / 3);
  const middle = Math.floor(text.length / 2 - part / 2);
  return text.slice(0, part) + text.slice(middle, middle + part) + text.slice(text.length - part);
}

export function isCjkLanguage(language: ContentLanguage): boolean {
  return language !== 'en';
}

/** Characters of scripts written without spaces between words. */
const CJK_CHAR = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;

/**
 * Joins the lines of one paragraph: a line break between two CJK characters is not a space
 * (Chinese text wrapped at a fixed width), anywhere else it is.
 */
export function joinLines(lines: string[]): string {
  let out = '';
  for (const raw of lines) {
    const line = raw.trim();
    if (line.length === 0) continue;
    if (out.length === 0) {
      out = line;
      continue;
    }
    const last = out[out.length - 1] ?? '';
    const first = line[0] ?? '';
    out += CJK_CHAR.test(last) && CJK_CHAR.test(first) ? line : ` ${line}`;
  }
  return out.replace(/[ \t]+/g, ' ');
}

/** Words that end in a period without ending a sentence. */
const ABBREVIATIONS = new Set([
  'e.g', 'i.e', 'etc', 'vs', 'cf', 'al', 'mr', 'mrs', 'ms', 'dr', 'prof', 'sr', 'jr', 'st', 'inc', 'ltd', 'co', 'corp',
  'fig', 'figs', 'no', 'nos', 'vol', 'pp', 'approx', 'dept', 'est', 'min', 'max', 'jan', 'feb', 'mar', 'apr', 'jun',
  'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec', 'u.s', 'u.k', 'a.m', 'p.m',
]);

const CLOSERS = new Set(['"', "'", '”', '’', '」', '』', '）', ')', ']', '】', '》']);

/**
 * Splits a paragraph into sentences on 。！？ and on . ! ? followed by a space (or the end),
 * keeping abbreviations ("e.g."), initials ("J. Smith"), decimals and file names together.
 */
export function splitSentences(paragraph: string): string[] {
  const out: string[] = [];
  let start = 0;
  const n = paragraph.length;
  for (let i = 0; i < n; i += 1) {
    const ch = paragraph[i] as string;
    let end = -1;
    if (ch === '。' || ch === '！' || ch === '？' || (ch === '…' && paragraph[i + 1] === '…')) {
      end = i + 1;
      while (end < n && (paragraph[end] === '。' || paragraph[end] === '！' || paragraph[end] === '？' || paragraph[end] === '…')) end += 1;
    } else if (ch === '.' || ch === '!' || ch === '?') {
      let j = i + 1;
      while (j < n && (paragraph[j] === '.' || paragraph[j] === '!' || paragraph[j] === '?')) j += 1;
      while (j < n && CLOSERS.has(paragraph[j] as string)) j += 1;
      const next = paragraph[j];
      // Only a space (or the end) after the mark ends a sentence: "v1.2", "a.md", "3.14" do not.
      if (next !== undefined && next !== ' ' && next !== '\t' && next !== '\n' && !CJK_CHAR.test(next)) continue;
      if (ch === '.' && j === i + 1 && isAbbreviation(paragraph, i)) continue;
      end = j;
    }
    if (end === -1) continue;
    while (end < n && CLOSERS.has(paragraph[end] as string)) end += 1;
    const sentence = paragraph.slice(start, end).trim();
    if (sentence.length > 0) out.push(sentence);
    start = end;
    i = end - 1;
  }
  const rest = paragraph.slice(start).trim();
  if (rest.length > 0) out.push(rest);
  return out;
}

function isAbbreviation(text: string, dot: number): boolean {
  let k = dot;
  while (k > 0 && /[A-Za-z.]/.test(text[k - 1] as string)) k -= 1;
  const word = text.slice(k, dot);
  if (word.length === 0) return false;
  // A single capital letter is an initial ("J. Smith"); a lower-case one ends a sentence ("plan a.").
  if (word.length === 1) return /[A-Z]/.test(word);
  return ABBREVIATIONS.has(word.toLowerCase());
}

/** One term occurrence: `key` compares terms (lower-cased, lightly stemmed), `surface` is how it was written. */
/** A `<placeholder>` argument of a usage line: "<version1>", "<regexp>" (a bare word in angle brackets). */
const PLACEHOLDER = /<[A-Za-z][\w.-]*>/;
/** An option opening a line of an option list: "-c:", "--force,", "-I: filter out ...". */
const OPTION_START = /^-{1,2}[\w-]+\s*[:=,]/;

/**
 * A usage line, not prose: a sentence with `<placeholder>` arguments that is a synopsis
 * ("Usage: Run 'coverage-diff.sh <version1> <version2>' ..."), an option list ("-i: <regexp>
 * filter out ...") or the fragment that goes on with one ("while checked out at <version2>.").
 * A sentence that states a purpose and quotes a command ("This script combines ... with 'git
 * diff <v1> <v2>'") starts with a capital and is prose.
 */
export function isUsageLine(sentence: string): boolean {
  const s = sentence.trim();
  if (!PLACEHOLDER.test(s)) return false;
  return /^(?:usage|synopsis)\b/i.test(s) || OPTION_START.test(s) || /^[\p{Ll}'"`./$]/u.test(s);
}

/**
 * A paragraph without the usage lines it opens with (and the options that go on listing after
 * one): the sentence that states what the text is for comes after them. Empty when nothing else is left.
 */
export function withoutUsageLead(paragraph: string): string {
  const sentences = splitSentences(paragraph);
  let i = 0;
  while (i < sentences.length && (isUsageLine(sentences[i] as string) || (i > 0 && OPTION_START.test(sentences[i] as string)))) i += 1;
  return i === 0 ? paragraph : sentences.slice(i).join(' ');
}

export interface Token {
  key: string;
  surface: string;
  /** Offsets of the surface in the sentence. */
  start: number;
  end: number;
}

const SEGMENTERS = new Map<string, Intl.Segmenter>();

function segmenter(locale: string): Intl.Segmenter {
  let s = SEGMENTERS.get(locale);
  if (!s) {
    s = new Intl.Segmenter(locale, { granularity: 'word' });
    SEGMENTERS.set(locale, s);
  }
  return s;
}

/** Runs of CJK script versus everything else, so each gets the right word splitter. */
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}ー々〆]+/gu;
const LATIN_WORD = /[\p{L}\p{N}][\p{L}\p{N}_'’-]*/gu;

/**
 * The content words of a sentence. Latin words are lower-cased and singularized; CJK runs are
 * segmented (the whole text at once is quadratic in V8's segmenter, one short run is linear),
 * keeping words of two characters or more, which drops most particles and function words.
 */
export function tokenize(sentence: string, language: ContentLanguage): Token[] {
  const out: Token[] = [];
  let last = 0;
  for (const match of sentence.matchAll(CJK_RUN)) {
    const at = match.index;
    if (at > last) latinTokens(sentence, last, at, out);
    cjkTokens(match[0], at, language, out);
    last = at + match[0].length;
  }
  if (last < sentence.length) latinTokens(sentence, last, sentence.length, out);
  return out;
}

function latinTokens(sentence: string, from: number, to: number, out: Token[]): void {
  const text = from === 0 && to === sentence.length ? sentence : sentence.slice(from, to);
  for (const match of text.matchAll(LATIN_WORD)) {
    let surface = match[0];
    const lastChar = surface.charCodeAt(surface.length - 1);
    // Trailing apostrophes and hyphens, and the possessive 's, are not part of the word.
    if (lastChar === 39 || lastChar === 0x2019 || lastChar === 45) surface = surface.replace(/['’-]+$/, '');
    if (surface.length > 2 && (surface.endsWith("'s") || surface.endsWith('’s'))) surface = surface.slice(0, -2);
    if (surface.length < 2) continue;
    const first = surface.charCodeAt(0);
    if (first >= 48 && first <= 57 && /^[\d.,_-]+$/.test(surface)) continue;
    const lower = surface.toLowerCase();
    if (EN_STOPWORDS.has(lower)) continue;
    const start = from + match.index;
    out.push({ key: stem(lower), surface, start, end: start + surface.length });
  }
}

function cjkTokens(run: string, offset: number, language: ContentLanguage, out: Token[]): void {
  const locale = language === 'ja' ? 'ja' : language === 'ko' ? 'ko' : 'zh';
  for (const part of segmenter(locale).segment(run)) {
    if (!part.isWordLike) continue;
    const word = part.segment;
    // Two UTF-16 units or more: in these scripts that is two characters or more.
    if (word.length < 2 || ZH_STOPWORDS.has(word) || JA_STOPWORDS.has(word)) continue;
    const start = offset + part.index;
    out.push({ key: word, surface: word, start, end: start + word.length });
  }
}

/** Plural and possessive endings only: enough to merge "summaries"/"summary", cheap and predictable. */
function stem(word: string): string {
  if (word.length <= 3 || word.charCodeAt(word.length - 1) !== 115 /* s */) return word;
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 4 && /(sses|xes|ches|shes)$/.test(word)) return word.slice(0, -2);
  if (!/(ss|us|is|os)$/.test(word)) return word.slice(0, -1);
  return word;
}

/** Structural words an overview needs, per language. */
export interface Labels {
  keyTerms: string;
  definitions: string;
  folders: string;
  /** A folder of code packages' list of them. */
  packages: string;
  files: string;
  /** A folder's line of its sub-folders' distinctive terms. */
  covers: string;
  /** A wide folder's line of its documents' titles. */
  documents: string;
  /** A folder of source files with no shared subject ("Code: engine.pl, parse.pl"). */
  code: string;
  /** Separator of a list of terms. */
  listSeparator: string;
  /** "... and 12 more" */
  more(count: number): string;
  /** Text after a label ("Key terms:" vs "关键词："). */
  colon: string;
  /** Space between sentences. */
  sentenceJoiner: string;
}

export const LABELS: Record<ContentLanguage, Labels> = {
  en: { keyTerms: 'Key terms', definitions: 'Definitions', folders: 'Folders', packages: 'Packages', files: 'Files', covers: 'Covers', documents: 'Documents', code: 'Code', listSeparator: ', ', more: (n) => `… and ${n} more`, colon: ': ', sentenceJoiner: ' ' },
  zh: { keyTerms: '关键词', definitions: '定义', folders: '子目录', packages: '包', files: '文件', covers: '涵盖', documents: '文档', code: '代码', listSeparator: '、', more: (n) => `……另有 ${n} 项`, colon: '：', sentenceJoiner: '' },
  ja: { keyTerms: 'キーワード', definitions: '定義', folders: 'フォルダ', packages: 'パッケージ', files: 'ファイル', covers: '内容', documents: '文書', code: 'コード', listSeparator: '、', more: (n) => `…ほか ${n} 件`, colon: '：', sentenceJoiner: '' },
  ko: { keyTerms: '핵심어', definitions: '정의', folders: '폴더', packages: '패키지', files: '파일', covers: '포함', documents: '문서', code: '코드', listSeparator: ', ', more: (n) => `… 외 ${n}개`, colon: ': ', sentenceJoiner: ' ' },
};

/**
 * The summarizer's own label words that a text of its own rarely uses ("Definitions", "Key
 * terms"): never a key term or a topic of what it summarizes. ("Files", "Code" and "Documents"
 * are words of real subjects too: CMake's "file" command.)
 */
const LABEL_WORDS = new Set(Object.values(LABELS).flatMap((l) => [l.keyTerms, l.definitions].map((word) => word.toLowerCase())));

export function isLabelWord(term: string): boolean {
  return LABEL_WORDS.has(term.trim().toLowerCase());
}

/** The openings of the summarizer's own lists, in every language: "Definitions: ", "Code: ", "文档：". */
const LIST_OPENINGS = Object.values(LABELS).flatMap((l) => [l.definitions, l.code, l.documents, l.packages].map((word) => `${word}${l.colon}`));

/** What follows the summarizer's own list label ("Definitions: a, b" → "a, b"), or undefined for other text. */
export function afterListLabel(text: string): string | undefined {
  const opening = LIST_OPENINGS.find((o) => text.startsWith(o));
  return opening === undefined ? undefined : text.slice(opening.length).trim();
}

/** "a, b and c" in English, "a、b和c" in Chinese, the list separator elsewhere. */
export function joinList(items: string[], language: ContentLanguage): string {
  if (items.length <= 1) return items.join('');
  if (language === 'en') return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
  if (language === 'zh') return `${items.slice(0, -1).join('、')}和${items[items.length - 1]}`;
  return items.join(LABELS[language].listSeparator);
}

/** Cuts text to at most `max` characters (code points) at a word boundary where there is one, ending in "…". */
export function truncate(text: string, max: number): string {
  const chars = [...text];
  if (chars.length <= max) return text;
  const cut = chars.slice(0, Math.max(1, max - 1)).join('');
  const space = cut.lastIndexOf(' ');
  // Break at a space only when that keeps most of the text (CJK text has no spaces to break at).
  const head = space > cut.length * 0.6 ? cut.slice(0, space) : cut;
  return `${head.replace(/[\s,;:，、；：]+$/u, '')}…`;
}

/** Length in code points, the unit the abstract and overview limits are counted in. */
export function charLength(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    // A high surrogate and its low surrogate are one character.
    if (code < 0xd800 || code > 0xdbff) n += 1;
  }
  return n;
}

const EN_STOPWORDS = new Set(
  `a about above after again against all also am an and any are aren't as at be because been before being below between both but by
  can cannot could couldn't did didn't do does doesn't doing don't down during each either else etc even ever every few for from further
  get gets got had hadn't has hasn't have haven't having he her here hers herself him himself his how however i if in into is isn't it
  it's its itself just let like made make makes many may me might more most much must my myself need needs no nor not now of off often
  on once one only or other others our ours ourselves out over own per perhaps please rather really same see seen shall she should
  shouldn't since so some such than that that's the their theirs them themselves then there these they this those though through thus
  to too under until up upon us use used uses using very via was wasn't we well were weren't what when where whether which while who
  whom whose why will with within without won't would wouldn't yes yet you your yours yourself yourselves
  new way ways want wants going thing things lot lots therefore hence whereas
  two three four five six seven eight nine ten first second third
  http https www com org html md`
    .split(/\s+/)
    .filter(Boolean),
);

const ZH_STOPWORDS = new Set(
  `我们 你们 他们 她们 它们 我的 你的 他的 自己 这个 那个 这些 那些 一个 一些 一种 一样 一下 一直 一起 这样 那样 这里 那里 这种 那种 这是 那是
  可以 可能 应该 能够 需要 进行 通过 以及 并且 而且 或者 还是 因为 所以 因此 如果 但是 不过 然后 然而 虽然 已经 没有 不是 就是 只是 也是
  都是 还有 什么 怎么 如何 为什么 为了 对于 关于 由于 其中 其他 其它 之后 之前 以后 以前 时候 的话 之间 之一 以下 以上 所有 每个 各种 不同
  相同 同时 例如 比如 包括 非常 比较 当前 目前 现在 已经 之中 使用 利用 通常 一般 主要 部分 方面 方式 情况 问题 内容 问题 东西 这么 那么
  表示 是否 如下 如上 并不 不会 不能 不要 就会 会被 被称为 即可 即使 即便 此外 另外 另一方面 首先 其次 最后 总之 其实 确实 当然 也许 大概 十分`
    .split(/\s+/)
    .filter(Boolean),
);

const JA_STOPWORDS = new Set(`これ それ あれ この その あの ここ そこ こと もの ため よう さん する ある いる なる できる から まで より など です ます`.split(/\s+/).filter(Boolean));
