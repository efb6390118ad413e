/**
 * The explorer: a lazily loaded `ctx://` tree (each directory is listed with `fs:ls` when it is
 * first opened), the selected node, and that node's stat, L0, L1 and L2.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { EngineEvent } from '../../shared/contracts/api';
import { CairnError } from '../../shared/errors';
import type { NodeEntry, NodeStat } from '../../shared/types/node';
import { isDirectoryUri, parentUri, parseCtxUri, scopeRootUri, type IngestScope } from '../../shared/uri';
import type { CairnClient } from '../api/client';

export interface Listing {
  status: 'loading' | 'loaded' | 'failed';
  entries: NodeEntry[];
  error?: string;
}

export interface NodeDetails {
  uri: string;
  status: 'loading' | 'loaded' | 'failed';
  stat: NodeStat | null;
  abstract: string | null;
  overview: string | null;
  content: string | null;
  error?: string;
}

export interface ExplorerState {
  scope: IngestScope;
  listings: Record<string, Listing>;
  expanded: Record<string, boolean>;
  selected: string | null;
  details: NodeDetails | null;
  setScope(scope: IngestScope): Promise<void>;
  load(uri: string, force?: boolean): Promise<void>;
  toggle(uri: string, open?: boolean): Promise<void>;
  select(uri: string): Promise<void>;
  /** Opens every ancestor of `uri`, then selects it. */
  reveal(uri: string): Promise<void>;
  refresh(): Promise<void>;
  /** Keeps what is shown current while the DAG summarizes: the selected node, and every open listing once a run ends. */
  applyEvents(events: readonly EngineEvent[]): void;
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Whether a node has L2 content to show: a file, or the folder of a split document (its meta says
 * `document`), which reads at level 2 as the whole document. Other folders have none of their own.
 */
export function hasContent(stat: Pick<NodeStat, 'kind' | 'meta'>): boolean {
  return stat.kind === 'file' || stat.meta?.document === true;
}

/** The directory URIs from the scope root down to the parent of `uri`. */
export function ancestorsOf(uri: string): string[] {
  const chain: string[] = [];
  let current = parentUri(uri);
  while (current !== null) {
    chain.unshift(current);
    current = parentUri(current);
  }
  return chain;
}

export function createExplorerStore(client: CairnClient): StoreApi<ExplorerState> {
  return createStore<ExplorerState>()((set, get) => {
    const patchListing = (uri: string, listing: Listing) => set({ listings: { ...get().listings, [uri]: listing } });

    /** Loads a node's details; a quiet reload keeps the old ones on show until the new ones arrive. */
    const loadDetails = async (uri: string, quiet = false) => {
      if (!quiet) set({ details: { uri, status: 'loading', stat: null, abstract: null, overview: null, content: null } });
      try {
        const stat = await client.call('fs:stat', { uri });
        const optional = (level: 0 | 1 | 2) =>
          client.call('fs:read', { uri, level }).then(
            (read) => read.content,
            (error: unknown) => {
              if (CairnError.is(error, 'NOT_FOUND')) return null;
              throw error;
            },
          );
        const [abstract, overview, content] = await Promise.all([
          stat.has_abstract ? optional(0) : null,
          stat.has_overview ? optional(1) : null,
          hasContent(stat) ? optional(2) : null,
        ]);
        if (get().selected === uri) set({ details: { uri, status: 'loaded', stat, abstract, overview, content } });
      } catch (error) {
        if (get().selected === uri && !quiet) set({ details: { uri, status: 'failed', stat: null, abstract: null, overview: null, content: null, error: message(error) } });
      }
    };

    return {
      scope: 'resources',
      listings: {},
      expanded: {},
      selected: null,
      details: null,

      async setScope(scope) {
        set({ scope, selected: null, details: null });
        await get().load(scopeRootUri(scope));
      },

      async load(uri, force = false) {
        const existing = get().listings[uri];
        if (existing && !force && existing.status !== 'failed') return;
        patchListing(uri, { status: 'loading', entries: existing?.entries ?? [] });
        try {
          const { entries } = await client.call('fs:ls', { uri });
          patchListing(uri, { status: 'loaded', entries });
        } catch (error) {
          // A scope nothing was ingested into yet has no folder: it is empty, not broken.
          if (CairnError.is(error, 'NOT_FOUND') && parseCtxUri(uri).segments.length === 0) patchListing(uri, { status: 'loaded', entries: [] });
          else patchListing(uri, { status: 'failed', entries: [], error: message(error) });
        }
      },

      async toggle(uri, open) {
        const next = open ?? !get().expanded[uri];
        set({ expanded: { ...get().expanded, [uri]: next } });
        if (next) await get().load(uri);
      },

      async select(uri) {
        if (get().selected === uri && get().details?.status !== 'failed') return;
        set({ selected: uri });
        await loadDetails(uri);
      },

      async reveal(uri) {
        const scope = parseCtxUri(uri).scope;
        if (scope === 'resources' || scope === 'user' || scope === 'agent') set({ scope });
        const chain = isDirectoryUri(uri) ? [...ancestorsOf(uri), uri] : ancestorsOf(uri);
        const expanded = { ...get().expanded };
        for (const dir of chain) expanded[dir] = true;
        set({ expanded });
        for (const dir of chain) await get().load(dir, true);
        await get().select(uri);
      },

      async refresh() {
        const open = Object.keys(get().listings);
        await Promise.all(open.map((uri) => get().load(uri, true)));
        const selected = get().selected;
        if (selected) await loadDetails(selected, true);
      },

      applyEvents(events) {
        const selected = get().selected;
        let finished = false;
        let selectedChanged = false;
        for (const event of events) {
          if (event.type === 'dag/finished' || event.type === 'ingest/finished') finished = true;
          else if ((event.type === 'dag/summary-done' || event.type === 'dag/fallback-used') && event.uri === selected) selectedChanged = true;
        }
        if (finished) void get().refresh();
        else if (selectedChanged && selected) void loadDetails(selected, true);
      },
    };
  });
}
