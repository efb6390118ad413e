/**
 * The engine as a library: `createEngine(deps)` with explicit dependencies and no globals. The
 * CLI, the worker (behind the web host and the Electron app) and the tests compose it the same
 * way and drive it through the one contract of `shared/contracts/api.ts`.
 *
 * @example
 * const engine = await createEngine({ workspace: '/tmp/ws', parser: inProcessParseRunner() });
 * const result = await engine.call('ingest:start', { path: '/usr/share/doc/python3.11/html' });
 * const listing = await engine.call('fs:ls', { uri: result.root });
 * await engine.dispose();
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  parseRequest,
  type CommandName,
  type CommandRequest,
  type CommandResponse,
  DagRunResult,
  type EngineEvent,
  type ParsedCommandRequest,
} from '../../shared/contracts/api.js';
import { CairnError } from '../../shared/errors.js';
import { IngestOptions } from '../../shared/types/ingest.js';
import { systemClock, type Clock } from './ports/clock.js';
import { noopIndex } from './ports/context-index.js';
import { rebuildIndex } from './index/rebuild.js';
import { journaledIndex, type EngineIndex } from './index/journaled-index.js';

export type { EngineIndex };
import { silentLogger, type Logger } from './ports/logger.js';
import type { ParseRunner } from './parse/runner.js';
import { ingest } from './ingest/ingest.js';
import { JobStore } from './ingest/job-store.js';
import { ContextFS } from './tree/context-fs.js';
import { Outbox } from './queue/outbox.js';
import { HeldRoots } from './queue/held-roots.js';
import { DirectoryEventHandler } from './summarize/dag.js';
import { extractiveSummarizer } from './summarize/extractive-summarizer.js';
import { estimateSummaries } from './summarize/estimate.js';
import { estimateCostUsd } from './llm/prices.js';
import { recentIngests, noteIngest } from './ingest/recent.js';
import { compressHandlers } from './compress/handlers.js';
import { portabilityHandlers } from './portability/handlers.js';
import { memoryHandlers } from './memory/long-term/handlers.js';
import { sessionHandlers } from './memory/processor/handlers.js';
import type { TrackRunner } from './memory/processor/track-runner.js';
import type { NodeSummarizer } from './summarize/types.js';
import type { LlmSettings } from '../../shared/contracts/api.js';
import type { RetryOptions } from './llm/retry.js';
import type { ModelFactory } from './settings/llm-stack.js';
import { createLlmRuntime } from './settings/llm-runtime.js';
import { openSettingsStore, type KeyStorage } from './settings/settings-store.js';
import { settingsHandlers } from './settings/handlers.js';

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
   * The app's LLM (the engine worker): summaries follow `.cairn/settings.json` and settings:set,
   * through this provider. Ignored for summaries when `summarizer` is given.
   */
  llm?: {
    createModel: ModelFactory;
    /** The API key the host holds (memory only; never written by the engine). */
    apiKey?: string | undefined;
    keyStorage?: KeyStorage | undefined;
    /** Settings given at start (`cairn serve --llm-*`), laid over the file's. */
    overrides?: Partial<LlmSettings> | undefined;
    retry?: RetryOptions | undefined;
    /** Read answers as streams; the breaker's cool-down (flags without a setting). */
    stream?: boolean | undefined;
    cooldownMs?: number | undefined;
  };
}


export interface CallOptions {
  signal?: AbortSignal;
  /** Events of this call only (progress of this ingest); every event also goes to subscribers. */
  onEvent?: (event: EngineEvent) => void;
}

type Handler<K extends CommandName> = (request: ParsedCommandRequest<K>, ctx: { signal: AbortSignal; emit(event: EngineEvent): void }) => Promise<CommandResponse<K>>;
export type CommandHandlers = { [K in CommandName]: Handler<K> };

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
  const listeners = new Set<(event: EngineEvent) => void>();
  const running = new Map<string, AbortController>();
  // Writes summaries offline, and stands in for a file the LLM could not summarize.
  const extractive = extractiveSummarizer();
  const settings = await openSettingsStore({ stateDir, apiKey: deps.llm?.apiKey, keyStorage: deps.llm?.keyStorage, overrides: deps.llm?.overrides, logger });
  const llm = createLlmRuntime({ createModel: deps.summarizer ? undefined : deps.llm?.createModel, logger, clock, emit: (event) => broadcast(event), retry: deps.llm?.retry, stream: deps.llm?.stream, cooldownMs: deps.llm?.cooldownMs });
  llm.apply(settings.current(), settings.apiKey());
  // Chosen per run, so a settings change reaches the next run and never one already going.
  const summarizerForRun = (): NodeSummarizer => deps.summarizer ?? llm.newRun() ?? extractive;
  // Buffered for speed and journaled so a killed process loses no record (see journaled-index.ts).
  const index = deps.index ? journaledIndex(deps.index, { fs, journalDir: join(stateDir, 'index-journal'), logger }) : null;
  const lifetime = new AbortController();
  // The outbox takes the workspace's queue lock, so it opens only when work needs it: browsing
  // commands (ls, tree, cat) run beside a serving app without contending for it.
  let outboxPromise: Promise<Outbox> | null = null;
  // A refusal (LOCKED while a CLI ingest runs) is not kept: the next call tries again.
  const outbox = () =>
    (outboxPromise ??= Outbox.open(join(stateDir, 'queue'), { clock, logger, lockName: `The workspace ${deps.workspace}` }).catch((error: unknown) => {
      outboxPromise = null;
      throw error;
    }));

  const optimizeIndex = async () => {
    try {
      await index?.optimize?.();
    } catch (error) {
      // The rows are written and searchable by a slower scan; a failed optimize costs speed only.
      logger.warn(`Optimizing the index failed: ${String((error as Error)?.message ?? error)}`);
    }
  };
  const searchIndex = () => {
    if (!index?.search) throw new CairnError('INDEX_FAILED', 'Search is not available: this engine was started without a search index');
    return index as EngineIndex & Required<Pick<EngineIndex, 'search'>>;
  };

  const broadcast = (event: EngineEvent) => {
    for (const listener of listeners) {
      try {
        listener(event);
      } catch (error) {
        logger.error('An event listener threw', { error: String(error) });
      }
    }
  };

  /** Claims queued roots one by one and runs the DAG on each until the queue is empty. */
  const drain = async (signal: AbortSignal, emit: (event: EngineEvent) => void, onlyUri?: string): Promise<DagRunResult[]> => {
    const queue = await outbox();
    const results: DagRunResult[] = [];
    for (;;) {
      if (signal.aborted) break;
      // A background run (no uri) leaves the held roots queued: they wait for a summarize:run naming them.
      const message = await queue.claim(onlyUri === undefined ? (held.size > 0 ? (m) => !held.has(m.uri) : undefined) : (m) => m.uri === onlyUri);
      if (!message) break;
      emit({ type: 'dag/started', root: message.uri, messageId: message.id });
      // Loaded before the run, not during it: loading LanceDB and the lexicon is ~0.3 s of
      // synchronous CPU that would hold up every LLM answer in flight (DAG bench, issue 4).
      await index?.prepare?.();
      try {
        const summarizer = summarizerForRun();
        const handler = new DirectoryEventHandler({ fs, summarizer, fileFallback: extractive, index: index ?? noopIndex, logger, clock, emit, signal, concurrency: deps.summaryConcurrency });
        // The handler's result carries more than the contract's DagRunResult; parsing keeps exactly its fields.
        const result = DagRunResult.parse(await handler.processDirectoryEvent(message.uri));
        await queue.complete(message.id);
        emit({ type: 'dag/finished', root: message.uri, messageId: message.id, result });
        results.push(result);
      } catch (error) {
        if (signal.aborted) {
          // Left unfinished on purpose: the next run resumes it, reusing every directory already done.
          await queue.release(message.id);
          break;
        }
        const cairn = CairnError.is(error) ? error : new CairnError('INTERNAL', String((error as Error)?.message ?? error), { cause: error });
        await queue.fail(message.id, cairn);
        emit({ type: 'dag/run-failed', root: message.uri, messageId: message.id, error: { code: cairn.code, message: cairn.message } });
        logger.error(`Summarizing ${message.uri} failed: ${cairn.message}`);
      }
    }
    // Folds the L0/L1 rows just written into the search indexes, so a search right after the run is fast.
    if (results.length > 0) await optimizeIndex();
    return results;
  };

  /** Roots ingested with `summarize: false`: queued, but not for the background runs (kept across restarts). */
  const held = await HeldRoots.open(join(stateDir, 'held-roots.json'), logger);
  let background: Promise<unknown> | null = null;
  let again = false;
  const kickBackground = () => {
    if (background) {
      again = true;
      return;
    }
    background = (async () => {
      do {
        again = false;
        await drain(lifetime.signal, broadcast).catch((error) => logger.error(`Background summarization stopped: ${String(error)}`));
      } while (again && !lifetime.signal.aborted);
      background = null;
    })();
  };

  const handlers: CommandHandlers = {
    'ingest:start': async (request, ctx) => {
      const options = IngestOptions.parse(request.options ?? {});
      const jobId = request.jobId ?? crypto.randomUUID();
      const controller = new AbortController();
      const onAbort = () => controller.abort();
      ctx.signal.addEventListener('abort', onAbort, { once: true });
      running.set(jobId, controller);
      // Opens the index beside the scan, so neither the ingest's first records nor the summary
      // run after it wait for LanceDB and the embedder to load.
      void index?.prepare?.();
      try {
        return await ingest(
          { fs, jobs, parser: deps.parser, index: index ?? noopIndex, queue: await outbox(), logger, clock },
          request.path,
          options,
          { signal: controller.signal, emit: ctx.emit, jobId },
        ).then(
          async (result) => {
            if (result.changed > 0) await optimizeIndex();
            if (request.summarize === false) await held.add(result.root);
            else await held.delete(result.root);
            await noteIngest(fs, result, clock, logger);
            ctx.emit({ type: 'ingest/finished', jobId: result.jobId, result });
            if (deps.autoSummarize) kickBackground();
            return result;
          },
          (error: unknown) => {
            const cairn = CairnError.is(error) ? error : new CairnError('INTERNAL', String((error as Error)?.message ?? error), { cause: error });
            ctx.emit({ type: 'ingest/failed', jobId, error: { code: cairn.code, message: cairn.message } });
            throw cairn;
          },
        );
      } finally {
        running.delete(jobId);
        ctx.signal.removeEventListener('abort', onAbort);
      }
    },
    'ingest:cancel': async (request) => {
      const controller = running.get(request.jobId);
      controller?.abort();
      return { cancelled: controller !== undefined };
    },
    'ingest:recent': async (request) => {
      // The outbox says what is queued or running; without it (another process holds it) the metas still answer.
      const queued = await outbox()
        .then((queue) => queue.list({ status: ['pending', 'processing', 'failed'] }))
        .catch(() => []);
      return { items: await recentIngests(fs, queued, request.limit) };
    },
    'fs:ls': async (request) => {
      const { uri } = await fs.canonicalUri(request.uri);
      return { uri, entries: await fs.ls(uri) };
    },
    'fs:read': async (request) => {
      const { uri } = await fs.canonicalUri(request.uri);
      return { uri, level: request.level, content: await fs.read(uri, request.level) };
    },
    'fs:stat': async (request) => fs.stat(request.uri),
    'fs:tree': async (request) => ({ root: await fs.tree(request.uri, request.depth, request.maxChildren) }),
    'summarize:run': async (request, ctx) => {
      const signal = AbortSignal.any([ctx.signal, lifetime.signal]);
      if (request.uri === undefined) await held.clear();
      else await held.delete(request.uri);
      return { runs: await drain(signal, ctx.emit, request.uri) };
    },
    'summarize:estimate': async (request) => {
      const roots = request.uri ? [request.uri] : (await outbox()).list({ status: ['pending', 'processing', 'failed'] }).map((m) => m.uri);
      const maxChildren = summarizerForRun().maxChildren ?? 50;
      // An extractive summarizer takes every child at once; the LLM one is what is being estimated.
      const options = { maxChildren: Number.isFinite(maxChildren) ? maxChildren : 50 };
      const estimates = await Promise.all(roots.map((uri) => estimateSummaries(fs, uri, options)));
      const model = settings.current().model;
      return {
        estimates: estimates.map((e) => ({ ...e, cost_usd: estimateCostUsd({ inputTokens: e.input_tokens, outputTokens: e.output_tokens }, model) })),
        model,
        llm: deps.summarizer === undefined && llm.active,
      };
    },
    'search:query': async (request, ctx) => {
      const hits = await searchIndex().search({
        text: request.query,
        mode: request.mode,
        k: request.topK,
        ...(request.minScore !== undefined ? { minScore: request.minScore } : {}),
        filter: {
          ...(request.scope ? { scope: request.scope } : {}),
          ...(request.level !== undefined ? { levels: [request.level] } : {}),
          ...(request.uriPrefix ? { uriPrefix: request.uriPrefix } : {}),
        },
        signal: ctx.signal,
      });
      return {
        hits: hits.map((hit) => ({
          uri: hit.uri,
          level: hit.level,
          score: hit.score,
          snippet: hit.snippet,
          context_type: hit.context_type,
          category: hit.category,
          provenance: { source: hit.provenance.source, lines: hit.provenance.lines, message_ids: hit.provenance.message_ids },
        })),
      };
    },
    'index:rebuild': async (_request, ctx) => {
      if (!index) throw new CairnError('INDEX_FAILED', 'Reindex is not available: this engine was started without an index');
      const started = Date.now();
      const records = await rebuildIndex(fs, index, AbortSignal.any([ctx.signal, lifetime.signal]));
      await optimizeIndex();
      return { records, ms: Date.now() - started };
    },
    // Long-term memory (memories:*): search goes through search:query above, changes queue ctx://user/memories/ for the DAG.
    ...memoryHandlers({ fs, stateDir, index, outbox, logger, clock, search: (request, ctx) => handlers['search:query'](request, ctx), onQueued: () => deps.autoSummarize && kickBackground() }),
    ...compressHandlers({ fs, search: (request, ctx) => handlers['search:query'](request, ctx) }),
    ...portabilityHandlers({ fs, stateDir, index, outbox, logger, clock, onQueued: () => deps.autoSummarize && kickBackground() }),
    // LLM settings and the LLM monitor (settings:*, llm:stats).
    ...settingsHandlers({ store: settings, runtime: llm }),
    // Sessions (sessions:*): the dual-track analysis, committed through memories:commit above.
    ...sessionHandlers({ fs, index, logger, clock, tracks: deps.trackRunner, lifetime: lifetime.signal, commit: (request, ctx) => handlers['memories:commit'](request, ctx) }),
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
      lifetime.abort();
      llm.dispose();
      for (const controller of running.values()) controller.abort();
      await background;
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
