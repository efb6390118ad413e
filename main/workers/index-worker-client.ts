/**
 * The search index in its own worker thread: the same index as `lazySearchIndex`, but embedding,
 * Arrow conversion and LanceDB writes and searches run in index.worker.ts. A flush of 512 records
 * costs 50–150 ms of CPU; on the engine's thread it stalled every LLM call of a summary run in
 * flight (bench/dag.bench.mjs).
 *
 * - The worker starts on the first call (or `prepare`), and does not keep the process alive
 *   while no call is pending.
 * - A worker that dies (crash, exit, out of memory) fails its pending calls with `INDEX_FAILED`;
 *   the next call starts a fresh worker, which opens the index again.
 * - A search's signal stays here: when it aborts, the search rejects with `CANCELLED` at once,
 *   the worker is told to stop, and its late answer is dropped.
 *
 * @example
 * const index = workerSearchIndex(workspace, { idleOptimizeMs: 0, logger }, { workerUrl: bundledFile('index.worker.js') });
 * await index.upsert(records);
 * const hits = await index.search({ text: 'storm recovery', k: 5 });
 * await index.close?.();
 */
import { Worker } from 'node:worker_threads';
import { CairnError, errorMessage, reviveError } from '../../shared/errors.js';
import type { IndexConfig } from '../host/open-index.js';
import type { EngineIndex } from '../engine/ports/engine-index.js';
import type { SearchIndex } from '../engine/index/search-index.js';
import type { IndexCall, IndexHostMessage, IndexMethod, IndexMethods, IndexWorkerMessage } from './index-protocol.js';

export interface WorkerSearchIndexOptions {
  /** The worker entry: the bundled index.worker.js, or a test worker that calls serveIndex. */
  workerUrl: URL;
}

interface Slot {
  worker: Worker;
  error: Error | null;
  /** Set when close() terminates the worker: its pending calls were cut short on purpose. */
  closing: boolean;
}

interface Pending {
  slot: Slot;
  method: IndexMethod;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  detach(): void;
}

const cancelled = () => new CairnError('CANCELLED', 'Search cancelled');

/** A search index that runs in a worker thread, started on first use; the same shape as `lazySearchIndex`. */
export function workerSearchIndex(workspace: string, config: IndexConfig, options: WorkerSearchIndexOptions): EngineIndex & Pick<SearchIndex, 'search' | 'optimize' | 'recordIds' | 'removeRecords'> {
  const { logger, ...workerConfig } = config;
  const pending = new Map<number, Pending>();
  let slot: Slot | null = null;
  let nextId = 1;
  let closed = false;
  let closing: Promise<void> | null = null;

  const settle = (id: number, error: unknown, value?: unknown) => {
    const call = pending.get(id);
    if (!call) return;
    pending.delete(id);
    call.detach();
    if (error) call.reject(error);
    else call.resolve(value);
    // An idle worker must not keep the process alive (a CLI command ends when its work does).
    if (![...pending.values()].some((other) => other.slot === call.slot)) call.slot.worker.unref();
  };

  const spawn = (): Slot => {
    const worker = new Worker(options.workerUrl);
    const started: Slot = { worker, error: null, closing: false };
    worker.on('message', (message: IndexWorkerMessage) => {
      if (message.type === 'log') logger?.[message.level](message.message, message.fields);
      else settle(message.id, message.ok ? null : reviveError(message.error), message.ok ? message.result : undefined);
    });
    worker.on('error', (error: Error) => {
      started.error = error;
    });
    worker.on('exit', (code: number) => {
      if (slot === started) slot = null;
      const reason = started.error ? started.error.message : `exit code ${code}`;
      for (const [id, call] of [...pending]) {
        if (call.slot !== started) continue;
        settle(
          id,
          started.closing
            ? new CairnError('INDEX_FAILED', `Index ${call.method} cut short: the index was closed`)
            : new CairnError('INDEX_FAILED', `The index worker stopped (${reason})`, { cause: started.error ?? undefined, details: { method: call.method } }),
        );
      }
    });
    worker.unref();
    const open: IndexHostMessage = { type: 'open', workspace, config: workerConfig };
    try {
      worker.postMessage(open);
    } catch (error) {
      void worker.terminate();
      throw error;
    }
    return started;
  };

  const call = <M extends IndexMethod>(method: M, args: IndexMethods[M]['args'], signal?: AbortSignal): Promise<IndexMethods[M]['result']> =>
    new Promise((resolve, reject) => {
      let target: Slot;
      try {
        target = slot ??= spawn();
      } catch (error) {
        reject(new CairnError('INDEX_FAILED', `Could not start the index worker from ${options.workerUrl.href}: ${errorMessage(error)}`, { cause: error }));
        return;
      }
      const id = nextId++;
      const entry: Pending = { slot: target, method, resolve: resolve as (value: unknown) => void, reject, detach: () => undefined };
      if (signal) {
        const onAbort = () => {
          settle(id, cancelled());
          const cancel: IndexHostMessage = { type: 'cancel', id };
          target.worker.postMessage(cancel);
        };
        signal.addEventListener('abort', onAbort, { once: true });
        entry.detach = () => signal.removeEventListener('abort', onAbort);
      }
      pending.set(id, entry);
      target.worker.ref();
      try {
        // The union cannot follow M through the mapped type; the shape is the one IndexCall names for this method.
        target.worker.postMessage({ type: 'call', id, method, args } as IndexCall);
      } catch (error) {
        settle(id, new CairnError('INVALID_INPUT', `Could not send ${method} to the index worker: ${errorMessage(error)}`, { cause: error }));
      }
    });

  const afterClose = (method: IndexMethod) => Promise.reject(new CairnError('INDEX_FAILED', `Index ${method} after close`));

  return {
    upsert: (records) => (closed ? afterClose('upsert') : call('upsert', [records])),
    removeUnder: (uri) => (closed ? afterClose('removeUnder') : call('removeUnder', [uri])),
    search(query) {
      if (closed) return afterClose('search');
      const { signal, ...plain } = query;
      if (signal?.aborted) return Promise.reject(cancelled());
      return call('search', [plain], signal);
    },
    // Like lazySearchIndex: an index that was never opened has nothing to optimize, so no worker starts for it.
    optimize: () => (closed ? afterClose('optimize') : slot ? call('optimize', []) : Promise.resolve()),
    recordIds: () => (closed ? afterClose('recordIds') : call('recordIds', [])),
    removeRecords: (ids) => (closed ? afterClose('removeRecords') : call('removeRecords', [ids])),
    close() {
      closed = true;
      return (closing ??= (async () => {
        const last = slot;
        if (!last) return;
        try {
          await call('close', []);
        } finally {
          last.closing = true;
          await last.worker.terminate();
        }
      })());
    },
    async prepare() {
      // Never rejects: a failure here is the one the first write reports.
      if (!closed) await call('prepare', []).catch(() => undefined);
    },
  };
}
