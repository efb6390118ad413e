/**
 * The desktop window's security settings in one place, so a test can pin them: an isolated,
 * sandboxed renderer without Node, a strict CSP, no new windows, no navigation away from the app,
 * no webviews and no permissions.
 */
import type { BrowserWindowConstructorOptions, WebContents } from 'electron';

/** The renderer is served from this origin by the `app:` protocol handler. */
export const APP_SCHEME = 'app';
export const APP_HOST = 'cairn';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;

export function appContentSecurityPolicy(): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    // React Flow and Monaco set element styles at run time; no inline script is allowed.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    // The renderer talks to the engine through the preload only.
    "connect-src 'self'",
    "worker-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "object-src 'none'",
  ].join('; ');
}

export function mainWindowOptions(preloadPath: string): BrowserWindowConstructorOptions {
  return {
    width: 1400,
    height: 900,
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
