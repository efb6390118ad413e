/**
 * How alike two memory texts are, and whether they contradict, compared by words (`wordTerms`,
 * text-analysis.ts): stemmed English words and Chinese words (Intl.Segmenter), stop words left
 * out. Everything is rule-based and deterministic so a dedup decision can be explained
 * and re-checked by hand; the LLM path (llm-decider.ts) replaces the decision, not these measures.
 *
 * @example
 * cosine(termVector('Ana prefers the dark theme'), termVector('Ana prefers a dark theme')) // 1
 * contradiction('Ana prefers the dark theme.', 'Ana prefers the light theme.', 'preference') // { kind: 'antonym', ... }
 */
import { scanRuns, stem, wordTerms } from '../../../lib/text-analysis.js';

export type TermVector = Map<string, number>;

/** Term frequencies of a text. */
export function termVector(text: string): TermVector {
  const vector: TermVector = new Map();
  for (const term of wordTerms(text)) vector.set(term, (vector.get(term) ?? 0) + 1);
  return vector;
}

export function cosine(a: TermVector, b: TermVector): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (const [term, x] of a) {
    na += x * x;
    const y = b.get(term);
    if (y !== undefined) dot += x * y;
  }
  for (const y of b.values()) nb += y * y;
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** Jaccard overlap of two keyword lists, compared by their terms ("Themes" and "theme" agree). */
export function keywordOverlap(a: string[], b: string[]): number {
  const set = (words: string[]) => new Set(words.flatMap((w) => wordTerms(w).join(' ') || w.toLowerCase()));
  const x = set(a);
  const y = set(b);
  if (x.size === 0 || y.size === 0) return 0;
  let shared = 0;
  for (const k of x) if (y.has(k)) shared += 1;
  return shared / (x.size + y.size - shared);
}

/**
 * The share of a text's terms and adjacent term pairs that another text also has. Pairs keep
 * word order, so "moved from Paris to Berlin" is not covered by "moved from Berlin to Paris".
 * 1 means the text adds no word and no word pair: it restates what the other says.
 */
export function coverage(text: string, by: string): number {
  const grams = (t: string) => {
    const terms = wordTerms(t);
    const out = new Set(terms);
    for (let i = 0; i + 1 < terms.length; i += 1) out.add(`${terms[i]} ${terms[i + 1]}`);
    return out;
  };
  const mine = grams(text);
  if (mine.size === 0) return 1;
  const theirs = grams(by);
  let covered = 0;
  for (const g of mine) if (theirs.has(g)) covered += 1;
  return covered / mine.size;
}

/** Sentences of a text: split after . ! ? and their CJK forms, and at line breaks. */
export function splitSentences(text: string): string[] {
  return text
    .split(/(?<=[.!?。！？])\s+|(?<=[。！？])|\n+/u)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/**
 * A sentence's identity for merging: every word, stop words included, lower-cased, in order.
 * Stop words stay because they carry negation ("does not like" differs from "does like").
 */
export function sentenceKey(sentence: string): string {
  const words: string[] = [];
  scanRuns(sentence, (_kind, start, end) => words.push(sentence.slice(start, end).normalize('NFKC').toLowerCase()));
  return words.join(' ');
}

// ---------------------------------------------------------------------------------------------
// Contradictions

const NEGATION_WORDS = new Set(['not', 'no', 'never', 'none', 'nor', 'neither', 'without', 'cannot', 'nobody', 'nothing', 'anymore']);
/** Chinese negators, minus common words that only contain one (不过 "but", 不错 "good", ...). */
const CJK_NEGATION = /不再|不|没有|没|别|未|无/u;
const CJK_NOT_NEGATION = /不过|不错|不仅|不但|不少|不同|不断|无论|没关系/gu;

/** Whether a sentence is negated: "not", "never", "don't", "no longer", 不, 没, ... */
export function isNegated(sentence: string): boolean {
  const lower = sentence.toLowerCase().replace(/[’‘]/g, "'");
  if (/\b\w+n't\b/.test(lower)) return true;
  let negated = false;
  scanRuns(lower, (kind, start, end) => {
    const run = lower.slice(start, end);
    if (kind === 'word' && NEGATION_WORDS.has(run)) negated = true;
    if (kind === 'cjk' && CJK_NEGATION.test(run.replace(CJK_NOT_NEGATION, ''))) negated = true;
  });
  return negated;
}

/**
 * Pairs of words that cannot both hold of the same thing. Deliberately short: two different
 * values are not a contradiction by themselves ("likes tea" and "likes coffee" can both be true).
 */
const ANTONYMS: [string, string][] = [
  ['dark', 'light'],
  ['like', 'dislike'],
  ['love', 'hate'],
  ['enable', 'disable'],
  ['allow', 'forbid'],
  ['accept', 'reject'],
  ['agree', 'disagree'],
  ['include', 'exclude'],
  ['always', 'never'],
  ['early', 'late'],
  ['hot', 'cold'],
  ['tabs', 'spaces'],
  ['public', 'private'],
  ['true', 'false'],
  ['喜欢', '讨厌'],
  ['深色', '浅色'],
  ['同意', '反对'],
  ['接受', '拒绝'],
  ['开启', '关闭'],
];

/** Words saying the newer statement replaces an older one. */
const CHANGE_WORDS = new Set(['now', 'switched', 'switch', 'instead', 'changed', 'anymore', 'longer', 'nowadays', 'moved']);
const CJK_CHANGE = /现在|改用|换成|改成|不再|改为|如今/u;

/** Categories that hold one value per subject: a newer statement with a change cue replaces the older. */
const SINGLE_VALUED = new Set(['preference', 'profile']);

function wordForms(sentence: string): Set<string> {
  const forms = new Set<string>();
  const lower = sentence.toLowerCase();
  scanRuns(lower, (kind, start, end) => {
    const run = lower.slice(start, end);
    if (kind === 'word') {
      forms.add(run);
      forms.add(stem(run));
    }
  });
  return forms;
}

function isNonAscii(word: string): boolean {
  return [...word].some((ch) => ch.charCodeAt(0) > 0x7f);
}

function hasWord(sentence: string, forms: Set<string>, word: string): boolean {
  return isNonAscii(word) ? sentence.includes(word) : forms.has(word) || forms.has(stem(word));
}

/** Cosine of two sentences after taking out the given words (the ones that differ on purpose). */
function topicCosine(a: string, b: string, drop: string[]): number {
  const strip = (s: string) => {
    let out = s;
    for (const w of drop) out = isNonAscii(w) ? out.replaceAll(w, ' ') : out.replace(new RegExp(`\\b${w}\\w*`, 'giu'), ' ');
    return out;
  };
  return cosine(termVector(strip(a)), termVector(strip(b)));
}

/**
 * What each negator in a sentence denies: the words after it up to the end of its clause
 * ("Ana doesn't like coffee" → "like coffee"; "on the free runner, not a paid one" → "a paid one").
 */
export function negationScopes(sentence: string): string[] {
  const lower = sentence.toLowerCase().replace(/[’‘]/g, "'");
  const scopes: string[] = [];
  const clauseEnd = (from: number) => {
    const rest = lower.slice(from);
    const stop = rest.search(/[,;:.!?，；：。！？]/u);
    return stop < 0 ? rest : rest.slice(0, stop);
  };
  for (const m of lower.matchAll(/\b(?:\w+n't|not|no|never|none|nor|neither|without|cannot|nobody|nothing)\b/g)) scopes.push(clauseEnd(m.index + m[0].length));
  // Chinese negators, with the common words that only contain one (不过, 不错, ...) masked out.
  const cjk = lower.replace(CJK_NOT_NEGATION, (w) => '\u3000'.repeat(w.length));
  for (const m of cjk.matchAll(/不再|没有|不|没|别|未|无/gu)) scopes.push(clauseEnd(m.index + m[0].length));
  return scopes.filter((scope) => wordTerms(scope).length > 0);
}

/**
 * Whether the negated sentence denies what the other one states: most of what some negator
 * denies is said in the other ("doesn't like coffee" / "likes coffee"), not something new
 * ("the free runner, not a paid one" / "the free runner").
 */
function deniesOther(negated: string, other: string): boolean {
  const said = new Set(wordTerms(other));
  return negationScopes(negated).some((scope) => {
    const terms = wordTerms(scope);
    return terms.filter((t) => said.has(t)).length * 2 >= terms.length;
  });
}

// Dates ("2024-05-09", "2024-05-09T15:00"), clock times ("15:00") and numbers ("20", "7.5"); a list number opening a line is none of them.
const VALUE = /\d{4}-\d{2}-\d{2}(?:t\d{2}:\d{2}(?::\d{2})?)?|\b\d{1,2}:\d{2}\b|\d+(?:\.\d+)?/giu;
const LIST_NUMBER = /^\s*\d{1,3}[.)、]\s+/u;

function values(sentence: string): Set<string> {
  return new Set(sentence.replace(LIST_NUMBER, ' ').toLowerCase().match(VALUE) ?? []);
}

/**
 * Two sentences giving the same thing different values: once the dates and numbers are taken
 * out they say the same (topic at least VALUE_TOPIC), and each has a value the other lacks.
 * "The pool max is 20" / "The pool max is 30" disagree; "pool max 20" / "pool max 20 in staging" do not.
 */
export const VALUE_TOPIC = 0.8;

function valueConflict(older: string, newer: string): { topic: number; detail: string } | null {
  const a = values(older);
  const b = values(newer);
  const onlyA = [...a].filter((v) => !b.has(v));
  const onlyB = [...b].filter((v) => !a.has(v));
  if (onlyA.length === 0 || onlyB.length === 0) return null;
  const strip = (s: string) => s.replace(LIST_NUMBER, ' ').replace(VALUE, ' ');
  const topic = cosine(termVector(strip(older)), termVector(strip(newer)));
  return topic >= VALUE_TOPIC ? { topic, detail: `${onlyA.join(', ')} → ${onlyB.join(', ')}` } : null;
}

export interface Contradiction {
  kind: 'negation' | 'antonym' | 'value' | 'change';
  /** The older sentence the newer one contradicts. */
  older: string;
  newer: string;
  /** How alike the two are once the contradicting words are set aside. */
  topic: number;
  detail: string;
}

/**
 * Thresholds on the topic cosine (the two sentences with the contradicting words taken out):
 * about the same thing when at least this alike. Measured on the cases in similarity.test.ts:
 * "prefers dark theme" / "prefers light theme" score 1; a shared subject alone ("Ana ...")
 * scores under 0.5.
 */
export const CONTRADICTION_TOPIC = 0.6;

/**
 * Whether the newer sentence contradicts the older one, and how; null when it does not. Only a
 * real disagreement about the same subject counts: one denies what the other states (negation,
 * an antonym), they give it different dates or numbers, or (one value per subject) the newer
 * says it changed. A negation that denies something else ("…, not a paid one") is not one.
 */
export function sentenceContradiction(older: string, newer: string, category: string): Contradiction | null {
  const negOld = isNegated(older);
  const negNew = isNegated(newer);
  if (negOld !== negNew && (negNew ? deniesOther(newer, older) : deniesOther(older, newer))) {
    const topic = topicCosine(older, newer, []);
    if (topic >= CONTRADICTION_TOPIC) return { kind: 'negation', older, newer, topic, detail: negNew ? 'the newer statement negates it' : 'the newer statement drops its negation' };
  }
  const value = valueConflict(older, newer);
  if (value) return { kind: 'value', older, newer, ...value };
  const formsOld = wordForms(older);
  const formsNew = wordForms(newer);
  for (const [a, b] of ANTONYMS) {
    for (const [x, y] of [
      [a, b],
      [b, a],
    ] as const) {
      if (hasWord(older, formsOld, x) && !hasWord(older, formsOld, y) && hasWord(newer, formsNew, y) && !hasWord(newer, formsNew, x)) {
        const topic = topicCosine(older, newer, [x, y]);
        if (topic >= CONTRADICTION_TOPIC) return { kind: 'antonym', older, newer, topic, detail: `${x} → ${y}` };
      }
    }
  }
  if (SINGLE_VALUED.has(category)) {
    const cue = [...formsNew].find((w) => CHANGE_WORDS.has(w)) ?? CJK_CHANGE.exec(newer)?.[0];
    if (cue) {
      const topic = topicCosine(older, newer, [cue, 'no', 'not']);
      const a = termVector(older);
      const b = termVector(newer.replace(cue, ' '));
      const differs = [...a.keys()].some((t) => !b.has(t)) && [...b.keys()].some((t) => !a.has(t));
      if (differs && topic >= CONTRADICTION_TOPIC - 0.1) return { kind: 'change', older, newer, topic, detail: `change cue "${cue}"` };
    }
  }
  return null;
}
