/**
 * The host's own commands over IPC, with `electron` mocked: the native pickers are reached only
 * by the app's page and with a valid request, a cancel answers null, a choice answers its path,
 * and a save starts in the documents folder with at most the file name the page gave.
 */
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { HOST_COMMAND_NAMES } from '../../shared/contracts/host.js';
import { silentLogger } from '../engine/ports/logger.js';

const electron = vi.hoisted(() => ({
  handlers: new Map<string, (event: unknown, request: unknown) => Promise<unknown>>(),
  dialog: {
    showOpenDialog: vi.fn(async (..._args: unknown[]) => ({ canceled: true, filePaths: [] as string[] })),
    showSaveDialog: vi.fn(async (..._args: unknown[]) => ({ canceled: true, filePath: '' })),
  },
}));

vi.mock('electron', () => ({
  dialog: electron.dialog,
  ipcMain: {
    handle: (channel: string, handler: (event: unknown, request: unknown) => Promise<unknown>) => electron.handlers.set(channel, handler),
    removeHandler: (channel: string) => electron.handlers.delete(channel),
  },
}));

const { nativePickers, registerHostHandlers } = await import('./host-ipc.js');

const fromApp = { senderFrame: { url: 'app://cairn/index.html' } };
const parent = { id: 'main-window' };
const call = (command: string, request: unknown, event: unknown = fromApp) => electron.handlers.get(`cairn:${command}`)!(event, request);

let remove: () => void = () => {};
const locales: string[] = [];
beforeEach(() => {
  remove();
  electron.dialog.showOpenDialog.mockClear();
  electron.dialog.showSaveDialog.mockClear();
  locales.length = 0;
  remove = registerHostHandlers(
    {
      pickers: nativePickers(
        () => parent as never,
        () => '/home/me/Documents',
      ),
      setLocale: (locale) => void locales.push(locale),
    },
    silentLogger,
  );
});

describe('the host commands', () => {
  it('registers one handler per host command, and removes them', () => {
    expect([...electron.handlers.keys()].sort()).toEqual(HOST_COMMAND_NAMES.map((name) => `cairn:${name}`).sort());
    remove();
    expect(electron.handlers.size).toBe(0);
    remove = () => {};
  });

  it('says the desktop has pickers and a menu', async () => {
    await expect(call('host:capabilities', {})).resolves.toEqual({ ok: true, result: { pickers: true, menu: true } });
  });

  it('answers null when the person cancels, the path when they choose one', async () => {
    await expect(call('host:pickFolder', {})).resolves.toEqual({ ok: true, result: null });
    expect(electron.dialog.showOpenDialog).toHaveBeenLastCalledWith(parent, expect.objectContaining({ properties: ['openDirectory', 'createDirectory'] }));
    electron.dialog.showOpenDialog.mockResolvedValueOnce({ canceled: false, filePaths: ['/home/me/notes'] });
    await expect(call('host:pickFolder', { title: 'Ingest a folder' })).resolves.toEqual({ ok: true, result: '/home/me/notes' });
    expect(electron.dialog.showOpenDialog).toHaveBeenLastCalledWith(parent, expect.objectContaining({ title: 'Ingest a folder' }));

    const filters = [{ name: 'Conversations', extensions: ['json', 'jsonl'] }];
    electron.dialog.showOpenDialog.mockResolvedValueOnce({ canceled: false, filePaths: ['/home/me/chat.jsonl'] });
    await expect(call('host:pickFile', { filters })).resolves.toEqual({ ok: true, result: '/home/me/chat.jsonl' });
    expect(electron.dialog.showOpenDialog).toHaveBeenLastCalledWith(parent, expect.objectContaining({ properties: ['openFile'], filters }));
    await expect(call('host:pickFile', {})).resolves.toEqual({ ok: true, result: null });
  });

  it('starts a save in the documents folder with the file name given, and answers null on a cancel', async () => {
    await expect(call('host:pickSavePath', { defaultName: 'cairn-export.json' })).resolves.toEqual({ ok: true, result: null });
    expect(electron.dialog.showSaveDialog).toHaveBeenLastCalledWith(parent, expect.objectContaining({ defaultPath: join('/home/me/Documents', 'cairn-export.json') }));
    electron.dialog.showSaveDialog.mockResolvedValueOnce({ canceled: false, filePath: '/home/me/Documents/out.jsonl' });
    await expect(call('host:pickSavePath', {})).resolves.toEqual({ ok: true, result: '/home/me/Documents/out.jsonl' });
    expect(electron.dialog.showSaveDialog).toHaveBeenLastCalledWith(parent, expect.objectContaining({ defaultPath: '/home/me/Documents' }));
  });

  it('refuses invalid requests without opening a picker', async () => {
    for (const [command, request] of [
      ['host:capabilities', { extra: true }],
      ['host:pickFolder', null],
      ['host:pickFolder', { title: 42 }],
      ['host:pickFolder', { defaultPath: '/etc' }],
      ['host:pickFile', { filters: [{ name: 'x', extensions: ['.json'] }] }],
      ['host:pickSavePath', { defaultName: '../../.bashrc' }],
      ['host:pickSavePath', { defaultName: '/etc/passwd' }],
    ] as const) {
      await expect(call(command, request)).resolves.toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    }
    expect(electron.dialog.showOpenDialog).not.toHaveBeenCalled();
    expect(electron.dialog.showSaveDialog).not.toHaveBeenCalled();
  });

  it('passes the page’s language to the menu, and refuses a language it does not have', async () => {
    await expect(call('host:setLocale', { locale: 'zh' })).resolves.toEqual({ ok: true, result: null });
    for (const request of [{ locale: 'fr' }, { locale: 'zh', extra: 1 }, {}, null]) {
      await expect(call('host:setLocale', request)).resolves.toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    }
    await expect(call('host:setLocale', { locale: 'zh' }, { senderFrame: { url: 'https://evil.example/' } })).resolves.toMatchObject({ ok: false });
    expect(locales).toEqual(['zh']);
  });

  it('refuses calls from any page but the app', async () => {
    for (const event of [{ senderFrame: { url: 'https://evil.example/' } }, { senderFrame: null }, {}]) {
      await expect(call('host:pickFolder', {}, event)).resolves.toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    }
    expect(electron.dialog.showOpenDialog).not.toHaveBeenCalled();
  });

  it('opens a picker without a parent when the app has no window', async () => {
    electron.dialog.showOpenDialog.mockResolvedValueOnce({ canceled: false, filePaths: ['/home/me/notes'] });
    await expect(nativePickers(() => null, () => '/home/me').pickFolder()).resolves.toBe('/home/me/notes');
    expect(electron.dialog.showOpenDialog.mock.lastCall).toHaveLength(1);
  });
});
