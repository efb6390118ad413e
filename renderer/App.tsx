import { useEffect } from 'react';
import { LOCALES, type Locale } from './i18n';
import { THEME_CHOICES, VIEWS, type EngineNotice, type ThemeChoice, type View } from './stores/app-store';
import { useApp, useStores } from './stores/stores-context';
import { useT } from './use-t';
import { useResolvedTheme } from './use-theme';
import { HomeView } from './features/home/HomeView';
import { ExplorerView } from './features/explorer/ExplorerView';
import { DagView } from './features/dag/DagView';
import { SearchView } from './features/search/SearchView';
import { SessionsView } from './features/sessions/SessionsView';
import { MemoriesView } from './features/memories/MemoriesView';
import { CompressView } from './features/compress/CompressView';
import { ExportView } from './features/export/ExportView';
import { MonitorView } from './features/monitor/MonitorView';
import { SettingsView } from './features/settings/SettingsView';
import { useDesktopMenu } from './features/desktop/use-desktop-host';
import './app.css';

const VIEW_LABELS = {
  home: 'nav.home',
  explorer: 'nav.explorer',
  dag: 'nav.dag',
  search: 'nav.search',
  sessions: 'nav.sessions',
  memories: 'nav.memories',
  compress: 'nav.compress',
  export: 'nav.export',
  monitor: 'nav.monitor',
  settings: 'nav.settings',
} as const satisfies Record<View, string>;

/** True when a key press is text typed into a field (Monaco types into a textarea). */
function isTyping(target: EventTarget | null): boolean {
  const element = target as HTMLElement | null;
  return Boolean(element?.closest?.('input, textarea, select, [contenteditable="true"]'));
}
const LOCALE_NAMES: Record<Locale, string> = { en: 'English', zh: '中文' };

export function App() {
  const t = useT();
  const view = useApp((s) => s.view);
  const status = useApp((s) => s.status);
  const problem = useApp((s) => s.problem);
  const transport = useApp((s) => s.transport);
  const engineNotice = useApp((s) => s.engineNotice);
  const locale = useApp((s) => s.locale);
  const themeChoice = useApp((s) => s.theme);
  const setView = useApp((s) => s.setView);
  const setTheme = useApp((s) => s.setTheme);
  const setLocale = useApp((s) => s.setLocale);
  const theme = useResolvedTheme();
  const stores = useStores();
  useDesktopMenu();

  useEffect(() => {
    document.documentElement.lang = locale === 'zh' ? 'zh-CN' : 'en';
    document.documentElement.dataset.theme = theme;
  }, [locale, theme]);

  // Alt+1 … Alt+9 and Alt+0 (the tenth) switch views from anywhere; `/` (outside a text field) goes to the search box.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key === '/' && !event.altKey && !event.ctrlKey && !event.metaKey && !isTyping(event.target)) {
        event.preventDefault();
        setView('search');
        stores.search.getState().requestFocus();
        return;
      }
      if (!event.altKey || event.ctrlKey || event.metaKey) return;
      const index = event.key === '0' ? 9 : Number(event.key) - 1;
      const target = VIEWS[index];
      if (target) {
        event.preventDefault();
        setView(target);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [setView, stores]);

  return (
    <div className="app" data-theme={theme} data-app-state={status === 'ready' ? 'ready' : status}>
      <nav className="sidebar" aria-label={t('nav.label')}>
        <div className="brand">
          <span className="brand-mark" aria-hidden="true">
            ◭
          </span>
          {t('app.title')}
        </div>
        <ul className="nav-list">
          {VIEWS.map((name: View, i) => (
            <li key={name}>
              <button
                type="button"
                className="nav-item"
                data-view={name}
                aria-current={view === name ? 'page' : undefined}
                onClick={() => setView(name)}
                title={`Alt+${(i + 1) % 10}`}
              >
                {t(VIEW_LABELS[name])}
              </button>
            </li>
          ))}
        </ul>
        <div className="sidebar-footer">
          <label className="field compact">
            <span>{t('theme.label')}</span>
            <select value={themeChoice} onChange={(e) => setTheme(e.target.value as ThemeChoice)} data-testid="theme-select">
              {THEME_CHOICES.map((choice) => (
                <option key={choice} value={choice}>
                  {t(`theme.${choice}`)}
                </option>
              ))}
            </select>
          </label>
          <label className="field compact">
            <span>{t('locale.label')}</span>
            <select value={locale} onChange={(e) => setLocale(e.target.value as Locale)} data-testid="locale-select">
              {LOCALES.map((code) => (
                <option key={code} value={code}>
                  {LOCALE_NAMES[code]}
                </option>
              ))}
            </select>
          </label>
          <div className={`connection connection-${status}`} role="status">
            <span className="dot" aria-hidden="true" />
            {status === 'ready' ? `${t('status.ready')} · ${t(`status.transport.${transport}`)}` : status === 'connecting' ? t('app.connecting') : t('app.failed')}
          </div>
        </div>
      </nav>
      <main className="content" id="main">
        {status === 'ready' || status === 'connecting' ? null : <ConnectionProblem problem={problem} status={status} />}
        {engineNotice ? <EngineNoticeBanner notice={engineNotice} /> : null}
        {view === 'home' && <HomeView />}
        {view === 'explorer' && <ExplorerView />}
        {view === 'dag' && <DagView />}
        {view === 'search' && <SearchView />}
        {view === 'sessions' && <SessionsView />}
        {view === 'memories' && <MemoriesView />}
        {view === 'compress' && <CompressView />}
        {view === 'export' && <ExportView />}
        {view === 'monitor' && <MonitorView />}
        {view === 'settings' && <SettingsView />}
      </main>
    </div>
  );
}

function ConnectionProblem({ problem, status }: { problem: string | null; status: string }) {
  const t = useT();
  const text = problem === 'no-token' ? t('app.noToken') : problem === 'version' ? t('app.version') : status === 'closed' ? t('app.closed') : t('app.failed');
  return (
    <div className="banner banner-error" role="alert">
      <span>{text}</span>
      <button type="button" onClick={() => window.location.reload()}>
        {t('app.reload')}
      </button>
    </div>
  );
}

/** The engine restarted after a crash (and what it resumes), or kept crashing and was stopped. */
function EngineNoticeBanner({ notice }: { notice: EngineNotice }) {
  const t = useT();
  const dismiss = useApp((s) => s.dismissEngineNotice);
  if (notice.kind === 'stopped') {
    return (
      <div className="banner banner-error" role="alert" data-testid="engine-notice">
        <span>{t('engine.stopped')}</span>
      </div>
    );
  }
  const text = [t('engine.restarted'), ...notice.ingests.map((source) => t('engine.resumes', { source }))].join(' ');
  return (
    <div className="banner banner-warn" role="status" data-testid="engine-notice">
      <span>{text}</span>
      <button type="button" onClick={dismiss}>
        {t('engine.dismiss')}
      </button>
    </div>
  );
}
