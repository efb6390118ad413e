/**
 * The English lexicon of the local embedder: for a word, the WordNet senses it shares with other
 * words (synonyms), the general word of its first sense (hypernym) and its derivational relatives
 * ("decide" ↔ "decision"). Derived once from WordNet 3.0 by scripts/derive-wordnet.mjs into
 * assets/lexicon/wordnet-en.txt; read lazily, once per thread, on the first English word.
 *
 * Lookup follows WordNet's own "morphy": the word itself, its irregular base form (went → go),
 * then the regular inflection rules (boxes → box, studied → study, running → run).
 *
 * @example
 * const lexicon = loadLexicon();
 * lexicon.lookup('automobiles') // [{ id: 342, kind: 'sense', rank: 0 }, ...] — the senses of "automobile"
 */
import { readFileSync } from 'node:fs';
import { assetFile } from '../../lib/runtime-files.js';

export type LexiconLinkKind = 'sense' | 'hypernym' | 'derivation';

export interface LexiconLink {
  /** Dense synset number, stable for one lexicon file. */
  id: number;
  kind: LexiconLinkKind;
  /** Position among the word's links of this kind (0 = the most frequent sense; for hypernyms, the level above the word less one). */
  rank: number;
}

export interface Lexicon {
  /** The links of a lower-case word or of its base form; empty when WordNet does not know it. */
  lookup(word: string): readonly LexiconLink[];
  /**
   * How informative a lower-case word is, in (0, 1]: its IDF over WordNet's glosses divided by the
   * largest possible, so "the" ≈ 0.07, "guitar" ≈ 0.7, and words WordNet never uses (names,
   * jargon) 1.
   */
  informativeness(word: string): number;
}

const FILE = 'lexicon/wordnet-en.txt';
const DF_FILE = 'lexicon/wordnet-en-df.txt';

// WordNet's detachment rules (morphy), tried in order until a base form is in the lexicon.
const SUFFIX_RULES: ReadonlyArray<readonly [string, string]> = [
  ['ies', 'y'],
  ['ses', 's'],
  ['xes', 'x'],
  ['zes', 'z'],
  ['ches', 'ch'],
  ['shes', 'sh'],
  ['men', 'man'],
  ['es', 'e'],
  ['es', ''],
  ['s', ''],
  ['ed', 'e'],
  ['ed', ''],
  ['ing', 'e'],
  ['ing', ''],
  ['er', ''],
  ['est', ''],
  ['er', 'e'],
  ['est', 'e'],
];

/** Where a lexicon file is: next to the bundle in dist-main/, or in the repository's assets/. */
export function lexiconPath(file = FILE): string {
  return assetFile(file, "The local embedder's lexicon");
}

/**
 * The data lines of a file sorted by key (`key TAB value`, in code-unit order, as the derivation
 * script writes them), searched in place: loading costs one scan for line starts instead of
 * parsing 80,000 entries, which kept `cairn search` waiting a second.
 */
class SortedLines {
  private readonly starts: number[] = [];

  constructor(private readonly text: string) {
    for (let at = 0; at < text.length; ) {
      const end = text.indexOf('\n', at);
      const next = end === -1 ? text.length : end + 1;
      if (next - at > 1 && text.charCodeAt(at) !== 35 /* '#' */) this.starts.push(at);
      at = next;
    }
  }

  /** The value of `key`, or undefined. */
  get(key: string): string | undefined {
    let low = 0;
    let high = this.starts.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const start = this.starts[middle] as number;
      const tab = this.text.indexOf('\t', start);
      const candidate = this.text.slice(start, tab);
      if (candidate === key) {
        const end = this.text.indexOf('\n', tab);
        return this.text.slice(tab + 1, end === -1 ? this.text.length : end);
      }
      if (candidate < key) low = middle + 1;
      else high = middle - 1;
    }
    return undefined;
  }
}

function parseLinks(value: string): LexiconLink[] {
  const ranks = { sense: 0, derivation: 0 };
  const list: LexiconLink[] = [];
  for (const part of value.split(' ')) {
    if (part.startsWith('^')) {
      // One caret per level: ^ parent, ^^ grandparent.
      const level = part.lastIndexOf('^') + 1;
      list.push({ id: parseInt(part.slice(level), 36), kind: 'hypernym', rank: level - 1 });
      continue;
    }
    const kind: LexiconLinkKind = part.startsWith('+') ? 'derivation' : 'sense';
    list.push({ id: parseInt(kind === 'sense' ? part : part.slice(1), 36), kind, rank: ranks[kind]++ });
  }
  return list;
}

/** A bounded memo: a long document of unknown words must not grow it without end. */
function memo<T>(compute: (word: string) => T): (word: string) => T {
  const cache = new Map<string, T>();
  return (word) => {
    let value = cache.get(word);
    if (value === undefined) {
      value = compute(word);
      if (cache.size > 50_000) cache.clear();
      cache.set(word, value);
    }
    return value;
  };
}

/**
 * The lexicon over the two derived files: `text` (lemma TAB links, or form TAB =base) and
 * `frequencyText` (word TAB document frequency, with a `#documents TAB n` line).
 */
export function parseLexicon(text: string, frequencyText = ''): Lexicon {
  const entries = new SortedLines(text);
  const frequencies = new SortedLines(frequencyText);
  const documents = Number(/^#documents\t(\d+)/m.exec(frequencyText)?.[1] ?? 1);
  const maxIdf = Math.log(documents + 1);
  const none: readonly LexiconLink[] = [];

  /** Each candidate base form of a word, in morphy's order: itself, its irregular base, then the suffix rules. */
  function* forms(word: string): Generator<string> {
    yield word;
    for (const [suffix, replacement] of SUFFIX_RULES) {
      if (word.length <= suffix.length + 1 || !word.endsWith(suffix)) continue;
      const stem = word.slice(0, word.length - suffix.length) + replacement;
      yield stem;
      // Doubled consonants before -ing/-ed/-er: running → run, stopped → stop.
      if (replacement === '' && stem.length > 2 && stem.at(-1) === stem.at(-2)) yield stem.slice(0, -1);
    }
  }

  const linksOf = (form: string): LexiconLink[] | null => {
    const value = entries.get(form);
    if (value === undefined) return null;
    if (!value.startsWith('=')) return parseLinks(value);
    // An irregular form (went → go): the links of its base.
    const base = entries.get(value.slice(1));
    return base === undefined || base.startsWith('=') ? null : parseLinks(base);
  };

  // Like morphy, a word that is a lemma and an inflection ("decided": the adjective, and "decide"
  // in the past) has the links of both: its own first, then those of its first base form.
  const lookup = memo((word: string): readonly LexiconLink[] => {
    const own = linksOf(word);
    for (const form of forms(word)) {
      if (form === word) continue;
      const inflected = linksOf(form);
      if (!inflected) continue;
      if (!own) return inflected;
      const ids = new Set(own.map((link) => link.id));
      return [...own, ...inflected.filter((link) => !ids.has(link.id))];
    }
    return own ?? none;
  });

  // A lemma's frequency is that of all its forms: "guitars" is as informative as "guitar", not
  // rarer because the glosses use the plural less. The word's own count plus its first base form's.
  const informativeness = memo((word: string): number => {
    let count = Number(frequencies.get(word) ?? 0);
    for (const form of forms(word)) {
      if (form === word) continue;
      const value = frequencies.get(form);
      if (value !== undefined) {
        count += Number(value);
        break;
      }
    }
    return Math.log((documents + 1) / (count + 1)) / maxIdf;
  });

  return { lookup, informativeness };
}

let shared: Lexicon | undefined;

/** Whether this thread has read the lexicon yet (embedders warm up by loading it ahead of use). */
export function lexiconLoaded(): boolean {
  return shared !== undefined;
}

/** The lexicon, read from disk on first use and kept for the life of the thread. */
export function loadLexicon(): Lexicon {
  shared ??= parseLexicon(readFileSync(lexiconPath(), 'utf8'), readFileSync(lexiconPath(DF_FILE), 'utf8'));
  return shared;
}
