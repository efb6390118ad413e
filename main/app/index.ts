/**
 * The Electron main process, kept thin: one window, the menu, the engine in a worker thread
 * (EngineHost, restarted after a crash by EngineSupervisor), IPC handlers derived from the
 * contract, coalesced events to the window. One instance at a time: a second launch hands its
 * folder to this one (launch.ts). A page that dies or hangs is reloaded (renderer-watch.ts).
 * Heavy work never runs here (docs/ARCHITECTURE.md#worker-threads).
 */
import { app, BrowserWindow, Menu, safeStorage, session, shell } from 'electron';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveWorkspace } from '../host/app-paths.js';
import type { EngineConnection } from '../host/engine-connection.js';
import { EngineHost } from '../host/engine-host.js';
import { bundledFile } from '../lib/runtime-files.js';
import { registerAppScheme, serveRenderer } from './app-protocol.js';
import { forwardEvents, registerIpcHandlers } from './ipc.js';
import { buildMenu } from './menu.js';
import { createKeyVault, withKeyVault } from './key-vault.js';
import { APP_ORIGIN, hardenWebContents, mainWindowOptions } from './security.js';
import { EngineSupervisor } from './engine-supervisor.js';
import { ingestLaunchPath, launchPath, showWindow } from './launch.js';
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

function createWindow(engine: EngineConnection): BrowserWindow {
  const window = new BrowserWindow(mainWindowOptions(here('./preload.cjs')));
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

async function start(): Promise<void> {
  await app.whenReady();
  session.defaultSession.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  serveRenderer(here('../dist/renderer'));
  Menu.setApplicationMenu(buildMenu(process.platform, development));
  // The LLM API key: encrypted by the OS, decrypted here, and handed to each engine worker in memory.
  const vault = createKeyVault({ safeStorage, file: join(app.getPath('userData'), 'llm-key.bin'), logger });
  const workspace = resolveWorkspace(undefined);
  supervisor = await EngineSupervisor.start({
    start: async (deadThreads) =>
      EngineHost.start({ workerUrl: bundledFile('engine.worker.js'), workerData: { workspace, llm: await vault.workerData(), deadThreads }, logger }),
    logger,
  });
  const engine = withKeyVault(supervisor, vault, logger);
  removeHandlers = registerIpcHandlers(engine, logger);
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
