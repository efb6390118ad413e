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
 * - Neighbours: the message after each of the best messages gains a share of its score (an
 *   answer follows its question: "When's the operation?" / "The 16th of April."), the one
 *   before a smaller share; the session record's ordered message ids say who the neighbours are.
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
  routing: { session: 0.5, next: 0.5, previous: 0.2, spread: 10 },
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
const messageRecordId = (sessionUri: string, messageId: string) => `${sessionUri}#m:${messageId}`;

/**
 * The conversational steps above over fused candidates (any order): times first, then routing.
 * Candidates that are not messages pass through; session records leave.
 */
export async function conversationRecall(query: string, candidates: Scored[], get: (ids: string[]) => Promise<StoredRecord[]>): Promise<Scored[]> {
  return routeConversation(preferStatedTimes(query, candidates, CONVERSATION_RECALL.statedTimeShare), get, CONVERSATION_RECALL.routing);
}

export interface RoutingOptions {
  /** Share of a session record's score its messages gain. */
  session: number;
  /** Share of a message's score the message after it gains (an answer follows its question). */
  next: number;
  /** Share the message before it gains. */
  previous: number;
  /** Best messages whose neighbours are lifted (and read from the store when not candidates). */
  spread: number;
}

export interface Scored {
  record: StoredRecord;
  score: number;
}

/**
 * Session records route to their messages: each message gains `session` × its session's score,
 * then the message after each of the `spread` best ones gains `next` × its score (and the one
 * before `previous` ×), up to just under that score, read from the store when the search did not find it. Session records
 * leave the list: they cite every message of the session and would spend the whole budget.
 * `get` reads records by id (the session records of the messages found, their neighbours).
 */
export async function routeConversation(candidates: Scored[], get: (ids: string[]) => Promise<StoredRecord[]>, options: RoutingOptions): Promise<Scored[]> {
  const messages = candidates.filter((c) => isMessageRecord(c.record));
  if (messages.length === 0) return candidates;
  const sessionScore = new Map<string, number>();
  const sessions = new Map<string, StoredRecord>();
  for (const c of candidates) {
    if (!isSessionRecord(c.record)) continue;
    sessionScore.set(c.record.uri, Math.max(sessionScore.get(c.record.uri) ?? 0, c.score));
    sessions.set(c.record.uri, c.record);
  }
  const scores = new Map<string, Scored>();
  for (const c of candidates) if (!isSessionRecord(c.record)) scores.set(c.record.id, { record: c.record, score: c.score + (isMessageRecord(c.record) ? options.session * (sessionScore.get(c.record.uri) ?? 0) : 0) });

  if (options.next > 0 || options.previous > 0) {
    const best = [...scores.values()].filter((c) => isMessageRecord(c.record)).sort((a, b) => b.score - a.score).slice(0, options.spread);
    const missingSessions = [...new Set(best.map((c) => c.record.uri))].filter((uri) => !sessions.has(uri));
    for (const record of missingSessions.length > 0 ? await get(missingSessions.map((uri) => `${uri}#1`)) : []) if (isSessionRecord(record)) sessions.set(record.uri, record);
    const lifts: { id: string; gain: number; cap: number }[] = [];
    for (const c of best) {
      const order = sessions.get(c.record.uri)?.provenance.message_ids ?? [];
      const at = order.indexOf(c.record.provenance.message_ids?.[0] ?? '');
      if (at === -1) continue;
      if (at + 1 < order.length) lifts.push({ id: messageRecordId(c.record.uri, order[at + 1] as string), gain: options.next * c.score, cap: c.score });
      if (at > 0) lifts.push({ id: messageRecordId(c.record.uri, order[at - 1] as string), gain: options.previous * c.score, cap: c.score });
    }
    const unknown = [...new Set(lifts.filter((l) => l.gain > 0 && !scores.has(l.id)).map((l) => l.id))];
    for (const record of unknown.length > 0 ? await get(unknown) : []) scores.set(record.id, { record, score: options.session * (sessionScore.get(record.uri) ?? 0) });
    // Lifts are read off the scores before any lift (a lifted message does not lift the next in
    // turn), and a neighbour never overtakes the message that lifted it: the message holding the
    // words asked for stays first, its answer right after it.
    const lifted = new Map<string, number>();
    for (const l of lifts) {
      const own = scores.get(l.id)?.score;
      if (own === undefined) continue;
      lifted.set(l.id, Math.max(lifted.get(l.id) ?? own, Math.min(own + l.gain, l.cap * (1 - 1e-6))));
    }
    for (const [id, score] of lifted) (scores.get(id) as Scored).score = score;
  }
  return [...scores.values()];
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
