import { describe, expect, it } from 'vitest';
import type { DagCounts, EngineEvent } from '../../shared/contracts/api';
import { createDagStore, dirProgress, findDirs, shownRoot, visibleGraph } from './dag-store';

const R = 'ctx://resources/sample/';
const A = 'ctx://resources/sample/docs/';
const A1 = 'ctx://resources/sample/docs/zh/';
const B = 'ctx://resources/sample/src/';

let step = 0;
let dirsDone = 0;
/** Counts as the executor reports them: they only grow. */
const counts = (patch: Partial<DagCounts> = {}): DagCounts => {
  dirsDone = Math.max(dirsDone, patch.dirs_done ?? 0);
  return { dirs_total: 4, files_total: 5, files_done: step++, llm_calls: 0, ...patch, dirs_done: dirsDone };
};

/** A run as the DAG executor emits it: dispatch top-down, pending counts down, summaries bottom-up. */
function run(): EngineEvent[] {
  return [
    { type: 'dag/started', root: R, messageId: 'm1' },
    { type: 'dag/dir-dispatched', root: R, uri: R, parent: null, pending: 3, dirs: 2, files: 1, counts: counts() },
    { type: 'dag/dir-dispatched', root: R, uri: A, parent: R, pending: 2, dirs: 1, files: 1, counts: counts() },
    { type: 'dag/dir-dispatched', root: R, uri: B, parent: R, pending: 2, dirs: 0, files: 2, counts: counts() },
    { type: 'dag/dir-dispatched', root: R, uri: A1, parent: A, pending: 1, dirs: 0, files: 1, counts: counts() },
    { type: 'dag/pending-changed', root: R, uri: A1, pending: 0, counts: counts() },
    { type: 'dag/summary-started', root: R, uri: A1, children: 1, counts: counts() },
    { type: 'dag/summary-done', root: R, uri: A1, reused: false, abstract: 'Chinese docs', status: 'done', counts: counts({ dirs_done: 1 }) },
    { type: 'dag/pending-changed', root: R, uri: A, pending: 1, counts: counts() },
    { type: 'dag/pending-changed', root: R, uri: B, pending: 1, counts: counts() },
    { type: 'dag/fallback-used', root: R, uri: 'ctx://resources/sample/src/api.ts', reason: 'llm down', counts: counts() },
    { type: 'dag/failed', root: R, uri: 'ctx://resources/sample/src/uplink.go', reason: 'unreadable', counts: counts() },
  ];
}

describe('the DAG store', () => {
  it('builds the tree from dispatches and tracks pending counts and states', () => {
    dirsDone = 0;
    const store = createDagStore();
    store.getState().applyEvents(run());
    const s = store.getState();
    expect(shownRoot(s)).toBe(R);
    expect(s.runs[R]).toMatchObject({ status: 'running', counts: { dirs_done: 1 } });
    expect(s.children[R]).toEqual([A, B]);
    expect(s.children[A]).toEqual([A1]);
    expect(s.dirs[R]).toMatchObject({ name: 'sample', parent: null, state: 'waiting', pending: 3, total: 3 });
    expect(s.dirs[A1]).toMatchObject({ state: 'done', pending: 0, abstract: 'Chinese docs' });
    expect(s.dirs[A]).toMatchObject({ state: 'waiting', pending: 1, total: 2 });
    expect(dirProgress(s.dirs[A]!)).toBe(0.5);
    // A file's fallback is not a directory state; a file's failure counts on its directory.
    expect(s.dirs[B]).toMatchObject({ state: 'waiting', failedFiles: 1 });
    expect(Object.keys(s.dirs)).toHaveLength(4);
  });

  it('patches only the entries a batch touches and leaves the shape alone on progress ticks', () => {
    const store = createDagStore();
    store.getState().applyEvents(run());
    const before = store.getState();
    store.getState().applyEvents([{ type: 'dag/pending-changed', root: R, uri: A, pending: 0, counts: counts() }]);
    const after = store.getState();
    expect(after.dirs).not.toBe(before.dirs);
    expect(after.dirs[A]).not.toBe(before.dirs[A]);
    expect(after.dirs[B]).toBe(before.dirs[B]);
    expect(after.dirs[R]).toBe(before.dirs[R]);
    expect(after.children).toBe(before.children);
    expect(after.topology).toBe(before.topology);
  });

  it('finishes a run, marks fallbacks and failures, and resets when the root runs again', () => {
    const store = createDagStore();
    store.getState().applyEvents(run());
    store.getState().applyEvents([
      { type: 'dag/summary-started', root: R, uri: B, children: 1, counts: counts() },
      { type: 'dag/fallback-used', root: R, uri: B, reason: 'LLM_BAD_RESPONSE', counts: counts() },
      { type: 'dag/summary-done', root: R, uri: B, reused: false, abstract: 'code', status: 'fallback', counts: counts() },
      { type: 'dag/failed', root: R, uri: A, reason: 'every child failed', counts: counts() },
      { type: 'dag/summary-done', root: R, uri: R, reused: false, abstract: 'all', status: 'done', counts: counts({ dirs_done: 4 }) },
      {
        type: 'dag/finished',
        root: R,
        messageId: 'm1',
        result: { ...counts({ dirs_done: 4, files_done: 5 }), root: R, dirsSummarized: 3, dirsReused: 0, filesSummarized: 5, fallbacks: 1, failed: 1, tokens: 10, ms: 5 },
      },
    ]);
    let s = store.getState();
    expect(s.dirs[B]).toMatchObject({ state: 'fallback', reason: 'LLM_BAD_RESPONSE' });
    expect(s.dirs[A]).toMatchObject({ state: 'failed', reason: 'every child failed' });
    expect(s.dirs[R]!.state).toBe('done');
    expect(s.runs[R]).toMatchObject({ status: 'finished', counts: { dirs_done: 4, files_done: 5 } });

    // A second run of the same root whose directories are all current: only summary-done events, reused.
    store.getState().applyEvents([
      { type: 'dag/started', root: R, messageId: 'm2' },
      { type: 'dag/summary-done', root: R, uri: R, reused: true, abstract: 'all', counts: counts() },
    ]);
    s = store.getState();
    expect(Object.keys(s.dirs)).toEqual([R]);
    expect(s.dirs[R]).toMatchObject({ state: 'done', reused: true });
    expect(s.runs[R]!.status).toBe('running');
  });

  it('adds directories it first hears of from a resumed run, under their parent', () => {
    const store = createDagStore();
    store.getState().applyEvents([
      { type: 'dag/started', root: R, messageId: 'm3' },
      { type: 'dag/dir-dispatched', root: R, uri: R, parent: null, pending: 2, dirs: 2, files: 0, counts: counts() },
      { type: 'dag/summary-done', root: R, uri: A, reused: true, abstract: 'docs', counts: counts() },
      { type: 'dag/summary-done', root: R, uri: A1, reused: true, abstract: 'zh', counts: counts() },
    ]);
    const s = store.getState();
    expect(s.dirs[A]).toMatchObject({ parent: R, state: 'done', reused: true });
    expect(s.children[R]).toEqual([A]);
    expect(s.children[A]).toEqual([A1]);
  });

  it('shows the visible graph: collapse hides a subtree, focus shows one, find finds by name', () => {
    const store = createDagStore();
    store.getState().applyEvents(run());
    let g = visibleGraph(store.getState(), R);
    expect(g.nodes).toEqual([R, A, A1, B]);
    expect(g.edges).toHaveLength(3);

    store.getState().toggleCollapsed(A);
    g = visibleGraph(store.getState(), R);
    expect(g.nodes).toEqual([R, A, B]);
    expect(g.hidden).toEqual({ [A]: 1 });

    store.getState().setFocus(B);
    expect(visibleGraph(store.getState(), R).nodes).toEqual([B]);

    expect(findDirs(store.getState(), R, 'ZH')).toEqual([A1]);
    store.getState().reveal(A1);
    const s = store.getState();
    expect(s.collapsed[A]).toBeUndefined();
    expect(s.focus).toBeNull();
    expect(s.selected).toBe(A1);
    expect(visibleGraph(s, R).nodes).toContain(A1);

    store.getState().collapseAll();
    expect(visibleGraph(store.getState(), R).nodes).toEqual([R, A, B]);
    store.getState().expandAll();
    expect(visibleGraph(store.getState(), R).nodes).toHaveLength(4);
  });

  it('applies 5,000 directories and 50,000 ticks in well under a second per batch', () => {
    const store = createDagStore();
    const root = 'ctx://resources/big/';
    const events: EngineEvent[] = [{ type: 'dag/started', root, messageId: 'big' }];
    events.push({ type: 'dag/dir-dispatched', root, uri: root, parent: null, pending: 100, dirs: 100, files: 0, counts: counts() });
    for (let i = 0; i < 5000; i += 1) {
      const parent = i < 100 ? root : `${root}d${i % 100}/`;
      const uri = i < 100 ? `${root}d${i}/` : `${parent}e${i}/`;
      events.push({ type: 'dag/dir-dispatched', root, uri, parent, pending: 10, dirs: 0, files: 10, counts: counts() });
    }
    store.getState().applyEvents(events);
    expect(Object.keys(store.getState().dirs)).toHaveLength(5001);
    const ticks: EngineEvent[] = [];
    for (let i = 0; i < 5000; i += 1) ticks.push({ type: 'dag/pending-changed', root, uri: `${root}d${i % 100}/`, pending: 5, counts: counts() });
    const started = performance.now();
    for (let batch = 0; batch < 10; batch += 1) store.getState().applyEvents(ticks);
    expect((performance.now() - started) / 10).toBeLessThan(200);
  });
});
