/**
 * The app shell's state: which view is shown, theme and language preferences, the state of
 * the connection to the engine, and the notice of an engine restart (`engine/*` events). Preferences are read and saved in `init()`, never in the
 * initializer, so a test can build the store without any storage.
 */
import { createStore, type StateCreator, type StoreApi } from 'zustand/vanilla';
import type { EngineEvent } from '../../shared/contracts/api';
import type { CairnClient, ClientStatus } from '../api/client';
import { LOCALES, type Locale } from '../i18n';
import type { View } from '../../shared/contracts/host';

// The views are named in the contract: the desktop menu goes to them too (shared/contracts/host.ts).
export { VIEWS, type View } from '../../shared/contracts/host';
export const THEME_CHOICES = ['system', 'light', 'dark'] as const;
export type ThemeChoice = (typeof THEME_CHOICES)[number];

export interface PrefsSlice {
  theme: ThemeChoice;
  locale: Locale;
  setTheme(theme: ThemeChoice): void;
  setLocale(locale: Locale): void;
}

export interface NavSlice {
  view: View;
  /** A node another view asked the explorer to show. */
  explorerTarget: string | null;
  setView(view: View): void;
  openInExplorer(uri: string): void;
  clearExplorerTarget(): void;
}

export interface ConnectionSlice {
  status: ClientStatus;
  problem: string | null;
  transport: CairnClient['transport'];
  /** Where a dropped file or folder lives on disk, when the client can tell (Electron). */
  localPathOf(file: File): string | null;
}

/** The desktop host restarted the engine after a crash (the ingests it resumed), or stopped it. */
export interface EngineNotice {
  kind: 'restarted' | 'stopped';
  ingests: string[];
}

export interface EngineNoticeSlice {
  engineNotice: EngineNotice | null;
  dismissEngineNotice(): void;
  applyEvents(events: readonly EngineEvent[]): void;
}

export const createEngineNoticeSlice: StateCreator<AppState, [], [], EngineNoticeSlice> = (set, get) => ({
  engineNotice: null,
  dismissEngineNotice: () => set({ engineNotice: null }),
  applyEvents(events) {
    let notice = get().engineNotice;
    for (const event of events) {
      if (event.type === 'engine/restarted') notice = { kind: 'restarted', ingests: event.ingests };
      // Once stopped, it stays stopped: nothing restarts it but the app.
      else if (event.type === 'engine/stopped') notice = { kind: 'stopped', ingests: [] };
    }
    if (notice !== get().engineNotice) set({ engineNotice: notice });
  },
});

export type AppState = PrefsSlice &
  NavSlice &
  ConnectionSlice &
  EngineNoticeSlice & {
    /** Loads saved preferences, saves changes, follows the client's status; returns dispose. */
    init(storage: Pick<Storage, 'getItem' | 'setItem'> | null): () => void;
  };

export const createPrefsSlice =
  (initialLocale: Locale): StateCreator<AppState, [], [], PrefsSlice> =>
  (set) => ({
    theme: 'system',
    locale: initialLocale,
    setTheme: (theme) => set({ theme }),
    setLocale: (locale) => set({ locale }),
  });

export const createNavSlice: StateCreator<AppState, [], [], NavSlice> = (set) => ({
  view: 'home',
  explorerTarget: null,
  setView: (view) => set({ view }),
  openInExplorer: (uri) => set({ view: 'explorer', explorerTarget: uri }),
  clearExplorerTarget: () => set({ explorerTarget: null }),
});

const THEME_KEY = 'cairn.theme';
const LOCALE_KEY = 'cairn.locale';

export function createAppStore(client: CairnClient, initialLocale: Locale = 'en'): StoreApi<AppState> {
  return createStore<AppState>()((set, get, api) => ({
    ...createPrefsSlice(initialLocale)(set, get, api),
    ...createNavSlice(set, get, api),
    ...createEngineNoticeSlice(set, get, api),
    status: client.status,
    problem: client.problem,
    transport: client.transport,
    localPathOf: (file) => client.localPathOf(file),
    init(storage) {
      const theme = storage?.getItem(THEME_KEY);
      const locale = storage?.getItem(LOCALE_KEY);
      if ((THEME_CHOICES as readonly string[]).includes(theme ?? '')) set({ theme: theme as ThemeChoice });
      if ((LOCALES as readonly string[]).includes(locale ?? '')) set({ locale: locale as Locale });
      const unsubscribePrefs = api.subscribe((state, previous) => {
        if (state.theme !== previous.theme) storage?.setItem(THEME_KEY, state.theme);
        if (state.locale !== previous.locale) storage?.setItem(LOCALE_KEY, state.locale);
      });
      const unsubscribeStatus = client.onStatus((status) => set({ status, problem: client.problem }));
      set({ status: client.status, problem: client.problem });
      return () => {
        unsubscribePrefs();
        unsubscribeStatus();
      };
    },
  }));
}
