import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../shared/contracts/api';
import type { CairnClient } from '../api/client';
import { connectStores, createStores } from './index';

const dispatched = (uri: string, parent: string | null): EngineEvent => ({
  type: 'dag/dir-dispatched',
  root: 'ctx://resources/r/',
  uri,
  parent,
  pending: 1,
  dirs: 0,
  files: 1,
  counts: { dirs_total: 2, dirs_done: 0, files_total: 2, files_done: 0, llm_calls: 0 },
});

describe('connecting the stores to the event stream', () => {
  it('applies every batch that arrived before a frame in one store update, and stops when disposed', () => {
    let emit: (events: EngineEvent[]) => void = () => {};
    const client = {
      transport: 'websocket',
      status: 'ready',
      problem: null,
      call: async () => ({}),
      onEvents: (listener: (events: EngineEvent[]) => void) => {
        emit = listener;
        return () => (emit = () => {});
      },
      onStatus: () => () => {},
      dispose: () => {},
    } as unknown as CairnClient;
    const stores = createStores(client);
    const frames: (() => void)[] = [];
    const dispose = connectStores(stores, { request: (callback) => frames.push(callback) });
    let updates = 0;
    stores.dag.subscribe(() => (updates += 1));

    emit([{ type: 'dag/started', root: 'ctx://resources/r/', messageId: 'm' }, dispatched('ctx://resources/r/', null)]);
    emit([dispatched('ctx://resources/r/a/', 'ctx://resources/r/')]);
    expect(frames).toHaveLength(1);
    expect(stores.dag.getState().runOrder).toEqual([]);
    frames.shift()!();
    expect(updates).toBe(1);
    expect(stores.dag.getState().children['ctx://resources/r/']).toEqual(['ctx://resources/r/a/']);

    dispose();
    emit([dispatched('ctx://resources/r/b/', 'ctx://resources/r/')]);
    frames.forEach((frame) => frame());
    expect(stores.dag.getState().dirs['ctx://resources/r/b/']).toBeUndefined();
  });

  it('shows an engine restart and what it resumes, until dismissed; a stop replaces it', () => {
    let emit: (events: EngineEvent[]) => void = () => {};
    const client = {
      transport: 'electron',
      status: 'ready',
      problem: null,
      call: async () => ({ items: [] }),
      onEvents: (listener: (events: EngineEvent[]) => void) => ((emit = listener), () => {}),
      onStatus: () => () => {},
      dispose: () => {},
    } as unknown as CairnClient;
    const stores = createStores(client);
    connectStores(stores, { request: (callback) => callback() });
    expect(stores.app.getState().engineNotice).toBeNull();
    emit([{ type: 'engine/restarted', reason: 'exit code 1', ingests: ['/home/me/notes'], summaries: [] }]);
    expect(stores.app.getState().engineNotice).toEqual({ kind: 'restarted', ingests: ['/home/me/notes'] });
    stores.app.getState().dismissEngineNotice();
    expect(stores.app.getState().engineNotice).toBeNull();
    emit([{ type: 'engine/restarted', reason: 'exit code 1', ingests: [], summaries: [] }, { type: 'engine/stopped', reason: 'exit code 1' }]);
    expect(stores.app.getState().engineNotice).toEqual({ kind: 'stopped', ingests: [] });
  });
});
