/**
 * The engine RPC end to end: EngineHost on this side, serveEngine in a real worker thread
 * (test/support/rpc-test.worker.ts, bundled with esbuild like the real entries).
 */
import { Worker } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../shared/contracts/api.js';
import type { HostToWorker, WorkerToHost } from '../../shared/contracts/engine-rpc.js';
import { CairnError } from '../../shared/errors.js';
import { memoryLogger } from '../../main/engine/ports/logger.js';
import { EngineHost, type EngineHostOptions } from '../../main/host/engine-host.js';
import { bundleForTest, type TestBundle } from '../support/rpc-bundle.js';

let bundle: TestBundle;
const hosts: EngineHost[] = [];

beforeAll(async () => {
  bundle = await bundleForTest('test/support/rpc-test.worker.ts');
});

afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.dispose()));
});

afterAll(async () => {
  await bundle?.dispose();
});

async function start(options: Partial<EngineHostOptions> = {}): Promise<EngineHost> {
  const host = await EngineHost.start({ workerUrl: bundle.url, ...options });
  hosts.push(host);
  return host;
}

async function until(condition: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('EngineHost with a real worker', () => {
  it('round-trips a command, passing workerData and forwarding the worker logs', async () => {
    const logger = memoryLogger();
    const host = await start({ workerData: { label: 'from the host' }, logger });
    const stat = await host.call('fs:stat', { uri: 'ctx://resources/notes.md' });
    expect(stat).toMatchObject({ uri: 'ctx://resources/notes.md', kind: 'file', bytes: 42, has_abstract: false, meta: { source_path: 'from the host', requests: 1 } });
    await until(() => logger.lines.some((line) => line.message === 'rpc test worker started'));
    const started = logger.lines.find((line) => line.message === 'rpc test worker started')!;
    expect(started.level).toBe('info');
    // An Error in log fields travels as a serialized error.
    expect(started.fields).toMatchObject({ label: 'from the host', error: { code: 'INTERNAL', message: 'an error in a log field' } });
  });

  it('validates requests on the host side before anything is sent', async () => {
    const host = await start();
    const error = await host.call('fs:stat', { uri: 42 } as never).catch((e: unknown) => e);
    expect(CairnError.is(error, 'INVALID_INPUT')).toBe(true);
    expect((error as CairnError).message).toMatch(/^Invalid fs:stat request: uri:/);
    // The worker never saw it: its first request is the next one.
    const stat = await host.call('fs:stat', { uri: 'ctx://resources/a' });
    expect(stat.meta).toMatchObject({ requests: 1 });
  });

  it('validates responses with the contract schema', async () => {
    const host = await start();
    const error = await host.call('fs:stat', { uri: 'ctx://resources/bad-response' }).catch((e: unknown) => e);
    expect(CairnError.is(error, 'INTERNAL')).toBe(true);
    expect((error as CairnError).message).toMatch(/^engine: invalid fs:stat response: kind/);
  });

  it('revives engine errors with their code, details and origin', async () => {
    const host = await start();
    const missing = await host.call('fs:stat', { uri: 'ctx://resources/missing' }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(CairnError);
    expect(missing).toMatchObject({ code: 'NOT_FOUND', message: 'engine: No node at ctx://resources/missing', details: { uri: 'ctx://resources/missing' } });
    expect((missing as Error).stack).toMatch(/No node at/);

    const plain = await host.call('fs:stat', { uri: 'ctx://resources/plain-error' }).catch((e: unknown) => e);
    expect(plain).toMatchObject({ code: 'INTERNAL', message: 'engine: x is not a function' });

    const unserved = await host.call('fs:ls', { uri: 'ctx://resources/' }).catch((e: unknown) => e);
    expect(unserved).toMatchObject({ code: 'INVALID_INPUT', message: 'engine: The engine does not serve fs:ls' });
  });

  it('delivers the events of a command in order, before its response', async () => {
    const host = await start();
    const events: EngineEvent[] = [];
    const unsubscribe = host.onEvent((event) => events.push(event));
    const result = await host.call('ingest:start', { path: '/slow/12', jobId: 'ordered' });
    expect(result).toMatchObject({ jobId: 'ordered', files: 12 });
    expect(events.map((e) => e.type)).toEqual(['ingest/started', ...Array<string>(12).fill('ingest/progressed')]);
    expect(events.flatMap((e) => (e.type === 'ingest/progressed' ? [e.done] : []))).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));

    unsubscribe();
    await host.call('ingest:start', { path: '/slow/2', jobId: 'unheard' });
    expect(events.some((e) => 'jobId' in e && e.jobId === 'unheard')).toBe(false);
  });

  it('cancels a running command: the caller hears at once, the worker stops its work', async () => {
    const logger = memoryLogger();
    const host = await start({ logger });
    const progressed: number[] = [];
    host.onEvent((event) => {
      if (event.type === 'ingest/progressed') progressed.push(event.done);
    });
    const controller = new AbortController();
    const call = host.call('ingest:start', { path: '/slow/100000', jobId: 'long' }, { signal: controller.signal });
    await until(() => progressed.length >= 3);
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: 'CANCELLED', message: 'ingest:start was cancelled' });

    await until(() => logger.lines.some((line) => line.message === 'ingest cancelled'));
    const stoppedAt = progressed.length;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(progressed.length).toBe(stoppedAt);
    // The worker is free for more.
    await expect(host.call('fs:stat', { uri: 'ctx://resources/after' })).resolves.toMatchObject({ bytes: 42 });

    const already = new AbortController();
    already.abort();
    await expect(host.call('fs:stat', { uri: 'ctx://resources/x' }, { signal: already.signal })).rejects.toMatchObject({ code: 'CANCELLED' });
  });

  it('rejects every pending call with WORKER_CRASHED when the worker dies, and says so once', async () => {
    const host = await start();
    const crashes: CairnError[] = [];
    host.onCrash((error) => crashes.push(error));
    const slow = host.call('ingest:start', { path: '/slow/100000' }).catch((e: unknown) => e);
    const crash = host.call('fs:stat', { uri: 'ctx://resources/crash' }).catch((e: unknown) => e);

    const [slowError, crashError] = await Promise.all([slow, crash]);
    expect(slowError).toMatchObject({ code: 'WORKER_CRASHED', message: 'The engine worker crashed during ingest:start (exit code 3)' });
    expect(crashError).toMatchObject({ code: 'WORKER_CRASHED', details: { command: 'fs:stat', exitCode: 3 } });
    expect(crashes).toHaveLength(1);
    expect(crashes[0]).toMatchObject({ code: 'WORKER_CRASHED', details: { exitCode: 3 } });
    expect(host.running).toBe(false);
    await expect(host.call('fs:stat', { uri: 'ctx://resources/a' })).rejects.toMatchObject({ code: 'WORKER_CRASHED' });
  });

  it('disposes in order: the worker aborts what runs, shuts down and exits', async () => {
    const logger = memoryLogger();
    const host = await EngineHost.start({ workerUrl: bundle.url, logger });
    const crashes: CairnError[] = [];
    host.onCrash((error) => crashes.push(error));
    const pending = host.call('ingest:start', { path: '/slow/100000', jobId: 'interrupted' }).catch((e: unknown) => e);
    await until(() => logger.lines.length > 0);
    await host.dispose();

    const error = await pending;
    expect(CairnError.is(error, 'CANCELLED')).toBe(true);
    expect(logger.lines.some((line) => line.message === 'test engine shut down')).toBe(true);
    expect(crashes).toEqual([]);
    expect(host.running).toBe(false);
    await expect(host.call('fs:stat', { uri: 'ctx://resources/a' })).rejects.toMatchObject({ code: 'CANCELLED' });
    await host.dispose();
  });

  it('terminates a worker that does not answer shutdown in time', async () => {
    const logger = memoryLogger();
    const host = await EngineHost.start({ workerUrl: bundle.url, logger, shutdownTimeoutMs: 300 });
    const blocked = host.call('fs:stat', { uri: 'ctx://resources/block' }).catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = performance.now();
    await host.dispose();
    expect(performance.now() - started).toBeLessThan(5000);
    expect(await blocked).toMatchObject({ code: 'CANCELLED' });
    expect(logger.lines.some((line) => line.level === 'warn' && /did not shut down within 300 ms/.test(line.message))).toBe(true);
  });

  it('fails to start with WORKER_CRASHED when the worker cannot load', async () => {
    const missing = pathToFileURL(join(bundle.file, '..', 'no-such-worker.mjs'));
    const error = await EngineHost.start({ workerUrl: missing }).catch((e: unknown) => e);
    expect(CairnError.is(error, 'WORKER_CRASHED')).toBe(true);
    expect((error as CairnError).message).toMatch(/no-such-worker\.mjs/);
  });
});

describe('serveEngine in a real worker, spoken to directly', () => {
  it('answers malformed envelopes and bad requests with INVALID_INPUT and keeps serving', async () => {
    const worker = new Worker(bundle.url);
    const received: WorkerToHost[] = [];
    worker.on('message', (message: WorkerToHost) => received.push(message));
    // Listened for from the start: under load the worker can exit between two polls below.
    const exited = new Promise<number>((resolve) => worker.once('exit', resolve));
    try {
      await until(() => received.some((m) => m.type === 'ready'), 20_000);
      const send = (message: HostToWorker | Record<string, unknown>) => worker.postMessage(message);
      const responseTo = async (seq: number) => {
        await until(() => received.some((m) => m.type === 'response' && m.seq === seq));
        return received.find((m) => m.type === 'response' && m.seq === seq) as Extract<WorkerToHost, { type: 'response' }>;
      };

      send({ type: 'request', seq: 1, command: 'fs:stat', payload: { uri: 7 } });
      send({ type: 'request', seq: 2, command: 'fs:explode', payload: {} });
      send({ type: 'request', seq: 3.5, command: 'fs:stat', payload: { uri: 'ctx://resources/a' } });
      send({ type: 'request', seq: 4, payload: {} });
      send({ type: 'teleport', seq: 5 });
      send({ type: 'cancel', seq: 999 });
      send({ type: 'request', seq: 6, command: 'fs:stat', payload: { uri: 'ctx://resources/ok' } });

      const invalid = await responseTo(1);
      expect(invalid).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT', details: { command: 'fs:stat' } } });
      expect(await responseTo(2)).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT', message: 'Unknown command "fs:explode"' } });
      expect(await responseTo(4)).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT', message: expect.stringMatching(/^Malformed request: command/) } });
      expect(await responseTo(6)).toMatchObject({ ok: true, result: { uri: 'ctx://resources/ok', meta: { requests: 1 } } });
      // Envelopes without a usable seq cannot be answered: they are logged.
      expect(received.filter((m) => m.type === 'response').map((m) => (m as { seq: number }).seq).sort()).toEqual([1, 2, 4, 6]);
      expect(received.filter((m) => m.type === 'log' && m.message === 'Ignored a malformed message from the host')).toHaveLength(3);

      send({ type: 'shutdown' });
      await until(() => received.some((m) => m.type === 'closed'));
      const exit = await exited;
      // With no listener left, the worker ends on its own.
      expect(exit).toBe(0);
    } finally {
      await worker.terminate();
    }
  });
});
