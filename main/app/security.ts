/**
 * The desktop window's security settings in one place, so a test can pin them: an isolated,
 * sandboxed renderer without Node, no new windows, no navigation away from the app, no webviews
 * and no permissions. Its strict CSP is the web host's too (main/host/content-security-policy.ts).
 */
import type { BrowserWindowConstructorOptions, WebContents } from 'electron';

/** The renderer is served from this origin by the `app:` protocol handler. */
export const APP_SCHEME = 'app';
export const APP_HOST = 'cairn';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;

/** `bounds`: where the window was last (app-state.ts, already fitted onto a display); else the default size, centred. */
export function mainWindowOptions(preloadPath: string, bounds?: { x: number; y: number; width: number; height: number } | null): BrowserWindowConstructorOptions {
  return {
    width: 1400,
    height: 900,
    ...(bounds ?? {}),
    minWidth: 900,
    minHeight: 600,
    title: 'Cairn',
    show: false,
    backgroundColor: '#14181f',
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: false,
    },
  };
}

/** Whether a URL belongs to the app itself. */
export function isAppUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === `${APP_SCHEME}:` && parsed.host === APP_HOST;
  } catch {
    return false;
  }
}

/**
 * Denies every new window and every navigation away from the app. Links with http(s) targets
 * (an L1 overview may have some) open in the system browser instead, through `openExternal`.
 */
export function hardenWebContents(contents: WebContents, openExternal: (url: string) => void): void {
  contents.setWindowOpenHandler(({ url }) => {
    if (/^https?:\/\//i.test(url)) openExternal(url);
    return { action: 'deny' };
  });
  contents.on('will-navigate', (event, url) => {
    if (!isAppUrl(url)) event.preventDefault();
  });
  contents.on('will-redirect', (event, url) => {
    if (!isAppUrl(url)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
}
