/**
 * What hybrid search does besides fusing its two lists when it searches conversations (records
 * citing message ids; issue 19, item 2). Kept because each raised recall@10 on the tune half of
 * the conversational dev set (`npm run eval:recall`; figures and what was tried and dropped in
 * bench/RESULTS.md, "Conversational recall"):
 *
 * - Fusion weights of its own: with the local embedder the vector list weighs 0.3 (0.5 for
 *   documents): its vectors read each message with its neighbours, which helps a reply say what
 *   it answers but blurs which message of a run answers.
 * - Speakers: a message record opens with its speaker's name (message-record.ts), so a question
 *   naming a speaker ("Who supervises Elena's PhD?") matches every short message of theirs on the
 *   name alone ("Elena: How was it?!"). The full-text list is searched without the names of the
 *   conversation's speakers the question names (search-index.ts), and their messages gain a share
 *   of their score instead: who said it counts, as one signal, not as the best-matching word.
 * - Session records route, never stand in: a session's record (its transcript, citing all its
 *   messages; memory/sessions/workspace-store.ts) would spend a whole budget of cited messages
 *   by itself, so it leaves the hits and its score lifts its messages instead.
 * - Neighbours: the message after each of the best messages gains a share of its score (an
 *   answer follows its question: "When's the operation?" / "Yes, finally. The 16th of April."),
 *   the one before a smaller share, never above the message that lifted it (the words asked for
 *   stay first); when that reply asks a question of its own ("When did you find out?"), the
 *   message after it, its answer ("On Friday night."), gains a share too, capped the same way;
 *   the session record's ordered message ids say who the neighbours are. A
 *   neighbour that owes more to the lift than to its own match of the query is marked
 *   `neighbourOf` its lifter: it is shown and counted as that message's context (rank.ts), never
 *   as a result of its own (it was: "Can you paste one stack trace from the logs?", next to "We
 *   upgraded the pg driver…", scored 1.06 for "upgrade the firmware", a strong lone hit).
 * - Time, last: for a question asking when, messages that state a time (a weekday, a date, "last
 *   week", 星期三) gain a share of their score, lifted neighbours included: after the lift, so a
 *   lifted reply stating no time does not push out one that states it.
 * - Questions asking two things ("Who is her manager now, and who did she work for before?"):
 *   each part is searched too, its list fused with the whole question's (questionParts), so the
 *   evidence of the second part is not crowded out by the first's.
 */
import type { StoredRecord } from '../ports/vector-store.js';
import { wordTerms } from '../../lib/text-analysis.js';

/** The weights, fitted on the tune half (bench/RESULTS.md, "Conversational recall"). */
export const CONVERSATION_RECALL = {
  /** The vector list's weight in fusion, local embedder. */
  localVectorWeight: 0.3,
  /** For a question asking when: the share of its score a message stating a time gains. */
  statedTimeShare: 1,
  /** For a question naming a speaker: the share of its score a message of theirs gains. */
  speakerShare: 0.8,
  routing: { session: 0.5 },
  neighbours: { next: 0.5, previous: 0.2, spread: 10, answerAfterQuestion: 0.8 },
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

/** The speaker of a message record (`[date] Speaker: text`), or null. */
export function speakerOf(recordText: string): string | null {
  const match = /^(?:\[\d{4}-\d{2}-\d{2}\]\s*)?([^:\n]{1,40}):/.exec(recordText);
  return match ? (match[1] as string).trim() : null;
}

/** A session's own record (workspace-store.ts): its transcript, citing all its messages. */
export const isSessionRecord = (record: Pick<StoredRecord, 'category' | 'context_type' | 'level' | 'provenance'>) =>
  record.context_type === 'session' && record.category === 'message' && record.level === 1 && citesMessages(record);
const isMessageRecord = (record: Pick<StoredRecord, 'id' | 'level' | 'provenance'>) => record.level === 2 && (record.provenance.message_ids?.length ?? 0) === 1 && record.id.includes('#m:');
/** The record ids of a message and of its session's record (workspace-store.ts). */
const messageRecordId = (sessionUri: string, messageId: string) => `${sessionUri}#m:${messageId}`;
const sessionRecordId = (sessionUri: string) => `${sessionUri}#1`;

export interface Scored {
  record: StoredRecord;
  score: number;
  /**
   * For a neighbour the lift brought in: the message id of the message that lifted it (same
   * session record URI). It is that message's context, not a match of its own.
   */
  neighbourOf?: string;
}

/** Reads records by id (the store's `get`). */
export type RecordReader = (ids: string[]) => Promise<StoredRecord[]>;

/**
 * The conversational steps above over fused candidates (any order): speakers, routing,
 * neighbours, then times. `speakers` are the speakers the query names (namedSpeakers).
 * Candidates that are not messages pass through; session records leave.
 */
export async function conversationRecall(query: string, candidates: Scored[], get: RecordReader, speakers: readonly string[] = []): Promise<Scored[]> {
  const routed = routeConversation(preferSpeakers(speakers, candidates, CONVERSATION_RECALL.speakerShare), CONVERSATION_RECALL.routing);
  const matched = new Map(candidates.map((c) => [c.record.id, c.score]));
  const lifted = await liftNeighbours(routed, get, CONVERSATION_RECALL.neighbours, matched);
  return preferStatedTimes(query, lifted, CONVERSATION_RECALL.statedTimeShare);
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/**
 * A name as a whole word with its possessive, in the case it is written (a speaker called Will
 * or May is not the verb); a Chinese name anywhere, as Chinese puts no spaces between words.
 */
const namePattern = (name: string) =>
  /\p{Script=Han}/u.test(name) ? new RegExp(escapeRegExp(name), 'gu') : new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(name)}(?:['’]s)?(?![\\p{L}\\p{N}])`, 'gu');

/** The speakers of these message records that the query names (a one-letter name is never taken for one). */
export function namedSpeakers(query: string, records: readonly StoredRecord[]): string[] {
  const speakers = new Set<string>();
  for (const record of records) {
    const speaker = isMessageRecord(record) ? speakerOf(record.text) : null;
    if (speaker && Array.from(speaker).length >= 2) speakers.add(speaker);
  }
  return [...speakers].filter((name) => namePattern(name).test(query));
}

/** The query without these names. */
export function withoutNames(query: string, names: readonly string[]): string {
  return names
    .reduce((text, name) => text.replace(namePattern(name), ' '), query)
    .replace(/\s+/g, ' ')
    .trim();
}

/** Each message said by one of `speakers` gains `share` × its score. */
export function preferSpeakers(speakers: readonly string[], candidates: Scored[], share: number): Scored[] {
  if (share <= 0 || speakers.length === 0) return candidates;
  const named = new Set(speakers);
  return candidates.map((c) => (isMessageRecord(c.record) && named.has(speakerOf(c.record.text) ?? '') ? { ...c, score: c.score * (1 + share) } : c));
}

export interface RoutingOptions {
  /** Share of a session record's score its messages gain. */
  session: number;
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

export interface NeighbourOptions {
  /** Share of a message's score the message after it gains (an answer follows its question). */
  next: number;
  /** Share the message before it gains. */
  previous: number;
  /** The best messages whose neighbours are lifted (read from the store when not candidates). */
  spread: number;
  /** Share the message after the next gains when the next asks a question (its answer). */
  answerAfterQuestion: number;
}

/**
 * The message after each of the `spread` best messages gains `next` × its score, the one before
 * `previous` ×, up to just under the score of the message that lifts it; a neighbour the search
 * did not find is read from the store. Lifts are read off the scores before any lift: a lifted
 * message does not lift the next in turn. A message whose lift is more than its own match of the
 * query (`matched`: its fused score before any conversational step; 0 when the search did not
 * find it) is marked `neighbourOf` the message whose lift it kept, or that message's own lifter
 * when it is marked too.
 */
export async function liftNeighbours(candidates: Scored[], get: RecordReader, options: NeighbourOptions, matched: ReadonlyMap<string, number> = new Map()): Promise<Scored[]> {
  const best = candidates
    .filter((c) => isMessageRecord(c.record))
    .sort((a, b) => b.score - a.score)
    .slice(0, options.spread);
  if (best.length === 0 || (options.next <= 0 && options.previous <= 0)) return candidates;
  const order = new Map<string, string[]>();
  for (const record of await get([...new Set(best.map((c) => sessionRecordId(c.record.uri)))])) {
    if (isSessionRecord(record)) order.set(record.uri, record.provenance.message_ids ?? []);
  }
  const lifts: { id: string; gain: number; cap: number; by: string }[] = [];
  for (const c of best) {
    const by = c.record.provenance.message_ids?.[0] ?? '';
    const ids = order.get(c.record.uri) ?? [];
    const at = ids.indexOf(by);
    if (at === -1) continue;
    if (at + 1 < ids.length && options.next > 0) lifts.push({ id: messageRecordId(c.record.uri, ids[at + 1] as string), gain: options.next * c.score, cap: c.score, by });
    if (at > 0 && options.previous > 0) lifts.push({ id: messageRecordId(c.record.uri, ids[at - 1] as string), gain: options.previous * c.score, cap: c.score, by });
  }
  const scores = new Map(candidates.map((c) => [c.record.id, c]));
  await readUnknown(lifts, scores, get);
  // A reply that is itself a question ("When did you find out?") is not the answer: the message
  // after it is ("On Friday night."), so it is lifted too, as context of the message lifting both
  // (the reply's text is known only now: it was just read or was a candidate).
  const answers: typeof lifts = [];
  for (const c of options.answerAfterQuestion > 0 ? best : []) {
    const by = c.record.provenance.message_ids?.[0] ?? '';
    const ids = order.get(c.record.uri) ?? [];
    const at = ids.indexOf(by);
    const reply = at === -1 || at + 2 >= ids.length ? undefined : scores.get(messageRecordId(c.record.uri, ids[at + 1] as string));
    if (reply && asksSomething(reply.record.text)) answers.push({ id: messageRecordId(c.record.uri, ids[at + 2] as string), gain: options.answerAfterQuestion * c.score, cap: c.score, by });
  }
  await readUnknown(answers, scores, get);
  lifts.push(...answers);
  const lifted = new Map<string, { score: number; gain: number; by: string }>();
  for (const l of lifts) {
    const own = scores.get(l.id)?.score;
    if (own === undefined) continue;
    const score = Math.min(own + l.gain, l.cap * (1 - 1e-6));
    if (score > (lifted.get(l.id)?.score ?? own)) lifted.set(l.id, { score, gain: score - own, by: l.by });
  }
  const contextOf = contextRoots(lifted, matched, scores);
  return [...scores.values()].map((c) => {
    const lift = lifted.get(c.record.id);
    if (!lift) return c;
    const by = contextOf.get(c.record.id);
    return by ? { record: c.record, score: lift.score, neighbourOf: by } : { record: c.record, score: lift.score };
  });
}

/** Reads the lifted records that are not candidates yet into `scores`, at score 0. */
async function readUnknown(lifts: readonly { id: string }[], scores: Map<string, Scored>, get: RecordReader): Promise<void> {
  const unknown = [...new Set(lifts.map((l) => l.id).filter((id) => !scores.has(id)))];
  for (const record of unknown.length > 0 ? await get(unknown) : []) scores.set(record.id, { record, score: 0 });
}

/** Whether a message (after its `[date] Speaker:` prefix) ends by asking something. */
const asksSomething = (recordText: string) => /[?？]\s*$/u.test(messageBody(recordText));

/**
 * The message each lifted record is the context of: its lifter when the lift gained it more than
 * its own match, followed up while that lifter is context too, so a neighbour always names a
 * message that is a result of its own. In a loop (two messages each lifting the other past its
 * own match) the best-scored one stands.
 */
function contextRoots(
  lifted: ReadonlyMap<string, { score: number; gain: number; by: string }>,
  matched: ReadonlyMap<string, number>,
  scores: ReadonlyMap<string, Scored>,
): Map<string, string> {
  const up = new Map<string, string>();
  for (const [id, lift] of lifted) {
    const uri = scores.get(id)?.record.uri;
    if (uri !== undefined && lift.gain > (matched.get(id) ?? 0)) up.set(id, messageRecordId(uri, lift.by));
  }
  const scoreOf = (id: string) => lifted.get(id)?.score ?? scores.get(id)?.score ?? 0;
  for (const start of [...up.keys()]) {
    const path: string[] = [];
    let at = start;
    while (up.has(at) && !path.includes(at)) {
      path.push(at);
      at = up.get(at) as string;
    }
    if (path.includes(at)) {
      const loop = path.slice(path.indexOf(at));
      up.delete(loop.reduce((a, b) => (scoreOf(b) > scoreOf(a) ? b : a)));
    }
  }
  const roots = new Map<string, string>();
  for (const id of up.keys()) {
    let at = id;
    while (up.has(at)) at = up.get(at) as string;
    const root = scores.get(at)?.record.provenance.message_ids?.[0];
    if (root) roots.set(id, root);
  }
  return roots;
}

// A second clause of a question: after a comma or "and", a question word or an auxiliary opening
// it ("..., and who did she work for before?", "..., did that change"); in Chinese a comma or a
// question mark with more after it (陈阳在深圳最后住在哪？跟他原来的打算一样吗？).
const CLAUSE_BREAK = /(?:,\s*(?:and\s+)?|\s+and\s+)(?=(?:what|who|whom|whose|where|when|why|how|which|did|does|do|is|was|were|has|had|have|are|can|could|would)\b)|[，；？?](?=\s*\S)/giu;

/**
 * The parts of a question asking two things ("Who is Lucy's manager now, and who did she work
 * for before?"), each with the speakers the whole question names, or [] when it asks one: each
 * part is searched by itself and gets its share of the hits (search-index.ts), as the evidence
 * of each part is a different message, often in a different session.
 */
export function questionParts(query: string, speakers: readonly string[] = []): string[] {
  // A part naming one thing ("What temperature", "did that change") is too vague to search by itself.
  const parts = query
    .split(CLAUSE_BREAK)
    .map((part) => [...speakers.filter((name) => !namePattern(name).test(part)), part.trim()].join(' '))
    .filter((part) => wordTerms(part).length >= 2);
  return parts.length < 2 ? [] : parts;
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
