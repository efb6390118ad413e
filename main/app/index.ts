/**
 * The Electron main process, kept thin: one window (its place kept by app-state.ts), the menu
 * (menu.ts, its clicks in menu-actions.ts), the engine in a worker thread (EngineHost, restarted
 * after a crash by EngineSupervisor), IPC handlers derived from the contract and the host's
 * pickers (host-ipc.ts), coalesced events to the window. One instance at a time: a second launch
 * hands its folder to this one, and a folder dropped on the Dock icon is ingested the same way
 * (launch.ts). A page that dies or hangs is reloaded (renderer-watch.ts).
 * Heavy work never runs here (docs/ARCHITECTURE.md#worker-threads).
 */
import { app, BrowserWindow, Menu, safeStorage, screen, session, shell } from 'electron';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveWorkspace } from '../host/app-paths.js';
import type { EngineConnection } from '../host/engine-connection.js';
import { EngineHost } from '../host/engine-host.js';
import { bundledFile } from '../lib/runtime-files.js';
import { registerAppScheme, serveRenderer } from './app-protocol.js';
import { forwardEvents, registerIpcHandlers } from './ipc.js';
import { buildMenu, RECENT_IN_MENU } from './menu.js';
import { menuActions } from './menu-actions.js';
import { nativePickers, registerHostHandlers } from './host-ipc.js';
import { findHelpDocs } from './help-docs.js';
import { DEFAULT_APP_STATE, keepWindowState, loadAppState, saveAppState, windowToRestore, type AppState } from './app-state.js';
import { IPC_MENU_CHANNEL, type MenuAction } from '../../shared/contracts/host.js';
import type { RecentIngest } from '../../shared/contracts/api.js';
import type { Locale } from '../../shared/locale.js';
import { errorMessage } from '../../shared/errors.js';
import { createKeyVault, withKeyVault } from './key-vault.js';
import { APP_ORIGIN, hardenWebContents, mainWindowOptions } from './security.js';
import { EngineSupervisor } from './engine-supervisor.js';
import { folderAt, ingestLaunchPath, launchPath, showWindow } from './launch.js';
import { watchRenderer } from './renderer-watch.js';
import type { Logger } from '../engine/ports/logger.js';

const here = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));
const development = !app.isPackaged;

const logger: Logger = {
  debug: () => {},
  info: (message, fields) => console.log(message, fields ?? ''),
  warn: (message, fields) => console.warn(message, fields ?? ''),
  error: (message, fields) => console.error(message, fields ?? ''),
};

registerAppScheme();

// Every web contents, present and future, gets the same guards.
app.on('web-contents-created', (_event, contents) => hardenWebContents(contents, (url) => void shell.openExternal(url)));

let supervisor: EngineSupervisor | null = null;
let removeHandlers: (() => void) | null = null;
let mainWindow: BrowserWindow | null = null;
let resolveEngine!: (engine: EngineConnection) => void;
/** The engine once started: a second launch that arrives earlier waits for it. */
const engineReady = new Promise<EngineConnection>((resolve) => (resolveEngine = resolve));
const appStateFile = () => join(app.getPath('userData'), 'app-state.json');
let appState: AppState | null = null;

function createWindow(engine: EngineConnection): BrowserWindow {
  appState ??= loadAppState(appStateFile(), logger);
  const restored = windowToRestore(appState, screen);
  const bounds = restored && { x: restored.x, y: restored.y, width: restored.width, height: restored.height };
  const window = new BrowserWindow(mainWindowOptions(here('./preload.cjs'), bounds));
  if (restored?.maximized) window.maximize();
  keepWindowState(window, (state) => {
    appState = { ...(appState ?? DEFAULT_APP_STATE), window: state };
    saveAppState(appStateFile(), appState, logger);
  });
  mainWindow = window;
  const stopEvents = forwardEvents(engine, window.webContents);
  const stopWatching = watchRenderer(window, { logger });
  window.on('closed', () => {
    stopEvents();
    stopWatching();
    if (mainWindow === window) mainWindow = null;
  });
  window.once('ready-to-show', () => window.show());
  void window.loadURL(`${APP_ORIGIN}/index.html`);
  return window;
}

/** A launch's folder (this one's or a second launch's), ingested and shown as any ingest. */
function ingestLaunch(argv: readonly string[], workingDirectory: string): void {
  const path = launchPath(argv, workingDirectory, process.defaultApp === true);
  if (path) void engineReady.then((engine) => ingestLaunchPath(engine, path, logger));
}

// macOS hands over a folder dropped on the Dock icon (or opened with Cairn) by `open-file`, from
// before the app is ready on: it is ingested as a launch's folder.
app.on('open-file', (event, path) => {
  event.preventDefault();
  const folder = folderAt(path);
  if (!folder) {
    logger.warn(`Cairn ingests folders; ${path} is not one`);
    return;
  }
  void engineReady.then((engine) => {
    showWindow(mainWindow ?? createWindow(engine));
    return ingestLaunchPath(engine, folder, logger);
  });
});

/** Sends a menu action to the page, opening the window first (macOS keeps the app without one). */
function sendToPage(engine: EngineConnection, action: MenuAction): void {
  const window = mainWindow ?? createWindow(engine);
  showWindow(window);
  const send = () => window.webContents.send(IPC_MENU_CHANNEL, action);
  if (window.webContents.isLoading()) window.webContents.once('did-finish-load', send);
  else send();
}

/** The menu, with File › Recent from the engine's recently ingested folders (refreshed after each ingest). */
function installMenu(engine: EngineConnection): () => void {
  const pickers = nativePickers(() => mainWindow, () => app.getPath('documents'));
  const docs = findHelpDocs([app.getAppPath(), ...(process.resourcesPath ? [join(process.resourcesPath, 'docs')] : [])]);
  const actions = menuActions({ pickers, send: (action) => sendToPage(engine, action), docs, openPath: (path) => shell.openPath(path), logger });
  // The menu is rebuilt with the last recent list when the page changes its language, and the other way round.
  let locale: Locale = 'en';
  let recent: readonly RecentIngest[] = [];
  const install = () => Menu.setApplicationMenu(buildMenu({ platform: process.platform, development, locale, recent, docs, actions }));
  const refresh = () =>
    engine.call('ingest:recent', { limit: RECENT_IN_MENU }).then(
      ({ items }) => {
        recent = items;
        install();
      },
      (error: unknown) => logger.warn(`File › Recent is not up to date: ${errorMessage(error)}`),
    );
  install();
  void refresh();
  const setLocale = (next: Locale) => {
    if (next === locale) return;
    locale = next;
    install();
  };
  const removeHostHandlers = registerHostHandlers({ pickers, setLocale }, logger);
  const unsubscribe = engine.subscribe((event) => {
    if (event.type === 'ingest/finished') void refresh();
  });
  return () => {
    unsubscribe();
    removeHostHandlers();
  };
}

async function start(): Promise<void> {
  await app.whenReady();
  session.defaultSession.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  serveRenderer(here('../dist/renderer'));
  app.setAboutPanelOptions({ applicationName: 'Cairn', applicationVersion: app.getVersion() });
  // The LLM API key: encrypted by the OS, decrypted here, and handed to each engine worker in memory.
  const vault = createKeyVault({ safeStorage, file: join(app.getPath('userData'), 'llm-key.bin'), logger });
  const workspace = resolveWorkspace(undefined);
  supervisor = await EngineSupervisor.start({
    start: async (deadThreads) =>
      EngineHost.start({ workerUrl: bundledFile('engine.worker.js'), workerData: { workspace, llm: await vault.workerData(), deadThreads }, logger }),
    logger,
  });
  const engine = withKeyVault(supervisor, vault, logger);
  const removeEngineHandlers = registerIpcHandlers(engine, logger);
  const removeMenu = installMenu(engine);
  removeHandlers = () => {
    removeEngineHandlers();
    removeMenu();
  };
  createWindow(engine);
  resolveEngine(engine);
  ingestLaunch(process.argv, process.cwd());
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) createWindow(engine);
  });
}

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});

// Quitting waits for the engine to stop in order (its outbox and indexes close cleanly).
let quitting = false;
app.on('before-quit', (event) => {
  if (quitting || !supervisor) return;
  event.preventDefault();
  quitting = true;
  removeHandlers?.();
  void supervisor.dispose().finally(() => app.quit());
});

if (app.requestSingleInstanceLock()) {
  // A second launch: this window comes to the front and takes the launch's folder.
  app.on('second-instance', (_event, argv, workingDirectory) => {
    void engineReady.then((engine) => showWindow(mainWindow ?? createWindow(engine)));
    ingestLaunch(argv, workingDirectory);
  });
  start().catch((error: unknown) => {
    logger.error(`Cairn could not start: ${error instanceof Error ? error.message : String(error)}`);
    app.exit(1);
  });
} else {
  // Cairn runs already, on the same workspace: it has been handed this launch's folder.
  app.quit();
}
