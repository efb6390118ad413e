import { describe, expect, it } from 'vitest';
import { CairnError } from '../../shared/errors';
import type { IngestResult } from '../../shared/types/ingest';
import type { CairnClient } from '../api/client';
import { createIngestStore } from './ingest-store';

const result: IngestResult = {
  jobId: 'job-1',
  root: 'ctx://resources/sample/',
  files: 9,
  nodes: 12,
  changed: 12,
  removed: 0,
  skipped: [{ path: 'logo.png', reason: 'binary' }],
  warnings: [],
  bytes: 100,
  tokens: 50,
  llm_calls: 0,
  ms: 20,
  resumed: false,
};

function fakeClient(answer: () => Promise<unknown>) {
  const calls: [string, unknown][] = [];
  const client = {
    transport: 'websocket',
    status: 'ready',
    problem: null,
    call: async (command: string, request: unknown) => {
      calls.push([command, request]);
      return command === 'ingest:cancel' ? { cancelled: true } : answer();
    },
    onEvents: () => () => {},
    onStatus: () => () => {},
    dispose() {},
  } as unknown as CairnClient;
  return { client, calls };
}

describe('the ingest store', () => {
  it('starts with the form, follows its own job events, and ends with the result', async () => {
    let finish!: (value: unknown) => void;
    const { client, calls } = fakeClient(() => new Promise((resolve) => (finish = resolve)));
    const store = createIngestStore(client, () => 'job-1');
    store.getState().setForm({ path: ' /data/sample ', scope: 'agent', codeMode: 'llm' });
    const running = store.getState().start();
    expect(store.getState().status).toBe('running');
    expect(calls[0]).toEqual(['ingest:start', { path: '/data/sample', options: { scope: 'agent', codeSummaryMode: 'llm' }, jobId: 'job-1' }]);

    store.getState().applyEvents([
      { type: 'ingest/started', jobId: 'job-1', source: '/data/sample', root: 'ctx://agent/sample/', resumed: false },
      { type: 'ingest/progressed', jobId: 'job-1', phase: 'parse', done: 3, total: 9, bytes: 30, current: 'docs/a.md' },
      { type: 'ingest/progressed', jobId: 'other', phase: 'parse', done: 99, total: 99, bytes: 1 },
      { type: 'ingest/skipped', jobId: 'job-1', skip: { path: 'logo.png', reason: 'binary' } },
    ]);
    expect(store.getState().progress).toEqual({ phase: 'parse', done: 3, total: 9, bytes: 30, current: 'docs/a.md', skipped: 1, waiting: null });
    expect(store.getState().root).toBe('ctx://agent/sample/');

    finish(result);
    await running;
    expect(store.getState()).toMatchObject({ status: 'done', result, root: result.root });
    // Progress that arrives after the result does not bring the progress panel back.
    store.getState().applyEvents([{ type: 'ingest/progressed', jobId: 'job-1', phase: 'build', done: 1, total: 1, bytes: 0 }]);
    expect(store.getState().status).toBe('done');
  });

  it('shows what the ingest waits for while another process holds the workspace, and asks the engine to update a clashing tree when told', async () => {
    let finish!: (value: unknown) => void;
    const { client, calls } = fakeClient(() => new Promise((resolve) => (finish = resolve)));
    const store = createIngestStore(client, () => 'job-2');
    store.getState().setForm({ path: '/ws/uploads/git' });
    const running = store.getState().start({ onClash: 'update' });
    expect(calls[0]![1]).toMatchObject({ options: { onClash: 'update' } });
    const line = 'waiting for the ingest of /home/me/git, pid 12, started 3 s ago';
    store.getState().applyEvents([{ type: 'workspace/waiting', holder: 'the ingest of /home/me/git', pid: 12, since: '2026-12-01T10:00:00Z', message: line }]);
    expect(store.getState().progress.waiting).toBe(line);
    store.getState().applyEvents([{ type: 'ingest/started', jobId: 'job-2', source: '/ws/uploads/git', root: 'ctx://resources/git/', resumed: false }]);
    expect(store.getState().progress.waiting).toBeNull();
    finish(result);
    await running;
  });

  it('tells a cancelled run from a failed one', async () => {
    const cancelled = createIngestStore(fakeClient(() => Promise.reject(new CairnError('CANCELLED', 'stopped'))).client);
    await cancelled.getState().start();
    expect(cancelled.getState().status).toBe('cancelled');

    const failed = createIngestStore(fakeClient(() => Promise.reject(new CairnError('NOT_FOUND', 'engine: no such folder /nope'))).client);
    await failed.getState().start();
    expect(failed.getState()).toMatchObject({ status: 'failed', error: { code: 'NOT_FOUND', message: 'engine: no such folder /nope' } });
  });

  it('cancels the running job by its id', async () => {
    const { client, calls } = fakeClient(() => new Promise(() => {}));
    const store = createIngestStore(client, () => 'job-9');
    void store.getState().start();
    await store.getState().cancel();
    expect(calls[1]).toEqual(['ingest:cancel', { jobId: 'job-9' }]);
  });
});

describe('the ingest store: ingests started elsewhere', () => {
  const started = (jobId: string, source = '/home/me/notes') => ({ type: 'ingest/started' as const, jobId, source, root: 'ctx://resources/notes/', resumed: false });

  it('follows an ingest it did not start (a second launch handed over a folder) from start to result', () => {
    const { client, calls } = fakeClient(async () => ({ items: [] }));
    const store = createIngestStore(client);
    store.getState().applyEvents([started('launch-1'), { type: 'ingest/progressed', jobId: 'launch-1', phase: 'scan', done: 4, total: null, bytes: 40 }]);
    expect(store.getState()).toMatchObject({ status: 'running', jobId: 'launch-1', root: 'ctx://resources/notes/', form: { path: '/home/me/notes' }, progress: { phase: 'scan', done: 4 } });
    // While it runs, another ingest's start does not take the view over.
    store.getState().applyEvents([started('other', '/elsewhere')]);
    expect(store.getState().jobId).toBe('launch-1');

    store.getState().applyEvents([{ type: 'ingest/finished', jobId: 'launch-1', result: { ...result, jobId: 'launch-1', root: 'ctx://resources/notes/' } }]);
    expect(store.getState()).toMatchObject({ status: 'done', root: 'ctx://resources/notes/', result: { jobId: 'launch-1' } });
    expect(calls.map(([command]) => command)).toEqual(['ingest:recent']);

    store.getState().applyEvents([started('launch-2'), { type: 'ingest/failed', jobId: 'launch-2', error: { code: 'NOT_FOUND', message: 'no such folder' } }]);
    expect(store.getState()).toMatchObject({ status: 'failed', jobId: 'launch-2', error: { code: 'NOT_FOUND', message: 'no such folder' } });
  });

  it('keeps its own ingest running through an engine restart, and ends it from the resumed job', async () => {
    const { client } = fakeClient(() => Promise.reject(new CairnError('ENGINE_RESTARTED', 'The engine stopped during ingest:start and was restarted; the ingest resumes on its own')));
    const store = createIngestStore(client, () => 'job-1');
    store.getState().setForm({ path: '/home/me/notes' });
    await store.getState().start();
    expect(store.getState()).toMatchObject({ status: 'running', jobId: 'job-1', error: null });
    // The host ran the same job again: its events arrive under the same id.
    store.getState().applyEvents([{ ...started('job-1'), resumed: true }, { type: 'ingest/progressed', jobId: 'job-1', phase: 'parse', done: 2, total: 9, bytes: 20 }]);
    expect(store.getState().progress).toMatchObject({ phase: 'parse', done: 2 });
    store.getState().applyEvents([{ type: 'ingest/finished', jobId: 'job-1', result }]);
    expect(store.getState()).toMatchObject({ status: 'done', result });
  });

  it('fails the running ingest when the engine was stopped for good', async () => {
    const { client } = fakeClient(() => new Promise(() => {}));
    const store = createIngestStore(client, () => 'job-1');
    void store.getState().start();
    store.getState().applyEvents([{ type: 'engine/stopped', reason: 'exit code 1' }]);
    expect(store.getState()).toMatchObject({ status: 'failed', error: { code: 'WORKER_CRASHED', message: 'exit code 1' } });
  });
});

describe('the ingest store: estimate first and recent folders', () => {
  const estimate = { root: result.root, files: 9, directories: 3, reused_directories: 0, calls: 12, input_tokens: 9000, output_tokens: 1200, cost_usd: 0.00207 };
  const run = { root: result.root, dirs_total: 3, dirs_done: 3, files_total: 9, files_done: 9, llm_calls: 0, dirsSummarized: 3, dirsReused: 0, filesSummarized: 9, fallbacks: 0, failed: 0, tokens: 0, ms: 5 };
  const recentItem = { root: result.root, scope: 'agent', name: 'sample', source: '/data/sample', kind: 'dir' as const, at: '2026-01-01T00:00:00.000Z', files: 9, state: 'queued' as const };

  function scripted() {
    const calls: [string, unknown][] = [];
    const answers: Record<string, (request: unknown) => Promise<unknown>> = {
      'ingest:start': async () => result,
      'ingest:recent': async () => ({ items: [recentItem] }),
      'summarize:estimate': async () => ({ estimates: [estimate], model: 'gpt-4o-mini', llm: true }),
      'summarize:run': async () => ({ runs: [run] }),
    };
    const client = {
      transport: 'websocket',
      call: async (command: string, request: unknown) => {
        calls.push([command, request]);
        return answers[command]!(request);
      },
      onEvents: () => () => {},
      onStatus: () => () => {},
    } as unknown as CairnClient;
    return { client, calls, answers };
  }

  it('builds without summarizing, estimates, then summarizes now', async () => {
    const { client, calls } = scripted();
    const store = createIngestStore(client, () => 'job-1');
    store.getState().setForm({ path: '/data/sample', estimateFirst: true });
    await store.getState().start();
    expect(calls[0]).toEqual(['ingest:start', { path: '/data/sample', options: { scope: 'resources', codeSummaryMode: 'ast' }, jobId: 'job-1', summarize: false }]);
    expect(calls.map(([c]) => c)).toEqual(['ingest:start', 'ingest:recent', 'summarize:estimate']);
    expect(calls[2]![1]).toEqual({ uri: result.root });
    expect(store.getState().estimate).toEqual({ phase: 'ready', root: result.root, estimate, model: 'gpt-4o-mini', llm: true, run: null, error: null });

    const running = store.getState().summarizeNow();
    expect(store.getState().estimate?.phase).toBe('running');
    // A second click while it runs starts nothing.
    await store.getState().summarizeNow();
    await running;
    expect(calls.filter(([c]) => c === 'summarize:run')).toEqual([['summarize:run', { uri: result.root }]]);
    expect(store.getState().estimate).toMatchObject({ phase: 'done', run });
  });

  it('leaves the summaries queued on "not now", and an ordinary ingest asks for no estimate', async () => {
    const { client, calls } = scripted();
    const store = createIngestStore(client, () => 'job-2');
    store.getState().setForm({ path: '/data/sample', estimateFirst: true });
    await store.getState().start();
    store.getState().dismissEstimate();
    expect(store.getState().estimate?.phase).toBe('dismissed');
    expect(calls.some(([c]) => c === 'summarize:run')).toBe(false);

    store.getState().setForm({ estimateFirst: false });
    await store.getState().start();
    expect(calls.at(-2)).toEqual(['ingest:start', { path: '/data/sample', options: { scope: 'resources', codeSummaryMode: 'ast' }, jobId: 'job-2' }]);
    expect(store.getState().estimate).toBeNull();
  });

  it('says why an estimate failed and lets it be tried by running', async () => {
    const { client, answers } = scripted();
    answers['summarize:estimate'] = async () => {
      throw new CairnError('INTERNAL', 'estimate broke');
    };
    const store = createIngestStore(client, () => 'job-3');
    store.getState().setForm({ path: '/data/sample', estimateFirst: true });
    await store.getState().start();
    expect(store.getState().estimate).toMatchObject({ phase: 'failed', error: 'estimate broke' });
  });

  it('loads the recent folders, reloads them when a summary run ends, and ingests one again into its scope', async () => {
    const { client, calls } = scripted();
    const store = createIngestStore(client, () => 'job-4');
    await store.getState().loadRecent();
    expect(store.getState().recent).toEqual({ phase: 'ready', items: [recentItem], error: null });

    store.getState().applyEvents([{ type: 'dag/finished', root: result.root, messageId: 'm1', result: run }]);
    await Promise.resolve();
    expect(calls.filter(([c]) => c === 'ingest:recent')).toHaveLength(2);

    await store.getState().reingest(recentItem);
    expect(store.getState().form).toMatchObject({ path: '/data/sample', scope: 'agent' });
    expect(calls.find(([c]) => c === 'ingest:start')![1]).toMatchObject({ path: '/data/sample', options: { scope: 'agent' } });
    expect(store.getState().status).toBe('done');
  });

  it("starts a git source (Home's git field), re-ingests a git tree from Recent at its ref, and Try again repeats the last start", async () => {
    const { client, calls } = fakeClient(() => Promise.resolve(result));
    const store = createIngestStore(client, () => 'job-1');
    store.getState().setForm({ path: '/data/folder', scope: 'resources' });
    await store.getState().start({ git: { url: ' https://example.com/notes.git ', ref: ' v1 ' } });
    expect(calls[0]).toEqual(['ingest:start', { path: 'https://example.com/notes.git', git: { ref: 'v1' }, options: { scope: 'resources', codeSummaryMode: 'ast' }, jobId: 'job-1' }]);
    await store.getState().reingest({ root: 'ctx://user/notes/', scope: 'user', name: 'notes', source: 'https://example.com/notes.git', git: { ref: 'v2' }, kind: 'dir', at: '', files: 1, state: 'summarized' });
    expect(calls.filter(([c]) => c === 'ingest:start').at(-1)).toEqual(['ingest:start', { path: 'https://example.com/notes.git', git: { ref: 'v2' }, options: { scope: 'user', codeSummaryMode: 'ast' }, jobId: 'job-1' }]);
    await store.getState().retry();
    expect(calls.filter(([c]) => c === 'ingest:start').at(-1)).toEqual(['ingest:start', expect.objectContaining({ path: 'https://example.com/notes.git', git: { ref: 'v2' } })]);
    // A plain start goes back to the form's path.
    await store.getState().start();
    expect(calls.filter(([c]) => c === 'ingest:start').at(-1)).toEqual(['ingest:start', expect.objectContaining({ path: '/data/folder' })]);
    expect(calls.at(-1)?.[1]).not.toHaveProperty('git');
  });
});
