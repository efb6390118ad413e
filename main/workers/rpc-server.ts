/**
 * The worker end of the engine RPC (shared/contracts/engine-rpc.ts), in the Signal style: every
 * request carries a `seq` and gets exactly one `response`; events and logs flow at any time;
 * `cancel` aborts one request's signal; `shutdown` stops the worker in order and answers `closed`.
 *
 * Nothing the host sends can crash the worker: a malformed envelope is logged (and answered with
 * `INVALID_INPUT` when it names a `seq`), and every request is validated with the contract's
 * schema before a handler sees it.
 */
import { HostToWorkerSchema, type LogLevel, type WorkerToHost } from '../../shared/contracts/engine-rpc.js';
import {
  isCommandName,
  parseRequest,
  type CommandName,
  type CommandResponse,
  type EngineEvent,
  type ParsedCommandRequest,
} from '../../shared/contracts/api.js';
import { CairnError, errorMessage, serializeError } from '../../shared/errors.js';
import { silentLogger, type Logger } from '../engine/ports/logger.js';

/** The part of a `MessagePort` (such as `parentPort`) the server uses. */
export interface RpcPort {
  postMessage(message: WorkerToHost): void;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  off(event: 'message', listener: (message: unknown) => void): unknown;
}

export interface RequestContext {
  /** Aborted when the host cancels this request or the worker shuts down. */
  signal: AbortSignal;
  /** Sends an event to the host now (progress of this request). */
  emit(event: EngineEvent): void;
}

export type CommandHandler<K extends CommandName> = (request: ParsedCommandRequest<K>, ctx: RequestContext) => Promise<CommandResponse<K>>;
export type EngineHandlers = { [K in CommandName]?: CommandHandler<K> };

export interface ServeEngineOptions {
  logger?: Logger;
  /** Engine-wide events that belong to no request (background work), forwarded as they come. */
  subscribe?: (listener: (event: EngineEvent) => void) => () => void;
  /** Runs at shutdown once the requests in flight have settled, before `closed` is sent. */
  onShutdown?: () => Promise<void> | void;
}

export interface EngineServer {
  /** Resolves once the server has shut down and sent `closed`. */
  readonly closed: Promise<void>;
  /** The same as receiving `shutdown`: aborts what runs, waits for it, runs onShutdown, sends `closed`. */
  shutdown(): Promise<void>;
}

type LooseHandler = (request: unknown, ctx: RequestContext) => Promise<unknown>;

/**
 * Serves engine commands on `port` and sends `ready`.
 *
 * Shutdown aborts the requests in flight rather than waiting for them to finish: an ingest can
 * run for hours and resumes where it stopped, and the host terminates a worker that takes too long.
 *
 * @example
 * if (!parentPort) throw new Error('Must run as a worker thread');
 * const logger = workerLogger(parentPort);
 * const engine = await createEngine({ workspace, parser, logger });
 * serveEngine(parentPort, engine.handlers, { logger, subscribe: engine.subscribe, onShutdown: () => engine.dispose() });
 */
export function serveEngine(port: RpcPort, handlers: EngineHandlers, options: ServeEngineOptions = {}): EngineServer {
  const logger = options.logger ?? silentLogger;
  const inflight = new Map<number, { controller: AbortController; done: Promise<void> }>();
  let state: 'serving' | 'closing' | 'closed' = 'serving';
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));

  const send = (message: WorkerToHost): boolean => {
    try {
      port.postMessage(message);
      return true;
    } catch (error) {
      logger.error('Could not send a message to the host', { type: message.type, error: errorMessage(error) });
      return false;
    }
  };

  const respondError = (seq: number, error: unknown) => {
    if (send({ type: 'response', seq, ok: false, error: serializeError(error) })) return;
    // The error's details could not be cloned: the code and message still must reach the caller.
    const plain = serializeError(error);
    send({ type: 'response', seq, ok: false, error: { code: plain.code, name: plain.name, message: plain.message } });
  };

  const emit = (event: EngineEvent) => {
    if (state === 'closed') return;
    send({ type: 'event', event });
  };
  const unsubscribe = options.subscribe?.(emit);

  const run = async (seq: number, command: CommandName, payload: unknown, signal: AbortSignal): Promise<void> => {
    try {
      const handler = handlers[command] as LooseHandler | undefined;
      if (!handler) throw new CairnError('INVALID_INPUT', `The engine does not serve ${command}`, { details: { command } });
      const request = parseRequest(command, payload);
      const result = await handler(request, { signal, emit });
      if (!send({ type: 'response', seq, ok: true, result })) {
        respondError(seq, new CairnError('INTERNAL', `The ${command} response could not be sent: it is not plain data`));
      }
    } catch (error) {
      respondError(seq, error);
    }
  };

  const shutdown = async (): Promise<void> => {
    if (state !== 'serving') return closed;
    state = 'closing';
    for (const { controller } of inflight.values()) controller.abort(new CairnError('CANCELLED', 'The engine is shutting down'));
    await Promise.allSettled([...inflight.values()].map((entry) => entry.done));
    unsubscribe?.();
    try {
      await options.onShutdown?.();
    } catch (error) {
      logger.error('The engine did not shut down cleanly', { error: errorMessage(error) });
    }
    send({ type: 'closed' });
    state = 'closed';
    // Without a listener the port no longer keeps the worker alive.
    port.off('message', onMessage);
    resolveClosed();
  };

  const onMessage = (raw: unknown) => {
    const parsed = HostToWorkerSchema.safeParse(raw);
    if (!parsed.success) {
      const seq = (raw as { seq?: unknown } | null)?.seq;
      const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(message)'}: ${issue.message}`);
      logger.warn('Ignored a malformed message from the host', { problems });
      if (typeof seq === 'number' && Number.isInteger(seq) && (raw as { type?: unknown }).type === 'request') {
        respondError(seq, new CairnError('INVALID_INPUT', `Malformed request: ${problems.join('; ')}`, { details: { problems } }));
      }
      return;
    }
    const message = parsed.data;
    switch (message.type) {
      case 'request': {
        const { seq, command } = message;
        if (state !== 'serving') {
          respondError(seq, new CairnError('CANCELLED', `The engine is shutting down; ${command} was not run`));
          return;
        }
        if (inflight.has(seq)) {
          logger.warn('Ignored a request whose seq is already in flight', { seq, command });
          return;
        }
        if (!isCommandName(command)) {
          respondError(seq, new CairnError('INVALID_INPUT', `Unknown command ${JSON.stringify(command)}`, { details: { command } }));
          return;
        }
        const controller = new AbortController();
        const done = run(seq, command, message.payload, controller.signal).finally(() => inflight.delete(seq));
        inflight.set(seq, { controller, done });
        return;
      }
      case 'cancel':
        // An unknown seq is a request that already finished: nothing to do.
        inflight.get(message.seq)?.controller.abort(new CairnError('CANCELLED', 'Cancelled by the caller'));
        return;
      case 'shutdown':
        void shutdown();
        return;
    }
  };

  port.on('message', onMessage);
  send({ type: 'ready' });
  return { closed, shutdown };
}

/**
 * A logger whose lines go to the host as `log` messages (the host writes them to its own logger).
 * Error values in fields travel as serialized errors; fields that cannot be cloned go as JSON.
 *
 * @example
 * const logger = workerLogger(parentPort);
 * logger.warn('Skipped a file', { path, error });
 */
export function workerLogger(port: Pick<RpcPort, 'postMessage'>): Logger {
  const post = (level: LogLevel, message: string, fields?: Record<string, unknown>) => {
    const plain = fields === undefined ? undefined : withSerializedErrors(fields);
    try {
      port.postMessage({ type: 'log', level, message, fields: plain });
    } catch {
      try {
        port.postMessage({ type: 'log', level, message, fields: plain === undefined ? undefined : asJson(plain) });
      } catch {
        // The port is closed: the worker is going away and nobody can read this line.
      }
    }
  };
  return {
    debug: (message, fields) => post('debug', message, fields),
    info: (message, fields) => post('info', message, fields),
    warn: (message, fields) => post('warn', message, fields),
    error: (message, fields) => post('error', message, fields),
  };
}

function withSerializedErrors(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) out[key] = value instanceof Error ? serializeError(value) : value;
  return out;
}

function asJson(fields: Record<string, unknown>): Record<string, unknown> {
  try {
    return JSON.parse(JSON.stringify(fields, (_key, value: unknown) => (typeof value === 'bigint' || typeof value === 'function' || typeof value === 'symbol' ? String(value) : value))) as Record<
      string,
      unknown
    >;
  } catch {
    return { unserializable: Object.keys(fields) };
  }
}
