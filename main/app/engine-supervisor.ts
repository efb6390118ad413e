/**
 * Keeps the desktop app's engine running. The engine is a worker thread (EngineHost); when it
 * crashes, the calls in flight fail with `ENGINE_RESTARTED`, a new worker starts, the UI gets an
 * `engine/restarted` event, and the work the crash interrupted runs again: each ingest in flight
 * (the job store resumes it where it stopped) and each summary run in progress (the outbox hands
 * its root out again). Restarts are bounded, 3 a minute by default: one more crash stops the
 * engine, the UI gets `engine/stopped`, and every call fails until the app is restarted.
 *
 * The replacement is told which threads crashed (`deadThreads`), so it can break the outbox lock
 * and replay the index journal they left behind in this still-live process.
 *
 * @example
 * const engine = await EngineSupervisor.start({
 *   start: (deadThreads) => EngineHost.start({ workerUrl, workerData: { workspace, deadThreads } }),
 *   logger,
 * });
 * registerIpcHandlers(engine, logger);
 */
import type { CommandName, CommandRequest, CommandResponse, EngineEvent } from '../../shared/contracts/api.js';
import { CairnError, errorMessage } from '../../shared/errors.js';
import type { EngineCallOptions, EngineConnection } from '../host/engine-connection.js';
import type { Logger } from '../engine/ports/logger.js';
import { restartBudget, type RestartBudget } from './restart-budget.js';

/** What the supervisor needs of an engine: EngineHost. */
export interface SupervisedEngine {
  call<K extends CommandName>(command: K, request: CommandRequest<K>, options?: { signal?: AbortSignal }): Promise<CommandResponse<K>>;
  onEvent(listener: (event: EngineEvent) => void): () => void;
  /** Called once if the worker dies unexpectedly, after its pending calls were rejected with `WORKER_CRASHED`. */
  onCrash(listener: (error: CairnError) => void): () => void;
  dispose(): Promise<void>;
  readonly threadId: number;
}

export interface EngineSupervisorOptions {
  /** Starts an engine worker, telling it the threads of the engines that crashed before it. */
  start(deadThreads: readonly number[]): Promise<SupervisedEngine>;
  logger: Logger;
  /** Restarts allowed within `windowMs`; default 3 a minute. */
  maxRestarts?: number;
  windowMs?: number;
  now?: () => number;
}

type IngestRequest = CommandRequest<'ingest:start'>;

export class EngineSupervisor implements EngineConnection {
  private engine: SupervisedEngine | null = null;
  /** The engine calls wait for: the current one, or the one a restart is starting. */
  private ready: Promise<SupervisedEngine>;
  /** Bumped at each crash; a call knows which engine it ran on. */
  private generation = 0;
  private readonly crashedGenerations = new Set<number>();
  private readonly deadThreads: number[] = [];
  private callSeq = 0;
  private readonly ingestsInFlight = new Map<number, { generation: number; request: IngestRequest }>();
  /** Roots whose summary run started and has not ended, on the current engine. */
  private readonly summariesRunning = new Set<string>();
  private readonly listeners = new Set<(event: EngineEvent) => void>();
  private detach: () => void = () => {};
  private readonly budget: RestartBudget;
  private stopped: CairnError | null = null;
  private disposed = false;

  private constructor(
    private readonly options: EngineSupervisorOptions,
    first: SupervisedEngine,
  ) {
    this.budget = restartBudget({ max: options.maxRestarts ?? 3, windowMs: options.windowMs ?? 60_000, ...(options.now ? { now: options.now } : {}) });
    this.attach(first);
    this.ready = Promise.resolve(first);
  }

  /** Starts the first engine; its failure is the app's failure to start. */
  static async start(options: EngineSupervisorOptions): Promise<EngineSupervisor> {
    return new EngineSupervisor(options, await options.start([]));
  }

  async call<K extends CommandName>(command: K, request: CommandRequest<K>, options: EngineCallOptions = {}): Promise<CommandResponse<K>> {
    const engine = await this.current(command);
    const generation = this.generation;
    const seq = ++this.callSeq;
    if (command === 'ingest:start') this.ingestsInFlight.set(seq, { generation, request: request as IngestRequest });
    try {
      return await engine.call(command, request, options.signal ? { signal: options.signal } : {});
    } catch (error) {
      // The engine rejects its pending calls before it reports the crash, and the crash is handled
      // synchronously: by the time this runs, the restart (or the stop) is decided.
      if (!this.crashedGenerations.has(generation) || !CairnError.is(error, 'WORKER_CRASHED')) throw error;
      if (this.stopped) throw this.stopped;
      const next = command === 'ingest:start' ? 'the ingest resumes on its own' : 'try again';
      throw new CairnError('ENGINE_RESTARTED', `The engine stopped during ${command} and was restarted; ${next}`, { cause: error, details: { command } });
    } finally {
      this.ingestsInFlight.delete(seq);
    }
  }

  /** The engine to run a call on: the current one, once a restart in progress has one. */
  private async current(command: CommandName): Promise<SupervisedEngine> {
    for (;;) {
      if (this.disposed) throw new CairnError('CANCELLED', `Cannot run ${command}: the app is quitting`);
      if (this.stopped) throw this.stopped;
      const engine = await this.ready;
      // It may have crashed while this call waited: then wait for its replacement.
      if (engine === this.engine) return engine;
    }
  }

  subscribe(listener: (event: EngineEvent) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Stops the engine in order (its outbox and indexes close cleanly); no restart follows. */
  async dispose(): Promise<void> {
    this.disposed = true;
    this.detach();
    const engine = this.engine;
    this.engine = null;
    await engine?.dispose();
  }

  private attach(engine: SupervisedEngine): void {
    const generation = this.generation;
    this.engine = engine;
    const offEvent = engine.onEvent((event) => this.onEngineEvent(event));
    const offCrash = engine.onCrash((error) => this.onCrash(generation, engine, error));
    this.detach = () => {
      offEvent();
      offCrash();
    };
  }

  private onEngineEvent(event: EngineEvent): void {
    if (event.type === 'dag/started') this.summariesRunning.add(event.root);
    else if (event.type === 'dag/finished' || event.type === 'dag/run-failed') this.summariesRunning.delete(event.root);
    this.emit(event);
  }

  private onCrash(generation: number, engine: SupervisedEngine, error: CairnError): void {
    if (generation !== this.generation || this.disposed) return;
    this.crashedGenerations.add(generation);
    this.deadThreads.push(engine.threadId);
    this.detach();
    this.engine = null;
    this.generation += 1;
    const ingests = [...this.ingestsInFlight.values()].filter((call) => call.generation === generation).map((call) => call.request);
    const summaries = [...this.summariesRunning];
    this.summariesRunning.clear();
    this.options.logger.error(`The engine crashed: ${error.message}`);
    this.ready = this.restart(error.message, ingests, summaries);
    // Callers see the outcome through their own calls; this keeps an unawaited failure quiet.
    this.ready.catch(() => {});
  }

  /** Starts a replacement, within the budget: a replacement that dies before it is ready is one more crash. */
  private async restart(reason: string, ingests: IngestRequest[], summaries: string[]): Promise<SupervisedEngine> {
    for (;;) {
      if (!this.budget.take()) throw this.stop(reason);
      try {
        const engine = await this.options.start([...this.deadThreads]);
        if (this.disposed) {
          await engine.dispose();
          throw new CairnError('CANCELLED', 'The app is quitting');
        }
        this.attach(engine);
        this.options.logger.info('The engine restarted', { ingests: ingests.map((request) => request.path), summaries });
        this.emit({ type: 'engine/restarted', reason, ingests: ingests.map((request) => request.path), summaries });
        this.resume(ingests, summaries);
        return engine;
      } catch (error) {
        if (this.disposed) throw error;
        reason = errorMessage(error);
        this.options.logger.error(`The engine could not restart: ${reason}`);
      }
    }
  }

  /** Runs the interrupted work again on the new engine (through `call`, so a crash there resumes it too). */
  private resume(ingests: IngestRequest[], summaries: string[]): void {
    for (const request of ingests) {
      this.call('ingest:start', request).catch((error: unknown) => this.options.logger.warn(`The resumed ingest of ${request.path} failed: ${errorMessage(error)}`));
    }
    for (const uri of summaries) {
      this.call('summarize:run', { uri }).catch((error: unknown) => this.options.logger.warn(`The resumed summaries of ${uri} failed: ${errorMessage(error)}`));
    }
  }

  private stop(reason: string): CairnError {
    this.stopped = new CairnError('WORKER_CRASHED', `The engine kept crashing and was stopped (${reason}); quit and reopen Cairn`, { details: { reason } });
    this.options.logger.error(this.stopped.message);
    this.emit({ type: 'engine/stopped', reason });
    return this.stopped;
  }

  private emit(event: EngineEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.options.logger.error('An engine event listener threw', { error: errorMessage(error) });
      }
    }
  }
}
