/**
 * The desktop app's engine survives its worker crashing: calls in flight fail with
 * ENGINE_RESTARTED, a new worker starts (told which thread died), the UI gets engine/restarted,
 * the interrupted ingest and summary run start again, and a crash loop stops after 3 restarts a
 * minute. First with scripted engines, then with the real engine worker, where the resumed
 * ingest must take over the outbox lock and index journal the crashed worker left behind.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CommandName, EngineEvent } from '../../shared/contracts/api.js';
import { CairnError } from '../../shared/errors.js';
import { memoryLogger, silentLogger } from '../engine/ports/logger.js';
import { EngineHost } from '../host/engine-host.js';
import { EngineSupervisor, type SupervisedEngine } from './engine-supervisor.js';

interface PendingCall {
  command: CommandName;
  request: unknown;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** An engine whose calls wait until answered, and that crashes the way EngineHost reports it. */
function scriptedEngine(threadId: number) {
  const eventListeners = new Set<(event: EngineEvent) => void>();
  const crashListeners = new Set<(error: CairnError) => void>();
  const pending: PendingCall[] = [];
  const engine: SupervisedEngine = {
    threadId,
    call: (command, request) => new Promise((resolve, reject) => pending.push({ command, request, resolve: resolve as (value: unknown) => void, reject })) as never,
    onEvent: (listener) => (eventListeners.add(listener), () => void eventListeners.delete(listener)),
    onCrash: (listener) => (crashListeners.add(listener), () => void crashListeners.delete(listener)),
    dispose: vi.fn(async () => {}),
  };
  return {
    engine,
    pending,
    emit: (event: EngineEvent) => eventListeners.forEach((listener) => listener(event)),
    /** EngineHost's order: every pending call rejected with WORKER_CRASHED, then the crash listeners, synchronously. */
    crash(reason = 'exit code 1') {
      for (const call of pending.splice(0)) call.reject(new CairnError('WORKER_CRASHED', `The engine worker crashed during ${call.command} (${reason})`));
      const error = new CairnError('WORKER_CRASHED', `The engine worker stopped unexpectedly (${reason})`);
      crashListeners.forEach((listener) => listener(error));
    },
  };
}

function supervised(count: number, options: { now?: () => number } = {}) {
  const engines = Array.from({ length: count }, (_, i) => scriptedEngine(100 + i));
  let started = 0;
  const start = vi.fn(async (_deadThreads: readonly number[]) => {
    const next = engines[started++];
    if (!next) throw new Error('no more engines in this test');
    return next.engine;
  });
  const events: EngineEvent[] = [];
  const ready = EngineSupervisor.start({ start, logger: silentLogger, ...options }).then((supervisor) => {
    supervisor.subscribe((event) => events.push(event));
    return supervisor;
  });
  return { engines, start, events, ready };
}

const DAG_STARTED: EngineEvent = { type: 'dag/started', root: 'ctx://resources/old/', messageId: 'm1' };

describe('EngineSupervisor', () => {
  it('fails the calls in flight, restarts the engine, says so, and runs the interrupted ingest and summaries again', async () => {
    const { engines, start, events, ready } = supervised(2);
    const supervisor = await ready;
    const [first, second] = engines as [ReturnType<typeof scriptedEngine>, ReturnType<typeof scriptedEngine>];
    const ingest = supervisor.call('ingest:start', { path: '/home/me/notes', jobId: 'job-1' });
    const listing = supervisor.call('fs:ls', { uri: 'ctx://resources/' });
    await vi.waitFor(() => expect(first.pending).toHaveLength(2));
    first.emit(DAG_STARTED);
    expect(events).toEqual([DAG_STARTED]);
    first.crash();

    await expect(ingest).rejects.toMatchObject({ code: 'ENGINE_RESTARTED', message: 'The engine stopped during ingest:start and was restarted; the ingest resumes on its own' });
    await expect(listing).rejects.toMatchObject({ code: 'ENGINE_RESTARTED', message: 'The engine stopped during fs:ls and was restarted; try again' });
    await vi.waitFor(() => expect(events.at(-1)).toMatchObject({ type: 'engine/restarted', ingests: ['/home/me/notes'], summaries: ['ctx://resources/old/'] }));
    // The replacement is told which thread died, so it may break that thread's outbox lock.
    expect(start.mock.calls.map(([dead]) => dead)).toEqual([[], [100]]);
    // The same ingest (same job id: the job store resumes it) and the interrupted summary run, on the new engine.
    await vi.waitFor(() => expect(second.pending.map(({ command, request }) => [command, request])).toEqual([
      ['ingest:start', { path: '/home/me/notes', jobId: 'job-1' }],
      ['summarize:run', { uri: 'ctx://resources/old/' }],
    ]));

    // Events now come from the new engine only; calls go to it.
    first.emit({ type: 'dag/started', root: 'ctx://resources/stale/', messageId: 'm0' });
    second.emit({ type: 'ingest/started', jobId: 'job-1', source: '/home/me/notes', root: 'ctx://resources/notes/', resumed: true });
    expect(events.at(-1)).toMatchObject({ type: 'ingest/started', resumed: true });
    expect(events.some((event) => event.type === 'dag/started' && event.root === 'ctx://resources/stale/')).toBe(false);
    const answer = supervisor.call('fs:ls', { uri: 'ctx://resources/' });
    await vi.waitFor(() => expect(second.pending).toHaveLength(3));
    second.pending[2]!.resolve({ uri: 'ctx://resources/', entries: [] });
    await expect(answer).resolves.toEqual({ uri: 'ctx://resources/', entries: [] });
  });

  it('restarts at most 3 times a minute; one more crash stops the engine, tells the UI and fails every call', async () => {
    let now = 0;
    const { engines, start, events, ready } = supervised(4, { now: () => now });
    const supervisor = await ready;
    for (const [i, engine] of engines.slice(0, 3).entries()) {
      now += 10_000;
      engine.crash();
      await vi.waitFor(() => expect(events.filter((event) => event.type === 'engine/restarted')).toHaveLength(i + 1));
    }
    const inFlight = supervisor.call('fs:ls', { uri: 'ctx://resources/' });
    await vi.waitFor(() => expect(engines[3]!.pending).toHaveLength(1));
    now += 10_000;
    engines[3]!.crash();
    const stopped = { code: 'WORKER_CRASHED', message: 'The engine kept crashing and was stopped (The engine worker stopped unexpectedly (exit code 1)); quit and reopen Cairn' };
    await expect(inFlight).rejects.toMatchObject(stopped);
    expect(events.at(-1)).toEqual({ type: 'engine/stopped', reason: 'The engine worker stopped unexpectedly (exit code 1)' });
    await expect(supervisor.call('fs:ls', { uri: 'ctx://resources/' })).rejects.toMatchObject(stopped);
    expect(start).toHaveBeenCalledTimes(4);
  });

  it('allows restarts again once earlier ones are a minute old', async () => {
    let now = 0;
    const { engines, events, ready } = supervised(5, { now: () => now });
    await ready;
    for (const [i, at] of [0, 1_000, 2_000, 61_000].entries()) {
      now = at;
      engines[i]!.crash();
      await vi.waitFor(() => expect(events.filter((event) => event.type === 'engine/restarted')).toHaveLength(i + 1));
    }
    expect(events.some((event) => event.type === 'engine/stopped')).toBe(false);
  });

  it('counts a replacement that dies before it is ready as one more crash, and keeps calls waiting meanwhile', async () => {
    const first = scriptedEngine(1);
    const third = scriptedEngine(3);
    let release!: () => void;
    const start = vi
      .fn<(dead: readonly number[]) => Promise<SupervisedEngine>>()
      .mockResolvedValueOnce(first.engine)
      .mockRejectedValueOnce(new CairnError('WORKER_CRASHED', 'The engine worker stopped unexpectedly (exit code 7)'))
      .mockImplementationOnce(() => new Promise((resolve) => (release = () => resolve(third.engine))));
    const logger = memoryLogger();
    const supervisor = await EngineSupervisor.start({ start, logger });
    first.crash();
    // Asked while the engine restarts: it waits and runs on the replacement.
    const waiting = supervisor.call('fs:ls', { uri: 'ctx://resources/' });
    await vi.waitFor(() => expect(start).toHaveBeenCalledTimes(3));
    expect(logger.lines.some((line) => line.message === 'The engine could not restart: The engine worker stopped unexpectedly (exit code 7)')).toBe(true);
    release();
    await vi.waitFor(() => expect(third.pending).toHaveLength(1));
    third.pending[0]!.resolve({ uri: 'ctx://resources/', entries: [] });
    await expect(waiting).resolves.toMatchObject({ entries: [] });
  });

  it('disposes the engine on quit, and nothing restarts it', async () => {
    const { engines, start, ready } = supervised(2);
    const supervisor = await ready;
    await supervisor.dispose();
    expect(engines[0]!.engine.dispose).toHaveBeenCalledOnce();
    engines[0]!.crash();
    await expect(supervisor.call('fs:ls', { uri: 'ctx://resources/' })).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(start).toHaveBeenCalledTimes(1);
  });
});

describe('EngineSupervisor with the real engine worker', () => {
  const ROOT = join(import.meta.dirname, '../..');
  const WORKER = join(ROOT, 'dist-main/engine.worker.js');
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('resumes an ingest the crash interrupted: the new worker takes over the outbox lock and the index', async () => {
    if (!existsSync(WORKER)) execFileSync(process.execPath, [join(ROOT, 'scripts/build-main.mjs')], { cwd: ROOT });
    dir = await mkdtemp(join(tmpdir(), 'cairn-supervisor-'));
    const workspace = join(dir, 'workspace');
    const folder = join(dir, 'notes');
    await mkdir(folder);
    const FILES = 150;
    for (let i = 0; i < FILES; i += 1) await writeFile(join(folder, `note-${i}.md`), `# Note ${i}\n\nThe tide gauge ${i} reads ${i * 3} cm at noon.\n`);
    await writeFile(join(folder, 'harbour.md'), '# Harbour\n\nThe quartermaster logs every barometer reading.\n');

    const hosts: EngineHost[] = [];
    const logger = memoryLogger();
    const supervisor = await EngineSupervisor.start({
      start: async (deadThreads) => {
        const host = await EngineHost.start({ workerUrl: pathToFileURL(WORKER), workerData: { workspace, parseWorkers: 1, deadThreads } });
        hosts.push(host);
        return host;
      },
      logger,
    });
    const events: EngineEvent[] = [];
    let crashed = false;
    supervisor.subscribe((event) => {
      events.push(event);
      // Mid-parse, the worker dies as a crash looks to the host: it exits with code 1.
      if (!crashed && event.type === 'ingest/progressed' && event.phase === 'parse' && event.done >= 10) {
        crashed = true;
        void (hosts[0] as unknown as { worker: Worker }).worker.terminate();
      }
    });
    try {
      const first = await supervisor.call('ingest:start', { path: folder, jobId: 'job-1' }).catch((error: unknown) => error);
      expect(first).toMatchObject({ code: 'ENGINE_RESTARTED' });
      // The resumed ingest ends with an event, or (refused before it started) with the supervisor's warning.
      const resumeFailed = () => logger.lines.find((line) => line.message.startsWith('The resumed ingest'))?.message;
      await vi.waitFor(() => expect(events.some((event) => event.type === 'ingest/finished' || event.type === 'ingest/failed') || resumeFailed() !== undefined).toBe(true), { timeout: 120_000, interval: 100 });
      expect(resumeFailed()).toBeUndefined();
      expect(events.filter((event) => event.type === 'ingest/failed')).toEqual([]);
      expect(events.find((event) => event.type === 'engine/restarted')).toMatchObject({ ingests: [folder] });
      expect(events.filter((event) => event.type === 'ingest/started').map((event) => (event as { resumed: boolean }).resumed)).toEqual([false, true]);
      const finished = events.find((event) => event.type === 'ingest/finished') as Extract<EngineEvent, { type: 'ingest/finished' }>;
      expect(finished.result).toMatchObject({ jobId: 'job-1', files: FILES + 1, resumed: true });
      // The outbox lock is the new worker's, and the index answers.
      expect(JSON.parse(await readFile(join(workspace, '.cairn/queue/outbox.lock'), 'utf8'))).toMatchObject({ pid: process.pid, thread: hosts[1]!.threadId });
      const { hits } = await supervisor.call('search:query', { query: 'quartermaster barometer' });
      expect(hits[0]?.uri).toMatch(/harbour\.md$/);
    } finally {
      await supervisor.dispose();
    }
  }, 180_000);
});
