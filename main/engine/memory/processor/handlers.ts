/**
 * The `sessions:*` commands: import a conversation file into ctx://session/, list and read
 * conversations, analyze one with the dual-track processor (the analysis is stored next to the
 * conversation so the UI can show it), and commit it to long-term memory through the engine's
 * `memories:commit` handler when the coordinated trigger says so.
 *
 * @example
 * const handlers = { ...sessionHandlers({ fs, index, logger, clock, lifetime, commit: (r, ctx) => handlers['memories:commit'](r, ctx) }) };
 * await handlers['sessions:import']({ path: '/data/chat.jsonl', commit: true }, ctx);
 */
import { parseRequest, type SessionCommitResult } from '../../../../shared/contracts/api.js';
import { CairnError } from '../../../../shared/errors.js';
import type { Conversation, SessionAnalysis } from '../../../../shared/types/memory.js';
import type { CommandHandlers } from '../../command-handlers.js';
import type { Clock } from '../../ports/clock.js';
import type { ContextIndex } from '../../ports/context-index.js';
import type { Logger } from '../../ports/logger.js';
import type { ContextFS } from '../../tree/context-fs.js';
import { importConversations } from '../sessions/import.js';
import { listConversations, readConversation, readStoredAnalysis, storeConversation, writeStoredAnalysis } from '../sessions/workspace-store.js';
import { deriveMemoryCandidates } from './candidates.js';
import { analysisCacheKey, type AnalyzeOptions } from './dual-track-processor.js';
import { DualTrackIntegrationAdapter } from './integration-adapter.js';
import type { TrackRunner } from './track-runner.js';

export type SessionCommand = 'sessions:import' | 'sessions:list' | 'sessions:get' | 'sessions:analyze' | 'sessions:commit';
type Ctx = Parameters<CommandHandlers['sessions:list']>[1];

export interface SessionHandlerDeps {
  fs: ContextFS;
  index: ContextIndex | null;
  logger: Logger;
  clock: Clock;
  /** Worker threads for the two tracks (from the host); in this thread when absent. */
  tracks?: TrackRunner;
  /** The engine's `memories:commit` handler. */
  commit: CommandHandlers['memories:commit'];
  /** Aborted when the engine is disposed: the track workers stop with it. */
  lifetime: AbortSignal;
}

export function sessionHandlers(deps: SessionHandlerDeps): Pick<CommandHandlers, SessionCommand> {
  const adapter = new DualTrackIntegrationAdapter({ ...(deps.tracks ? { runner: deps.tracks } : {}), logger: deps.logger, clock: deps.clock });
  deps.lifetime.addEventListener('abort', () => void adapter.dispose(), { once: true });
  const noIndex: ContextIndex = { upsert: async () => {}, removeUnder: async () => {} };

  /** The stored analysis when it is current, else a new one (stored too). */
  const analyzeStored = async (uri: string, conversation: Conversation, options: AnalyzeOptions): Promise<{ analysis: SessionAnalysis; cached: boolean }> => {
    const key = analysisCacheKey(conversation, options);
    if (!options.refresh) {
      const stored = await readStoredAnalysis(deps.fs, uri, key);
      if (stored) return { analysis: stored, cached: true };
    }
    const result = await adapter.analyze(conversation, options);
    await writeStoredAnalysis(deps.fs, uri, result.analysis, key, deps.clock);
    return result;
  };

  const commit = async (idOrUri: string, ctx: Ctx): Promise<SessionCommitResult> => {
    const { uri, conversation } = await readConversation(deps.fs, idOrUri);
    const { analysis } = await analyzeStored(uri, conversation, { signal: ctx.signal });
    const candidates = deriveMemoryCandidates(analysis);
    const changes = candidates.length > 0 ? (await deps.commit(parseRequest('memories:commit', { candidates }), ctx)).changes : [];
    if (candidates.length > 0) deps.logger.info(`sessions: committed ${conversation.id}`, { candidates: candidates.length, changes: changes.length });
    return {
      conversation_id: conversation.id,
      uri,
      action: analysis.trigger.action,
      confidence: analysis.trigger.confidence,
      explanation: analysis.trigger.explanation,
      candidates: candidates.length,
      changes,
    };
  };

  return {
    'sessions:import': async (request, ctx) => {
      const conversations = await importConversations(request.path, { onWarning: (message) => deps.logger.warn(message) });
      const imported = [];
      for (const conversation of conversations) imported.push(await storeConversation(deps.fs, deps.index ?? noIndex, conversation, deps.clock));
      const commits = [];
      if (request.commit) for (const c of imported) commits.push(await commit(c.uri, ctx));
      return { conversations: imported, commits };
    },
    'sessions:list': async () => ({ conversations: await listConversations(deps.fs) }),
    'sessions:get': async (request) => readConversation(deps.fs, request.id),
    'sessions:analyze': async (request, ctx) => {
      const options: AnalyzeOptions = { trackA: request.trackA, trackB: request.trackB, refresh: request.refresh, signal: ctx.signal };
      if (request.id !== undefined) {
        const { uri, conversation } = await readConversation(deps.fs, request.id);
        const { analysis, cached } = await analyzeStored(uri, conversation, options);
        return { ...analysis, cached, uri };
      }
      const conversation = pick(await importConversations(request.path as string, { onWarning: (message) => deps.logger.warn(message) }), request.path as string, request.conversation);
      const { analysis, cached } = await adapter.analyze(conversation, options);
      return { ...analysis, cached, uri: null };
    },
    'sessions:commit': async (request, ctx) => commit(request.id, ctx),
  };
}

function pick(conversations: Conversation[], path: string, id: string | undefined): Conversation {
  if (id !== undefined) {
    const found = conversations.find((c) => c.id === id);
    if (!found) throw new CairnError('NOT_FOUND', `${path}: no conversation "${id}" (it holds ${conversations.map((c) => c.id).join(', ')})`);
    return found;
  }
  if (conversations.length === 1) return conversations[0] as Conversation;
  throw new CairnError('INVALID_INPUT', `${path} holds ${conversations.length} conversations (${conversations.slice(0, 10).map((c) => c.id).join(', ')}${conversations.length > 10 ? ', …' : ''}): name one`, { details: { file: path } });
}
