/**
 * The messages between the search index's client (index-worker-client.ts) and its worker
 * (index.worker.ts), and the worker side of them. The worker owns the embedder and LanceDB, so
 * embedding records, converting them to Arrow and writing them cost the engine's thread nothing.
 *
 * The host sends `open` once, then `call`s; each call gets exactly one `result`. Calls run as
 * they arrive, concurrently, as they would on one thread: the engine's journaled index already
 * orders its writes. `cancel` aborts a search (an `AbortSignal` cannot cross threads). Log lines
 * flow at any time as `log` messages.
 */
import type { WorkerToHost } from '../../shared/contracts/engine-rpc.js';
import { CairnError, serializeError, type SerializedError } from '../../shared/errors.js';
import { lazySearchIndex, type IndexConfig } from '../host/open-index.js';
import type { IndexInput } from '../engine/ports/context-index.js';
import type { SearchHit, SearchQuery } from '../engine/index/search-index.js';
import { workerLogger } from './rpc-server.js';

/** Index settings as plain values: the logger stays with the host, which gets the worker's lines as messages. */
export type IndexWorkerConfig = Omit<IndexConfig, 'logger'>;

/** Each method of the index the worker serves: its arguments and its result. */
export interface IndexMethods {
  upsert: { args: [records: IndexInput[]]; result: void };
  removeUnder: { args: [uri: string]; result: void };
  search: { args: [query: Omit<SearchQuery, 'signal'>]; result: SearchHit[] };
  optimize: { args: []; result: void };
  recordIds: { args: []; result: { id: string; uri: string }[] };
  removeRecords: { args: [ids: string[]]; result: void };
  close: { args: []; result: void };
  prepare: { args: []; result: void };
}

export type IndexMethod = keyof IndexMethods;

export type IndexCall = { [M in IndexMethod]: { type: 'call'; id: number; method: M; args: IndexMethods[M]['args'] } }[IndexMethod];

export type IndexHostMessage = { type: 'open'; workspace: string; config: IndexWorkerConfig } | IndexCall | { type: 'cancel'; id: number };

export type IndexLogMessage = Extract<WorkerToHost, { type: 'log' }>;

export type IndexWorkerMessage =
  | { type: 'result'; id: number; ok: true; result: IndexMethods[IndexMethod]['result'] }
  | { type: 'result'; id: number; ok: false; error: SerializedError }
  | IndexLogMessage;

/** The part of `parentPort` the protocol uses. */
export interface IndexPort {
  postMessage(message: IndexWorkerMessage): void;
  on(event: 'message', listener: (message: IndexHostMessage) => void): unknown;
}

type OpenedIndex = ReturnType<typeof lazySearchIndex>;

/**
 * Serves the search index on `port`: opens it (lazily, as `lazySearchIndex` does) on `open`,
 * and answers every call with one `result`.
 *
 * @example
 * if (!parentPort) throw new Error('Must run as a worker thread');
 * serveIndex(parentPort);
 */
export function serveIndex(port: IndexPort): void {
  // workerLogger speaks the engine RPC's log message, which is ours too; it never sends anything else.
  const logger = workerLogger({ postMessage: (message) => message.type === 'log' && port.postMessage(message) });
  let index: OpenedIndex | null = null;
  const searches = new Map<number, AbortController>();

  const respondError = (id: number, error: unknown) => {
    const serialized = serializeError(error);
    try {
      port.postMessage({ type: 'result', id, ok: false, error: serialized });
    } catch {
      // Its details or cause could not be cloned: the code and message still must reach the caller.
      port.postMessage({ type: 'result', id, ok: false, error: { code: serialized.code, name: serialized.name, message: serialized.message } });
    }
  };

  const run = (opened: OpenedIndex, call: IndexCall, signal: AbortSignal): Promise<IndexMethods[IndexMethod]['result']> => {
    switch (call.method) {
      case 'upsert':
        return opened.upsert(...call.args);
      case 'removeUnder':
        return opened.removeUnder(...call.args);
      case 'search':
        return opened.search({ ...call.args[0], signal });
      case 'optimize':
        return opened.optimize();
      case 'recordIds':
        return opened.recordIds();
      case 'removeRecords':
        return opened.removeRecords(...call.args);
      case 'close':
        return opened.close?.() ?? Promise.resolve();
      case 'prepare':
        return opened.prepare?.() ?? Promise.resolve();
    }
  };

  const answer = async (call: IndexCall) => {
    const controller = new AbortController();
    if (call.method === 'search') searches.set(call.id, controller);
    try {
      if (!index) throw new CairnError('INVALID_INPUT', `The index worker was asked to ${call.method} before it was opened`);
      const result = await run(index, call, controller.signal);
      try {
        port.postMessage({ type: 'result', id: call.id, ok: true, result });
      } catch (error) {
        respondError(call.id, new CairnError('INTERNAL', `The index's ${call.method} answer could not be sent: it is not plain data`, { cause: error }));
      }
    } catch (error) {
      respondError(call.id, error);
    } finally {
      searches.delete(call.id);
    }
  };

  port.on('message', (message) => {
    switch (message.type) {
      case 'open':
        if (index) {
          logger.warn('The index worker was opened twice; it keeps the first index', { workspace: message.workspace });
          return;
        }
        index = lazySearchIndex(message.workspace, { ...message.config, logger });
        return;
      case 'cancel':
        // An unknown id is a search that already finished: nothing to do.
        searches.get(message.id)?.abort(new CairnError('CANCELLED', 'Search cancelled by the caller'));
        return;
      case 'call':
        void answer(message);
        return;
    }
  });
}
