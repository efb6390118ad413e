/**
 * The Electron main process, kept thin: one window, the menu, the engine in a worker thread
 * (EngineHost), IPC handlers derived from the contract, coalesced events to the window. Heavy
 * work never runs here (docs/ARCHITECTURE.md#worker-threads).
 */
import { app, BrowserWindow, Menu, safeStorage, session, shell } from 'electron';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveWorkspace } from '../host/app-paths.js';
import { connectionOf, type EngineConnection } from '../host/engine-connection.js';
import { EngineHost } from '../host/engine-host.js';
import { bundledFile } from '../lib/runtime-files.js';
import { registerAppScheme, serveRenderer } from './app-protocol.js';
import { forwardEvents, registerIpcHandlers } from './ipc.js';
import { buildMenu } from './menu.js';
import { createKeyVault, withKeyVault } from './key-vault.js';
import { APP_ORIGIN, hardenWebContents, mainWindowOptions } from './security.js';
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

let engineHost: EngineHost | null = null;
let removeHandlers: (() => void) | null = null;

function createWindow(engine: EngineConnection): BrowserWindow {
  const window = new BrowserWindow(mainWindowOptions(here('./preload.cjs')));
  const stopEvents = forwardEvents(engine, window.webContents);
  window.on('closed', stopEvents);
  window.once('ready-to-show', () => window.show());
  void window.loadURL(`${APP_ORIGIN}/index.html`);
  return window;
}

async function start(): Promise<void> {
  await app.whenReady();
  session.defaultSession.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  serveRenderer(here('../dist/renderer'));
  Menu.setApplicationMenu(buildMenu(process.platform, development));
  // The LLM API key: encrypted by the OS, decrypted here, and handed to the worker in memory.
  const vault = createKeyVault({ safeStorage, file: join(app.getPath('userData'), 'llm-key.bin'), logger });
  engineHost = await EngineHost.start({ workerUrl: bundledFile('engine.worker.js'), workerData: { workspace: resolveWorkspace(undefined), llm: await vault.workerData() }, logger });
  engineHost.onCrash((error) => logger.error(error.message));
  const engine = connectionOf(engineHost);
  removeHandlers = registerIpcHandlers(withKeyVault(engine, vault, logger), logger);
  createWindow(engine);
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
  if (quitting || !engineHost) return;
  event.preventDefault();
  quitting = true;
  removeHandlers?.();
  void engineHost.dispose().finally(() => app.quit());
});

start().catch((error: unknown) => {
  logger.error(`Cairn could not start: ${error instanceof Error ? error.message : String(error)}`);
  app.exit(1);
});
