/**
 * What hybrid search does besides fusing its two lists when the hits are conversation messages
 * (records citing message ids; issue 19, item 2). Each step was kept because it raised
 * recall@10 on the tune half of the conversational dev set (`npm run eval:recall`, figures in
 * bench/RESULTS.md, "Conversational recall"):
 *
 * - `expansionTerms`: pseudo-relevance feedback from the corpus itself. The words the first
 *   round's best messages share (beyond the question's own) are asked again in a second
 *   full-text round, fused as a third list: the messages that answer a question are often worded
 *   like the messages around its best match, not like the question.
 * - `demoteRepeatedMessages`: a hit whose messages are all cited by better hits (a memory
 *   restating a message already found) scores lower, so the first results cite as many
 *   distinct messages as they can.
 */
import type { StoredRecord } from '../ports/vector-store.js';
import { searchTerms } from '../../lib/text-analysis.js';
import { SESSION_RECORD_CATEGORY } from './message-record.js';

/** Whether a record is a conversation message (or cites messages). */
export function citesMessages(record: Pick<StoredRecord, 'provenance'>): boolean {
  return (record.provenance.message_ids?.length ?? 0) > 0;
}

/** The text of a message record after its `[date] Speaker:` prefix (see message-record.ts). */
function messageBody(text: string): string {
  return text.replace(/^\[\d{4}-\d{2}-\d{2}\]\s*/, '').replace(/^[^:\n]{1,40}:\s*/, '');
}

export interface ExpansionOptions {
  /** Feedback records read. */
  records: number;
  /** Terms added at most. */
  terms: number;
  /** A term must appear in at least this many of the feedback records. */
  minRecords: number;
}

/**
 * Terms to add to `query`: those of the best `records` feedback records that the query lacks,
 * by the number of feedback records holding them (then by the rank of the first), only terms in
 * at least `minRecords` of them.
 */
export function expansionTerms(query: string, feedback: readonly Pick<StoredRecord, 'text'>[], options: ExpansionOptions): string[] {
  const asked = new Set(searchTerms(query));
  const seen = new Map<string, { records: number; first: number }>();
  feedback.slice(0, options.records).forEach((record, rank) => {
    for (const term of new Set(searchTerms(messageBody(record.text)))) {
      if (asked.has(term) || term.length < 3 || /^\d+$/.test(term)) continue;
      const entry = seen.get(term);
      if (entry) entry.records += 1;
      else seen.set(term, { records: 1, first: rank });
    }
  });
  return [...seen.entries()]
    .filter(([, e]) => e.records >= options.minRecords)
    .sort((a, b) => b[1].records - a[1].records || a[1].first - b[1].first)
    .slice(0, options.terms)
    .map(([term]) => term);
}

/**
 * Demotes records (best first) citing only messages already cited by a better one: their score
 * is multiplied by `factor`, and the list sorted again. Records citing no message keep theirs.
 */
export function demoteRepeatedMessages<T extends { record: Pick<StoredRecord, 'provenance'>; score: number }>(ranked: readonly T[], factor: number): T[] {
  const cited = new Set<string>();
  const out = ranked.map((item) => {
    const ids = item.record.provenance.message_ids ?? [];
    if (ids.length > 0 && ids.every((id) => cited.has(id))) return { ...item, score: item.score * factor };
    for (const id of ids) cited.add(id);
    return item;
  });
  return out.sort((a, b) => b.score - a.score);
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

/** A session's own record (workspace-store.ts): its transcript, citing all its messages. */
export const isSessionRecord = (record: StoredRecord) => record.category === SESSION_RECORD_CATEGORY && record.level === 1 && citesMessages(record);
const isMessageRecord = (record: StoredRecord) => record.level === 2 && (record.provenance.message_ids?.length ?? 0) === 1 && record.id.includes('#m:');
const messageRecordId = (sessionUri: string, messageId: string) => `${sessionUri}#m:${messageId}`;

/**
 * Session records route to their messages: each message gains `session` × its session's score,
 * then the message after each of the `spread` best ones gains `next` × its score (and the one
 * before `previous` ×), read from the store when the search did not find it. Session records
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
    const lifts: { id: string; uri: string; gain: number }[] = [];
    for (const c of best) {
      const order = sessions.get(c.record.uri)?.provenance.message_ids ?? [];
      const at = order.indexOf(c.record.provenance.message_ids?.[0] ?? '');
      if (at === -1) continue;
      if (at + 1 < order.length) lifts.push({ id: messageRecordId(c.record.uri, order[at + 1] as string), uri: c.record.uri, gain: options.next * c.score });
      if (at > 0) lifts.push({ id: messageRecordId(c.record.uri, order[at - 1] as string), uri: c.record.uri, gain: options.previous * c.score });
    }
    const unknown = [...new Set(lifts.filter((l) => l.gain > 0 && !scores.has(l.id)).map((l) => l.id))];
    for (const record of unknown.length > 0 ? await get(unknown) : []) scores.set(record.id, { record, score: options.session * (sessionScore.get(record.uri) ?? 0) });
    // Gains are read off the scores before any lift: a lifted message does not lift the next in turn.
    const gains = new Map<string, number>();
    for (const l of lifts) gains.set(l.id, Math.max(gains.get(l.id) ?? 0, l.gain));
    for (const [id, gain] of gains) {
      const c = scores.get(id);
      if (c) c.score += gain;
    }
  }
  return [...scores.values()];
}
