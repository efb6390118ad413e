/**
 * The local embedder: no network, no model download, deterministic and fast. It is a hashed
 * bag of features (the "hashing trick"): every feature of a text is hashed to one of
 * `dimensions` slots with a hashed sign, weighted, and the vector is L2-normalised, so the cosine
 * of two vectors approximates the weighted overlap of their features.
 *
 * Features (see docs/embeddings.md for why these):
 * - words: lower-cased, NFKC-folded, lightly stemmed (the analyzer the full-text index uses);
 *   camelCase compounds also give their parts; stop words count, but little;
 * - word bigrams of consecutive content words (phrases: "storm review" vs "review storm");
 * - character trigrams of each Latin word with boundary marks (`#pa`, `par`, ..., `er#`), for
 *   morphology and typos;
 * - CJK character unigrams and overlapping bigrams (Chinese words are mostly one or two
 *   characters; bigrams carry most of the meaning, unigrams recall);
 * - for English words, WordNet links (lexicon.ts): their frequent senses, the ancestors of their
 *   first sense and their derivational relatives, so "automobile" and "car", "guitar" and
 *   "stringed instrument", "decide" and "decision" share features.
 * Term frequency is sublinear (1 + ln tf). English words are weighted by a static IDF (document
 * frequencies over WordNet's glosses); Chinese relies on a built-in stop list.
 *
 * The model id names the algorithm, its version and the dimensions, so changing any of them
 * makes stored vectors stale and the index re-embeds them.
 *
 * @example
 * const embedder = createLocalEmbedder({ dimensions: 512 });
 * const { vectors } = await embedder.embed({ texts: ['storm review', '暴风雨复盘'] });
 * vectors[0].length // 512
 */
import { CairnError } from '../../../shared/errors.js';
import type { EmbedOptions, EmbedResult, EmbeddingModel } from '../../engine/ports/embedding-model.js';
import {
  ANALYZER_VERSION,
  isCjkStopBigram,
  isCjkStopChar,
  scanRuns,
  visitWordTerms,
} from '../../lib/text-analysis.js';
import { loadLexicon, type Lexicon, type LexiconLink } from './lexicon.js';

/** Bump when features, weights or hashing change: stored vectors then re-embed. */
export const LOCAL_EMBEDDER_VERSION = 2;
/** The version without the lexicon (version 1's features exactly). */
const PLAIN_VERSION = 1;

export interface LocalEmbedderOptions {
  /** Vector length. Default 512; more dimensions mean fewer hash collisions and bigger rows. */
  dimensions?: number;
  /** Add WordNet sense features to English words (see lexicon.ts). Default true. */
  lexicon?: boolean;
}

// Feature weights. Words carry the meaning; trigrams are many per word, so each weighs little;
// a Chinese bigram is roughly a word, a lone character much less.
const W_WORD = 1.0;
const W_STOP = 0.15;
const W_WORD_BIGRAM = 0.5;
const W_TRIGRAM = 0.3;
const W_CJK_BIGRAM = 1.0;
const W_CJK_BIGRAM_STOP = 0.2;
const W_CJK_CHAR = 0.4;
const W_CJK_CHAR_STOP = 0.08;
// WordNet links of an English word: its senses (the first counts most), the general word of its
// first sense and its derivational relatives. Lighter than the word itself: a shared sense is
// evidence of the same meaning, not proof.
const W_SENSE = 0.5;
const SENSE_DECAY = 0.6;
const W_HYPERNYM = 0.25;
const HYPERNYM_DECAY = 0.6;
// An English word's features are scaled by how informative it is (IDF over WordNet's glosses,
// see lexicon.ts): FLOOR + (1 − FLOOR) × informativeness^POWER. The stop list alone let common
// words ("work", "time") weigh as much as names; with this the vector ranks like BM25 does.
const IDF_FLOOR = 0.1;
const IDF_POWER = 1.5;
const W_DERIVATION = 0.35;
const W_LINKS = 0.6;

// Each feature kind hashes with its own seed, so `run` the word and `run` the trigram never share a slot by design.
const SEED_WORD = 0x1b873593;
const SEED_STOP = 0x2f1e5c3d;
const SEED_WORD_BIGRAM = 0x3c6ef372;
const SEED_TRIGRAM = 0x4a7d1b2c;
const SEED_CJK_BIGRAM = 0x5be0cd19;
const SEED_CJK_CHAR = 0x6a09e667;
const SEED_EMPTY = 0x7f4a7c15;
const SEED_SENSE = 0x510e527f;

function fmix32(input: number): number {
  let h = input;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** FNV-1a over UTF-16 code units, finished with murmur3's avalanche so low bits are usable as slots. */
function hashString(text: string, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i += 1) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return fmix32(h);
}

function hashPair(a: number, b: number, seed: number): number {
  return fmix32((Math.imul(a, 0x9e3779b1) + b) ^ seed);
}

function hashTrigram(c1: number, c2: number, c3: number): number {
  let h = (0x811c9dc5 ^ SEED_TRIGRAM) >>> 0;
  h = Math.imul(h ^ c1, 0x01000193);
  h = Math.imul(h ^ c2, 0x01000193);
  h = Math.imul(h ^ c3, 0x01000193);
  return fmix32(h);
}

const BOUNDARY = 35; // '#'

/**
 * Counts of each feature of one text with its weight: an open-addressing hash table keyed by the
 * feature hash, reused between texts (a generation number clears it in O(1)). About 3× faster
 * than a Map on long texts, which is where embedding time goes.
 */
class FeatureCounts {
  private capacity = 1024;
  private keys = new Uint32Array(this.capacity);
  private counts = new Float64Array(this.capacity);
  private weights = new Float64Array(this.capacity);
  private stamps = new Uint32Array(this.capacity);
  private generation = 1;
  private used: number[] = [];

  add(weight: number, hash: number): void {
    if ((this.used.length + 1) * 2 > this.capacity) this.grow();
    const mask = this.capacity - 1;
    let slot = hash & mask;
    while (this.stamps[slot] === this.generation) {
      if (this.keys[slot] === hash) {
        this.counts[slot] = (this.counts[slot] as number) + 1;
        return;
      }
      slot = (slot + 1) & mask;
    }
    this.stamps[slot] = this.generation;
    this.keys[slot] = hash;
    this.counts[slot] = 1;
    this.weights[slot] = weight;
    this.used.push(slot);
  }

  /** Calls `visit` once per distinct feature. */
  forEach(visit: (hash: number, weight: number, count: number) => void): void {
    for (const slot of this.used) visit(this.keys[slot] as number, this.weights[slot] as number, this.counts[slot] as number);
  }

  get size(): number {
    return this.used.length;
  }

  clear(): void {
    this.used = [];
    this.generation += 1;
    if (this.generation === 0xffffffff) {
      this.stamps.fill(0);
      this.generation = 1;
    }
  }

  private grow(): void {
    const old = { keys: this.keys, counts: this.counts, weights: this.weights, used: this.used };
    this.capacity *= 2;
    this.keys = new Uint32Array(this.capacity);
    this.counts = new Float64Array(this.capacity);
    this.weights = new Float64Array(this.capacity);
    this.stamps = new Uint32Array(this.capacity);
    this.generation = 1;
    this.used = [];
    const mask = this.capacity - 1;
    for (const from of old.used) {
      let slot = (old.keys[from] as number) & mask;
      while (this.stamps[slot] === this.generation) slot = (slot + 1) & mask;
      this.stamps[slot] = this.generation;
      this.keys[slot] = old.keys[from] as number;
      this.counts[slot] = old.counts[from] as number;
      this.weights[slot] = old.weights[from] as number;
      this.used.push(slot);
    }
  }
}

function linkWeight(link: LexiconLink): number {
  if (link.kind === 'sense') return W_SENSE * SENSE_DECAY ** link.rank;
  return link.kind === 'hypernym' ? W_HYPERNYM * HYPERNYM_DECAY ** link.rank : W_DERIVATION;
}

function addLexiconLinks(word: string, lexicon: Lexicon, features: FeatureSink, scale: number): void {
  const links = lexicon.lookup(word);
  if (links.length === 0) return;
  // A word with many senses must not outweigh one with few: the links of a word together weigh
  // at most W_LINKS (as a vector norm), whatever their number.
  let norm = 0;
  for (const link of links) norm += linkWeight(link) ** 2;
  const cap = Math.min(1, W_LINKS / Math.sqrt(norm)) * scale;
  for (const link of links) {
    // Every kind shares one seed: a word's hypernym is another word's sense.
    features.add(linkWeight(link) * cap, fmix32(Math.imul(link.id + 1, 0x9e3779b1) ^ SEED_SENSE));
  }
}

/**
 * The features of one word run (`parseCtxUri`, `the`), in the order they are added, with what
 * the bigram to the previous run's last content word needs. Kept per run text: a word's terms,
 * stems, trigrams and WordNet links are the same wherever it occurs, and a corpus' vocabulary is
 * Zipfian, so most runs are looked up instead of analysed.
 */
interface RunFeatures {
  readonly weights: Float64Array;
  readonly hashes: Uint32Array;
  /** Index of the run's first content word in the lists (the bigram to the previous run comes right after it); -1 when it has none. */
  readonly firstAt: number;
  readonly first: number;
  readonly firstWeight: number;
  readonly last: number;
  readonly lastWeight: number;
}

/** Records features in order instead of counting them (see runFeatures). */
class FeatureList {
  weights: number[] = [];
  hashes: number[] = [];
  add(weight: number, hash: number): void {
    this.weights.push(weight);
    this.hashes.push(hash);
  }
}

type FeatureSink = Pick<FeatureCounts, 'add'>;

// Runs longer than this (hashes, base64) rarely repeat: analysed each time, never kept.
const MAX_CACHED_RUN = 48;
// Distinct runs kept per embedder before the cache starts again: a few MB, and a corpus' common
// words are back in it after a few documents.
const RUN_CACHE_SIZE = 50_000;

/** Word runs already analysed, by their text (case matters: it decides camelCase parts). */
class RunCache {
  private readonly runs = new Map<string, RunFeatures>();
  constructor(private readonly lexicon: Lexicon | null) {}

  get(run: string): RunFeatures {
    let features = this.runs.get(run);
    if (features === undefined) {
      features = runFeatures(run, this.lexicon);
      if (run.length <= MAX_CACHED_RUN) {
        if (this.runs.size >= RUN_CACHE_SIZE) this.runs.clear();
        this.runs.set(run, features);
      }
    }
    return features;
  }
}

const runCaches = new Map<Lexicon | null, RunCache>();

/** The run cache of `embedText` calls that bring none (tests, benchmarks): one per lexicon. */
function runCacheFor(lexicon: Lexicon | null): RunCache {
  let runs = runCaches.get(lexicon);
  if (runs === undefined) {
    runs = new RunCache(lexicon);
    runCaches.set(lexicon, runs);
  }
  return runs;
}

/** Analyses one word run: its terms' features, with bigrams between its own content words. */
function runFeatures(run: string, lexicon: Lexicon | null): RunFeatures {
  const list = new FeatureList();
  let firstAt = -1;
  let first = -1;
  let firstWeight = 1;
  let previousWord = -1;
  let previousWeight = 1;
  visitWordTerms(
    run,
    (term, normalized, stop) => {
      if (stop) {
        list.add(W_STOP, hashString(term, SEED_STOP));
        return;
      }
      const word = hashString(term, SEED_WORD);
      const weight = lexicon ? IDF_FLOOR + (1 - IDF_FLOOR) * lexicon.informativeness(normalized) ** IDF_POWER : 1;
      list.add(W_WORD * weight, word);
      if (previousWord !== -1) list.add(W_WORD_BIGRAM * Math.min(weight, previousWeight), hashPair(previousWord, word, SEED_WORD_BIGRAM));
      else {
        firstAt = list.hashes.length - 1;
        first = word;
        firstWeight = weight;
      }
      previousWord = word;
      previousWeight = weight;
      addTrigrams(normalized, list, W_TRIGRAM * weight);
      if (lexicon) addLexiconLinks(normalized, lexicon, list, weight);
    },
    true,
  );
  return {
    weights: Float64Array.from(list.weights),
    hashes: Uint32Array.from(list.hashes),
    firstAt,
    first,
    firstWeight,
    last: previousWord,
    lastWeight: previousWeight,
  };
}

function collectFeatures(text: string, features: FeatureCounts, runs: RunCache): void {
  let previousWord = -1;
  let previousWeight = 1;
  scanRuns(text, (kind, start, end) => {
    const run = text.slice(start, end);
    if (kind === 'cjk') {
      previousWord = -1;
      const chars = Array.from(run);
      for (let i = 0; i < chars.length; i += 1) {
        const ch = chars[i] as string;
        const stopChar = isCjkStopChar(ch);
        features.add(stopChar ? W_CJK_CHAR_STOP : W_CJK_CHAR, hashString(ch, SEED_CJK_CHAR));
        const next = chars[i + 1];
        if (next === undefined) continue;
        const bigram = ch + next;
        const stopBigram = isCjkStopBigram(bigram) || (stopChar && isCjkStopChar(next));
        features.add(stopBigram ? W_CJK_BIGRAM_STOP : W_CJK_BIGRAM, hashString(bigram, SEED_CJK_BIGRAM));
      }
      return;
    }
    // A feature's weight is that of its first occurrence (FeatureCounts), so the cached features
    // are replayed in the order the analysis added them, the bigram to the previous run included.
    const cached = runs.get(run);
    const { weights, hashes, firstAt } = cached;
    for (let i = 0; i < hashes.length; i += 1) {
      features.add(weights[i] as number, hashes[i] as number);
      if (i === firstAt && previousWord !== -1) {
        features.add(W_WORD_BIGRAM * Math.min(cached.firstWeight, previousWeight), hashPair(previousWord, cached.first, SEED_WORD_BIGRAM));
      }
    }
    if (firstAt !== -1) {
      previousWord = cached.last;
      previousWeight = cached.lastWeight;
    }
  });
}

function addTrigrams(word: string, features: FeatureSink, weight: number): void {
  const n = word.length;
  if (n < 3 || /^[0-9]+$/.test(word)) return;
  // Trigrams of "#word#": the boundary marks make prefixes and suffixes their own features.
  let a = BOUNDARY;
  let b = word.charCodeAt(0);
  for (let i = 1; i <= n; i += 1) {
    const c = i < n ? word.charCodeAt(i) : BOUNDARY;
    features.add(weight, hashTrigram(a, b, c));
    a = b;
    b = c;
  }
}

/** The vector of one text; exported for tests and benchmarks. */
export function embedText(
  text: string,
  dimensions: number,
  features = new FeatureCounts(),
  lexicon: Lexicon | null = loadLexicon(),
  runs: RunCache = runCacheFor(lexicon),
): Float32Array {
  features.clear();
  collectFeatures(text, features, runs);
  const vector = new Float32Array(dimensions);
  const powerOfTwo = (dimensions & (dimensions - 1)) === 0;
  features.forEach((hash, weight, count) => {
    const slot = powerOfTwo ? hash & (dimensions - 1) : hash % dimensions;
    // The sign comes from the top bit, independent of the slot bits: colliding features cancel on average instead of piling up.
    const value = weight * (1 + Math.log(count));
    vector[slot] = (vector[slot] as number) + (hash & 0x80000000 ? -value : value);
  });
  if (features.size === 0) {
    // Text without a single word or character: one fixed direction, so the vector stays a unit vector (a zero vector has no cosine).
    const hash = hashString('', SEED_EMPTY);
    vector[powerOfTwo ? hash & (dimensions - 1) : hash % dimensions] = 1;
    return vector;
  }
  let sum = 0;
  for (let i = 0; i < dimensions; i += 1) sum += (vector[i] as number) ** 2;
  if (sum === 0) {
    // Every feature cancelled another out (possible only for tiny dimensions): fall back to the empty direction.
    const hash = hashString('', SEED_EMPTY);
    vector[powerOfTwo ? hash & (dimensions - 1) : hash % dimensions] = 1;
    return vector;
  }
  const inverse = 1 / Math.sqrt(sum);
  for (let i = 0; i < dimensions; i += 1) vector[i] = (vector[i] as number) * inverse;
  return vector;
}

/**
 * Creates the local embedder.
 *
 * @example
 * const embedder = createLocalEmbedder();
 * embedder.modelId // 'cairn-local-hash-v1-512'
 */
export function createLocalEmbedder(options: LocalEmbedderOptions = {}): EmbeddingModel {
  const dimensions = options.dimensions ?? 512;
  if (!Number.isInteger(dimensions) || dimensions < 16 || dimensions > 8192) {
    throw new CairnError('INVALID_INPUT', `Local embedder dimensions must be an integer from 16 to 8192, got ${dimensions}`, { details: { dimensions } });
  }
  const features = new FeatureCounts();
  const useLexicon = options.lexicon ?? true;
  let lexicon: Lexicon | null | undefined;
  let runs: RunCache | undefined;
  return {
    provider: 'cairn-local',
    // The analyzer version is part of the id: a tokenizer change changes vectors as surely as a new hash.
    modelId: `cairn-local-hash-v${useLexicon ? LOCAL_EMBEDDER_VERSION : PLAIN_VERSION}.${ANALYZER_VERSION}-${dimensions}`,
    dimensions,
    maxBatchSize: 1024,
    async embed({ texts, signal }: EmbedOptions): Promise<EmbedResult> {
      const vectors: Float32Array[] = [];
      for (const text of texts) {
        if (signal?.aborted) throw new CairnError('CANCELLED', 'Embedding cancelled', { cause: signal.reason });
        lexicon ??= useLexicon ? loadLexicon() : null;
        runs ??= new RunCache(lexicon);
        vectors.push(embedText(text, dimensions, features, lexicon, runs));
      }
      return { vectors };
    },
    async warmUp() {
      lexicon ??= useLexicon ? loadLexicon() : null;
    },
  };
}
