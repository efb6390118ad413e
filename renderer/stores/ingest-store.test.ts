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
    expect(store.getState().progress).toEqual({ phase: 'parse', done: 3, total: 9, bytes: 30, current: 'docs/a.md', skipped: 1 });
    expect(store.getState().root).toBe('ctx://agent/sample/');

    finish(result);
    await running;
    expect(store.getState()).toMatchObject({ status: 'done', result, root: result.root });
    // Progress that arrives after the result does not bring the progress panel back.
    store.getState().applyEvents([{ type: 'ingest/progressed', jobId: 'job-1', phase: 'build', done: 1, total: 1, bytes: 0 }]);
    expect(store.getState().status).toBe('done');
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
