/**
 * Token counts for estimates and budgets, with the o200k tokenizer (GPT-4o and later). Other
 * models tokenize differently; for them this is an estimate, which is all a budget needs.
 *
 * @example
 * estimateTokens([{ role: 'user', content: 'Summarize this folder.' }]); // about 12
 */
import type { ChatMessage } from '../ports/language-model.js';
import { countTokens } from '../parse/tokens.js';

/** Per-message framing the chat format adds (role markers), and the priming of the reply. */
const TOKENS_PER_MESSAGE = 3;
const TOKENS_FOR_REPLY = 3;

/** Input tokens a chat request will cost: every message's content plus the chat framing. */
export function estimateTokens(messages: readonly ChatMessage[]): number {
  let total = TOKENS_FOR_REPLY;
  for (const message of messages) total += TOKENS_PER_MESSAGE + countTokens(message.content);
  return total;
}
