import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import type { CommandResponse, EngineEvent } from '../../shared/contracts/api.js';
import type { HostToWorker, WorkerToHost } from '../../shared/contracts/engine-rpc.js';
import { serveEngine, workerLogger } from './rpc-server.js';

const ports: MessagePort[] = [];

afterEach(() => {
  for (const port of ports.splice(0)) port.close();
});

/** A real MessageChannel: the server on one end, the test speaking the host's part on the other. */
function channel() {
  const { port1, port2 } = new MessageChannel();
  ports.push(port1, port2);
  const received: WorkerToHost[] = [];
  port2.on('message', (message: WorkerToHost) => received.push(message));
  const send = (message: HostToWorker) => port2.postMessage(message);
  const waitFor = async <T extends WorkerToHost>(predicate: (message: WorkerToHost) => boolean): Promise<T> => {
    for (let i = 0; i < 500; i += 1) {
      const found = received.find(predicate);
      if (found) return found as T;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    throw new Error('message not received');
  };
  return { serverPort: port1, received, send, waitFor };
}

const stat = (uri: string): CommandResponse<'fs:stat'> => ({ uri, kind: 'dir', bytes: 0, children: 2, has_abstract: true, has_overview: true, meta: null });

describe('serveEngine', () => {
  it('answers with an INTERNAL error when a result is not plain data', async () => {
    const { serverPort, send, waitFor } = channel();
    serveEngine(serverPort, {
      'fs:stat': async (request) => ({ ...stat(request.uri), meta: { callback: () => 1 } }) as unknown as CommandResponse<'fs:stat'>,
    });
    send({ type: 'request', seq: 1, command: 'fs:stat', payload: { uri: 'ctx://resources/a/' } });
    const response = await waitFor((m) => m.type === 'response' && m.seq === 1);
    expect(response).toMatchObject({ ok: false, error: { code: 'INTERNAL', message: 'The fs:stat response could not be sent: it is not plain data' } });
  });

  it('forwards engine-wide events from subscribe and stops on shutdown', async () => {
    const { serverPort, received, send, waitFor } = channel();
    const listeners = new Set<(event: EngineEvent) => void>();
    const server = serveEngine(serverPort, {}, {
      subscribe: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    });
    for (const listener of listeners) listener({ type: 'queue/enqueued', id: 'm1', uri: 'ctx://resources/a/', context_type: 'resource' });
    await waitFor((m) => m.type === 'event');
    send({ type: 'shutdown' });
    await server.closed;
    await waitFor((m) => m.type === 'closed');
    expect(listeners.size).toBe(0);
    expect(received.map((m) => m.type)).toEqual(['ready', 'event', 'closed']);
  });

  it('on shutdown aborts requests in flight, answers them, refuses new ones, runs onShutdown, then sends closed', async () => {
    const { serverPort, received, send, waitFor } = channel();
    const order: string[] = [];
    let openGate!: () => void;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    const server = serveEngine(
      serverPort,
      {
        'fs:stat': (request, { signal }) =>
          new Promise((_resolve, reject) => {
            signal.addEventListener('abort', () => {
              order.push('aborted');
              reject(signal.reason);
            });
          }),
      },
      {
        onShutdown: async () => {
          order.push('onShutdown');
          await gate;
        },
      },
    );
    send({ type: 'request', seq: 1, command: 'fs:stat', payload: { uri: 'ctx://resources/slow' } });
    send({ type: 'shutdown' });
    const first = await waitFor((m) => m.type === 'response' && m.seq === 1);
    expect(first).toMatchObject({ ok: false, error: { code: 'CANCELLED', message: 'The engine is shutting down' } });

    send({ type: 'request', seq: 2, command: 'fs:stat', payload: { uri: 'ctx://resources/late' } });
    const late = await waitFor((m) => m.type === 'response' && m.seq === 2);
    expect(late).toMatchObject({ ok: false, error: { code: 'CANCELLED', message: 'The engine is shutting down; fs:stat was not run' } });
    expect(received.some((m) => m.type === 'closed')).toBe(false);

    openGate();
    await server.closed;
    order.push('closed');
    expect(order).toEqual(['aborted', 'onShutdown', 'closed']);
    await waitFor((m) => m.type === 'closed');
    expect(received.map((m) => m.type)).toEqual(['ready', 'response', 'response', 'closed']);
    // A second shutdown is a no-op.
    await server.shutdown();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(received.filter((m) => m.type === 'closed')).toHaveLength(1);
  });

  it('ignores a second request with a seq already in flight', async () => {
    const { serverPort, received, send, waitFor } = channel();
    let release!: () => void;
    let calls = 0;
    serveEngine(serverPort, {
      'fs:stat': async (request) => {
        calls += 1;
        await new Promise<void>((resolve) => (release = resolve));
        return stat(request.uri);
      },
    });
    send({ type: 'request', seq: 7, command: 'fs:stat', payload: { uri: 'ctx://resources/first' } });
    send({ type: 'request', seq: 7, command: 'fs:stat', payload: { uri: 'ctx://resources/second' } });
    await new Promise((resolve) => setTimeout(resolve, 20));
    release();
    await waitFor((m) => m.type === 'response');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(calls).toBe(1);
    expect(received.filter((m) => m.type === 'response')).toEqual([{ type: 'response', seq: 7, ok: true, result: stat('ctx://resources/first') }]);
  });
});

describe('workerLogger', () => {
  it('sends log lines, serializing errors and falling back to JSON for what cannot be cloned', async () => {
    const { serverPort, received, waitFor } = channel();
    const logger = workerLogger(serverPort);
    logger.warn('plain', { count: 2 });
    logger.error('with an error', { error: new RangeError('too far') });
    logger.debug('with a function', { fn: () => 1, n: 10n });
    await waitFor((m) => m.type === 'log' && m.message === 'with a function');
    expect(received).toEqual([
      { type: 'log', level: 'warn', message: 'plain', fields: { count: 2 } },
      { type: 'log', level: 'error', message: 'with an error', fields: { error: expect.objectContaining({ code: 'INTERNAL', name: 'RangeError', message: 'too far' }) } },
      { type: 'log', level: 'debug', message: 'with a function', fields: { fn: '() => 1', n: '10' } },
    ]);
  });
});
