/**
 * A pool of parse workers (worker_threads), so parsing (PDF text, HTML conversion, tree-sitter,
 * tokenizing) uses every core and never blocks the engine's thread.
 *
 * - Workers start on demand, up to `size`, and do not keep the process alive while idle. A worker
 *   idle for `idleExitMs` exits: each holds 80 to 100 MB (the tokenizer's tables, tree-sitter's
 *   grammars and heaps) that the summaries and the index writes after an ingest have better use
 *   for (issue 20: the Go tree's peak RSS came after parsing). The next parse starts one again.
 * - Routing: an idle worker first, then a worker still starting, then the least-loaded one, each
 *   holding at most `perWorker` jobs (one running, the rest queued in the worker so it never waits
 *   on a round trip between files). The rest wait here.
 * - The file's bytes are transferred, not copied, to a worker that starts on them right away.
 *   A job queued behind another in a worker is sent as a copy, so that if the worker dies on the
 *   job ahead, this one still has its bytes and moves to another worker.
 * - A worker that dies (crash, out of memory, `process.exit`) fails only the job it was running,
 *   with `WORKER_CRASHED` naming the file, and a new worker takes its place. Workers that die
 *   before they are ready three times in a row fail the pool.
 * - An aborted signal rejects the job with `CANCELLED` at once; a worker that has not started it
 *   drops it.
 */
import { Worker } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import { CairnError, errorMessage, reviveError } from '../../shared/errors.js';
import { silentLogger, type Logger } from '../engine/ports/logger.js';
import type { ParseRunner } from '../engine/parse/runner.js';
import type { ParsedFile, ParseInput } from '../engine/parse/types.js';
import type { ParseHostMessage, ParseWorkerMessage } from './parse-protocol.js';

export interface ParsePoolOptions {
  /** The worker entry (the bundled parse.worker.js, or a test worker speaking parse-protocol). */
  workerUrl: URL;
  /** Worker threads. Default: one per core. */
  size?: number;
  /** Jobs sent to one worker at once. Default 2. */
  perWorker?: number;
  /** How long a worker waits idle before it exits. Default 2 s. */
  idleExitMs?: number;
  logger?: Logger;
}

/** Consecutive workers that die before they are ready, after which the pool gives up. */
const MAX_START_FAILURES = 3;
/** Long enough to span the gaps between files (a read, a staging write), short next to a summary run. */
const DEFAULT_IDLE_EXIT_MS = 2_000;

interface Job {
  id: number;
  input: ParseInput;
  slot: Slot | null;
  settled: boolean;
  resolve(result: ParsedFile): void;
  reject(error: unknown): void;
  detach(): void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  /** Jobs sent and not answered yet, oldest first: the first one is the one running. */
  jobs: Job[];
  error: Error | null;
  /** Armed while the worker is idle (see idleExitMs). */
  idleTimer: NodeJS.Timeout | null;
  /** Asked to exit while idle: its exit is no crash. */
  retired: boolean;
}

/**
 * Starts a parse pool.
 *
 * @example
 * const pool = createParsePool({ workerUrl: new URL('./parse.worker.js', import.meta.url), size: 4 });
 * const parsed = await pool.parse({ path, relPath: 'docs/guide.md', bytes, split, codeSummaryMode: 'ast' }, signal);
 * await pool.dispose();
 */
export function createParsePool(options: ParsePoolOptions): ParseRunner {
  return new ParsePool(options);
}

class ParsePool implements ParseRunner {
  readonly concurrency: number;
  private readonly perWorker: number;
  private readonly idleExitMs: number;
  private readonly logger: Logger;
  private readonly slots: Slot[] = [];
  private queue: Job[] = [];
  private nextId = 1;
  private startFailures = 0;
  private broken: CairnError | null = null;
  private disposed: Promise<void> | null = null;

  constructor(private readonly options: ParsePoolOptions) {
    this.concurrency = Math.max(1, Math.floor(options.size ?? availableParallelism()));
    this.perWorker = Math.max(1, Math.floor(options.perWorker ?? 2));
    this.idleExitMs = options.idleExitMs ?? DEFAULT_IDLE_EXIT_MS;
    this.logger = options.logger ?? silentLogger;
  }

  parse(input: ParseInput, signal?: AbortSignal): Promise<ParsedFile> {
    if (this.disposed) return Promise.reject(new CairnError('CANCELLED', `Parsing ${input.relPath} was cancelled: the parse pool is disposed`));
    if (this.broken) return Promise.reject(this.broken);
    if (signal?.aborted) return Promise.reject(cancelled(input));
    return new Promise<ParsedFile>((resolve, reject) => {
      const job: Job = { id: this.nextId++, input, slot: null, settled: false, resolve, reject, detach: () => undefined };
      if (signal) {
        const onAbort = () => this.cancel(job);
        signal.addEventListener('abort', onAbort, { once: true });
        job.detach = () => signal.removeEventListener('abort', onAbort);
      }
      this.queue.push(job);
      this.dispatch();
    });
  }

  dispose(): Promise<void> {
    if (this.disposed) return this.disposed;
    const error = new CairnError('CANCELLED', 'The parse pool was disposed');
    for (const job of this.queue) settle(job, error);
    this.queue = [];
    for (const slot of this.slots) for (const job of slot.jobs) settle(job, error);
    for (const slot of this.slots) this.stopIdleTimer(slot);
    this.disposed = Promise.all(this.slots.map((slot) => slot.worker.terminate())).then(() => undefined);
    return this.disposed;
  }

  private cancel(job: Job): void {
    if (job.settled) return;
    settle(job, cancelled(job.input));
    if (job.slot) {
      // The worker drops it if it has not started it; either way its answer frees the slot.
      this.post(job.slot, { type: 'cancel', id: job.id });
    } else {
      this.queue = this.queue.filter((queued) => queued !== job);
    }
  }

  private dispatch(): void {
    while (this.queue.length > 0 && !this.disposed && !this.broken) {
      const ready = this.slots.filter((slot) => slot.ready);
      const idle = ready.find((slot) => slot.jobs.length === 0);
      if (idle) {
        this.send(idle, this.queue.shift()!);
        continue;
      }
      // Start workers for what waits, counting those already starting; a starting worker will
      // take a job sooner than a busy one gets round to it.
      const starting = this.slots.length - ready.length;
      if (this.slots.length < this.concurrency && starting < this.queue.length) {
        this.spawn();
        continue;
      }
      if (this.queue.length <= starting) return;
      let least: Slot | undefined;
      for (const slot of ready) if (!least || slot.jobs.length < least.jobs.length) least = slot;
      if (!least || least.jobs.length >= this.perWorker) return;
      this.send(least, this.queue.shift()!);
    }
  }

  private send(slot: Slot, job: Job): void {
    const startsNow = slot.jobs.length === 0;
    let input = job.input;
    const transfer: ArrayBuffer[] = [];
    if (startsNow) {
      const bytes = input.bytes;
      if (!(bytes.buffer instanceof ArrayBuffer) || bytes.byteOffset !== 0 || bytes.byteLength !== bytes.buffer.byteLength) {
        // A view into a larger or shared buffer: move a copy of just this file, not the whole buffer.
        input = { ...input, bytes: new Uint8Array(bytes) };
      }
      transfer.push(input.bytes.buffer as ArrayBuffer);
    }
    const message: ParseHostMessage = { type: 'parse', id: job.id, input };
    try {
      slot.worker.postMessage(message, transfer);
    } catch {
      // Some buffers refuse to be transferred (Node marks a few as untransferable): send a copy.
      try {
        slot.worker.postMessage(message);
      } catch (error) {
        settle(job, new CairnError('INVALID_INPUT', `Could not send ${job.input.relPath} to a parse worker: ${errorMessage(error)}`, { cause: error }));
        return;
      }
    }
    job.slot = slot;
    slot.jobs.push(job);
    this.stopIdleTimer(slot);
    slot.worker.ref();
  }

  /** Lets an idle worker go after idleExitMs; a job sent meanwhile keeps it. */
  private startIdleTimer(slot: Slot): void {
    this.stopIdleTimer(slot);
    slot.idleTimer = setTimeout(() => {
      slot.idleTimer = null;
      if (slot.jobs.length > 0 || this.disposed) return;
      // Out of the pool first, so no job is routed to a worker on its way out.
      const index = this.slots.indexOf(slot);
      if (index !== -1) this.slots.splice(index, 1);
      slot.retired = true;
      void slot.worker.terminate();
    }, this.idleExitMs);
    slot.idleTimer.unref();
  }

  private stopIdleTimer(slot: Slot): void {
    if (slot.idleTimer) clearTimeout(slot.idleTimer);
    slot.idleTimer = null;
  }

  private post(slot: Slot, message: ParseHostMessage): void {
    try {
      slot.worker.postMessage(message);
    } catch {
      // The worker is gone; its exit handler deals with its jobs.
    }
  }

  private spawn(): void {
    let worker: Worker;
    try {
      worker = new Worker(this.options.workerUrl);
    } catch (error) {
      this.fail(new CairnError('WORKER_CRASHED', `Could not start a parse worker from ${this.options.workerUrl.href}: ${errorMessage(error)}`, { cause: error }));
      return;
    }
    const slot: Slot = { worker, ready: false, jobs: [], error: null, idleTimer: null, retired: false };
    worker.on('message', (message: ParseWorkerMessage) => this.onMessage(slot, message));
    worker.on('error', (error: Error) => {
      slot.error = error;
    });
    worker.on('exit', (code: number) => this.onExit(slot, code));
    this.slots.push(slot);
  }

  private onMessage(slot: Slot, message: ParseWorkerMessage): void {
    if (message.type === 'ready') {
      slot.ready = true;
      this.startFailures = 0;
    } else if (message.type === 'result') {
      const index = slot.jobs.findIndex((job) => job.id === message.id);
      if (index === -1) return;
      const [job] = slot.jobs.splice(index, 1);
      if (job) settle(job, message.ok ? null : reviveError(message.error), message.ok ? message.result : undefined);
    }
    this.dispatch();
    // An idle worker must not keep the process alive, and exits if it stays idle.
    if (slot.jobs.length === 0 && !slot.retired) {
      slot.worker.unref();
      this.startIdleTimer(slot);
    }
  }

  private onExit(slot: Slot, code: number): void {
    const index = this.slots.indexOf(slot);
    if (index !== -1) this.slots.splice(index, 1);
    this.stopIdleTimer(slot);
    if (this.disposed || slot.retired) return;
    const reason = slot.error ? slot.error.message : `exit code ${code}`;
    const [running, ...waiting] = slot.jobs;
    slot.jobs = [];

    if (!slot.ready) {
      // Jobs go only to ready workers, so none was lost here.
      this.startFailures += 1;
      this.logger.error('A parse worker stopped before it was ready', { reason, failures: this.startFailures });
      if (this.startFailures >= MAX_START_FAILURES) {
        this.fail(new CairnError('WORKER_CRASHED', `Parse workers stop before they are ready (${reason})`, { cause: slot.error ?? undefined }));
        return;
      }
    } else {
      this.logger.warn('A parse worker crashed; a new one takes its place', { file: running?.input.relPath, reason });
    }

    if (running) {
      settle(
        running,
        new CairnError('WORKER_CRASHED', `The parse worker crashed while parsing ${running.input.relPath} (${reason})`, {
          cause: slot.error ?? undefined,
          details: { path: running.input.path, relPath: running.input.relPath, exitCode: code },
        }),
      );
    }
    // They were sent as copies, so they still have their bytes: first in line for another worker.
    const retry = waiting.filter((job) => !job.settled);
    for (const job of retry) job.slot = null;
    this.queue.unshift(...retry);
    this.dispatch();
  }

  private fail(error: CairnError): void {
    this.broken = error;
    for (const job of this.queue) settle(job, error);
    this.queue = [];
  }
}

function settle(job: Job, error: unknown, result?: ParsedFile): void {
  if (job.settled) return;
  job.settled = true;
  job.detach();
  if (error) job.reject(error);
  else job.resolve(result!);
}

function cancelled(input: ParseInput): CairnError {
  return new CairnError('CANCELLED', `Parsing ${input.relPath} was cancelled`);
}
