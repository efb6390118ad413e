/**
 * The `sessions:*` commands: import a conversation file into ctx://session/, list and read
 * conversations, analyze one with the dual-track processor (the analysis is stored next to the
 * conversation so the UI can show it), and commit it to long-term memory through the engine's
 * `memories:commit` handler when the coordinated trigger says so. Review before commit
 * (review.ts): `sessions:propose` shows each candidate and what it would do, the person accepts
 * (perhaps with their own text) or rejects; `sessions:commit` takes what the trigger's calibrated
 * gate would commit by itself. Rejected candidates are never proposed or committed again.
 * `sessions:stats` shows the processor's monitoring report and chain buffer (stats.ts); which
 * tracks run by default is the workspace's setting (`memory` in .cairn/settings.json).
 * With an LLM configured, each command is one run of it (one token budget): the analysis' buckets,
 * chains and topic labels and the commit's dedup decisions ask it, the rules standing in per
 * unit; the run's report goes into the result (`llm`) and the processor's stats.
 *
 * @example
 * const handlers = { ...sessionHandlers({ fs, index, logger, clock, lifetime, commit: (r, ctx) => handlers['memories:commit'](r, ctx) }) };
 * await handlers['sessions:import']({ path: '/data/chat.jsonl', commit: true }, ctx);
 */
import { join } from 'node:path';
import { DEFAULT_MEMORY_SETTINGS, parseRequest, type MemorySettings, type SessionCommitResult, type SessionProposal } from '../../../../shared/contracts/api.js';
import { CairnError } from '../../../../shared/errors.js';
import type { Conversation, SessionAnalysis } from '../../../../shared/types/memory.js';
import type { CommandHandlers } from '../../command-handlers.js';
import type { Clock } from '../../ports/clock.js';
import type { ContextIndex } from '../../ports/context-index.js';
import type { Logger } from '../../ports/logger.js';
import type { ContextFS } from '../../tree/context-fs.js';
import { importConversations } from '../sessions/import.js';
import { listConversations, readConversation, readStoredAnalysis, storeConversation, writeStoredAnalysis } from '../sessions/workspace-store.js';
import type { CommitWithLlm } from '../long-term/handlers.js';
import type { MemoryCandidate } from '../long-term/types.js';
import type { MemoryLlm } from '../llm-run.js';
import { withExtractors } from './candidate-extractor.js';
import { proposeMemoryCandidates } from './candidates.js';
import { analysisCacheKey, type AnalyzeOptions } from './dual-track-processor.js';
import { DualTrackIntegrationAdapter } from './integration-adapter.js';
import { Rejections, toProposals } from './review.js';
import { processorState, sessionStats } from './stats.js';
import type { TrackRunner } from './track-runner.js';

export type SessionCommand = 'sessions:import' | 'sessions:list' | 'sessions:get' | 'sessions:analyze' | 'sessions:commit' | 'sessions:propose' | 'sessions:accept' | 'sessions:reject' | 'sessions:stats';
type Ctx = Parameters<CommandHandlers['sessions:list']>[1];

export interface SessionHandlerDeps {
  fs: ContextFS;
  index: ContextIndex | null;
  logger: Logger;
  clock: Clock;
  /** Worker threads for the two tracks (from the host); in this thread when absent. */
  tracks?: TrackRunner;
  /** The engine's `memories:commit`, in the caller's LLM run. */
  commit: CommitWithLlm;
  /** Starts a run of the engine's LLM for one command (null when none is configured). */
  startLlm?: () => MemoryLlm | null;
  /** Aborted when the engine is disposed: the track workers stop with it. */
  lifetime: AbortSignal;
  /** The tracks an analysis runs when its request does not say (the workspace's settings). */
  memorySettings?: () => MemorySettings;
}

export function sessionHandlers(deps: SessionHandlerDeps): Pick<CommandHandlers, SessionCommand> {
  const adapter = new DualTrackIntegrationAdapter({ ...(deps.tracks ? { runner: deps.tracks } : {}), logger: deps.logger, clock: deps.clock });
  deps.lifetime.addEventListener('abort', () => void adapter.dispose(), { once: true });
  const noIndex: ContextIndex = { upsert: async () => {}, removeUnder: async () => {} };
  const stateDir = join(deps.fs.root, '.cairn');
  const state = processorState(stateDir, adapter, deps.logger);
  const tracks = () => deps.memorySettings?.() ?? DEFAULT_MEMORY_SETTINGS;

  /** An analysis by the processor, its figures saved for the next process (stats.ts). */
  const analyzeNow = async (conversation: Conversation, options: AnalyzeOptions) => {
    await state.ready();
    const result = await adapter.analyze(conversation, { trackA: tracks().trackA, trackB: tracks().trackB, ...stripUndefined(options) });
    await state.save();
    return result;
  };

  /** One command's LLM run: started at its beginning, its report counted in the stats at its end. */
  const inRun = async <T>(work: (llm: MemoryLlm | null) => Promise<T>): Promise<T> => {
    const llm = deps.startLlm?.() ?? null;
    try {
      return await work(llm);
    } finally {
      if (llm) {
        await state.ready();
        adapter.processor.monitor.countLlm(llm.report());
        await state.save();
      }
    }
  };
  const reportOf = (llm: MemoryLlm | null) => (llm ? { llm: llm.report() } : {});

  /** The stored analysis when it is current, else a new one (stored too). */
  const analyzeStored = async (uri: string, conversation: Conversation, requested: AnalyzeOptions): Promise<{ analysis: SessionAnalysis; cached: boolean }> => {
    const options: AnalyzeOptions = { trackA: tracks().trackA, trackB: tracks().trackB, ...stripUndefined(requested) };
    const key = analysisCacheKey(conversation, options);
    if (!options.refresh) {
      const stored = await readStoredAnalysis(deps.fs, uri, key);
      if (stored) {
        // The stored copy is the analysis cache's second level: a hit for the stats.
        await state.ready();
        adapter.processor.cache.noteHit();
        adapter.processor.monitor.count('cache_hits');
        await state.save();
        return { analysis: stored, cached: true };
      }
    }
    const result = await analyzeNow(conversation, options);
    await writeStoredAnalysis(deps.fs, uri, result.analysis, key, deps.clock);
    return result;
  };

  /** The analysis' candidates, less the rejected ones, and the trigger's decision. */
  const candidatesOf = async (idOrUri: string, ctx: Ctx, llm: MemoryLlm | null) => {
    const { uri, conversation } = await readConversation(deps.fs, idOrUri);
    const { analysis } = await analyzeStored(uri, conversation, { signal: ctx.signal, ...(llm ? { llm } : {}) });
    const rejections = await Rejections.open(stateDir);
    const all = withExtractors(proposeMemoryCandidates(analysis), analysis);
    const proposed = all.filter((p) => !rejections.has(p.candidate));
    const trigger = { conversation_id: conversation.id, uri, action: analysis.trigger.action, confidence: analysis.trigger.confidence, explanation: analysis.trigger.explanation };
    return { trigger, proposed, rejected: all.length - proposed.length, rejections };
  };

  const commitCandidates = async (conversationId: string, candidates: MemoryCandidate[], ctx: Ctx, llm: MemoryLlm | null) => {
    if (candidates.length === 0) return [];
    const { changes } = await deps.commit(parseRequest('memories:commit', { candidates }), ctx, llm);
    deps.logger.info(`sessions: committed ${conversationId}`, { candidates: candidates.length, changes: changes.length });
    // Committed: its chains stop waiting in the buffer.
    await state.ready();
    adapter.processor.buffer.take(conversationId);
    await state.save();
    return changes;
  };

  /** What the trigger commits by itself: the candidates its calibrated gate lets through. */
  const commit = (idOrUri: string, ctx: Ctx): Promise<SessionCommitResult> =>
    inRun(async (llm) => {
      const { trigger, proposed } = await candidatesOf(idOrUri, ctx, llm);
      const candidates = proposed.filter((p) => p.autoCommit).map((p) => p.candidate);
      const changes = await commitCandidates(trigger.conversation_id, candidates, ctx, llm);
      return { ...trigger, candidates: candidates.length, changes, ...reportOf(llm) };
    });

  /**
   * The review: the analysis' candidates and what committing each would do. `plan: false` when
   * only the candidates' ids matter (accept, reject): the rules plan, so the dry run asks no model.
   */
  const propose = async (idOrUri: string, ctx: Ctx, llm: MemoryLlm | null, plan = true) => {
    const { trigger, proposed, rejected, rejections } = await candidatesOf(idOrUri, ctx, llm);
    const planned = proposed.length > 0 ? (await deps.commit(parseRequest('memories:commit', { candidates: proposed.map((p) => p.candidate), dry_run: true }), ctx, plan ? llm : null)).changes : [];
    const proposal: SessionProposal = { ...trigger, ...toProposals(proposed, planned), rejected, ...reportOf(llm) };
    return { proposal, rejections };
  };

  /** The proposal's candidates named by `ids`; an id it does not hold is an error naming it. */
  const named = (proposal: SessionProposal, ids: string[]) =>
    ids.map((id) => {
      const found = proposal.candidates.find((c) => c.id === id);
      if (!found) throw new CairnError('NOT_FOUND', `No candidate ${id} in the proposal for ${proposal.conversation_id} (it was accepted, rejected or the analysis changed: propose again)`, { details: { id } });
      return found;
    });

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
    'sessions:analyze': (request, ctx) =>
      inRun(async (llm) => {
        const options: AnalyzeOptions = { trackA: request.trackA, trackB: request.trackB, refresh: request.refresh, signal: ctx.signal, ...(llm ? { llm } : {}) };
        if (request.id !== undefined) {
          const { uri, conversation } = await readConversation(deps.fs, request.id);
          const { analysis, cached } = await analyzeStored(uri, conversation, options);
          return { ...analysis, cached, uri };
        }
        const conversation = pick(await importConversations(request.path as string, { onWarning: (message) => deps.logger.warn(message) }), request.path as string, request.conversation);
        const { analysis, cached } = await analyzeNow(conversation, options);
        return { ...analysis, cached, uri: null };
      }),
    'sessions:commit': async (request, ctx) => commit(request.id, ctx),
    'sessions:propose': (request, ctx) => inRun(async (llm) => (await propose(request.id, ctx, llm)).proposal),
    'sessions:accept': (request, ctx) => inRun(async (llm) => {
      const { proposal } = await propose(request.id, ctx, llm, false);
      const chosen = named(proposal, request.accept.map((a) => a.candidate));
      const candidates = chosen.map((p, i) => {
        const { title, content } = request.accept[i]!;
        const edited = (title !== undefined && title !== p.candidate.title) || (content !== undefined && content !== p.candidate.content);
        // The person's own text, or their yes to an update of their pinned memory: the memory is theirs (pinned).
        return { ...p.candidate, ...(title !== undefined ? { title } : {}), ...(content !== undefined ? { content } : {}), ...(edited || p.kind === 'update' ? { pinned: true } : {}) };
      });
      const { candidates: _all, rejected: _rejected, known: _known, llm: _llm, ...trigger } = proposal;
      return { ...trigger, candidates: candidates.length, changes: await commitCandidates(proposal.conversation_id, candidates, ctx, llm), ...reportOf(llm) };
    }),
    'sessions:reject': (request, ctx) => inRun(async (llm) => {
      // The run's model names the stored analysis (the candidates' ids); rejecting asks it nothing more.
      const { proposal, rejections } = await propose(request.id, ctx, llm, false);
      const chosen = named(proposal, request.candidates);
      await rejections.add(
        chosen.map((p) => p.candidate),
        deps.clock,
      );
      return { rejected: chosen.length };
    }),
    'sessions:stats': async () => {
      await state.ready();
      await adapter.healthCheck();
      return sessionStats(adapter);
    },
  };
}

/** The options given, so an absent one leaves the setting's value in place when spread. */
function stripUndefined(options: AnalyzeOptions): AnalyzeOptions {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as AnalyzeOptions;
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
