/**
 * The live DAG of directory summaries, fed by `dag/*` events, and rebuilt from what the
 * workspace already holds when the page opens (`loadStored`: the ingested trees with each
 * node's summary state, one `fs:tree` call per tree shown).
 *
 * Progress lives in `dirs`, a map keyed by directory URI: each batch of events copies the map
 * once and replaces only the entries it touches, so a node component that selects its own entry
 * re-renders only when that entry changed. The shape of the tree (`children`) changes only when
 * a directory appears, and `topology` counts those changes: the graph view lays out and rebuilds
 * its node array on a topology change only, never on a progress tick.
 */
import { createStore, type StateCreator, type StoreApi } from 'zustand/vanilla';
import type { DagCounts, DagRunResult, EngineEvent } from '../../shared/contracts/api';
import { CairnError } from '../../shared/errors';
import { compareNatural } from '../../shared/natural-sort';
import type { SummaryStatus, TreeNode } from '../../shared/types/node';
import { INGEST_SCOPES, isWithinUri, parentUri, scopeRootUri, uriName } from '../../shared/uri';
import type { CairnClient } from '../api/client';

export const DIR_STATES = ['waiting', 'dispatched', 'summarizing', 'done', 'fallback', 'failed'] as const;
export type DirState = (typeof DIR_STATES)[number];

export interface DirProgress {
  uri: string;
  name: string;
  parent: string | null;
  root: string;
  state: DirState;
  /** Children not finished yet. */
  pending: number;
  /** Children when the directory was dispatched (directories plus files). */
  total: number;
  dirs: number;
  files: number;
  /** A split document (a file of the source whose sections are its children), not a folder. */
  document: boolean;
  /** Whether an earlier run's summary was still current. */
  reused: boolean;
  abstract?: string;
  /** Why a fallback was used or the directory failed. */
  reason?: string;
  /** Files under this directory whose summary failed. */
  failedFiles: number;
}

export interface DagRun {
  root: string;
  messageId: string;
  /** `stored`: no run in this window; the states are those the workspace holds. */
  status: 'running' | 'finished' | 'failed' | 'stored';
  counts: DagCounts;
  result?: DagRunResult;
  error?: { code: string; message: string };
}

export interface DagProgressSlice {
  runs: Record<string, DagRun>;
  /** Roots in the order their latest run started. */
  runOrder: string[];
  dirs: Record<string, DirProgress>;
  /** Child directory URIs of each directory, in the order they appeared. */
  children: Record<string, string[]>;
  /** Bumped whenever a directory is added or removed. */
  topology: number;
  /** Bumped whenever some directory's state changes (not on pending-count ticks): the minimap redraws on it. */
  stateVersion: number;
  applyEvents(events: readonly EngineEvent[]): void;
}

export type LoadStatus = 'idle' | 'loading' | 'loaded' | 'failed';

export interface DagStoredSlice {
  /** Listing the workspace's trees. */
  storedList: LoadStatus;
  /** Loading each stored tree's nodes, by root. */
  storedTrees: Record<string, LoadStatus>;
  storedError: string | null;
  /** Adds trees the workspace holds as `stored` runs, oldest first, before the runs of this window. */
  addStoredRoots(roots: readonly string[]): void;
  /** Draws a tree as the workspace holds it; a tree a running run is drawing only gains the nodes it lacks. */
  applyTree(root: string, tree: TreeNode): void;
  /** Lists the workspace's trees and loads the one shown (once; `force` lists again). */
  loadStored(force?: boolean): Promise<void>;
  /** Loads a stored tree's nodes and states (once; `force` reloads). */
  loadStoredTree(root: string, force?: boolean): Promise<void>;
}

export interface DagViewSlice {
  /** The run shown; the latest one when null. */
  activeRoot: string | null;
  collapsed: Record<string, boolean>;
  /** Directories whose children beyond the first few a person asked to see (not grouped). */
  openGroups: Record<string, boolean>;
  /** The subtree shown alone, or null for the whole run. */
  focus: string | null;
  selected: string | null;
  query: string;
  setActiveRoot(root: string | null): void;
  toggleCollapsed(uri: string, collapsed?: boolean): void;
  /** Shows all children of `uri` (`open`), or groups those beyond the first few again. */
  openGroup(uri: string, open?: boolean): void;
  collapseAll(): void;
  expandAll(): void;
  setFocus(uri: string | null): void;
  select(uri: string | null): void;
  setQuery(query: string): void;
  /** Makes `uri` visible (expands its ancestors, leaves a focus that hides it) and selects it. */
  reveal(uri: string): void;
}

export type DagState = DagProgressSlice & DagStoredSlice & DagViewSlice;

const zeroCounts: DagCounts = { dirs_total: 0, dirs_done: 0, files_total: 0, files_done: 0, llm_calls: 0 };

function newDir(uri: string, parent: string | null, root: string): DirProgress {
  return { uri, name: uriName(uri), parent, root, state: 'dispatched', pending: 0, total: 0, dirs: 0, files: 0, document: false, reused: false, failedFiles: 0 };
}

export const createDagProgressSlice: StateCreator<DagState, [], [], DagProgressSlice> = (set, get) => ({
  runs: {},
  runOrder: [],
  dirs: {},
  children: {},
  topology: 0,
  stateVersion: 0,

  applyEvents(events) {
    const state = get();
    let runs = state.runs;
    let runOrder = state.runOrder;
    let dirs = state.dirs;
    let children = state.children;
    let topology = state.topology;
    let stateVersion = state.stateVersion;
    let dirsCopied = false;
    let childrenCopied = false;
    const writableDirs = () => {
      if (!dirsCopied) {
        dirs = { ...dirs };
        dirsCopied = true;
      }
      return dirs;
    };
    const writableChildren = () => {
      if (!childrenCopied) {
        children = { ...children };
        childrenCopied = true;
      }
      return children;
    };
    const patchRun = (root: string, patch: Partial<DagRun>) => {
      const run = runs[root];
      if (run) runs = { ...runs, [root]: { ...run, ...patch } };
    };
    const addDir = (uri: string, parent: string | null, root: string): DirProgress => {
      const dir = newDir(uri, parent, root);
      writableDirs()[uri] = dir;
      if (parent !== null) {
        const map = writableChildren();
        const siblings = map[parent] ?? [];
        if (!siblings.includes(uri)) map[parent] = [...siblings, uri];
      }
      topology += 1;
      return dir;
    };
    /** The directory's entry, added when a reused or resumed directory shows up without a dispatch. */
    const dirOf = (uri: string, root: string): DirProgress | null => {
      const known = dirs[uri];
      if (known) return known;
      if (!uri.endsWith('/')) return null;
      const parent = uri === root ? null : parentUri(uri);
      return addDir(uri, parent !== null && isWithinUri(root, parent) ? parent : null, root);
    };
    const patchDir = (dir: DirProgress, patch: Partial<DirProgress>) => {
      if (patch.state !== undefined && patch.state !== dir.state) stateVersion += 1;
      writableDirs()[dir.uri] = { ...dir, ...patch };
    };

    const finished: string[] = [];
    for (const event of events) {
      switch (event.type) {
        case 'dag/started': {
          // What an earlier run (or the workspace) showed stays: a new run reports only the
          // directories it summarizes again, and the others keep their summaries. The run's end
          // reconciles the picture with the workspace (see `finished` below).
          runs = { ...runs, [event.root]: { root: event.root, messageId: event.messageId, status: 'running', counts: zeroCounts } };
          runOrder = [...runOrder.filter((root) => root !== event.root), event.root];
          break;
        }
        case 'dag/finished':
          patchRun(event.root, { status: 'finished', result: event.result, counts: { ...event.result } });
          finished.push(event.root);
          break;
        case 'dag/run-failed':
          patchRun(event.root, { status: 'failed', error: event.error });
          // What did finish before the failure is in the workspace: show it as it is.
          finished.push(event.root);
          break;
        case 'dag/dir-dispatched': {
          const dir = dirs[event.uri] ?? addDir(event.uri, event.parent, event.root);
          patchDir(dir, {
            state: event.pending === 0 ? 'dispatched' : 'waiting',
            pending: event.pending,
            total: event.pending,
            dirs: event.dirs,
            files: event.files,
            document: event.document ?? dir.document,
          });
          patchRun(event.root, { counts: event.counts });
          break;
        }
        case 'dag/pending-changed': {
          const dir = dirOf(event.uri, event.root);
          if (dir) patchDir(dir, { pending: event.pending, state: dir.state === 'dispatched' || dir.state === 'waiting' ? 'waiting' : dir.state });
          patchRun(event.root, { counts: event.counts });
          break;
        }
        case 'dag/summary-started': {
          const dir = dirOf(event.uri, event.root);
          if (dir) patchDir(dir, { state: 'summarizing', pending: 0 });
          patchRun(event.root, { counts: event.counts });
          break;
        }
        case 'dag/summary-done': {
          const dir = dirOf(event.uri, event.root);
          if (dir) {
            const state: DirState = event.status === 'fallback' || dir.state === 'fallback' ? 'fallback' : 'done';
            patchDir(dir, { state, pending: 0, reused: event.reused, abstract: event.abstract });
          }
          patchRun(event.root, { counts: event.counts });
          break;
        }
        case 'dag/fallback-used': {
          const dir = event.uri.endsWith('/') ? dirOf(event.uri, event.root) : null;
          if (dir) patchDir(dir, { state: 'fallback', reason: event.reason });
          patchRun(event.root, { counts: event.counts });
          break;
        }
        case 'dag/failed': {
          if (event.uri.endsWith('/')) {
            const dir = dirOf(event.uri, event.root);
            if (dir) patchDir(dir, { state: 'failed', pending: 0, reason: event.reason });
          } else {
            const parent = parentUri(event.uri);
            const dir = parent ? dirs[parent] : undefined;
            if (dir) patchDir(dir, { failedFiles: dir.failedFiles + 1 });
          }
          patchRun(event.root, { counts: event.counts });
          break;
        }
        default:
          break;
      }
    }
    if (runs !== state.runs || runOrder !== state.runOrder || dirs !== state.dirs || children !== state.children || topology !== state.topology) {
      set({ runs, runOrder, dirs, children, topology, stateVersion: stateVersion + (topology !== state.topology ? 1 : 0) });
    }
    // A finished run's tree, as the workspace now holds it: drops directories that went away
    // and fills in those the run did not report (does nothing without a client).
    for (const root of finished) void get().loadStoredTree(root, true);
  },
});

export const createDagViewSlice: StateCreator<DagState, [], [], DagViewSlice> = (set, get) => ({
  activeRoot: null,
  collapsed: {},
  openGroups: {},
  focus: null,
  selected: null,
  query: '',
  setActiveRoot(root) {
    set({ activeRoot: root, focus: null, selected: null, collapsed: {}, openGroups: {} });
    if (root !== null && get().runs[root]?.status === 'stored') void get().loadStoredTree(root);
  },
  toggleCollapsed(uri, collapsed) {
    // `false` is kept: a person's expand wins over a big tree's collapsed-by-default
    // (renderer/features/dag/view-graph.ts), so the view passes what it shows.
    set({ collapsed: { ...get().collapsed, [uri]: collapsed ?? !get().collapsed[uri] } });
  },
  openGroup(uri, open = true) {
    const map = { ...get().openGroups };
    if (open) map[uri] = true;
    else delete map[uri];
    set({ openGroups: map });
  },
  collapseAll() {
    const { dirs, children } = get();
    const root = shownRoot(get());
    const map: Record<string, boolean> = {};
    for (const uri of Object.keys(children)) {
      if (uri !== root && (children[uri]?.length ?? 0) > 0 && dirs[uri]?.root === root) map[uri] = true;
    }
    set({ collapsed: map, openGroups: {} });
  },
  expandAll() {
    const { dirs, children } = get();
    const root = shownRoot(get());
    const map: Record<string, boolean> = {};
    for (const uri of Object.keys(children)) if ((children[uri]?.length ?? 0) > 0 && dirs[uri]?.root === root) map[uri] = false;
    set({ collapsed: map });
  },
  setFocus: (uri) => set({ focus: uri }),
  select: (uri) => set({ selected: uri }),
  setQuery: (query) => set({ query }),
  reveal(uri) {
    const { dirs, collapsed, openGroups, focus } = get();
    const map = { ...collapsed };
    const groups = { ...openGroups };
    let parent = dirs[uri]?.parent ?? null;
    while (parent !== null) {
      map[parent] = false;
      groups[parent] = true;
      parent = dirs[parent]?.parent ?? null;
    }
    set({ collapsed: map, openGroups: groups, selected: uri, focus: focus !== null && !isWithinUri(focus, uri) ? null : focus });
  },
});

/** How a node's stored summary state shows in the graph. */
export function stateOfStatus(status: SummaryStatus | undefined): DirState {
  switch (status) {
    case 'done':
      return 'done';
    case 'fallback':
      return 'fallback';
    case 'failed':
      return 'failed';
    default:
      // owed, pending, none or no meta: no summary yet, as a directory waiting on a run.
      return 'waiting';
  }
}

const FINISHED: ReadonlySet<DirState> = new Set(['done', 'fallback', 'failed']);
/** A file counts as finished unless its summary is still owed. */
const fileFinished = (status: SummaryStatus | undefined) => status !== 'owed' && status !== 'pending';

/** The directories of a stored tree as progress entries, parents first, and the run's counts. */
export function dirsOfTree(root: string, tree: TreeNode): { dirs: DirProgress[]; children: Record<string, string[]>; counts: DagCounts } {
  const dirs: DirProgress[] = [];
  const children: Record<string, string[]> = {};
  const counts: DagCounts = { dirs_total: 0, dirs_done: 0, files_total: 0, files_done: 0, llm_calls: 0 };
  const stack: { node: TreeNode; parent: string | null }[] = [{ node: tree, parent: null }];
  while (stack.length > 0) {
    const { node, parent } = stack.pop()!;
    if (node.kind !== 'dir') continue;
    const kids = node.children ?? [];
    const kidDirs = kids.filter((kid) => kid.kind === 'dir');
    const kidFiles = kids.filter((kid) => kid.kind === 'file');
    const state = stateOfStatus(node.summary_status);
    const pending = kidDirs.filter((kid) => !FINISHED.has(stateOfStatus(kid.summary_status))).length + kidFiles.filter((kid) => !fileFinished(kid.summary_status)).length;
    const dir: DirProgress = {
      uri: node.uri,
      name: node.uri === root ? uriName(root) : node.name,
      parent,
      root,
      state,
      pending: FINISHED.has(state) ? 0 : pending,
      total: kids.length,
      dirs: kidDirs.length,
      files: kidFiles.length,
      reused: false,
      document: node.document === true,
      failedFiles: kidFiles.filter((kid) => kid.summary_status === 'failed').length,
    };
    if (node.abstract) dir.abstract = node.abstract;
    if (node.summary_reason && (state === 'fallback' || state === 'failed')) dir.reason = node.summary_reason;
    dirs.push(dir);
    counts.dirs_total += 1;
    if (state === 'done' || state === 'fallback') counts.dirs_done += 1;
    counts.files_total += kidFiles.length;
    const filesDone = kidFiles.filter((kid) => fileFinished(kid.summary_status)).length;
    counts.files_done += filesDone;
    if (node.document) {
      counts.documents_total = (counts.documents_total ?? 0) + 1;
      if (state === 'done' || state === 'fallback') counts.documents_done = (counts.documents_done ?? 0) + 1;
      counts.sections_total = (counts.sections_total ?? 0) + kidFiles.length;
      counts.sections_done = (counts.sections_done ?? 0) + filesDone;
    }
    if (kidDirs.length > 0) children[node.uri] = kidDirs.map((kid) => kid.uri);
    for (let i = kidDirs.length - 1; i >= 0; i -= 1) stack.push({ node: kidDirs[i]!, parent: node.uri });
  }
  return { dirs, children, counts };
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export const createDagStoredSlice =
  (client: Pick<CairnClient, 'call'> | null): StateCreator<DagState, [], [], DagStoredSlice> =>
  (set, get) => {
    /** The latest `fs:tree` asked for each root: an older answer (read before a run ended) is dropped. */
    const latest: Record<string, number> = {};
    let requests = 0;
    return {
      storedList: 'idle',
      storedTrees: {},
      storedError: null,

      addStoredRoots(roots) {
        const state = get();
        const fresh = roots.filter((root) => !state.runs[root]);
        if (fresh.length === 0) return;
        const runs = { ...state.runs };
        for (const root of fresh) runs[root] = { root, messageId: '', status: 'stored', counts: zeroCounts };
        set({ runs, runOrder: [...fresh, ...state.runOrder.filter((root) => !fresh.includes(root))] });
      },

      applyTree(root, tree) {
        const state = get();
        const { dirs: entries, children: shape, counts } = dirsOfTree(root, tree);
        const run = state.runs[root];
        const live = run?.status === 'running';
        const dirs = { ...state.dirs };
        const children = { ...state.children };
        if (!live) {
          // The workspace's picture replaces the earlier one; a run's record (and counts) stays.
          for (const uri of Object.keys(dirs)) {
            if (dirs[uri]!.root === root) {
              delete dirs[uri];
              delete children[uri];
            }
          }
        }
        for (const dir of entries) {
          if (!live || !dirs[dir.uri]) dirs[dir.uri] = dir;
          const kids = shape[dir.uri];
          if (!kids) continue;
          const known = children[dir.uri] ?? [];
          children[dir.uri] = live ? [...known, ...kids.filter((kid) => !known.includes(kid))] : kids;
        }
        const runs = run !== undefined && run.status !== 'stored' ? state.runs : { ...state.runs, [root]: { root, messageId: '', status: 'stored' as const, counts } };
        const runOrder = state.runOrder.includes(root) ? state.runOrder : [root, ...state.runOrder];
        set({ dirs, children, runs, runOrder, topology: state.topology + 1, stateVersion: state.stateVersion + 1 });
      },

      async loadStored(force = false) {
        if (!client || get().storedList === 'loading' || (get().storedList === 'loaded' && !force)) return;
        set({ storedList: 'loading', storedError: null });
        try {
          const listed = await Promise.all(
            INGEST_SCOPES.map(async (scope) => {
              const listing = await client.call('fs:ls', { uri: scopeRootUri(scope) }).catch((error: unknown) => {
                // A scope nothing was ingested into has no folder yet.
                if (CairnError.is(error, 'NOT_FOUND')) return { entries: [] };
                throw error;
              });
              const dirs = listing.entries.filter((entry) => entry.kind === 'dir');
              const stats = await Promise.all(dirs.map((entry) => client.call('fs:stat', { uri: entry.uri }).then((stat) => stat.meta?.updated_at ?? '', () => '')));
              return dirs.map((entry, i) => ({ uri: entry.uri, updated: stats[i]! }));
            }),
          );
          const roots = listed.flat();
          roots.sort((a, b) => (a.updated < b.updated ? -1 : a.updated > b.updated ? 1 : a.uri < b.uri ? -1 : 1));
          get().addStoredRoots(roots.map((root) => root.uri));
          set({ storedList: 'loaded' });
          const shown = shownRoot(get());
          if (shown !== null && get().runs[shown]?.status === 'stored') await get().loadStoredTree(shown, force);
        } catch (error) {
          set({ storedList: 'failed', storedError: messageOf(error) });
        }
      },

      async loadStoredTree(root, force = false) {
        const status = get().storedTrees[root];
        if (!client || (!force && (status === 'loading' || status === 'loaded'))) return;
        const mine = ++requests;
        latest[root] = mine;
        set({ storedTrees: { ...get().storedTrees, [root]: 'loading' }, storedError: null });
        try {
          const { root: tree } = await client.call('fs:tree', { uri: root, depth: 64, maxChildren: 100_000 });
          if (latest[root] !== mine) return;
          get().applyTree(root, tree);
          set({ storedTrees: { ...get().storedTrees, [root]: 'loaded' } });
        } catch (error) {
          if (latest[root] !== mine) return;
          set({ storedTrees: { ...get().storedTrees, [root]: 'failed' }, storedError: messageOf(error) });
        }
      },
    };
  };

/** The DAG store; with a client it can also rebuild the view from the workspace (`loadStored`). */
export function createDagStore(client: Pick<CairnClient, 'call'> | null = null): StoreApi<DagState> {
  return createStore<DagState>()((...args) => ({ ...createDagProgressSlice(...args), ...createDagStoredSlice(client)(...args), ...createDagViewSlice(...args) }));
}

/** The root of the run on show: the chosen one, else the latest. */
export function shownRoot(state: Pick<DagState, 'activeRoot' | 'runOrder' | 'runs'>): string | null {
  if (state.activeRoot !== null && state.runs[state.activeRoot]) return state.activeRoot;
  return state.runOrder.at(-1) ?? null;
}

export interface VisibleGraph {
  /** Visible directories, parents before children, children by name in natural order. */
  nodes: string[];
  edges: { source: string; target: string }[];
  /** For each collapsed directory, how many directories it hides. */
  hidden: Record<string, number>;
}

/** The directories to draw: the run's tree (or the focused subtree) minus collapsed subtrees. */
export function visibleGraph(state: Pick<DagState, 'dirs' | 'children' | 'collapsed' | 'focus'>, root: string | null): VisibleGraph {
  const result: VisibleGraph = { nodes: [], edges: [], hidden: {} };
  const start = state.focus !== null && state.dirs[state.focus] ? state.focus : root;
  if (start === null || !state.dirs[start]) return result;
  const sortedChildren = (uri: string) =>
    [...(state.children[uri] ?? [])].filter((child) => state.dirs[child]).sort((a, b) => compareNatural(state.dirs[a]!.name, state.dirs[b]!.name));
  const countBelow = (uri: string): number => {
    let count = 0;
    const stack = [...(state.children[uri] ?? [])];
    while (stack.length > 0) {
      const next = stack.pop()!;
      count += 1;
      stack.push(...(state.children[next] ?? []));
    }
    return count;
  };
  const stack = [start];
  const seen = new Set<string>();
  while (stack.length > 0) {
    const uri = stack.pop()!;
    if (seen.has(uri)) continue;
    seen.add(uri);
    result.nodes.push(uri);
    const kids = sortedChildren(uri);
    if (state.collapsed[uri] && kids.length > 0) {
      result.hidden[uri] = countBelow(uri);
      continue;
    }
    for (const child of kids) result.edges.push({ source: uri, target: child });
    for (let i = kids.length - 1; i >= 0; i -= 1) stack.push(kids[i]!);
  }
  return result;
}

/** Directories of the run whose name contains `query` (case-insensitive), in tree order. */
export function findDirs(state: Pick<DagState, 'dirs' | 'children'>, root: string | null, query: string): string[] {
  const needle = query.trim().toLowerCase();
  if (!needle || root === null) return [];
  const matches: string[] = [];
  const stack = [root];
  while (stack.length > 0) {
    const uri = stack.pop()!;
    const dir = state.dirs[uri];
    if (!dir) continue;
    if (dir.name.toLowerCase().includes(needle)) matches.push(uri);
    const kids = [...(state.children[uri] ?? [])].sort(compareNatural);
    for (let i = kids.length - 1; i >= 0; i -= 1) stack.push(kids[i]!);
  }
  return matches;
}

/** Share of a directory's children that are finished, 0 to 1. */
export function dirProgress(dir: DirProgress): number {
  if (dir.state === 'done' || dir.state === 'fallback' || dir.state === 'summarizing' || dir.state === 'failed') return 1;
  if (dir.total === 0) return 0;
  return Math.min(1, Math.max(0, (dir.total - dir.pending) / dir.total));
}
