/**
 * The search view: the query and its filters, the ranked results of the last search (one per
 * document, by relevance, as the engine shapes them: main/engine/index/rank.ts), whether the weak
 * matches are shown, and which result the keyboard is on.
 *
 * Only the latest search counts: a new one cancels the one in flight, and a response that arrives
 * after a newer search started is dropped, so results never belong to an older query than the box.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { RankedResult, SearchMode } from '../../shared/contracts/api';
import type { Scope } from '../../shared/uri';
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
  /** The last search's results, best first; the weak ones (under the floor) last. */
  results: RankedResult[];
  /** The relevance floor the results were flagged weak by, or null before a search. */
  weakBelow: number | null;
  /** Whether the weak matches are shown (they start collapsed). */
  showWeak: boolean;
  /** The parameters `results` answer, or null before the first search. */
  searched: SearchParams | null;
  ms: number | null;
  error: string | null;
  /** The result the keyboard is on, an index into `results` (among those shown); -1 for none. */
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
  /** Moves the keyboard's result by `delta`, staying within the results shown. */
  move(delta: number): void;
  setShowWeak(show: boolean): void;
  setActive(index: number): void;
  requestFocus(): void;
  clear(): void;
}

/**
 * How many results come before the weak ones. The engine ranks by score and flags results under
 * its floor as weak, so the weak ones are the tail of the list.
 */
export function strongCount(results: readonly RankedResult[]): number {
  const first = results.findIndex((result) => result.weak);
  return first === -1 ? results.length : first;
}

/** The results the list shows and the keyboard moves through: the weak ones only once asked for. */
export const shownCount = (state: Pick<SearchState, 'results' | 'showWeak'>) => (state.showWeak ? state.results.length : strongCount(state.results));

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
    results: [],
    weakBelow: null,
    showWeak: false,
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
        const { ranked, weak_below: weakBelow } = await client.call(
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
        set({ status: 'done', results: ranked, weakBelow, showWeak: false, searched: params, ms: Math.round(performance.now() - started), active: -1 });
      } catch (error) {
        if (mine !== seq) return;
        set({ status: 'failed', error: message(error), searched: params, results: [], weakBelow: null, active: -1 });
      } finally {
        if (mine === seq) inFlight = null;
      }
    },

    move(delta) {
      const { active } = get();
      const count = shownCount(get());
      if (count === 0) return;
      const from = active < 0 ? (delta > 0 ? -1 : count) : active;
      set({ active: Math.max(0, Math.min(count - 1, from + delta)) });
    },

    setShowWeak(show) {
      // Hiding the weak matches leaves the keyboard on the last strong result if it was on a weak one.
      const active = get().active;
      set({ showWeak: show });
      if (active >= shownCount(get())) set({ active: shownCount(get()) - 1 });
    },

    setActive: (index) => set({ active: index >= 0 && index < shownCount(get()) ? index : -1 }),
    requestFocus: () => set({ focusRequest: get().focusRequest + 1 }),

    clear() {
      seq += 1;
      inFlight?.controller.abort();
      inFlight = null;
      set({ status: 'idle', results: [], weakBelow: null, showWeak: false, searched: null, ms: null, error: null, active: -1 });
    },
  }));
}
