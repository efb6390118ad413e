/**
 * Builds every store of the renderer around one client, and feeds them the client's events.
 * `connect()` is the only place where stores meet the event stream; it returns dispose.
 */
import type { StoreApi } from 'zustand/vanilla';
import type { CairnClient } from '../api/client';
import type { Locale } from '../i18n';
import { createAppStore, type AppState } from './app-store';
import { createDagStore, type DagState } from './dag-store';
import { createExplorerStore, type ExplorerState } from './explorer-store';
import { createIngestStore, type IngestState } from './ingest-store';

export interface Stores {
  client: CairnClient;
  app: StoreApi<AppState>;
  ingest: StoreApi<IngestState>;
  explorer: StoreApi<ExplorerState>;
  dag: StoreApi<DagState>;
}

export function createStores(client: CairnClient, locale: Locale = 'en'): Stores {
  return {
    client,
    app: createAppStore(client, locale),
    ingest: createIngestStore(client),
    explorer: createExplorerStore(client),
    dag: createDagStore(),
  };
}

/** Routes each event batch to the stores that keep it. */
export function connectStores(stores: Stores): () => void {
  return stores.client.onEvents((events) => {
    stores.ingest.getState().applyEvents(events);
    stores.dag.getState().applyEvents(events);
    stores.explorer.getState().applyEvents(events);
  });
}
