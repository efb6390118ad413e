/**
 * The compression commands of the contract: `compress:run` (blocks in, the kept blocks and a
 * before/after pair for the diff view out) and `context:pack` (a query and a budget in, a
 * chain-intact pack out, gathered from the search's relevant results (above the pack floor, PACK_FLOOR),
 * memories and their sessions' chains).
 */
import type { CommandHandlers } from '../command-handlers.js';
import { SessionAnalysis, type Conversation, type ExtractedChain } from '../../../shared/types/memory.js';
import { ANALYSIS_FILE, readConversation } from '../memory/sessions/workspace-store.js';
import { formatMessageRecord } from '../index/message-record.js';
import type { ContextFS } from '../tree/context-fs.js';
import { compressBlocks } from './compress.js';
import { reserveIndices } from './reserve.js';
import { parseCompressInput } from './blocks.js';
import { buildContextPack, relevantHits, type ContextPack, type MessageRef, type PackHit } from './context-pack.js';
import type { RankedResult } from '../../../shared/contracts/api.js';
import type { CompressionStrategy } from '../../../shared/types/compress.js';
import { renderDiffPair } from './render.js';

export interface CompressHandlerDeps {
  fs: ContextFS;
  search: CommandHandlers['search:query'];
}

/** The conversation folder a session node sits in: `ctx://session/{id}/`. */
function conversationDir(uri: string): string | null {
  const match = /^ctx:\/\/session\/[^/]+\//.exec(uri);
  return match ? match[0] : null;
}

/** Chains of the sessions' stored analyses that hold any of the messages named. */
async function chainsFor(fs: ContextFS, refs: Array<{ uri: string; message_ids: string[] }>): Promise<ExtractedChain[]> {
  const wanted = new Map<string, Set<string>>();
  for (const ref of refs) {
    const dir = conversationDir(ref.uri);
    if (!dir) continue;
    const ids = wanted.get(dir) ?? new Set<string>();
    for (const id of ref.message_ids) ids.add(id);
    wanted.set(dir, ids);
  }
  const chains: ExtractedChain[] = [];
  for (const [dir, ids] of wanted) {
    const text = await fs.readFileContent(`${dir}${ANALYSIS_FILE}`).catch(() => null);
    if (text === null) continue; // Not analyzed yet: its messages stand alone.
    const analysis = SessionAnalysis.safeParse(JSON.parse(text));
    if (!analysis.success) continue;
    for (const chain of analysis.data.chains) if (chain.source_message_ids.some((id) => ids.has(id))) chains.push(chain);
  }
  return chains;
}

/** A conversation by its folder, read once per pack (a pack reads many of its messages). */
type Conversations = (dir: string) => Promise<Conversation>;

function conversationReader(fs: ContextFS): Conversations {
  const read = new Map<string, Promise<Conversation>>();
  return (dir) => {
    let conversation = read.get(dir);
    if (!conversation) read.set(dir, (conversation = readConversation(fs, dir).then((r) => r.conversation)));
    return conversation;
  };
}

/** The messages named, from the conversation the session node belongs to, as they are indexed. */
async function readMessages(conversations: Conversations, uri: string, messageIds: string[]): Promise<string | null> {
  const dir = conversationDir(uri);
  if (!dir) return null;
  const conversation = await conversations(dir);
  const wanted = new Set(messageIds);
  const lines: string[] = [];
  for (const session of conversation.sessions) {
    for (const message of session.messages) if (wanted.has(message.id)) lines.push(formatMessageRecord(message, session.started_at));
  }
  return lines.length > 0 ? lines.join('\n') : null;
}

/** What the pack evaluation varies to fit the pack's constants (PACK_FLOOR, RESERVED_HITS when absent). */
export interface PackTuning {
  floor?: number;
  reservedHits?: number;
}

/**
 * The pack of a search's ranked results, as `context:pack` builds it (`cairn context`, MCP
 * `context`, the Compression view). Apart so the pack evaluation can build packs from one
 * search at several budgets, floors and reservations.
 */
export async function packRanked(
  fs: ContextFS,
  ranked: readonly RankedResult[],
  request: { query: string; budget: number; strategy?: CompressionStrategy },
  tuning: PackTuning = {},
): Promise<ContextPack> {
  const conversations = conversationReader(fs);
  const packHits: PackHit[] = [];
  for (const hit of relevantHits(ranked, tuning.floor)) {
    const meta = await fs.readMeta(hit.uri).catch(() => null);
    packHits.push({ ...hit, ...(meta?.updated_at ? { updated_at: meta.updated_at } : {}) });
  }
  return buildContextPack(
    packHits,
    {
      read: (uri, level) => fs.read(uri, level),
      readMessages: (uri, ids) => readMessages(conversations, uri, ids),
      neighboursOf: (uri, ids) => neighboursOf(conversations, uri, ids),
      chainsFor: (refs) => chainsFor(fs, refs),
    },
    {
      query: request.query,
      budget: request.budget,
      ...(request.strategy ? { strategy: request.strategy } : {}),
      ...(tuning.reservedHits !== undefined ? { reservedHits: tuning.reservedHits } : {}),
    },
  );
}

/** The messages right before the first and right after the last of these, in their session. */
async function neighboursOf(conversations: Conversations, uri: string, messageIds: string[]): Promise<{ before: MessageRef[]; after: MessageRef[] }> {
  const dir = conversationDir(uri);
  if (!dir) return { before: [], after: [] };
  const conversation = await conversations(dir);
  for (const session of conversation.sessions) {
    const at = session.messages.map((m, i) => (messageIds.includes(m.id) ? i : -1)).filter((i) => i >= 0);
    if (at.length === 0) continue;
    const first = at[0] as number;
    const last = at[at.length - 1] as number;
    return {
      before: first > 0 ? [{ uri, message_id: (session.messages[first - 1] as { id: string }).id }] : [],
      after: last < session.messages.length - 1 ? [{ uri, message_id: (session.messages[last + 1] as { id: string }).id }] : [],
    };
  }
  return { before: [], after: [] };
}

export function compressHandlers(deps: CompressHandlerDeps): Pick<CommandHandlers, 'compress:run' | 'context:pack'> {
  return {
    'compress:run': async (request) => {
      const blocks = parseCompressInput({ blocks: request.blocks });
      const reserve = reserveIndices(blocks, request.reserve ?? []);
      const result = compressBlocks(blocks, {
        strategy: request.strategy,
        ...(reserve.length > 0 ? { reserve } : {}),
        ...(request.budget !== undefined ? { budget: request.budget } : {}),
        ...(request.ratio !== undefined ? { ratio: request.ratio } : {}),
        cutSentences: request.whole_sentences !== true,
      });
      return { result, ...renderDiffPair(blocks, result) };
    },
    'context:pack': async (request, ctx) => {
      const { ranked } = await deps.search({ query: request.query, mode: 'hybrid', topK: request.topK, ...(request.scope ? { scope: request.scope } : {}) }, ctx);
      return packRanked(deps.fs, ranked, request);
    },
  };
}
