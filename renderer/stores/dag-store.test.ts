import { describe, expect, it } from 'vitest';
import type { DagCounts, EngineEvent } from '../../shared/contracts/api';
import { CairnError } from '../../shared/errors';
import type { TreeNode } from '../../shared/types/node';
import type { CairnClient } from '../api/client';
import { createDagStore, dirProgress, dirsOfTree, findDirs, shownRoot, visibleGraph } from './dag-store';

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

  it('draws and finds children in natural order: 2.4.0 before 2.39.5, v9 before v10', () => {
    const root = 'ctx://resources/releases/';
    const names = ['2.39.5', 'v10', '2.4.0', 'v9', '1.5.0.1'];
    const dispatched = (uri: string, parent: string | null): EngineEvent => ({ type: 'dag/dir-dispatched', root, uri, parent, pending: 1, dirs: 0, files: 1, counts: counts() });
    const store = createDagStore();
    store.getState().applyEvents([
      { type: 'dag/started', root, messageId: 'm-releases' },
      dispatched(root, null),
      ...names.map((name) => dispatched(`${root}${name}/`, root)),
    ]);
    const natural = ['1.5.0.1', '2.4.0', '2.39.5', 'v9', 'v10'].map((name) => `${root}${name}/`);
    expect(visibleGraph(store.getState(), root).nodes).toEqual([root, ...natural]);
    expect(findDirs(store.getState(), root, '.')).toEqual(natural.slice(0, 3));
    expect(findDirs(store.getState(), root, 'v')).toEqual(natural.slice(3));
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

  it('finishes a run, marks fallbacks and failures, and keeps the picture when the root runs again', () => {
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

    // A second run of the same root that summarizes only what changed: the other directories
    // keep what they showed, since their summaries still hold.
    const topology = s.topology;
    store.getState().applyEvents([
      { type: 'dag/started', root: R, messageId: 'm2' },
      { type: 'dag/dir-dispatched', root: R, uri: B, parent: R, pending: 2, dirs: 0, files: 2, counts: counts() },
      { type: 'dag/summary-done', root: R, uri: R, reused: true, abstract: 'all', counts: counts() },
    ]);
    s = store.getState();
    expect(Object.keys(s.dirs).sort()).toEqual([R, A, A1, B].sort());
    expect(s.topology).toBe(topology);
    expect(s.dirs[R]).toMatchObject({ state: 'done', reused: true });
    expect(s.dirs[B]).toMatchObject({ state: 'waiting', pending: 2 });
    expect(s.dirs[A1]!.state).toBe('done');
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
    // Expanded on purpose (false), so a big tree's collapsed-by-default does not hide it again.
    expect(s.collapsed[A]).toBe(false);
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

/** The sample tree as `fs:tree` gives it after a finished run, one directory failed and one owed. */
function storedTree(): TreeNode {
  return {
    uri: R,
    name: 'sample',
    kind: 'dir',
    abstract: 'all',
    summary_status: 'done',
    children: [
      {
        uri: A,
        name: 'docs',
        kind: 'dir',
        summary_status: 'fallback',
        summary_reason: 'fallback',
        children: [
          { uri: A1, name: 'zh', kind: 'dir', summary_status: 'owed', children: [{ uri: `${A1}a.md`, name: 'a.md', kind: 'file', summary_status: 'owed' }] },
          { uri: `${A}b.md`, name: 'b.md', kind: 'file', summary_status: 'done' },
        ],
      },
      { uri: B, name: 'src', kind: 'dir', summary_status: 'failed', summary_reason: 'every child failed', children: [{ uri: `${B}x.go`, name: 'x.go', kind: 'file', summary_status: 'failed' }] },
      { uri: `${R}README.md`, name: 'README.md', kind: 'file', summary_status: 'done' },
    ],
  };
}

function workspaceClient(trees: Record<string, TreeNode>, updated: Record<string, string>): { client: Pick<CairnClient, 'call'>; calls: string[] } {
  const calls: string[] = [];
  const client = {
    call: async (command: string, request: { uri: string }) => {
      calls.push(`${command} ${request.uri}`);
      if (command === 'fs:ls') {
        const entries = Object.keys(trees)
          .filter((root) => root.startsWith(request.uri))
          .map((root) => ({ uri: root, name: root, kind: 'dir' }));
        if (entries.length === 0) throw new CairnError('NOT_FOUND', `${request.uri} does not exist`);
        return { uri: request.uri, entries };
      }
      if (command === 'fs:stat') return { uri: request.uri, kind: 'dir', bytes: 0, has_abstract: true, has_overview: true, meta: { updated_at: updated[request.uri] } };
      if (command === 'fs:tree') return { root: trees[request.uri] };
      throw new Error(command);
    },
  } as unknown as Pick<CairnClient, 'call'>;
  return { client, calls };
}

describe('the DAG store rebuilt from the workspace', () => {
  it('turns a stored tree into directories with their states, pending counts and the run totals', () => {
    const { dirs, children, counts } = dirsOfTree(R, storedTree());
    expect(dirs.map((dir) => dir.uri)).toEqual([R, A, A1, B]);
    expect(children).toEqual({ [R]: [A, B], [A]: [A1] });
    const byUri = Object.fromEntries(dirs.map((dir) => [dir.uri, dir]));
    expect(byUri[R]).toMatchObject({ parent: null, state: 'done', pending: 0, total: 3, dirs: 2, files: 1, abstract: 'all' });
    expect(byUri[A]).toMatchObject({ parent: R, state: 'fallback', reason: 'fallback', dirs: 1, files: 1 });
    // zh still owes its summary, and so does its one file.
    expect(byUri[A1]).toMatchObject({ parent: A, state: 'waiting', pending: 1, total: 1 });
    expect(byUri[B]).toMatchObject({ state: 'failed', reason: 'every child failed', failedFiles: 1 });
    expect(counts).toEqual({ dirs_total: 4, dirs_done: 2, files_total: 4, files_done: 3, llm_calls: 0 });
  });

  it('lists the stored trees oldest first, shows the latest and loads only it', async () => {
    const other = 'ctx://agent/skills/';
    const { client, calls } = workspaceClient({ [R]: storedTree(), [other]: { uri: other, name: 'skills', kind: 'dir', summary_status: 'done' } }, { [R]: '2026-12-01T10:00:00Z', [other]: '2026-11-01T10:00:00Z' });
    const store = createDagStore(client);
    await store.getState().loadStored();
    let s = store.getState();
    expect(s.storedList).toBe('loaded');
    expect(s.runOrder).toEqual([other, R]);
    expect(shownRoot(s)).toBe(R);
    expect(s.runs[R]).toMatchObject({ status: 'stored', counts: { dirs_total: 4, dirs_done: 2 } });
    expect(s.runs[other]!.status).toBe('stored');
    expect(s.storedTrees).toEqual({ [R]: 'loaded' });
    expect(visibleGraph(s, R).nodes).toEqual([R, A, A1, B]);
    expect(s.dirs[R]!.state).toBe('done');
    // The user scope has no folder: not an error.
    expect(calls).toContain('fs:ls ctx://user/');
    expect(calls.filter((call) => call.startsWith('fs:tree'))).toEqual([`fs:tree ${R}`]);

    // Loading again does nothing; choosing the other tree loads it.
    await store.getState().loadStored();
    expect(calls.filter((call) => call.startsWith('fs:ls'))).toHaveLength(3);
    store.getState().setActiveRoot(other);
    await Promise.resolve();
    await new Promise((resolve) => setTimeout(resolve, 0));
    s = store.getState();
    expect(s.storedTrees[other]).toBe('loaded');
    expect(s.dirs[other]).toMatchObject({ state: 'done', root: other });
    // Its own entries stay: both trees are kept.
    expect(s.dirs[R]).toBeDefined();
  });

  it('keeps following live events after the rebuild, and a running run wins over a late stored picture', () => {
    const store = createDagStore();
    store.getState().applyTree(R, storedTree());
    // A new run of the tree starts: its events update the directories it reaches, the rest stay.
    store.getState().applyEvents([
      { type: 'dag/started', root: R, messageId: 'm9' },
      { type: 'dag/dir-dispatched', root: R, uri: R, parent: null, pending: 3, dirs: 2, files: 1, counts: counts() },
      { type: 'dag/dir-dispatched', root: R, uri: A, parent: R, pending: 2, dirs: 1, files: 1, counts: counts() },
    ]);
    let s = store.getState();
    expect(s.runs[R]!.status).toBe('running');
    expect(s.dirs[R]).toMatchObject({ state: 'waiting', pending: 3 });
    expect(s.dirs[B]).toMatchObject({ state: 'failed' });
    store.getState().applyEvents([{ type: 'dag/summary-done', root: R, uri: B, reused: false, abstract: 'code', status: 'done', counts: counts() }]);
    expect(store.getState().dirs[B]!.state).toBe('done');

    // A stored tree that arrives while a run is drawing only adds what the run has not reached.
    const late = createDagStore();
    late.getState().applyEvents([
      { type: 'dag/started', root: R, messageId: 'm10' },
      { type: 'dag/dir-dispatched', root: R, uri: R, parent: null, pending: 3, dirs: 2, files: 1, counts: counts() },
      { type: 'dag/dir-dispatched', root: R, uri: A, parent: R, pending: 2, dirs: 1, files: 1, counts: counts() },
    ]);
    late.getState().applyTree(R, storedTree());
    s = late.getState();
    expect(s.dirs[R]).toMatchObject({ state: 'waiting', pending: 3 });
    expect(s.dirs[B]).toMatchObject({ state: 'failed' });
    expect(s.children[R]).toEqual([A, B]);
    expect(s.runs[R]!.status).toBe('running');
  });

  it('reconciles with the workspace when a run finishes: gone directories go, unreported ones come', async () => {
    const after: TreeNode = { ...storedTree(), children: storedTree().children!.filter((child) => child.uri !== B) };
    const { client, calls } = workspaceClient({ [R]: after }, {});
    const store = createDagStore(client);
    store.getState().applyEvents(run());
    expect(store.getState().dirs[B]).toBeDefined();
    store.getState().applyEvents([
      {
        type: 'dag/finished',
        root: R,
        messageId: 'm1',
        result: { ...counts({ dirs_done: 4 }), root: R, dirsSummarized: 4, dirsReused: 0, filesSummarized: 5, fallbacks: 0, failed: 0, tokens: 0, ms: 1 },
      },
    ]);
    await new Promise((resolve) => setTimeout(resolve, 0));
    const s = store.getState();
    expect(calls).toEqual([`fs:tree ${R}`]);
    expect(s.dirs[B]).toBeUndefined();
    expect(s.children[R]).toEqual([A]);
    expect(s.dirs[R]).toMatchObject({ state: 'done', abstract: 'all' });
    // The run's own record stays: it finished, with its counts.
    expect(s.runs[R]).toMatchObject({ status: 'finished', counts: { dirs_done: 4 } });
  });

  it('shows the final state of every directory after a run whose progress events were lost', async () => {
    // The page saw the dispatches and nothing after (events dropped, a reconnect): all waiting.
    const { client } = workspaceClient({ [R]: storedTree() }, {});
    const store = createDagStore(client);
    store.getState().applyEvents(run().filter((event) => event.type === 'dag/started' || event.type === 'dag/dir-dispatched'));
    expect(Object.values(store.getState().dirs).map((dir) => dir.state)).toEqual(['waiting', 'waiting', 'waiting', 'waiting']);
    store.getState().applyEvents([{ type: 'dag/run-failed', root: R, messageId: 'm1', error: { code: 'LLM_FAILED', message: 'the model went away' } }]);
    await new Promise((resolve) => setTimeout(resolve, 0));
    const s = store.getState();
    // What the workspace holds: the summaries written before the failure.
    expect(Object.fromEntries(Object.values(s.dirs).map((dir) => [dir.uri, dir.state]))).toEqual(
      Object.fromEntries(dirsOfTree(R, storedTree()).dirs.map((dir) => [dir.uri, dir.state])),
    );
    expect(s.runs[R]).toMatchObject({ status: 'failed' });
  });

  it('drops a tree read before the run ended when the reconciling read answers first', async () => {
    const answers: ((tree: TreeNode) => void)[] = [];
    const client = { call: () => new Promise((resolve) => answers.push((tree) => resolve({ root: tree }))) } as unknown as Pick<CairnClient, 'call'>;
    const store = createDagStore(client);
    store.getState().addStoredRoots([R]);
    void store.getState().loadStoredTree(R);
    // The run starts and ends while that first read is on its way.
    store.getState().applyEvents(run());
    store.getState().applyEvents([
      {
        type: 'dag/finished',
        root: R,
        messageId: 'm1',
        result: { ...counts({ dirs_done: 4 }), root: R, dirsSummarized: 4, dirsReused: 0, filesSummarized: 5, fallbacks: 0, failed: 0, tokens: 0, ms: 1 },
      },
    ]);
    expect(answers).toHaveLength(2);
    const owed = (node: TreeNode): TreeNode => ({ ...node, summary_status: 'owed', children: node.children?.map(owed) });
    answers[1]!(storedTree());
    await new Promise((resolve) => setTimeout(resolve, 0));
    answers[0]!(owed(storedTree()));
    await new Promise((resolve) => setTimeout(resolve, 0));
    const s = store.getState();
    expect(s.dirs[R]!.state).toBe('done');
    expect(s.dirs[B]!.state).toBe('failed');
    expect(s.storedTrees[R]).toBe('loaded');
  });

  it('says why a tree could not be loaded', async () => {
    const client = { call: async () => Promise.reject(new CairnError('IO_ERROR', 'disk gone')) } as unknown as Pick<CairnClient, 'call'>;
    const store = createDagStore(client);
    await store.getState().loadStored();
    expect(store.getState()).toMatchObject({ storedList: 'failed', storedError: 'disk gone' });
  });
});
