/**
 * Builds every store of the renderer around one client, and feeds them the client's events.
 * `connect()` is the only place where stores meet the event stream; it returns dispose.
 */
import type { StoreApi } from 'zustand/vanilla';
import type { EngineEvent } from '../../shared/contracts/api';
import type { CairnClient } from '../api/client';
import type { Locale } from '../i18n';
import { createAppStore, type AppState } from './app-store';
import { createDagStore, type DagState } from './dag-store';
import { createExplorerStore, type ExplorerState } from './explorer-store';
import { createIngestStore, type IngestState } from './ingest-store';
import { createSearchStore, type SearchState } from './search-store';
import { createSessionsStore, type SessionsState } from './sessions-store';
import { createMemoriesStore, type MemoriesState } from './memories-store';
import { createCompressStore, type CompressState } from './compress-store';
import { createPortabilityStore, type PortabilityState } from './portability-store';
import { createSettingsStore, type SettingsState } from './settings-store';
import { createMonitorStore, type MonitorState } from './monitor-store';

export interface Stores {
  client: CairnClient;
  app: StoreApi<AppState>;
  ingest: StoreApi<IngestState>;
  explorer: StoreApi<ExplorerState>;
  dag: StoreApi<DagState>;
  search: StoreApi<SearchState>;
  sessions: StoreApi<SessionsState>;
  memories: StoreApi<MemoriesState>;
  compress: StoreApi<CompressState>;
  portability: StoreApi<PortabilityState>;
  settings: StoreApi<SettingsState>;
  monitor: StoreApi<MonitorState>;
}

export function createStores(client: CairnClient, locale: Locale = 'en'): Stores {
  return {
    client,
    app: createAppStore(client, locale),
    ingest: createIngestStore(client),
    explorer: createExplorerStore(client),
    dag: createDagStore(client),
    search: createSearchStore(client),
    sessions: createSessionsStore(client),
    memories: createMemoriesStore(client),
    compress: createCompressStore(client),
    portability: createPortabilityStore(client),
    settings: createSettingsStore(client),
    monitor: createMonitorStore(client),
  };
}

export interface FrameScheduler {
  request(callback: () => void): void;
}

/**
 * Once per animation frame, with a timer as a fallback (a hidden window gets no frames). Used to
 * apply every batch that arrived since the last frame at once: when the page falls behind (a
 * 5,000-directory graph being rebuilt), the batches queued meanwhile cost one store update and
 * one render, not one each.
 */
export const animationFrames: FrameScheduler = {
  request(callback) {
    let done = false;
    const run = () => {
      if (done) return;
      done = true;
      cancelAnimationFrame(frame);
      clearTimeout(timer);
      callback();
    };
    const frame = requestAnimationFrame(run);
    const timer = setTimeout(run, 250);
  },
};

/** Routes the client's event batches to the stores that keep them, merged per frame; returns dispose. */
export function connectStores(stores: Stores, frames: FrameScheduler = animationFrames): () => void {
  let queued: EngineEvent[] = [];
  let scheduled = false;
  let disposed = false;
  const flush = () => {
    scheduled = false;
    if (disposed || queued.length === 0) return;
    const events = queued;
    queued = [];
    stores.app.getState().applyEvents(events);
    stores.ingest.getState().applyEvents(events);
    stores.dag.getState().applyEvents(events);
    stores.explorer.getState().applyEvents(events);
    stores.monitor.getState().applyEvents(events);
  };
  const unsubscribe = stores.client.onEvents((events) => {
    for (const event of events) queued.push(event);
    if (!scheduled) {
      scheduled = true;
      frames.request(flush);
    }
  });
  return () => {
    disposed = true;
    unsubscribe();
  };
}
