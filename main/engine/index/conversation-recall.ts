/**
 * What hybrid search does besides fusing its two lists when it searches conversations (records
 * citing message ids; issue 19, item 2). Kept because each raised recall@10 on the tune half of
 * the conversational dev set (`npm run eval:recall`; figures and what was tried and dropped in
 * bench/RESULTS.md, "Conversational recall"):
 *
 * - Fusion weights of its own: with the local embedder the vector list weighs 0.3 (0.5 for
 *   documents): its vectors read each message with its neighbours, which helps a reply say what
 *   it answers but blurs which message of a run answers.
 * - Session records route, never stand in: a session's record (its transcript, citing all its
 *   messages; memory/sessions/workspace-store.ts) would spend a whole budget of cited messages
 *   by itself, so it leaves the hits and its score lifts its messages instead.
 * - Time: for a question asking when, messages that state a time (a weekday, a date, "last
 *   week", 星期三) gain a share of their score.
 */
import type { StoredRecord } from '../ports/vector-store.js';

/** The weights, fitted on the tune half (bench/RESULTS.md, "Conversational recall"). */
export const CONVERSATION_RECALL = {
  /** The vector list's weight in fusion, local embedder. */
  localVectorWeight: 0.3,
  /** For a question asking when: the share of its score a message stating a time gains. */
  statedTimeShare: 0.6,
  routing: { session: 0.5 },
} as const;

/** Whether a record is a conversation message (or cites messages). */
export function citesMessages(record: Pick<StoredRecord, 'provenance'>): boolean {
  return (record.provenance.message_ids?.length ?? 0) > 0;
}

/** Whether a search is among conversations: most of its best full-text hits cite messages. */
export function isConversational(best: readonly Pick<StoredRecord, 'provenance'>[]): boolean {
  const top = best.slice(0, 10);
  return top.length > 0 && top.filter(citesMessages).length * 2 > top.length;
}

/** The text of a message record after its `[date] Speaker:` prefix (see message-record.ts). */
function messageBody(text: string): string {
  return text.replace(/^\[\d{4}-\d{2}-\d{2}\]\s*/, '').replace(/^[^:\n]{1,40}:\s*/, '');
}

/** A session's own record (workspace-store.ts): its transcript, citing all its messages. */
export const isSessionRecord = (record: Pick<StoredRecord, 'category' | 'context_type' | 'level' | 'provenance'>) =>
  record.context_type === 'session' && record.category === 'message' && record.level === 1 && citesMessages(record);
const isMessageRecord = (record: Pick<StoredRecord, 'id' | 'level' | 'provenance'>) => record.level === 2 && (record.provenance.message_ids?.length ?? 0) === 1 && record.id.includes('#m:');

/**
 * The conversational steps above over fused candidates (any order): times first, then routing.
 * Candidates that are not messages pass through; session records leave.
 */
export function conversationRecall(query: string, candidates: Scored[]): Scored[] {
  return routeConversation(preferStatedTimes(query, candidates, CONVERSATION_RECALL.statedTimeShare), CONVERSATION_RECALL.routing);
}

export interface RoutingOptions {
  /** Share of a session record's score its messages gain. */
  session: number;
}

export interface Scored {
  record: StoredRecord;
  score: number;
}

/**
 * Session records route to their messages: each message gains `session` × its session's score,
 * and session records leave the list: they cite every message of the session and would spend
 * the whole budget by themselves.
 */
export function routeConversation(candidates: Scored[], options: RoutingOptions): Scored[] {
  const sessionScore = new Map<string, number>();
  for (const c of candidates) if (isSessionRecord(c.record)) sessionScore.set(c.record.uri, Math.max(sessionScore.get(c.record.uri) ?? 0, c.score));
  return candidates
    .filter((c) => !isSessionRecord(c.record))
    .map((c) => (isMessageRecord(c.record) ? { record: c.record, score: c.score + options.session * (sessionScore.get(c.record.uri) ?? 0) } : c));
}

const WEEKDAYS = 'monday|tuesday|wednesday|thursday|friday|saturday|sunday';
const MONTHS = 'january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec';
/** A message that states when: a weekday, a month, a day of the month, a relative day, a clock time, a date (English and Chinese). */
const STATES_TIME = new RegExp(
  [
    `\\b(?:${WEEKDAYS}|${MONTHS})\\b`,
    '\\b\\d{1,2}(?:st|nd|rd|th)\\b',
    '\\b(?:yesterday|today|tonight|tomorrow|last (?:night|week|month|year|weekend)|next (?:week|month|year|weekend)|this (?:morning|afternoon|evening|weekend)|(?:days?|weeks?|months?|years?) ago)\\b',
    '\\b\\d{1,2}(?::\\d{2})?\\s?(?:am|pm)\\b',
    '\\b\\d{4}-\\d{2}-\\d{2}\\b',
    '\\b(?:19|20)\\d{2}\\b',
    '[0-9一二三四五六七八九十]+[月号日]|星期|周[一二三四五六日末]|[昨今明前后]天|[上下这本]个?(?:周|星期|月)|去年|明年|今年',
  ].join('|'),
  'i',
);
/** A question asking when (or how long): the answer is a message that states a time. */
const ASKS_WHEN = /^\s*(?:when\b|what (?:day|date|time|month|year|week)\b|which (?:day|date|month|year|week)\b|how long\b|on what (?:day|date)\b|in what (?:month|year)\b|how (?:many|much) (?:days|weeks|months|years)\b)|什么时候|哪天|哪一天|几号|几月|多久|多长时间|哪年/i;

export function asksWhen(query: string): boolean {
  return ASKS_WHEN.test(query);
}

/** Whether a message (its text after the `[date] Speaker:` prefix) states a time. */
export function statesTime(recordText: string): boolean {
  return STATES_TIME.test(messageBody(recordText));
}

/** For a question asking when: each message stating a time gains `share` × its score. */
export function preferStatedTimes(query: string, candidates: Scored[], share: number): Scored[] {
  if (share <= 0 || !asksWhen(query)) return candidates;
  return candidates.map((c) => (isMessageRecord(c.record) && statesTime(c.record.text) ? { ...c, score: c.score * (1 + share) } : c));
}
