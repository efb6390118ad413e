/**
 * Token counts for estimates and budgets, with the o200k tokenizer (GPT-4o and later). Other
 * models tokenize differently; for them this is an estimate, which is all a budget needs.
 *
 * @example
 * estimateTokens([{ role: 'user', content: 'Summarize this folder.' }]); // about 12
 */
import { createRequire } from 'node:module';
import type { ChatMessage } from '../ports/language-model.js';

type CountTokens = (text: string, options: { disallowedSpecial: Set<string> }) => number;

let countO200kFn: CountTokens | undefined;

/**
 * The o200k counter, loaded on the first count. Loading it builds the encoder from its rank
 * table (about 0.1 s of CPU, in the middle of the DAG's first calls when the LLM adapter loads),
 * and an OpenAI-compatible server reports usage itself, so most runs never count a token.
 */
function countO200k(text: string, options: { disallowedSpecial: Set<string> }): number {
  countO200kFn ??= (createRequire(import.meta.url)('gpt-tokenizer/encoding/o200k_base') as { countTokens: CountTokens }).countTokens;
  return countO200kFn(text, options);
}

// Special-token text such as "<|endoftext|>" inside a document would make the tokenizer throw.
const ENCODE_OPTIONS = { disallowedSpecial: new Set<string>() };

/** Per-message framing the chat format adds (role markers), and the priming of the reply. */
const TOKENS_PER_MESSAGE = 3;
const TOKENS_FOR_REPLY = 3;

/** Tokens of a plain text. */
export function countTextTokens(text: string): number {
  if (text.length === 0) return 0;
  return countO200k(text, ENCODE_OPTIONS);
}

/** Input tokens a chat request will cost: every message's content plus the chat framing. */
export function estimateTokens(messages: readonly ChatMessage[]): number {
  let total = TOKENS_FOR_REPLY;
  for (const message of messages) total += TOKENS_PER_MESSAGE + countTextTokens(message.content);
  return total;
}
