/**
 * The search view: the query and its filters, the hits of the last search in the order they are
 * shown (grouped by level, then by scope), and which hit the keyboard is on.
 *
 * Only the latest search counts: a new one cancels the one in flight, and a response that arrives
 * after a newer search started is dropped, so hits never belong to an older query than the box.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { SearchHit, SearchMode } from '../../shared/contracts/api';
import { parseCtxUri, type Scope } from '../../shared/uri';
import type { CairnClient } from '../api/client';

export const SEARCH_MODES = ['hybrid', 'fts', 'vector', 'hierarchical'] as const satisfies readonly SearchMode[];
/** Scopes a person searches (`temp` is internal). */
export const SEARCH_SCOPES = ['resources', 'user', 'agent', 'session'] as const satisfies readonly Scope[];
export type ScopeFilter = 'all' | (typeof SEARCH_SCOPES)[number];
export const LEVELS = [0, 1, 2] as const;
export type Level = (typeof LEVELS)[number];
export type LevelFilter = 'all' | Level;

export interface SearchParams {
  query: string;
  mode: SearchMode;
  scope: ScopeFilter;
  level: LevelFilter;
  topK: number;
}

export interface SearchState extends SearchParams {
  status: 'idle' | 'searching' | 'done' | 'failed';
  /** The last search's hits, in the order they are shown (see `groupHits`). */
  hits: SearchHit[];
  /** The parameters `hits` answer, or null before the first search. */
  searched: SearchParams | null;
  ms: number | null;
  error: string | null;
  /** The hit the keyboard is on, an index into `hits`; -1 for none. */
  active: number;
  /** Bumped when something (the `/` key) asks for the query box to take the focus. */
  focusRequest: number;
  setQuery(query: string): void;
  setMode(mode: SearchMode): void;
  setScope(scope: ScopeFilter): void;
  setLevel(level: LevelFilter): void;
  setTopK(topK: number): void;
  /** Searches with the current parameters; does nothing when they are the ones already searched (unless `force`). */
  search(force?: boolean): Promise<void>;
  /** Moves the keyboard's hit by `delta`, staying within the list. */
  move(delta: number): void;
  setActive(index: number): void;
  requestFocus(): void;
  clear(): void;
}

export interface ScopeGroup {
  scope: string;
  /** Indices into the ordered hits. */
  hits: { hit: SearchHit; index: number }[];
}

export interface LevelGroup {
  level: Level;
  scopes: ScopeGroup[];
}

const scopeOf = (uri: string): string => {
  try {
    return parseCtxUri(uri).scope;
  } catch {
    return 'other';
  }
};

const scopeRank = (scope: string) => {
  const i = (SEARCH_SCOPES as readonly string[]).indexOf(scope);
  return i === -1 ? SEARCH_SCOPES.length : i;
};

/**
 * Groups hits by level (L0, L1, L2), then by scope (in `SEARCH_SCOPES` order), keeping the
 * engine's ranking inside each group. `index` numbers the hits in the order they are shown.
 */
export function groupHits(hits: readonly SearchHit[]): LevelGroup[] {
  const groups: LevelGroup[] = [];
  let index = 0;
  for (const level of LEVELS) {
    const atLevel = hits.filter((hit) => hit.level === level);
    if (atLevel.length === 0) continue;
    const scopes = [...new Set(atLevel.map((hit) => scopeOf(hit.uri)))].sort((a, b) => scopeRank(a) - scopeRank(b) || (a < b ? -1 : 1));
    groups.push({
      level,
      scopes: scopes.map((scope) => ({ scope, hits: atLevel.filter((hit) => scopeOf(hit.uri) === scope).map((hit) => ({ hit, index: index++ })) })),
    });
  }
  return groups;
}

/** The hits in the order `groupHits` shows them. */
export function orderHits(hits: readonly SearchHit[]): SearchHit[] {
  return groupHits(hits).flatMap((group) => group.scopes.flatMap((scope) => scope.hits.map((entry) => entry.hit)));
}

const paramsOf = (state: SearchParams): SearchParams => ({ query: state.query.trim(), mode: state.mode, scope: state.scope, level: state.level, topK: state.topK });
const sameParams = (a: SearchParams | null, b: SearchParams) =>
  a !== null && a.query === b.query && a.mode === b.mode && a.scope === b.scope && a.level === b.level && a.topK === b.topK;

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

export function createSearchStore(client: Pick<CairnClient, 'call'>): StoreApi<SearchState> {
  let seq = 0;
  let inFlight: { params: SearchParams; controller: AbortController } | null = null;

  return createStore<SearchState>()((set, get) => ({
    query: '',
    mode: 'hybrid',
    scope: 'all',
    level: 'all',
    topK: 20,
    status: 'idle',
    hits: [],
    searched: null,
    ms: null,
    error: null,
    active: -1,
    focusRequest: 0,

    setQuery: (query) => set({ query }),
    setMode: (mode) => set({ mode }),
    setScope: (scope) => set({ scope }),
    setLevel: (level) => set({ level }),
    setTopK: (topK) => set({ topK: Math.max(1, Math.min(1000, Math.round(topK))) }),

    async search(force = false) {
      const params = paramsOf(get());
      if (!params.query) {
        get().clear();
        return;
      }
      if (!force) {
        if (inFlight && sameParams(inFlight.params, params)) return;
        if (!inFlight && get().status === 'done' && sameParams(get().searched, params)) return;
      }
      inFlight?.controller.abort();
      const mine = ++seq;
      const controller = new AbortController();
      inFlight = { params, controller };
      set({ status: 'searching', error: null });
      const started = performance.now();
      try {
        const { hits } = await client.call(
          'search:query',
          {
            query: params.query,
            mode: params.mode,
            topK: params.topK,
            ...(params.scope !== 'all' ? { scope: params.scope } : {}),
            ...(params.level !== 'all' ? { level: params.level } : {}),
          },
          { signal: controller.signal },
        );
        if (mine !== seq) return;
        set({ status: 'done', hits: orderHits(hits), searched: params, ms: Math.round(performance.now() - started), active: -1 });
      } catch (error) {
        if (mine !== seq) return;
        set({ status: 'failed', error: message(error), searched: params, hits: [], active: -1 });
      } finally {
        if (mine === seq) inFlight = null;
      }
    },

    move(delta) {
      const { hits, active } = get();
      if (hits.length === 0) return;
      const from = active < 0 ? (delta > 0 ? -1 : hits.length) : active;
      set({ active: Math.max(0, Math.min(hits.length - 1, from + delta)) });
    },

    setActive: (index) => set({ active: index >= 0 && index < get().hits.length ? index : -1 }),
    requestFocus: () => set({ focusRequest: get().focusRequest + 1 }),

    clear() {
      seq += 1;
      inFlight?.controller.abort();
      inFlight = null;
      set({ status: 'idle', hits: [], searched: null, ms: null, error: null, active: -1 });
    },
  }));
}
