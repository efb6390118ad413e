/**
 * The messages between the parse pool and its workers, and the worker side of them.
 *
 * A worker parses one file at a time in the order the jobs arrive; the pool relies on that to
 * know, when a worker dies, which job it was running (the oldest unanswered one) and which were
 * only waiting behind it.
 */
import { serializeError, CairnError, type SerializedError } from '../../shared/errors.js';
import type { ParsedFile, ParseInput } from '../engine/parse/types.js';

export type ParseHostMessage = { type: 'parse'; id: number; input: ParseInput } | { type: 'cancel'; id: number };

export type ParseWorkerMessage =
  | { type: 'ready' }
  | { type: 'result'; id: number; ok: true; result: ParsedFile }
  | { type: 'result'; id: number; ok: false; error: SerializedError };

/** The part of `parentPort` the protocol uses. */
export interface ParsePort {
  postMessage(message: ParseWorkerMessage): void;
  on(event: 'message', listener: (message: ParseHostMessage) => void): unknown;
  off(event: 'message', listener: (message: ParseHostMessage) => void): unknown;
}

/**
 * Serves parse jobs on `port` with `parse`, announcing `ready` first. Returns a function that stops
 * listening (the worker then exits once nothing else keeps it alive).
 *
 * @example
 * if (!parentPort) throw new Error('Must run as a worker thread');
 * serveParser(parentPort, parseFile);
 */
export function serveParser(port: ParsePort, parse: (input: ParseInput) => Promise<ParsedFile>): () => void {
  const waiting: { id: number; input: ParseInput }[] = [];
  let running = false;

  const answer = (message: ParseWorkerMessage) => {
    try {
      port.postMessage(message);
    } catch (error) {
      // A result that cannot be cloned must still answer its job, or the pool waits forever.
      if (message.type === 'result') {
        port.postMessage({ type: 'result', id: message.id, ok: false, error: serializeError(new CairnError('INTERNAL', `The parse result could not be sent: ${(error as Error).message}`)) });
      }
    }
  };

  const drain = async () => {
    if (running) return;
    running = true;
    while (waiting.length > 0) {
      const job = waiting.shift()!;
      try {
        answer({ type: 'result', id: job.id, ok: true, result: await parse(job.input) });
      } catch (error) {
        answer({ type: 'result', id: job.id, ok: false, error: serializeError(error) });
      }
    }
    running = false;
  };

  const onMessage = (message: ParseHostMessage) => {
    if (message.type === 'parse') {
      waiting.push({ id: message.id, input: message.input });
      void drain();
    } else if (message.type === 'cancel') {
      const index = waiting.findIndex((job) => job.id === message.id);
      // A job already running cannot be interrupted; the pool ignores its late answer.
      if (index === -1) return;
      const [job] = waiting.splice(index, 1);
      answer({ type: 'result', id: message.id, ok: false, error: serializeError(new CairnError('CANCELLED', `Parsing ${job?.input.relPath} was cancelled`)) });
    }
  };

  port.on('message', onMessage);
  port.postMessage({ type: 'ready' });
  return () => void port.off('message', onMessage);
}
