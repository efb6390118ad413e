/**
 * The host end of the engine RPC: starts the engine worker, calls commands with end-to-end types,
 * receives events and logs, and survives the worker crashing.
 *
 * Both ends validate: the request here (so a bad call fails without a round trip) and again in
 * the worker; the response here, with the contract's response schema. Errors come back as
 * `CairnError`s with their code and details, the message prefixed with `engine: `.
 */
import { Worker } from 'node:worker_threads';
import {
  commands,
  EngineEvent,
  parseRequest,
  type CommandName,
  type CommandRequest,
  type CommandResponse,
} from '../../shared/contracts/api.js';
import type { HostToWorker, LogLevel, WorkerToHost } from '../../shared/contracts/engine-rpc.js';
import { CairnError, errorMessage, reviveError, type SerializedError } from '../../shared/errors.js';
import { silentLogger, type Logger } from '../engine/ports/logger.js';

export { coalesceEvents, type EventCoalescer } from './coalesce-events.js';

export interface EngineHostOptions {
  /** The engine worker entry (the bundled engine.worker.js). */
  workerUrl: URL;
  workerData?: unknown;
  /** Receives the worker's log lines and the host's own. */
  logger?: Logger;
  /** How long to wait for the worker's `ready`. Default 30 s. */
  startTimeoutMs?: number;
  /** How long `dispose()` waits for the worker to close before terminating it. Default 10 s. */
  shutdownTimeoutMs?: number;
}

export interface CallOptions {
  /** Aborting rejects the call with `CANCELLED` at once and tells the worker to stop the request. */
  signal?: AbortSignal;
}

interface PendingCall {
  command: CommandName;
  resolve(result: unknown): void;
  reject(error: unknown): void;
  cleanup(): void;
}

const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

/**
 * @example
 * const host = await EngineHost.start({ workerUrl: new URL('./engine.worker.js', import.meta.url), workerData: { workspace } });
 * const coalescer = coalesceEvents((events) => window.webContents.send('engine:events', events));
 * const unsubscribe = host.onEvent(coalescer.push);
 * host.onCrash((error) => showError(error));
 * const result = await host.call('ingest:start', { path: '/home/ana/notes' }, { signal });
 * unsubscribe();
 * coalescer.dispose();
 * await host.dispose();
 */
export class EngineHost {
  private seq = 0;
  private readonly pending = new Map<number, PendingCall>();
  private readonly eventListeners = new Set<(event: EngineEvent) => void>();
  private readonly crashListeners = new Set<(error: CairnError) => void>();
  private state: 'starting' | 'running' | 'closing' | 'exited' = 'starting';
  private crashError: CairnError | null = null;
  private lastError: Error | null = null;
  private readonly exited: Promise<number>;
  private resolveExited!: (code: number) => void;
  private readyWaiter: { resolve(): void; reject(error: unknown): void } | null = null;
  /**
   * The worker's thread id, what its locks are stamped with (main/engine/queue/lock-file.ts).
   * Kept from the start: once the worker has exited, `worker.threadId` reads -1.
   */
  readonly threadId: number;

  private constructor(
    private readonly worker: Worker,
    private readonly logger: Logger,
    private readonly shutdownTimeoutMs: number,
  ) {
    this.threadId = worker.threadId;
    this.exited = new Promise((resolve) => (this.resolveExited = resolve));
    worker.on('message', (message: unknown) => this.onMessage(message));
    worker.on('error', (error: Error) => {
      this.lastError = error;
      this.logger.error('The engine worker threw', { error: error.message });
    });
    worker.on('messageerror', (error: Error) => this.logger.error('A message from the engine worker could not be read', { error: error.message }));
    worker.on('exit', (code: number) => this.onExit(code));
  }

  /** Starts the worker and waits for its `ready`; rejects with `WORKER_CRASHED` when it dies first, `TIMEOUT` when it takes too long. */
  static async start(options: EngineHostOptions): Promise<EngineHost> {
    let worker: Worker;
    try {
      worker = new Worker(options.workerUrl, { workerData: options.workerData });
    } catch (error) {
      throw new CairnError('WORKER_CRASHED', `Could not start the engine worker ${options.workerUrl.href}: ${errorMessage(error)}`, { cause: error });
    }
    const host = new EngineHost(worker, options.logger ?? silentLogger, options.shutdownTimeoutMs ?? 10_000);
    const timeoutMs = options.startTimeoutMs ?? 30_000;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        host.readyWaiter = { resolve, reject };
        timer = setTimeout(() => {
          reject(new CairnError('TIMEOUT', `The engine worker was not ready within ${timeoutMs} ms`, { details: { timeoutMs } }));
          host.state = 'closing';
          void host.worker.terminate();
        }, timeoutMs);
      });
    } finally {
      clearTimeout(timer);
      host.readyWaiter = null;
    }
    return host;
  }

  /**
   * Runs a command in the engine. Rejects with `INVALID_INPUT` (bad request, checked here first),
   * the engine's error revived (`engine: ...`), `CANCELLED`, or `WORKER_CRASHED`.
   */
  async call<K extends CommandName>(command: K, request: CommandRequest<K>, options: CallOptions = {}): Promise<CommandResponse<K>> {
    if (this.state !== 'running') throw this.crashError ?? new CairnError('CANCELLED', `Cannot run ${command}: the engine host is shut down`);
    const payload = parseRequest(command, request);
    const { signal } = options;
    if (signal?.aborted) throw cancelled(command);
    const seq = ++this.seq;
    const result = await new Promise<unknown>((resolve, reject) => {
      const onAbort = () => {
        if (!this.pending.delete(seq)) return;
        this.post({ type: 'cancel', seq });
        reject(cancelled(command));
      };
      const cleanup = () => signal?.removeEventListener('abort', onAbort);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.set(seq, { command, resolve, reject, cleanup });
      try {
        this.worker.postMessage({ type: 'request', seq, command, payload } satisfies HostToWorker);
      } catch (error) {
        this.pending.delete(seq);
        cleanup();
        reject(new CairnError('INVALID_INPUT', `Could not send ${command} to the engine: ${errorMessage(error)}`, { cause: error }));
      }
    });
    const checked = commands[command].response.safeParse(result);
    if (!checked.success) {
      const problems = checked.error.issues.map((issue) => `${issue.path.join('.') || '(response)'}: ${issue.message}`);
      throw new CairnError('INTERNAL', `engine: invalid ${command} response: ${problems.join('; ')}`, { details: { command, problems } });
    }
    return checked.data as CommandResponse<K>;
  }

  /** Every event the engine sends, in order; returns the unsubscribe function. */
  onEvent(listener: (event: EngineEvent) => void): () => void {
    this.eventListeners.add(listener);
    return () => void this.eventListeners.delete(listener);
  }

  /** Called once if the worker dies unexpectedly (after every pending call has been rejected). */
  onCrash(listener: (error: CairnError) => void): () => void {
    this.crashListeners.add(listener);
    return () => void this.crashListeners.delete(listener);
  }

  /** Whether the worker is serving (false once it crashed or was disposed). */
  get running(): boolean {
    return this.state === 'running';
  }

  /** Asks the worker to shut down and waits for it to exit, terminating it after `shutdownTimeoutMs`. */
  async dispose(): Promise<void> {
    if (this.state !== 'exited') {
      if (this.state !== 'closing') {
        this.state = 'closing';
        this.post({ type: 'shutdown' });
      }
      const timer = setTimeout(() => {
        this.logger.warn(`The engine worker did not shut down within ${this.shutdownTimeoutMs} ms; terminating it`);
        void this.worker.terminate();
      }, this.shutdownTimeoutMs);
      try {
        await this.exited;
      } finally {
        clearTimeout(timer);
      }
    }
    this.eventListeners.clear();
    this.crashListeners.clear();
  }

  private post(message: HostToWorker): void {
    try {
      this.worker.postMessage(message);
    } catch (error) {
      this.logger.warn('Could not send a message to the engine worker', { type: message.type, error: errorMessage(error) });
    }
  }

  private onMessage(raw: unknown): void {
    const message = raw as WorkerToHost | null;
    switch (message?.type) {
      case 'ready':
        if (this.state === 'starting') {
          this.state = 'running';
          this.readyWaiter?.resolve();
        }
        return;
      case 'response': {
        const call = this.pending.get(message.seq);
        // A late answer to a call cancelled here: already settled.
        if (!call) return;
        this.pending.delete(message.seq);
        call.cleanup();
        if (message.ok) call.resolve(message.result);
        else call.reject(reviveError(asSerializedError(message.error), 'engine'));
        return;
      }
      case 'event': {
        const parsed = EngineEvent.safeParse(message.event);
        if (!parsed.success) {
          this.logger.warn('Dropped an invalid event from the engine', { type: (message.event as { type?: unknown } | undefined)?.type });
          return;
        }
        for (const listener of this.eventListeners) {
          try {
            listener(parsed.data);
          } catch (error) {
            this.logger.error('An engine event listener threw', { error: errorMessage(error) });
          }
        }
        return;
      }
      case 'log': {
        const level = LOG_LEVELS.includes(message.level) ? message.level : 'info';
        this.logger[level](String(message.message), message.fields);
        return;
      }
      case 'closed':
        // Everything the worker sent before `closed` has arrived (one ordered port), so nothing is lost.
        this.state = 'closing';
        void this.worker.terminate();
        return;
      default:
        this.logger.warn('Ignored an unknown message from the engine worker', { type: (raw as { type?: unknown } | null)?.type });
    }
  }

  private onExit(code: number): void {
    const previous = this.state;
    this.state = 'exited';
    const expected = previous === 'closing';
    const reason = this.lastError ? this.lastError.message : `exit code ${code}`;
    const cause = this.lastError ?? undefined;
    if (!expected) {
      this.crashError = new CairnError('WORKER_CRASHED', `The engine worker stopped unexpectedly (${reason})`, { cause, details: { exitCode: code } });
    }
    for (const call of this.pending.values()) {
      call.cleanup();
      call.reject(
        expected
          ? new CairnError('CANCELLED', `${call.command} did not finish: the engine host was disposed`)
          : new CairnError('WORKER_CRASHED', `The engine worker crashed during ${call.command} (${reason})`, { cause, details: { command: call.command, exitCode: code } }),
      );
    }
    this.pending.clear();
    this.readyWaiter?.reject(this.crashError ?? new CairnError('CANCELLED', 'The engine worker exited before it was ready'));
    if (this.crashError && previous !== 'starting') {
      this.logger.error(this.crashError.message, { exitCode: code });
      for (const listener of this.crashListeners) {
        try {
          listener(this.crashError);
        } catch (error) {
          this.logger.error('An engine crash listener threw', { error: errorMessage(error) });
        }
      }
    }
    this.resolveExited(code);
  }
}

function cancelled(command: CommandName): CairnError {
  return new CairnError('CANCELLED', `${command} was cancelled`);
}

function asSerializedError(value: unknown): SerializedError {
  const error = value as Partial<SerializedError> | null;
  if (error && typeof error.code === 'string' && typeof error.message === 'string') return error as SerializedError;
  return { code: 'INTERNAL', name: 'Error', message: `an error the engine could not describe (${JSON.stringify(value)?.slice(0, 200)})` };
}
