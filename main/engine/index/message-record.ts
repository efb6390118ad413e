/**
 * The text a conversation message is indexed under. Sessions are indexed one record per message,
 * so that a hit names the message it comes from (docs/ARCHITECTURE.md#the-cli: session hits carry
 * message ids), and the record says who spoke and on which day: the snippet of a hit then
 * answers "who" and "when" by itself, and a query naming the speaker or the date matches it.
 *
 * The date is ISO (`2024-04-14`), the same in every language. On the retrieval dev set
 * (`npm run eval:retrieval`, bench/RESULTS.md) adding it to `Speaker: text` raised recall@10 on
 * conversation questions from 77.5 to 79.2 (full text) and from 63.3 to 70.8 (local vectors):
 * a message as short as "Yay!" no longer matches any one-word query as strongly as a real answer.
 *
 * @example
 * formatMessageRecord({ id: 's2:7', role: 'user', speaker: 'Ana', text: "I'm moving on the 15th of June.", timestamp: '2024-04-14T10:38:00Z' })
 * // "[2024-04-14] Ana: I'm moving on the 15th of June."
 */
import type { Message } from '../../../shared/types/memory.js';

/** The calendar day of an ISO 8601 timestamp as written (the speaker's local day when it carries an offset), or null. */
function dayOf(timestamp: string | undefined): string | null {
  const match = timestamp ? /^(\d{4}-\d{2}-\d{2})/.exec(timestamp.trim()) : null;
  return match ? (match[1] as string) : null;
}

/**
 * `[YYYY-MM-DD] Speaker: text`; without a timestamp the date is left out, and without a
 * speaker the role stands in. `sessionStartedAt` dates messages that carry no timestamp of their own.
 */
export function formatMessageRecord(message: Message, sessionStartedAt?: string): string {
  const day = dayOf(message.timestamp) ?? dayOf(sessionStartedAt);
  const who = message.speaker?.trim() || message.role;
  return `${day ? `[${day}] ` : ''}${who}: ${message.text}`;
}

/**
 * What a message's vector reads besides the message (IndexInput.embed_context): the text of the
 * message before it and of the one after. A reply such as "I finished! 1 hour 52 minutes" says
 * nothing of the race it answers; with its neighbours its vector does, while the full-text
 * record stays the message alone. On the retrieval dev set this lifted hybrid search above full
 * text (bench/RESULTS.md, "Retrieval quality"); two neighbours before did worse than one on each side.
 *
 * @example
 * messageEmbedContext(session.messages, 3) // "How did Berlin go?\nUnder two hours on your first half marathon is amazing"
 */
export function messageEmbedContext(messages: readonly Message[], index: number): string {
  const neighbour = (from: number, step: number): string | null => {
    for (let i = from; i >= 0 && i < messages.length; i += step) {
      const text = (messages[i] as Message).text.trim();
      if (text.length > 0) return text;
    }
    return null;
  };
  return [neighbour(index - 1, -1), neighbour(index + 1, 1)].filter((text): text is string => text !== null).join('\n');
}
