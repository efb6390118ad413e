/**
 * The Electron main process and preload, with `electron` mocked (the binary cannot be downloaded
 * here; docs/STACK.md#electron-cannot-run-here): the window's security settings, navigation and
 * window.open denied, IPC handlers generated from the contract that refuse invalid input and
 * foreign senders, a preload that exposes exactly one function per command and host command plus
 * onEvent and onMenu, one instance at a time (a second launch hands over its folder), a folder
 * dropped on the Dock icon ingested, the window restored where it was, and the menu installed
 * with File › Recent from the engine and View items that send the page its navigation.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { commands, type EngineEvent } from '../../shared/contracts/api.js';
import { ipcChannel } from '../../shared/contracts/wire.js';
import { CairnError } from '../../shared/errors.js';
import type { EngineConnection } from '../host/engine-connection.js';

const electron = vi.hoisted(() => {
  const handlers = new Map<string, (event: unknown, request: unknown) => Promise<unknown>>();
  const windows: {
    options: Record<string, unknown>;
    loaded: string[];
    listeners: Map<string, () => void>;
    restore: () => void;
    focus: ReturnType<typeof vi.fn>;
    maximize: ReturnType<typeof vi.fn>;
    webContents: { send: ReturnType<typeof vi.fn> };
  }[] = [];
  const appListeners = new Map<string, (...args: unknown[]) => void>();
  class BrowserWindow {
    static getAllWindows = () => windows;
    webContents = { send: vi.fn(), isDestroyed: () => false, isLoading: () => false, on: vi.fn(), once: vi.fn(), removeListener: vi.fn(), reload: vi.fn(), forcefullyCrashRenderer: vi.fn() };
    loaded: string[] = [];
    listeners = new Map<string, () => void>();
    constructor(public options: Record<string, unknown>) {
      windows.push(this);
    }
    loadURL(url: string) {
      this.loaded.push(url);
      return Promise.resolve();
    }
    on(name: string, listener: () => void) {
      this.listeners.set(name, listener);
    }
    once() {}
    removeListener() {}
    isMinimized = vi.fn(() => true);
    maximize = vi.fn();
    isMaximized = () => false;
    getNormalBounds = () => ({ x: 0, y: 0, width: 1400, height: 900 });
    restore = vi.fn();
    show = vi.fn();
    focus = vi.fn();
  }
  const paths = { userData: '' };
  return {
    handlers,
    windows,
    appListeners,
    paths,
    exposed: new Map<string, unknown>(),
    ipcRenderer: { invoke: vi.fn(async () => ({ ok: true, result: null })), on: vi.fn(), removeListener: vi.fn() },
    webUtils: { getPathForFile: vi.fn((file: { name: string }) => `/home/me/${file.name}`) },
    module: {
      app: {
        isPackaged: false,
        on: (name: string, listener: (...args: unknown[]) => void) => appListeners.set(name, listener),
        whenReady: () => Promise.resolve(),
        getPath: (name: string) => (name === 'userData' && paths.userData ? paths.userData : `/nonexistent/cairn-test-${name}`),
        getAppPath: () => '/nonexistent/cairn-test-app',
        getVersion: () => '0.1.0',
        setAboutPanelOptions: vi.fn(),
        quit: vi.fn(),
        exit: vi.fn(),
        requestSingleInstanceLock: vi.fn(() => true),
      },
      BrowserWindow,
      ipcMain: {
        handle: (channel: string, handler: (event: unknown, request: unknown) => Promise<unknown>) => handlers.set(channel, handler),
        removeHandler: (channel: string) => handlers.delete(channel),
      },
      Menu: { buildFromTemplate: (template: unknown) => ({ template }), setApplicationMenu: vi.fn() },
      dialog: { showOpenDialog: vi.fn(async () => ({ canceled: true, filePaths: [] })), showSaveDialog: vi.fn(async () => ({ canceled: true })) },
      screen: {
        getAllDisplays: () => [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }],
        getPrimaryDisplay: () => ({ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }),
      },
      protocol: { registerSchemesAsPrivileged: vi.fn(), handle: vi.fn() },
      session: { defaultSession: { setPermissionRequestHandler: vi.fn() } },
      shell: { openExternal: vi.fn() },
      safeStorage: { isEncryptionAvailable: () => false, encryptString: vi.fn(), decryptString: vi.fn() },
      net: { fetch: vi.fn() },
    },
  };
});

vi.mock('electron', () => ({
  ...electron.module,
  contextBridge: { exposeInMainWorld: (key: string, api: unknown) => electron.exposed.set(key, api) },
  ipcRenderer: electron.ipcRenderer,
  webUtils: electron.webUtils,
}));

const engineCalls = vi.hoisted(() => [] as [string, unknown][]);
const recentNotes = vi.hoisted(() => ({
  root: 'ctx://resources/notes/',
  scope: 'resources',
  name: 'notes',
  source: '/home/me/notes',
  kind: 'dir' as const,
  at: '2026-12-01T10:00:00.000Z',
  files: 3,
  state: 'summarized',
}));
vi.mock('../host/engine-host.js', () => ({
  EngineHost: {
    start: vi.fn(async () => ({
      threadId: 1,
      call: vi.fn(async (command: string, request: unknown) => {
        engineCalls.push([command, request]);
        if (command === 'ingest:recent') return { items: [recentNotes] };
        return { uri: 'ctx://resources/', entries: [] };
      }),
      onEvent: () => () => {},
      onCrash: () => () => {},
      dispose: async () => {},
    })),
  },
}));

const { hardenWebContents, mainWindowOptions } = await import('./security.js');
const { registerIpcHandlers, forwardEvents, COMMAND_NAMES } = await import('./ipc.js');
const { rendererFileFor } = await import('./app-protocol.js');
const { HOST_COMMAND_NAMES, IPC_MENU_CHANNEL } = await import('../../shared/contracts/host.js');
const { silentLogger } = await import('../engine/ports/logger.js');

const fromApp = { senderFrame: { url: 'app://cairn/index.html' } };

// The window's place from a previous run: partly off the only display, wider than it, maximized.
const userData = mkdtempSync(join(tmpdir(), 'cairn-user-data-'));
electron.paths.userData = userData;
writeFileSync(join(userData, 'app-state.json'), JSON.stringify({ version: 1, window: { x: -3000, y: 50, width: 2400, height: 800, maximized: true } }));
// And a folder named on the first launch's command line (restored once the app has read it).
const launchFolder = mkdtempSync(join(tmpdir(), 'cairn-first-launch-'));
const launchArgv = process.argv;
process.argv = [...launchArgv, launchFolder];
afterAll(() => {
  process.argv = launchArgv;
  rmSync(userData, { recursive: true, force: true });
  rmSync(launchFolder, { recursive: true, force: true });
});

type Item = { label?: string; role?: string; accelerator?: string; submenu?: Item[]; click?: () => void };
/** The menu last installed, and an item in it by its labels. */
function installedMenu(): Item[] {
  return (electron.module.Menu.setApplicationMenu.mock.lastCall![0] as { template: Item[] }).template;
}
function menuItem(...labels: string[]): Item {
  let items = installedMenu();
  let found: Item | undefined;
  for (const label of labels) {
    found = items.find((item) => item.label === label);
    if (!found) throw new Error(`no menu item ${labels.join(' › ')}`);
    items = found.submenu ?? [];
  }
  return found!;
}

function fakeEngine() {
  const calls: [string, unknown][] = [];
  const listeners = new Set<(event: EngineEvent) => void>();
  const engine: EngineConnection = {
    async call(command, request) {
      calls.push([command, request]);
      if (command === 'fs:stat') throw new CairnError('NOT_FOUND', 'ctx://resources/x does not exist');
      return { uri: 'ctx://resources/', entries: [] } as never;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  return { engine, calls, listeners };
}

beforeEach(() => electron.handlers.clear());

describe('the window', () => {
  it('is isolated, sandboxed and without Node', () => {
    const options = mainWindowOptions('/app/preload.cjs');
    expect(options.webPreferences).toMatchObject({
      preload: '/app/preload.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webSecurity: true,
      webviewTag: false,
    });
  });

  it('denies new windows and navigation away from the app', () => {
    const listeners = new Map<string, (event: { preventDefault(): void }, url?: string) => void>();
    let openHandler: ((details: { url: string }) => { action: string }) | null = null;
    const contents = {
      setWindowOpenHandler: (handler: typeof openHandler) => (openHandler = handler),
      on: (name: string, listener: (event: { preventDefault(): void }, url?: string) => void) => listeners.set(name, listener),
    };
    const openExternal = vi.fn();
    hardenWebContents(contents as never, openExternal);
    expect(openHandler!({ url: 'https://example.com' })).toEqual({ action: 'deny' });
    expect(openHandler!({ url: 'file:///etc/passwd' })).toEqual({ action: 'deny' });
    expect(openExternal).toHaveBeenCalledExactlyOnceWith('https://example.com');

    const navigate = (name: string, url: string) => {
      const event = { preventDefault: vi.fn() };
      listeners.get(name)!(event, url);
      return event.preventDefault.mock.calls.length > 0;
    };
    expect(navigate('will-navigate', 'https://evil.example/')).toBe(true);
    expect(navigate('will-navigate', 'file:///etc/passwd')).toBe(true);
    expect(navigate('will-navigate', 'app://cairn/index.html')).toBe(false);
    expect(navigate('will-redirect', 'http://127.0.0.1:1/')).toBe(true);
    expect(navigate('will-attach-webview', 'app://cairn/')).toBe(true);
  });

  it('serves only files inside the renderer folder', () => {
    expect(rendererFileFor('app://cairn/', '/r')).toBe('/r/index.html');
    expect(rendererFileFor('app://cairn/assets/a.js', '/r')).toBe('/r/assets/a.js');
    expect(rendererFileFor('app://cairn/..%2f..%2fetc/passwd', '/r')).toBeNull();
    expect(rendererFileFor('app://other/index.html', '/r')).toBeNull();
    expect(rendererFileFor('file:///r/index.html', '/r')).toBeNull();
  });
});

describe('the IPC handlers', () => {
  it('registers one handler per contract command', () => {
    const { engine } = fakeEngine();
    const remove = registerIpcHandlers(engine, silentLogger);
    expect([...electron.handlers.keys()].sort()).toEqual(Object.keys(commands).map((c) => `cairn:${c}`).sort());
    remove();
    expect(electron.handlers.size).toBe(0);
  });

  it('answers a valid call and keeps the code of an engine error', async () => {
    const { engine, calls } = fakeEngine();
    registerIpcHandlers(engine, silentLogger);
    await expect(electron.handlers.get('cairn:fs:ls')!(fromApp, { uri: 'ctx://resources/' })).resolves.toEqual({ ok: true, result: { uri: 'ctx://resources/', entries: [] } });
    expect(calls).toEqual([['fs:ls', { uri: 'ctx://resources/' }]]);
    await expect(electron.handlers.get('cairn:fs:stat')!(fromApp, { uri: 'ctx://resources/x' })).resolves.toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
  });

  it('refuses invalid input without calling the engine', async () => {
    const { engine, calls } = fakeEngine();
    registerIpcHandlers(engine, silentLogger);
    for (const [channel, request] of [
      ['cairn:fs:ls', { uri: 42 }],
      ['cairn:fs:ls', null],
      ['cairn:fs:read', { uri: 'ctx://resources/a', level: 7 }],
      ['cairn:ingest:start', { path: '' }],
      ['cairn:ingest:cancel', {}],
    ] as const) {
      const answer = (await electron.handlers.get(channel)!(fromApp, request)) as { ok: boolean; error: { code: string } };
      expect(answer).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    }
    expect(calls).toEqual([]);
  });

  it('refuses calls from any page but the app', async () => {
    const { engine, calls } = fakeEngine();
    registerIpcHandlers(engine, silentLogger);
    for (const event of [{ senderFrame: { url: 'https://evil.example/' } }, { senderFrame: null }, {}]) {
      await expect(electron.handlers.get('cairn:fs:ls')!(event, { uri: 'ctx://resources/' })).resolves.toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    }
    expect(calls).toEqual([]);
  });

  it('forwards events in coalesced batches', async () => {
    const { engine, listeners } = fakeEngine();
    const send = vi.fn();
    const stop = forwardEvents(engine, { send, isDestroyed: () => false } as never);
    for (let i = 0; i < 50; i += 1) {
      for (const listener of listeners) listener({ type: 'ingest/progressed', jobId: 'j', phase: 'scan', done: i, total: null, bytes: 0 });
    }
    await vi.waitFor(() => expect(send).toHaveBeenCalledTimes(1));
    expect(send.mock.calls[0]![0]).toBe('cairn:events');
    expect(send.mock.calls[0]![1]).toEqual([{ type: 'ingest/progressed', jobId: 'j', phase: 'scan', done: 49, total: null, bytes: 0 }]);
    stop();
    expect(listeners.size).toBe(0);
  });
});

describe('the preload', () => {
  it('exposes exactly one function per command and host command plus onEvent, onMenu and pathForFile, on the contract channels', async () => {
    await import('../preload/index.js');
    expect([...electron.exposed.keys()]).toEqual(['cairn']);
    const api = electron.exposed.get('cairn') as Record<string, unknown>;
    expect(Object.keys(api).sort()).toEqual([...COMMAND_NAMES, ...HOST_COMMAND_NAMES, 'onEvent', 'onMenu', 'pathForFile'].sort());
    // A dropped folder's path comes from Electron's webUtils, not from the File (it has no path since Electron 32).
    expect((api.pathForFile as (file: unknown) => string)({ name: 'notes' })).toBe('/home/me/notes');
    expect(electron.webUtils.getPathForFile).toHaveBeenCalledOnce();
    for (const value of Object.values(api)) expect(typeof value).toBe('function');
    expect(api).not.toHaveProperty('invoke');
    for (const command of [...COMMAND_NAMES, ...HOST_COMMAND_NAMES]) {
      await (api[command] as (request: unknown) => Promise<unknown>)({ probe: command });
      expect(electron.ipcRenderer.invoke).toHaveBeenLastCalledWith(ipcChannel(command), { probe: command });
    }
    const off = (api.onEvent as (listener: (batch: unknown[]) => void) => () => void)(() => {});
    expect(electron.ipcRenderer.on).toHaveBeenCalledWith('cairn:events', expect.any(Function));
    off();
    expect(electron.ipcRenderer.removeListener).toHaveBeenCalledWith('cairn:events', expect.any(Function));
    // Menu actions arrive on their own channel, as sent (the page validates them).
    const actions: unknown[] = [];
    const offMenu = (api.onMenu as (listener: (action: unknown) => void) => () => void)((action) => actions.push(action));
    const [channel, handler] = electron.ipcRenderer.on.mock.calls.at(-1) as unknown as [string, (event: unknown, action: unknown) => void];
    expect(channel).toBe(IPC_MENU_CHANNEL);
    handler({}, { action: 'navigate', view: 'search' });
    expect(actions).toEqual([{ action: 'navigate', view: 'search' }]);
    offMenu();
    expect(electron.ipcRenderer.removeListener).toHaveBeenLastCalledWith(IPC_MENU_CHANNEL, handler);
  });
});

describe('the main process', () => {
  // The tests above clear the handlers before each test; the menu's language handler is kept for a later one.
  let setLocale: (event: unknown, request: unknown) => Promise<unknown> = async () => undefined;
  it('opens one secure window on the app origin and registers the contract handlers', async () => {
    await import('./index.js');
    await vi.waitFor(() => expect(electron.windows).toHaveLength(1));
    expect(electron.appListeners.has('open-file')).toBe(true);
    // The folder on the first launch's command line is ingested.
    await vi.waitFor(() => expect(engineCalls.filter(([command]) => command === 'ingest:start')).toEqual([['ingest:start', { path: launchFolder, jobId: expect.any(String) }]]));
    process.argv = launchArgv;
    const [window] = electron.windows;
    expect(window!.options.webPreferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false });
    expect(String((window!.options.webPreferences as { preload: string }).preload)).toMatch(/preload\.cjs$/);
    expect(window!.loaded).toEqual(['app://cairn/index.html']);
    expect(electron.module.protocol.registerSchemesAsPrivileged).toHaveBeenCalledWith([expect.objectContaining({ scheme: 'app' })]);
    expect(electron.module.session.defaultSession.setPermissionRequestHandler).toHaveBeenCalled();
    expect([...electron.handlers.keys()].sort()).toEqual([...COMMAND_NAMES, ...HOST_COMMAND_NAMES].map((name) => ipcChannel(name)).sort());
    setLocale = electron.handlers.get('cairn:host:setLocale')!;
    expect(electron.appListeners.has('web-contents-created')).toBe(true);
    expect(electron.appListeners.has('before-quit')).toBe(true);
    // Without OS encryption no key is read or written, and the worker is told the key lives in memory.
    const { EngineHost } = await import('../host/engine-host.js');
    expect(vi.mocked(EngineHost.start).mock.calls[0]![0].workerData).toMatchObject({ llm: { keyStorage: 'memory' }, deadThreads: [] });
    expect(electron.module.safeStorage.decryptString).not.toHaveBeenCalled();
    // The page is watched: a hang or a renderer crash brings it back.
    expect(window!.listeners.has('unresponsive')).toBe(true);
  });

  it('restores the window where it was, fitted onto a display, and keeps its place when it closes', () => {
    const [window] = electron.windows;
    expect(window!.options).toMatchObject({ x: 0, y: 50, width: 1920, height: 800 });
    expect(window!.maximize).toHaveBeenCalledOnce();
    window!.listeners.get('close')!();
    expect(JSON.parse(readFileSync(join(userData, 'app-state.json'), 'utf8'))).toEqual({ version: 1, window: { x: 0, y: 0, width: 1400, height: 900, maximized: false } });
  });

  it('installs the menu: File › Recent from the engine, View items that send the page its navigation', async () => {
    await vi.waitFor(() => expect(menuItem('File', 'Recent').submenu!.map((item) => item.label)).toEqual(['/home/me/notes']));
    expect(engineCalls).toContainEqual(['ingest:recent', { limit: 10 }]);
    const [window] = electron.windows;
    const send = window!.webContents.send;
    menuItem('View', 'Search').click!();
    expect(send).toHaveBeenLastCalledWith('cairn:menu', { action: 'navigate', view: 'search' });
    menuItem('File', 'Recent', '/home/me/notes').click!();
    expect(send).toHaveBeenLastCalledWith('cairn:menu', { action: 'reingest', item: recentNotes });
    expect(electron.module.app.setAboutPanelOptions).toHaveBeenCalledWith(expect.objectContaining({ applicationName: 'Cairn', applicationVersion: '0.1.0' }));
  });

  it('relabels the menu in the page’s language, keeping File › Recent', async () => {
    await vi.waitFor(() => expect(menuItem('File', 'Recent').submenu!.map((item) => item.label)).toEqual(['/home/me/notes']));
    await expect(setLocale(fromApp, { locale: 'zh' })).resolves.toEqual({ ok: true, result: null });
    expect(menuItem('文件', '最近').submenu!.map((item) => item.label)).toEqual(['/home/me/notes']);
    expect(menuItem('视图', '搜索').accelerator).toBe('Alt+4');
    await setLocale(fromApp, { locale: 'en' });
    expect(menuItem('View', 'Search').accelerator).toBe('Alt+4');
  });

  it('ingests a folder dropped on the Dock icon (open-file), and leaves a file alone', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'cairn-open-file-'));
    try {
      const ingests = () => engineCalls.filter(([command]) => command === 'ingest:start');
      const before = ingests().length;
      const event = { preventDefault: vi.fn() };
      electron.appListeners.get('open-file')!(event, folder);
      expect(event.preventDefault).toHaveBeenCalled();
      await vi.waitFor(() => expect(ingests().slice(before)).toEqual([['ingest:start', { path: folder, jobId: expect.any(String) }]]));
      writeFileSync(join(folder, 'notes.md'), '# Notes\n');
      electron.appListeners.get('open-file')!({ preventDefault: vi.fn() }, join(folder, 'notes.md'));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(ingests().length).toBe(before + 1);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('holds the single-instance lock, and a second launch focuses the window and ingests its folder', async () => {
    expect(electron.module.app.requestSingleInstanceLock).toHaveBeenCalledOnce();
    const folder = mkdtempSync(join(tmpdir(), 'cairn-second-launch-'));
    const ingests = () => engineCalls.filter(([command]) => command === 'ingest:start');
    const before = ingests().length;
    const [window] = electron.windows;
    const focused = window!.focus.mock.calls.length;
    try {
      electron.appListeners.get('second-instance')!({}, ['/opt/Cairn/cairn', '--allow-file-access-from-files', folder], '/');
      await vi.waitFor(() => expect(ingests().slice(before)).toEqual([['ingest:start', { path: folder, jobId: expect.any(String) }]]));
      expect(window!.restore).toHaveBeenCalled();
      expect(window!.focus).toHaveBeenCalledTimes(focused + 1);
      // A launch without a folder only brings the window forward.
      electron.appListeners.get('second-instance')!({}, ['/opt/Cairn/cairn'], '/');
      await vi.waitFor(() => expect(window!.focus).toHaveBeenCalledTimes(focused + 2));
      expect(ingests()).toHaveLength(before + 1);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('quits at once when another Cairn holds the lock, starting no engine', async () => {
    const { EngineHost } = await import('../host/engine-host.js');
    const starts = vi.mocked(EngineHost.start).mock.calls.length;
    electron.module.app.requestSingleInstanceLock.mockReturnValueOnce(false);
    vi.resetModules();
    await import('./index.js');
    expect(electron.module.app.quit).toHaveBeenCalled();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(vi.mocked((await import('../host/engine-host.js')).EngineHost.start).mock.calls.length).toBe(starts);
  });
});
