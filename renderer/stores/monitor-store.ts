/**
 * The LLM monitor: the engine's LLM stats, loaded once and then replaced by each
 * `llm/stats-changed` event (each carries the whole snapshot).
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { EngineEvent, LlmStatsView } from '../../shared/contracts/api';
import type { CairnClient } from '../api/client';

export interface MonitorState {
  stats: LlmStatsView | null;
  error: string | null;
  load(): Promise<void>;
  applyEvents(events: readonly EngineEvent[]): void;
}

export function createMonitorStore(client: Pick<CairnClient, 'call'>): StoreApi<MonitorState> {
  return createStore<MonitorState>()((set) => ({
    stats: null,
    error: null,
    async load() {
      try {
        set({ stats: await client.call('llm:stats', {}), error: null });
      } catch (error) {
        set({ error: error instanceof Error ? error.message : String(error) });
      }
    },
    applyEvents(events) {
      let latest: LlmStatsView | null = null;
      for (const event of events) if (event.type === 'llm/stats-changed') latest = event.stats;
      if (latest) set({ stats: latest, error: null });
    },
  }));
}
