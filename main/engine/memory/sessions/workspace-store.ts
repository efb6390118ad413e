/**
 * Conversations in the workspace (docs/ARCHITECTURE.md#the-workspace-on-disk). An imported
 * conversation becomes
 *
 *   ctx://session/{conversation_id}/          .meta.json: source, format, title, counts, content hash
 *     conversation.json                       the conversation exactly as imported (Cairn JSON)
 *     {session_id}.md                         one node per session, Markdown a person can read
 *     analysis.json                           the last SessionAnalysis, with the cache key it answers
 *
 * and the index gets one record per message (`{session node}#m:{message_id}`, text from
 * formatMessageRecord, provenance.message_ids = [id]), so a search hit names its message, and
 * one per session (`{session node}#1`, its transcript) that routes a search to its messages.
 * Index rebuilds and journal replays re-make exactly these records from the files through
 * `sessionNodeRecords` (called by index/node-records.ts): the files stay the truth.
 *
 * Re-importing a conversation whose messages did not change writes nothing; one that changed
 * replaces the folder and its records (ids are stable, so nothing is duplicated either way).
 */
import { CairnError } from '../../../../shared/errors.js';
import { Conversation, SessionAnalysis, type Message } from '../../../../shared/types/memory.js';
import type { NodeMeta } from '../../../../shared/types/node.js';
import { parseCtxUri, validateSegment } from '../../../../shared/uri.js';
import type { Clock } from '../../ports/clock.js';
import type { ContextIndex, IndexInput } from '../../ports/context-index.js';
import { formatMessageRecord, messageEmbedContext } from '../../index/message-record.js';
import { countTokens } from '../../../lib/tokens.js';
import type { ContextFS } from '../../tree/context-fs.js';
import { sha256 } from '../../util/hash.js';
import { renderConversationMarkdown } from './render-markdown.js';

export const SESSION_ROOT = 'ctx://session/';
export const CONVERSATION_FILE = 'conversation.json';
export const ANALYSIS_FILE = 'analysis.json';

export interface StoredConversation {
  id: string;
  uri: string;
  title?: string;
  source_format?: string;
  source_path?: string;
  sessions: number;
  messages: number;
  imported_at: string;
  /** True when a stored analysis exists (it may be stale; sessions:analyze checks). */
  analyzed: boolean;
}

export interface ImportOutcome extends Omit<StoredConversation, 'analyzed' | 'imported_at'> {
  /** Nothing was written: the same messages were already imported. */
  unchanged: boolean;
  /** Message records handed to the index. */
  records: number;
}

/** A name safe as one URI segment (ids come from files: "c/1", "..", "%2f" must not become paths). */
export function safeSegment(id: string): string {
  let name = id.replace(/[/\\\0]/g, '_').replace(/%(2f|5c|00|2e)/gi, '_').replace(/^([a-z]):/i, '$1_');
  if (name === '..' || name === '.' || name.length === 0) name = `_${name}`;
  if (name.startsWith('.')) name = `_${name.slice(1)}`;
  return validateSegment(name.slice(0, 200));
}

export function conversationUri(id: string): string {
  return `${SESSION_ROOT}${safeSegment(id)}/`;
}

function sessionFileUri(dirUri: string, sessionId: string): string {
  return `${dirUri}${safeSegment(sessionId)}.md`;
}

function contentHash(conversation: Conversation): string {
  // Title and source path do not change what was said; the id, sessions and messages do.
  return sha256(JSON.stringify({ id: conversation.id, sessions: conversation.sessions }));
}

/** Writes one conversation into the workspace and its message records into the index. */
export async function storeConversation(fs: ContextFS, index: ContextIndex, conversation: Conversation, clock: Clock): Promise<ImportOutcome> {
  const uri = conversationUri(conversation.id);
  const hash = contentHash(conversation);
  const counts = { sessions: conversation.sessions.length, messages: conversation.sessions.reduce((n, s) => n + s.messages.length, 0) };
  const outcome = { id: conversation.id, uri, ...(conversation.title ? { title: conversation.title } : {}), source_format: conversation.source_format, source_path: conversation.source_path, ...counts };
  const existing = await fs.readMeta(uri);
  if (existing?.content_hash === hash) return { ...outcome, unchanged: true, records: 0 };

  const now = clock.now().toISOString();
  if (existing) {
    await index.removeUnder(uri);
    await fs.rm(uri, { recursive: true });
  }
  const source = conversation.source_path;
  const base = { context_type: 'session' as const, created_at: existing?.created_at ?? now, updated_at: now, conversation_id: conversation.id };
  const json = JSON.stringify(conversation, null, 2) + '\n';
  await fs.writeFile(`${uri}${CONVERSATION_FILE}`, json, { ...base, uri: `${uri}${CONVERSATION_FILE}`, kind: 'file', category: 'conversation', content_hash: sha256(json), bytes: Buffer.byteLength(json) });
  const records: IndexInput[] = [];
  for (const session of conversation.sessions) {
    const fileUri = sessionFileUri(uri, session.id);
    const markdown = renderConversationMarkdown(conversation, { sessionId: session.id });
    const meta: NodeMeta = {
      ...base,
      uri: fileUri,
      kind: 'file',
      category: 'session',
      session_id: session.id,
      source_format: conversation.source_format,
      content_hash: sha256(markdown),
      tokens: countTokens(markdown),
      bytes: Buffer.byteLength(markdown),
      provenance: { ...(source ? { source } : {}), message_ids: session.messages.map((m) => m.id) },
      ...(source ? { source_path: source } : {}),
    };
    await fs.writeFile(fileUri, markdown, meta);
    records.push(...messageRecords(fileUri, uri, session.messages, session.started_at, source, now));
  }
  await fs.writeMeta(uri, {
    ...base,
    uri,
    kind: 'dir',
    category: 'conversation',
    content_hash: hash,
    title: conversation.title,
    source_format: conversation.source_format,
    ...(source ? { source_path: source } : {}),
    session_count: counts.sessions,
    message_count: counts.messages,
  });
  if (records.length > 0) await index.upsert(records);
  return { ...outcome, unchanged: false, records: records.filter((r) => r.level === 2).length };
}

function messageRecords(fileUri: string, dirUri: string, messages: Message[], startedAt: string | undefined, source: string | undefined, updatedAt: string): IndexInput[] {
  const said = messages.filter((message) => message.text.trim().length > 0);
  if (said.length === 0) return [];
  return [...eachMessageRecord(fileUri, dirUri, messages, startedAt, source, updatedAt), sessionRecord(fileUri, dirUri, said, startedAt, source, updatedAt)];
}

/**
 * The session as one record (level 1 of the session node, category `message` like its level 2
 * records): its whole transcript, citing its messages in order. Search never shows it: a
 * question matching a session lifts that session's messages (index/conversation-recall.ts).
 */
function sessionRecord(fileUri: string, dirUri: string, messages: Message[], startedAt: string | undefined, source: string | undefined, updatedAt: string): IndexInput {
  const text = messages.map((message) => formatMessageRecord(message, startedAt)).join('\n');
  return {
    id: `${fileUri}#1`,
    uri: fileUri,
    parent_uri: dirUri,
    level: 1,
    context_type: 'session',
    category: 'message',
    text,
    tokens: countTokens(text),
    content_hash: sha256(text),
    updated_at: startedAt ?? updatedAt,
    provenance: { ...(source ? { source } : {}), message_ids: messages.map((m) => m.id) },
  };
}

function eachMessageRecord(fileUri: string, dirUri: string, messages: Message[], startedAt: string | undefined, source: string | undefined, updatedAt: string): IndexInput[] {
  return messages
    .map((message, index) => ({ message, index }))
    .filter(({ message }) => message.text.trim().length > 0)
    .map(({ message, index }) => {
      const text = formatMessageRecord(message, startedAt);
      const context = messageEmbedContext(messages, index);
      return {
        id: `${fileUri}#m:${message.id}`,
        uri: fileUri,
        parent_uri: dirUri,
        level: 2 as const,
        context_type: 'session' as const,
        category: 'message',
        text,
        tokens: countTokens(text),
        // The context is embedded with the message: when a neighbour changes, so does the hash and the vector.
        content_hash: sha256(`${text}\n${context}`),
        updated_at: message.timestamp ?? updatedAt,
        provenance: { ...(source ? { source } : {}), message_ids: [message.id] },
        ...(context ? { embed_context: context } : {}),
      };
    });
}

/**
 * The index records of a node under ctx://session/, re-made from the files: one per message for
 * a session node, none for conversation.json and analysis.json (data, not text to search).
 */
export async function sessionNodeRecords(fs: ContextFS, uri: string, meta: NodeMeta): Promise<IndexInput[]> {
  if (meta.kind !== 'file' || meta.category !== 'session') return [];
  const dirUri = uri.slice(0, uri.lastIndexOf('/') + 1);
  const conversation = await readConversationAt(fs, dirUri);
  const session = conversation.sessions.find((s) => s.id === meta.session_id);
  if (!session) return [];
  return messageRecords(uri, dirUri, session.messages, session.started_at, conversation.source_path, meta.updated_at);
}

async function readConversationAt(fs: ContextFS, dirUri: string): Promise<Conversation> {
  const text = await fs.readFileContent(`${dirUri}${CONVERSATION_FILE}`);
  return Conversation.parse(JSON.parse(text));
}

/** The conversation's folder from an id, a `ctx://session/{id}/` URI or any node below it. */
export function resolveConversationUri(idOrUri: string): string {
  if (!/^ctx:\/\//i.test(idOrUri)) return conversationUri(idOrUri);
  const parsed = parseCtxUri(idOrUri);
  const first = parsed.segments[0];
  if (parsed.scope !== 'session' || !first) throw new CairnError('INVALID_INPUT', `${idOrUri} is not a conversation: expected ctx://session/{id}/ or a conversation id`);
  return `${SESSION_ROOT}${first}/`;
}

export async function readConversation(fs: ContextFS, idOrUri: string): Promise<{ uri: string; conversation: Conversation }> {
  const uri = resolveConversationUri(idOrUri);
  if ((await fs.kindOf(uri)) !== 'dir') throw new CairnError('NOT_FOUND', `No imported conversation "${idOrUri}" (run sessions:import first; sessions:list shows what is there)`);
  return { uri, conversation: await readConversationAt(fs, uri) };
}

export async function listConversations(fs: ContextFS): Promise<StoredConversation[]> {
  if ((await fs.kindOf(SESSION_ROOT)) !== 'dir') return [];
  const out: StoredConversation[] = [];
  for (const entry of await fs.ls(SESSION_ROOT)) {
    if (entry.kind !== 'dir') continue;
    const meta = await fs.readMeta(entry.uri);
    if (!meta || meta.category !== 'conversation') continue;
    const m = meta as NodeMeta & { conversation_id?: string; title?: string; session_count?: number; message_count?: number };
    out.push({
      id: m.conversation_id ?? entry.name,
      uri: entry.uri,
      ...(m.title ? { title: m.title } : {}),
      ...(m.source_format ? { source_format: m.source_format } : {}),
      ...(m.source_path ? { source_path: m.source_path } : {}),
      sessions: m.session_count ?? 0,
      messages: m.message_count ?? 0,
      imported_at: m.updated_at,
      analyzed: (await fs.kindOf(`${entry.uri}${ANALYSIS_FILE}`)) === 'file',
    });
  }
  return out;
}

/** The stored analysis when it answers `cacheKey` (same messages, same options), else null. */
export async function readStoredAnalysis(fs: ContextFS, dirUri: string, cacheKey: string): Promise<SessionAnalysis | null> {
  const uri = `${dirUri}${ANALYSIS_FILE}`;
  const meta = await fs.readMeta(uri);
  if (!meta || (meta as { cache_key?: string }).cache_key !== cacheKey) return null;
  const parsed = SessionAnalysis.safeParse(JSON.parse(await fs.readFileContent(uri)));
  return parsed.success ? parsed.data : null;
}

export async function writeStoredAnalysis(fs: ContextFS, dirUri: string, analysis: SessionAnalysis, cacheKey: string, clock: Clock): Promise<void> {
  const uri = `${dirUri}${ANALYSIS_FILE}`;
  const now = clock.now().toISOString();
  const json = JSON.stringify(analysis, null, 2) + '\n';
  await fs.writeFile(uri, json, { uri, kind: 'file', context_type: 'session', category: 'analysis', cache_key: cacheKey, conversation_id: analysis.conversation_id, bytes: Buffer.byteLength(json), created_at: now, updated_at: now });
}
