/** Hands the stores to the React tree; hooks select narrowly from one store each. */
import { createContext, useContext, type ReactNode } from 'react';
import { useStore } from 'zustand';
import { useShallow } from 'zustand/react/shallow';
import type { AppState } from './app-store';
import type { DagState } from './dag-store';
import type { ExplorerState } from './explorer-store';
import type { Stores } from './index';
import type { IngestState } from './ingest-store';
import type { SearchState } from './search-store';
import type { SessionsState } from './sessions-store';
import type { MemoriesState } from './memories-store';
import type { CompressState } from './compress-store';
import type { PortabilityState } from './portability-store';
import type { SettingsState } from './settings-store';
import type { MonitorState } from './monitor-store';

const StoresContext = createContext<Stores | null>(null);

export function StoresProvider({ stores, children }: { stores: Stores; children: ReactNode }) {
  return <StoresContext.Provider value={stores}>{children}</StoresContext.Provider>;
}

export function useStores(): Stores {
  const stores = useContext(StoresContext);
  if (!stores) throw new Error('Cairn: a component used the stores outside <StoresProvider>');
  return stores;
}

export const useApp = <T,>(selector: (state: AppState) => T): T => useStore(useStores().app, selector);
export const useIngest = <T,>(selector: (state: IngestState) => T): T => useStore(useStores().ingest, selector);
export const useExplorer = <T,>(selector: (state: ExplorerState) => T): T => useStore(useStores().explorer, selector);
export const useSearch = <T,>(selector: (state: SearchState) => T): T => useStore(useStores().search, selector);
export const useSessions = <T,>(selector: (state: SessionsState) => T): T => useStore(useStores().sessions, selector);
export const useMemories = <T,>(selector: (state: MemoriesState) => T): T => useStore(useStores().memories, selector);
export const useCompress = <T,>(selector: (state: CompressState) => T): T => useStore(useStores().compress, selector);
export const usePortability = <T,>(selector: (state: PortabilityState) => T): T => useStore(useStores().portability, selector);
export const useSettings = <T,>(selector: (state: SettingsState) => T): T => useStore(useStores().settings, selector);
export const useMonitor = <T,>(selector: (state: MonitorState) => T): T => useStore(useStores().monitor, selector);
export const useDag = <T,>(selector: (state: DagState) => T): T => useStore(useStores().dag, selector);
/** For selectors that build a new object or array: compares it shallowly. */
export const useDagShallow = <T,>(selector: (state: DagState) => T): T => useStore(useStores().dag, useShallow(selector));
