/**
 * The live DAG of directory summaries, fed by `dag/*` events.
 *
 * Progress lives in `dirs`, a map keyed by directory URI: each batch of events copies the map
 * once and replaces only the entries it touches, so a node component that selects its own entry
 * re-renders only when that entry changed. The shape of the tree (`children`) changes only when
 * a directory appears, and `topology` counts those changes: the graph view lays out and rebuilds
 * its node array on a topology change only, never on a progress tick.
 */
import { createStore, type StateCreator, type StoreApi } from 'zustand/vanilla';
import type { DagCounts, DagRunResult, EngineEvent } from '../../shared/contracts/api';
import { isWithinUri, parentUri, uriName } from '../../shared/uri';

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
  status: 'running' | 'finished' | 'failed';
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

export interface DagViewSlice {
  /** The run shown; the latest one when null. */
  activeRoot: string | null;
  collapsed: Record<string, boolean>;
  /** The subtree shown alone, or null for the whole run. */
  focus: string | null;
  selected: string | null;
  query: string;
  setActiveRoot(root: string | null): void;
  toggleCollapsed(uri: string, collapsed?: boolean): void;
  collapseAll(): void;
  expandAll(): void;
  setFocus(uri: string | null): void;
  select(uri: string | null): void;
  setQuery(query: string): void;
  /** Makes `uri` visible (expands its ancestors, leaves a focus that hides it) and selects it. */
  reveal(uri: string): void;
}

export type DagState = DagProgressSlice & DagViewSlice;

const zeroCounts: DagCounts = { dirs_total: 0, dirs_done: 0, files_total: 0, files_done: 0, llm_calls: 0 };

function newDir(uri: string, parent: string | null, root: string): DirProgress {
  return { uri, name: uriName(uri), parent, root, state: 'dispatched', pending: 0, total: 0, dirs: 0, files: 0, reused: false, failedFiles: 0 };
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

    for (const event of events) {
      switch (event.type) {
        case 'dag/started': {
          // A new run of a root replaces what an earlier run of it left.
          const stale = Object.keys(dirs).filter((uri) => dirs[uri]?.root === event.root || isWithinUri(event.root, uri));
          if (stale.length > 0) {
            const map = writableDirs();
            const kids = writableChildren();
            for (const uri of stale) {
              delete map[uri];
              delete kids[uri];
            }
            topology += 1;
          }
          runs = { ...runs, [event.root]: { root: event.root, messageId: event.messageId, status: 'running', counts: zeroCounts } };
          runOrder = [...runOrder.filter((root) => root !== event.root), event.root];
          break;
        }
        case 'dag/finished':
          patchRun(event.root, { status: 'finished', result: event.result, counts: { ...event.result } });
          break;
        case 'dag/run-failed':
          patchRun(event.root, { status: 'failed', error: event.error });
          break;
        case 'dag/dir-dispatched': {
          const dir = dirs[event.uri] ?? addDir(event.uri, event.parent, event.root);
          patchDir(dir, { state: event.pending === 0 ? 'dispatched' : 'waiting', pending: event.pending, total: event.pending, dirs: event.dirs, files: event.files });
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
  },
});

export const createDagViewSlice: StateCreator<DagState, [], [], DagViewSlice> = (set, get) => ({
  activeRoot: null,
  collapsed: {},
  focus: null,
  selected: null,
  query: '',
  setActiveRoot: (root) => set({ activeRoot: root, focus: null, selected: null }),
  toggleCollapsed(uri, collapsed) {
    const next = collapsed ?? !get().collapsed[uri];
    const map = { ...get().collapsed };
    if (next) map[uri] = true;
    else delete map[uri];
    set({ collapsed: map });
  },
  collapseAll() {
    const { dirs, children } = get();
    const root = shownRoot(get());
    const map: Record<string, boolean> = {};
    for (const uri of Object.keys(children)) {
      if (uri !== root && (children[uri]?.length ?? 0) > 0 && dirs[uri]?.root === root) map[uri] = true;
    }
    set({ collapsed: map });
  },
  expandAll: () => set({ collapsed: {} }),
  setFocus: (uri) => set({ focus: uri }),
  select: (uri) => set({ selected: uri }),
  setQuery: (query) => set({ query }),
  reveal(uri) {
    const { dirs, collapsed, focus } = get();
    const map = { ...collapsed };
    let parent = dirs[uri]?.parent ?? null;
    while (parent !== null) {
      delete map[parent];
      parent = dirs[parent]?.parent ?? null;
    }
    set({ collapsed: map, selected: uri, focus: focus !== null && !isWithinUri(focus, uri) ? null : focus });
  },
});

export function createDagStore(): StoreApi<DagState> {
  return createStore<DagState>()((...args) => ({ ...createDagProgressSlice(...args), ...createDagViewSlice(...args) }));
}

/** The root of the run on show: the chosen one, else the latest. */
export function shownRoot(state: Pick<DagState, 'activeRoot' | 'runOrder' | 'runs'>): string | null {
  if (state.activeRoot !== null && state.runs[state.activeRoot]) return state.activeRoot;
  return state.runOrder.at(-1) ?? null;
}

export interface VisibleGraph {
  /** Visible directories, parents before children, children by name. */
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
    [...(state.children[uri] ?? [])].filter((child) => state.dirs[child]).sort((a, b) => (state.dirs[a]!.name < state.dirs[b]!.name ? -1 : state.dirs[a]!.name > state.dirs[b]!.name ? 1 : 0));
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
    const kids = [...(state.children[uri] ?? [])].sort();
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
