/**
 * Summary runs: the one consumer of the outbox (queue/run-outbox.ts) that turns queued roots into
 * L0/L1 with the DAG. A run takes queued roots one by one until none is left; it starts ONE
 * summarizer, so an LLM's token budget is the run's (docs/llm-runtime.md). A summarize:run call
 * is one run; the app's background runs (`kick`) take every root but the held ones. A redo run
 * (`--upgrade`/`--force`) is one run too, over the trees it names rather than the queue.
 *
 * @example
 * const scheduler = createSummaryScheduler({ fs, index, outbox, held, startRun, fileFallback, ... });
 * const results = await scheduler.run(signal, emit, 'ctx://resources/notes/');
 * scheduler.kick(); // after an ingest, in the app
 */
import { DagRunResult, type EngineEvent } from '../../../shared/contracts/api.js';
import type { EngineIndex } from '../ports/engine-index.js';
import type { Clock } from '../ports/clock.js';
import { noopIndex } from '../ports/context-index.js';
import type { Logger } from '../ports/logger.js';
import type { HeldRoots } from '../queue/held-roots.js';
import type { Outbox } from '../queue/outbox.js';
import { runOutbox } from '../queue/run-outbox.js';
import type { ContextFS } from '../tree/context-fs.js';
import { noteSummaryRun } from '../ingest/recent.js';
import { DirectoryEventHandler } from './dag.js';
import { redoPredicate, redoWithin, type RedoMode } from './provenance.js';
import type { NodeSummarizer } from './types.js';

export interface SummarySchedulerDeps {
  fs: ContextFS;
  index: EngineIndex | null;
  outbox: () => Promise<Outbox>;
  /** Roots the background runs leave queued (ingested with `summarize: false`). */
  held: HeldRoots;
  /** The summarizer of a new run: the LLM's with a fresh budget, or the extractive one. */
  startRun: () => NodeSummarizer;
  /** Stands in for a file the run's summarizer could not summarize (the extractive one). */
  fileFallback: NodeSummarizer;
  optimizeIndex: () => Promise<void>;
  /** Events of the background runs go to every subscriber. */
  broadcast: (event: EngineEvent) => void;
  /** Aborted when the engine stops: background runs stop with it. */
  lifetime: AbortSignal;
  /** Directory summary tasks in flight at once. */
  concurrency?: number | undefined;
  logger: Logger;
  clock: Clock;
}

/** A tree to run a redo over, and the node in it (the root, or one below) the redo is limited to. */
export interface RedoTarget {
  root: string;
  within: string;
}

export interface SummaryScheduler {
  /** One run over the queued roots (only `uri`'s when given; else every one, held or not), until none is left. */
  run(signal: AbortSignal, emit: (event: EngineEvent) => void, uri?: string): Promise<DagRunResult[]>;
  /**
   * One run that redoes, bottom-up, the summaries under each target's `within` that `mode` picks
   * (what a weaker summarizer than this run's wrote, or all of them) and the directories above
   * them up to the target's tree root, and whatever is owed there. Needs no queued work: nothing
   * it does is lost to a kill, since a node keeps its old summary until its new one is written
   * and the next upgrade picks it again.
   */
  redo(signal: AbortSignal, emit: (event: EngineEvent) => void, targets: RedoTarget[], mode: RedoMode): Promise<DagRunResult[]>;
  /** Starts a background run, or has the one going look at the queue again once it is done. */
  kick(): void;
  /** Resolves once no background run is going (after `lifetime` aborted, once it stopped). */
  idle(): Promise<void>;
}

export function createSummaryScheduler(deps: SummarySchedulerDeps): SummaryScheduler {
  const { fs, index, held, logger, clock } = deps;

  const summarize = async (signal: AbortSignal, emit: (event: EngineEvent) => void, filter: ((uri: string) => boolean) | undefined): Promise<DagRunResult[]> => {
    const results: DagRunResult[] = [];
    // One run, one summarizer and token budget, started with the first root it takes.
    let summarizer: NodeSummarizer | undefined;
    await runOutbox(
      await deps.outbox(),
      async (message, ctx) => {
        emit({ type: 'dag/started', root: message.uri, messageId: message.id });
        // Loaded before the run, not during it: loading LanceDB and the lexicon is ~0.3 s of
        // synchronous CPU that would hold up every LLM answer in flight (DAG bench, issue 4).
        await index?.prepare?.();
        summarizer ??= deps.startRun();
        const dag = new DirectoryEventHandler({ fs, summarizer, fileFallback: deps.fileFallback, index: index ?? noopIndex, logger, clock, emit, signal: ctx.signal, concurrency: deps.concurrency });
        // The handler's result carries more than the contract's DagRunResult; parsing keeps exactly its fields.
        const result = DagRunResult.parse(await dag.processDirectoryEvent(message.uri));
        await noteSummaryRun(fs, result, clock, logger);
        return result;
      },
      {
        signal,
        ...(filter ? { filter: (message) => filter(message.uri) } : {}),
        onCompleted: (message, result) => {
          emit({ type: 'dag/finished', root: message.uri, messageId: message.id, result });
          results.push(result);
        },
        onFailed: (message, error) => {
          emit({ type: 'dag/run-failed', root: message.uri, messageId: message.id, error: { code: error.code, message: error.message } });
          logger.error(`Summarizing ${message.uri} failed: ${error.message}`);
        },
      },
    );
    // Folds the L0/L1 rows just written into the search indexes, so a search right after the run is fast.
    if (results.length > 0) await deps.optimizeIndex();
    return results;
  };

  const redo = async (signal: AbortSignal, emit: (event: EngineEvent) => void, targets: RedoTarget[], mode: RedoMode): Promise<DagRunResult[]> => {
    const results: DagRunResult[] = [];
    await index?.prepare?.();
    const summarizer = deps.startRun();
    for (const [n, { root, within }] of targets.entries()) {
      const messageId = `${mode}-${n + 1}`;
      emit({ type: 'dag/started', root, messageId });
      // The run goes over the whole tree so the directories above `within` are redone too (their
      // L1 reads its new abstract); it picks nodes under `within` only, and reuses the rest.
      const picks = redoWithin(within, redoPredicate(mode, summarizer.provenance ?? { kind: 'extractive' }));
      const dag = new DirectoryEventHandler({ fs, summarizer, fileFallback: deps.fileFallback, index: index ?? noopIndex, logger, clock, emit, signal, concurrency: deps.concurrency, redo: picks });
      const result = DagRunResult.parse(await dag.processDirectoryEvent(root));
      await noteSummaryRun(fs, result, clock, logger);
      emit({ type: 'dag/finished', root, messageId, result });
      results.push(result);
    }
    if (results.length > 0) await deps.optimizeIndex();
    return results;
  };

  let background: Promise<void> | null = null;
  let again = false;
  return {
    run: (signal, emit, uri) => summarize(signal, emit, uri === undefined ? undefined : (queued) => queued === uri),
    redo,
    kick() {
      if (background) {
        again = true;
        return;
      }
      background = (async () => {
        do {
          again = false;
          // The held roots stay queued: they wait for a summarize:run naming them (or all).
          await summarize(deps.lifetime, deps.broadcast, (queued) => !held.has(queued)).catch((error) => logger.error(`Background summarization stopped: ${String(error)}`));
        } while (again && !deps.lifetime.aborted);
        background = null;
      })();
    },
    idle: async () => {
      await background;
    },
  };
}
