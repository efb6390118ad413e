/**
 * Token counting with o200k_base (gpt-tokenizer), the tokenizer of current OpenAI models: exact
 * counts of text (chunks, budgets, packs) and estimates of chat requests. Other models tokenize
 * differently; for them a count is an estimate, which is all a budget needs.
 */
import { createRequire } from 'node:module';

interface O200k {
  countTokens(text: string, options: { disallowedSpecial: Set<string> }): number;
  clearMergeCache(): void;
  // Not in the typings: the encoder's pre-tokenizer (see countPreTokens).
  default?: { bytePairEncodingCoreProcessor?: { tokenSplitRegex?: unknown } };
}

let o200k: O200k | undefined;
let preTokenizer: RegExp | null | undefined;

/**
 * The tokenizer, loaded on the first count: building its encoder from the rank table is ~0.45 s
 * of CPU, which every start of the engine (the app's worker, each CLI command) paid even when it
 * counted nothing.
 */
function tokenizer(): O200k {
  return (o200k ??= createRequire(import.meta.url)('gpt-tokenizer/encoding/o200k_base') as O200k);
}

// Text like "<|endoftext|>" inside a document is ordinary text, not a control token.
const AS_PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

// The tokenizer's merge step is quadratic in the length of one pre-token, and a pre-token is a
// run of letters or of punctuation: a 1 MB line without spaces took ten minutes. Runs of 256 or
// more such characters (never ordinary words; base64, glued words, minified text) are counted in
// 256-character slices: a few tokens more per slice boundary, linear time.
const RUN_SLICE = 256;
const LONG_RUN = new RegExp(`[\\p{L}\\p{M}]{${RUN_SLICE},}|[^\\s\\p{L}\\p{N}]{${RUN_SLICE},}`, 'gu');
const WHITE_SPACE = /\s/;

// gpt-tokenizer caches merges in a Map of up to 100,000 entries and evicts the oldest through a
// Map iterator, which crawls over the deleted slots once the cache is full: a 2 MB document
// counted after a 1 MB minified file took 3.8 s instead of 0.6 s. The cache gains at most one
// entry per token counted, so emptying it before 96,000 tokens have gone through (pieces hold at
// most 80 K characters, hence at most that many tokens) keeps it from ever evicting.
const PIECE = 48 * 1024;
const CACHE_BOUND = 96_000;
let tokensSinceClear = 0;

/**
 * Counts o200k_base tokens: exact for ordinary text, a few tokens over per 256 characters inside
 * letter or punctuation runs longer than that; linear time on any input; never throws.
 *
 * @example
 * countTokens('Hello, world') // 3
 * countTokens('<|endoftext|>') // 7: special tokens count as the text they are
 */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  let total = 0;
  let done = 0;
  for (const [runStart, runEnd] of longNonSpaceRuns(text)) {
    // Searched within the run only, so a text full of long URLs stays linear.
    const run = text.slice(runStart, runEnd);
    LONG_RUN.lastIndex = 0;
    for (let match = LONG_RUN.exec(run); match !== null; match = LONG_RUN.exec(run)) {
      const start = runStart + match.index;
      const end = start + match[0].length;
      if (start > done) total += countOrdinary(text, done, start);
      total += countSliced(text, start, end);
      done = end;
    }
  }
  if (done < text.length) total += countOrdinary(text, done, text.length);
  return total;
}

/** Counts text [start, end) that holds no long run, in pieces of about PIECE characters. */
function countOrdinary(text: string, start: number, end: number): number {
  let total = 0;
  for (let at = start; at < end; ) {
    const cut = end - at > PIECE * 1.5 ? pieceEnd(text, at + PIECE) : end;
    total += countPiece(at === 0 && cut === text.length ? text : text.slice(at, cut));
    at = cut;
  }
  return total;
}

/**
 * Where to end a piece near `from`: before a space between two non-space characters, where the
 * tokenizer starts a new pre-token anyway, so the count is exact; failing that (no spaces in 4 KB,
 * as in Chinese), at `from`, which may move the count by a token.
 */
function pieceEnd(text: string, from: number): number {
  const space = /\S \S/.exec(text.slice(from, from + 4096));
  if (space) return from + space.index + 1;
  return isLowSurrogate(text.charCodeAt(from)) ? from + 1 : from;
}

function countPiece(piece: string): number {
  if (tokensSinceClear + piece.length > CACHE_BOUND) {
    tokenizer().clearMergeCache();
    tokensSinceClear = 0;
  }
  const tokens = countPreTokens(piece);
  tokensSinceClear += tokens;
  return tokens;
}

// Counts by pre-token, with the count of each pre-token kept: the tokenizer splits text with its
// pre-tokenizer regex and encodes every pre-token on its own, so the sum of the pre-tokens' counts
// is the text's count, exactly (test/engine/tokens.test.ts checks it on real files). Code repeats its
// pre-tokens ("\t\t", " err", " !=", ":=" ...): Go's net + cmd/compile (5.6M tokens) have 46k
// distinct ones, and with their counts kept those files count in 0.66 s of CPU instead of 1.3 s
// (the tokenizer looks every pre-token up in its 200k-entry vocabulary, then in its merge cache).
// Emptied when full (a 20k bound emptied it every few files there and saved nothing); 100k short
// strings are a few MB.
const PRE_TOKEN_CACHE_ENTRIES = 100_000;
const PRE_TOKEN_CACHED_LENGTH = 64;
const preTokenCounts = new Map<string, number>();

function countPreTokens(piece: string): number {
  const split = pieceSplitter();
  if (split === null) return tokenizer().countTokens(piece, AS_PLAIN_TEXT);
  let total = 0;
  split.lastIndex = 0;
  for (let match = split.exec(piece); match !== null; match = split.exec(piece)) {
    const preToken = match[0];
    let count = preTokenCounts.get(preToken);
    if (count === undefined) {
      count = tokenizer().countTokens(preToken, AS_PLAIN_TEXT);
      if (preToken.length <= PRE_TOKEN_CACHED_LENGTH) {
        if (preTokenCounts.size >= PRE_TOKEN_CACHE_ENTRIES) preTokenCounts.clear();
        preTokenCounts.set(ownCopy(preToken), count);
      }
    }
    total += count;
  }
  return total;
}

/**
 * The string in its own memory: a match of 13 characters or more is a slice that keeps the whole
 * text it was cut from alive (V8's sliced strings), and the cache would hold files long parsed.
 */
function ownCopy(text: string): string {
  return (' ' + text).slice(1);
}

/** A copy of the tokenizer's own pre-tokenizer; null (count whole pieces) if a new version hides it. */
function pieceSplitter(): RegExp | null {
  if (preTokenizer !== undefined) return preTokenizer;
  const regex = tokenizer().default?.bytePairEncodingCoreProcessor?.tokenSplitRegex;
  preTokenizer = regex instanceof RegExp && regex.global ? new RegExp(regex.source, regex.flags) : null;
  return preTokenizer;
}

/** Runs of at least RUN_SLICE non-white-space characters, in one pass (a regex with a {256,} quantifier retries at every position). */
function longNonSpaceRuns(text: string): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  let start = 0;
  const n = text.length;
  for (let i = 0; i <= n; i++) {
    const code = i < n ? text.charCodeAt(i) : 32;
    const space = code <= 32 ? code === 32 || (code >= 9 && code <= 13) : code >= 0x80 && WHITE_SPACE.test(text[i]!);
    if (!space) continue;
    if (i - start >= RUN_SLICE) runs.push([start, i]);
    start = i + 1;
  }
  return runs;
}

function countSliced(text: string, start: number, end: number): number {
  let total = 0;
  for (let at = start; at < end; ) {
    let cut = Math.min(end, at + RUN_SLICE);
    if (cut < end && isLowSurrogate(text.charCodeAt(cut))) cut += 1;
    total += countPiece(text.slice(at, cut));
    at = cut;
  }
  return total;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Per-message framing the chat format adds (role markers), and the priming of the reply. */
const TOKENS_PER_MESSAGE = 3;
const TOKENS_FOR_REPLY = 3;

/** A chat message as counted: its role costs the fixed framing, its content its tokens. */
export interface CountedMessage {
  readonly role: string;
  readonly content: string;
}

/**
 * Input tokens a chat request will cost: every message's content plus the chat framing.
 *
 * @example
 * estimateTokens([{ role: 'user', content: 'Summarize this folder.' }]); // about 12
 */
export function estimateTokens(messages: readonly CountedMessage[]): number {
  let total = TOKENS_FOR_REPLY;
  for (const message of messages) total += TOKENS_PER_MESSAGE + countTokens(message.content);
  return total;
}
