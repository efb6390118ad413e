/**
 * The engine as a library: `createEngine(deps)` with explicit dependencies and no globals. The
 * CLI, the worker (behind the web host and the Electron app) and the tests compose it the same
 * way and drive it through the one contract of `shared/contracts/api.ts`.
 *
 * This module only composes: the state on disk, the index, the LLM runtime, the summary
 * scheduler, and the handler modules of each command group, which take what they need as
 * arguments (their types in command-handlers.ts, so none of them imports this module).
 *
 * @example
 * const engine = await createEngine({ workspace: '/tmp/ws', parser: inProcessParseRunner() });
 * const result = await engine.call('ingest:start', { path: '/usr/share/doc/python3.11/html' });
 * const listing = await engine.call('fs:ls', { uri: result.root });
 * await engine.dispose();
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { parseRequest, type CommandName, type CommandRequest, type CommandResponse, type EngineEvent, type LlmSettings } from '../../shared/contracts/api.js';
import type { CommandHandlers, Handler } from './command-handlers.js';
import { compressHandlers } from './compress/handlers.js';
import { indexHandlers } from './index/handlers.js';
import { journaledIndex } from './index/journaled-index.js';
import type { EngineIndex } from './ports/engine-index.js';
import { indexOptimizer } from './index/optimize.js';
import { ingestHandlers } from './ingest/handlers.js';
import { sampleHandlers } from './ingest/sample.js';
import { JobStore } from './ingest/job-store.js';
import type { CircuitBreakerOptions } from './llm/circuit-breaker.js';
import type { RetryOptions } from './llm/retry.js';
import { memoryLlmOf } from './memory/llm-run.js';
import { memoryHandlers } from './memory/long-term/handlers.js';
import { sessionHandlers } from './memory/processor/handlers.js';
import type { TrackRunner } from './memory/processor/track-runner.js';
import type { ParseRunner } from './parse/runner.js';
import { portabilityHandlers } from './portability/handlers.js';
import { systemClock, type Clock } from './ports/clock.js';
import { silentLogger, type Logger } from './ports/logger.js';
import { HeldRoots } from './queue/held-roots.js';
import { Outbox } from './queue/outbox.js';
import { workspaceLockOptions } from './queue/workspace-lock.js';
import { settingsHandlers } from './settings/handlers.js';
import { createLlmRuntime } from './settings/llm-runtime.js';
import type { ModelFactory } from './settings/llm-stack.js';
import { openSettingsStore, type KeyStorage } from './settings/settings-store.js';
import { extractiveSummarizer } from './summarize/extractive-summarizer.js';
import { skillHandlers } from './skills/handlers.js';
import { summarizeHandlers } from './summarize/handlers.js';
import { createSummaryScheduler } from './summarize/scheduler.js';
import type { NodeSummarizer } from './summarize/types.js';
import { treeHandlers } from './tree/handlers.js';
import { manageHandlers } from './tree/manage.js';
import { ContextFS } from './tree/context-fs.js';

export type { EngineIndex };

export interface EngineDeps {
  /** The workspace folder: the ContextFS tree plus Cairn's own state in `.cairn/`. */
  workspace: string;
  parser: ParseRunner;
  /** Where records go; with `search` it also answers `search:query` (a bare ContextIndex only receives). */
  index?: EngineIndex;
  /** Writes L0/L1; the embedded extractive summarizer when absent. */
  summarizer?: NodeSummarizer;
  /** Summarize queued trees in the background as soon as an ingest queues them (the app and web host). */
  autoSummarize?: boolean;
  /** Directory summary tasks in flight at once. */
  summaryConcurrency?: number;
  logger?: Logger;
  clock?: Clock;
  /** Worker threads for the dual-track processor's two tracks; they run in this thread when absent. */
  trackRunner?: TrackRunner;
  /**
   * The LLM, as every host hands it (docs/llm-runtime.md): summaries follow the settings
   * (`.cairn/settings.json` and settings:set, or only `overrides`), through this provider.
   * Without it every summary is extractive. Ignored for summaries when `summarizer` is given.
   */
  llm?: EngineLlm;
  /** How a change waits for another process holding the workspace: null as long as it takes (the default), 0 not at all (LOCKED). */
  lockWaitMs?: number | null;
}

export interface EngineLlm {
  createModel: ModelFactory;
  /** The API key the host holds (memory only; never written by the engine). */
  apiKey?: string | undefined;
  keyStorage?: KeyStorage | undefined;
  /** Settings given at start (flags, the environment), laid over the saved ones (or the defaults). */
  overrides?: Partial<LlmSettings> | undefined;
  /** false: `.cairn/settings.json` is neither read nor written (`cairn ingest`, `cairn watch`). Default true. */
  workspaceSettings?: boolean | undefined;
  /** Read answers as streams; the breaker's cool-down (options of this engine, not settings). */
  stream?: boolean | undefined;
  cooldownMs?: number | undefined;
  /** Tests: a shorter retry backoff, a breaker that opens later. */
  retry?: RetryOptions | undefined;
  breaker?: CircuitBreakerOptions | undefined;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Events of this call only (progress of this ingest); every event also goes to subscribers. */
  onEvent?: (event: EngineEvent) => void;
}

export interface Engine {
  readonly fs: ContextFS;
  readonly workspace: string;
  readonly handlers: CommandHandlers;
  call<K extends CommandName>(command: K, request: CommandRequest<K>, options?: CallOptions): Promise<CommandResponse<K>>;
  subscribe(listener: (event: EngineEvent) => void): () => void;
  dispose(): Promise<void>;
}

export async function createEngine(deps: EngineDeps): Promise<Engine> {
  const logger = deps.logger ?? silentLogger;
  const clock = deps.clock ?? systemClock;
  const stateDir = join(deps.workspace, '.cairn');
  await mkdir(stateDir, { recursive: true });
  const fs = await ContextFS.open(deps.workspace);
  const jobs = await JobStore.open(stateDir);
  const lifetime = new AbortController();
  const listeners = new Set<(event: EngineEvent) => void>();
  const broadcast = (event: EngineEvent) => {
    for (const listener of listeners) {
      try {
        listener(event);
      } catch (error) {
        logger.error('An event listener threw', { error: String(error) });
      }
    }
  };

  // The LLM: settings (file or host) → one runtime, rebuilt on change, one budget per run (docs/llm-runtime.md).
  const settings = await openSettingsStore({
    stateDir,
    apiKey: deps.llm?.apiKey,
    keyStorage: deps.llm?.keyStorage,
    overrides: deps.llm?.overrides,
    workspaceSettings: deps.llm?.workspaceSettings,
    logger,
  });
  const llm = createLlmRuntime({
    createModel: deps.summarizer ? undefined : deps.llm?.createModel,
    logger,
    clock,
    emit: broadcast,
    retry: deps.llm?.retry,
    breaker: deps.llm?.breaker,
    stream: deps.llm?.stream,
    cooldownMs: deps.llm?.cooldownMs,
  });
  llm.apply(settings.current(), settings.apiKey());
  // Writes summaries offline, and stands in for a file the LLM could not summarize.
  const extractive = extractiveSummarizer();

  // Buffered for speed and journaled so a killed process loses no record (see journaled-index.ts).
  const index = deps.index ? journaledIndex(deps.index, { fs, journalDir: join(stateDir, 'index-journal'), logger }) : null;
  const optimizeIndex = indexOptimizer(index, logger);
  // The outbox takes the workspace's queue lock, so it opens only when work needs it: browsing
  // commands (ls, tree, cat) run beside a serving app without contending for it.
  let outboxPromise: Promise<Outbox> | null = null;
  // A refusal (LOCKED while a CLI ingest runs) is not kept: the next call tries again.
  const outbox = () =>
    (outboxPromise ??= Outbox.open(join(stateDir, 'queue'), { clock, logger, lockName: `The workspace ${deps.workspace}`, ...workspaceLockOptions(deps.lockWaitMs, broadcast, lifetime.signal) }).catch((error: unknown) => {
      outboxPromise = null;
      throw error;
    }));
  /** Roots ingested with `summarize: false`: queued, but not for the background runs (kept across restarts). */
  const held = await HeldRoots.open(join(stateDir, 'held-roots.json'), logger);
  const scheduler = createSummaryScheduler({
    fs,
    index,
    outbox,
    held,
    // Chosen per run, so a settings change reaches the next run and never one already going.
    startRun: () => deps.summarizer ?? llm.startRun() ?? extractive,
    fileFallback: extractive,
    optimizeIndex,
    broadcast,
    lifetime: lifetime.signal,
    concurrency: deps.summaryConcurrency,
    logger,
    clock,
  });
  const onQueued = () => {
    if (deps.autoSummarize) scheduler.kick();
  };

  const search = indexHandlers({ fs, index, optimizeIndex, lifetime: lifetime.signal });
  // The memory engine asks the same LLM as summaries, one run (budget, breaker) per command.
  const startMemoryLlm = () => memoryLlmOf(llm.startModelRun(), logger);
  const { commitWithLlm, ...memories } = memoryHandlers({ fs, stateDir, index, outbox, logger, clock, search: search['search:query'], onQueued, startLlm: startMemoryLlm });
  const ingests = ingestHandlers({
    fs,
    jobs,
    parser: deps.parser,
    index,
    outbox,
    held,
    optimizeIndex,
    onIngested: onQueued,
    lifetime: lifetime.signal,
    logger,
    clock,
    // The same choice as startRun's: no injected summarizer and no LLM means the extractive one.
    filesSummarizedOffline: () => deps.summarizer === undefined && !llm.active,
  });
  const handlers: CommandHandlers = {
    ...ingests,
    // Skills (skills:*): added through ingest:start into ctx://agent/skills/{name}/.
    ...skillHandlers({ fs, ingest: ingests['ingest:start'] }),
    ...sampleHandlers(),
    ...treeHandlers(fs),
    ...manageHandlers({ fs, index, outbox, held, stateDir, logger, onQueued }),
    ...summarizeHandlers({
      fs,
      outbox,
      held,
      scheduler,
      lifetime: lifetime.signal,
      nextRun: () => ({ model: settings.current().model, llm: deps.summarizer === undefined && llm.active, maxChildren: deps.summarizer?.maxChildren }),
    }),
    ...search,
    // Long-term memory (memories:*): changes queue ctx://user/memories/ for the DAG.
    ...memories,
    ...compressHandlers({ fs, search: search['search:query'] }),
    ...portabilityHandlers({ fs, stateDir, index, outbox, logger, clock, onQueued }),
    // LLM settings and the LLM monitor (settings:*, llm:stats).
    ...settingsHandlers({ store: settings, runtime: llm }),
    // Sessions (sessions:*): the dual-track analysis, committed through memories:commit.
    ...sessionHandlers({ fs, index, logger, clock, tracks: deps.trackRunner, lifetime: lifetime.signal, commit: commitWithLlm, startLlm: startMemoryLlm, memorySettings: () => settings.memory() }),
  };

  return {
    fs,
    workspace: fs.root,
    handlers,
    async call(command, request, options = {}) {
      const parsed = parseRequest(command, request);
      const emit = (event: EngineEvent) => {
        options.onEvent?.(event);
        broadcast(event);
      };
      const handler = handlers[command] as Handler<typeof command>;
      return handler(parsed, { signal: options.signal ?? new AbortController().signal, emit });
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async dispose() {
      // Stops the ingests, the summary runs and the sessions' analyses going.
      lifetime.abort();
      llm.dispose();
      await scheduler.idle();
      listeners.clear();
      await deps.parser.dispose();
      // An outbox that never opened (LOCKED: another process owns it) has nothing to close; its
      // error already reached the call that needed it.
      const opened = await outboxPromise?.catch(() => null);
      await opened?.close();
      await index?.close?.();
    },
  };
}
