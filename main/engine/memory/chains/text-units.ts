/**
 * The units the rule extractors read: every message of a conversation, in order, cut into
 * sentences. A unit keeps its message id, its position in the whole conversation (across
 * sessions) and the message's timestamp, so chains can span messages and name where each
 * step came from.
 */
import type { Conversation, Message, Role } from '../../../../shared/types/memory.js';

export interface OrderedMessage extends Message {
  session_id: string;
  /** 0-based index in the whole conversation, across sessions. */
  position: number;
}

export interface Unit {
  message_id: string;
  /** The message's position in the conversation. */
  position: number;
  /** 0-based index of the sentence in its message. */
  sentence: number;
  role: Role;
  /** Who said it: the speaker's name, else the role. */
  speaker: string;
  text: string;
  timestamp?: string;
}

/** Messages of all sessions in reading order, each with its position. */
export function orderedMessages(conversation: Conversation): OrderedMessage[] {
  const out: OrderedMessage[] = [];
  for (const session of conversation.sessions) {
    for (const message of session.messages) out.push({ ...message, session_id: session.id, position: out.length });
  }
  return out;
}

// A sentence ends at Western punctuation followed by a space or the end, at CJK sentence
// punctuation anywhere, and at line breaks (list items are lines). A semicolon joins two
// sentences that could stand alone ("the water expands; if the vessel…"), so it ends one too.
const SENTENCE_END = /[.!?;]+(?=\s|$)|[。！？；]+|\n+/g;
// A "sentence" that is only a list number ("1.", "a.") or an abbreviation is not one: keep going.
const NOT_AN_END = /(?:^|\s)(?:\d{1,3}|[a-z]|e\.g|i\.e|etc|vs|mr|mrs|dr|no|approx|fig)\.$/i;

const DAY_OF_MONTH_END = /\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}\.$/i;

// A sentence that opens with a condition ("If …", "如果…", "要是…"). Only punctuation may come
// before it: \W would also skip Chinese words, and "饭店如果订满…，就送…，所以不算贵" (a condition
// inside the sentence) would open with one.
export const CONDITIONAL = /^[\s\p{P}\p{S}]*(?:(?:but|and|so|then)\s+)?(?:if|unless|suppose|assuming|in case)\b|^[\s\p{P}\p{S}]*(?:但是|不过|而且)?(?:如果|假如|要是|万一|假设)/iu;

/** Splits text into trimmed, non-empty sentences. */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  SENTENCE_END.lastIndex = 0;
  for (let match = SENTENCE_END.exec(text); match !== null; match = SENTENCE_END.exec(text)) {
    const end = match.index + match[0].length;
    const piece = text.slice(start, end);
    // "June 19." is a date that ends a sentence, not a list number.
    if (match[0][0] !== '\n' && NOT_AN_END.test(piece.trim()) && !DAY_OF_MONTH_END.test(piece)) continue;
    // "at 3 a.m. because…": a clock abbreviation ends a sentence only before a new one (a capital).
    if (/\b[ap]\.m\.$/i.test(piece) && /^\s+[a-z]/.test(text.slice(end))) continue;
    push(out, piece);
    start = end;
  }
  push(out, text.slice(start));
  return out;
}

function push(out: string[], piece: string): void {
  const trimmed = piece.trim();
  // Punctuation-only leftovers (a stray "!" or "。") carry nothing.
  if (trimmed.length > 0 && /[\p{L}\p{N}]/u.test(trimmed)) out.push(trimmed);
}

/** All sentence units of a conversation, in order. */
export function conversationUnits(messages: OrderedMessage[]): Unit[] {
  const units: Unit[] = [];
  for (const message of messages) {
    const sentences = splitSentences(message.text);
    for (let i = 0; i < sentences.length; i += 1) {
      units.push({
        message_id: message.id,
        position: message.position,
        sentence: i,
        role: message.role,
        speaker: message.speaker ?? message.role,
        text: sentences[i] as string,
        timestamp: message.timestamp,
      });
    }
  }
  return units;
}

/**
 * Splits a sentence into clauses before each match of `marker` that follows a comma (", then",
 * "，然后"), so "先切块，然后焯水，最后炖" gives three steps. Returns the sentence alone when
 * no marker follows a comma. Every clause is a slice of the sentence as written (only trimmed):
 * the text is cut, never re-joined, so "localhost:3000" stays "localhost:3000".
 */
export function splitClauses(sentence: string, marker: RegExp): string[] {
  const cuts: number[] = [];
  // A colon between digits is a clock or a port ("7:00", "localhost:3000"), no break between clauses.
  const comma = /[,，、：]\s*|(?<!\d):(?!\d)\s*/g;
  for (let match = comma.exec(sentence); match !== null; match = comma.exec(sentence)) {
    const start = match.index + match[0].length;
    if (start < sentence.length && marker.test(sentence.slice(start))) cuts.push(start);
  }
  if (cuts.length === 0) return [sentence];
  const out: string[] = [];
  let from = 0;
  for (const cut of cuts) {
    const piece = sentence.slice(from, cut).trim();
    if (piece) {
      out.push(piece);
      from = cut;
    }
  }
  const last = sentence.slice(from).trim();
  if (last) out.push(last);
  return out;
}
