/**
 * The page's side of the desktop host: menu actions run in the view they belong to, as that
 * view's own controls would (real stores, a client that records the engine calls), and the host
 * client validates what the preload hands it, answers a cancel as null, and in a browser offers
 * no pickers at all.
 */
import { describe, expect, it, vi } from 'vitest';
import type { RecentIngest } from '../../../shared/contracts/api';
import type { CairnBridge, WireResult } from '../../../shared/contracts/wire';
import type { CairnClient } from '../../api/client';
import { createDesktopHost } from '../../api/desktop-host';
import { createStores } from '../../stores';
import { applyMenuAction, exportFormatFor } from './menu-actions';

function recordingStores() {
  const calls: [string, unknown][] = [];
  const client = {
    transport: 'electron',
    status: 'ready',
    problem: null,
    call: async (command: string, request: unknown) => {
      calls.push([command, request]);
      throw new Error('not answered in this test');
    },
    onEvents: () => () => {},
    onStatus: () => () => {},
    localPathOf: () => null,
    dispose: () => {},
  } as unknown as CairnClient;
  return { stores: createStores(client), calls };
}

describe('a menu action in the page', () => {
  it('navigates to the view it names', async () => {
    const { stores, calls } = recordingStores();
    await applyMenuAction(stores, { action: 'navigate', view: 'memories' });
    expect(stores.app.getState().view).toBe('memories');
    expect(calls).toEqual([]);
  });

  it('File › Open Folder…: ingests the folder from Home, with Home’s form', async () => {
    const { stores, calls } = recordingStores();
    stores.ingest.getState().setForm({ scope: 'user' });
    await applyMenuAction(stores, { action: 'ingest', path: '/home/me/notes' });
    expect(stores.app.getState().view).toBe('home');
    expect(stores.ingest.getState().form.path).toBe('/home/me/notes');
    expect(calls).toEqual([['ingest:start', expect.objectContaining({ path: '/home/me/notes', options: expect.objectContaining({ scope: 'user' }) })]]);
    // Home shows the engine's refusal where it shows any ingest's error.
    expect(stores.ingest.getState().status).toBe('failed');
  });

  it('File › Recent: ingests the folder again into its own scope', async () => {
    const { stores, calls } = recordingStores();
    const item: RecentIngest = { root: 'ctx://agent/notes/', scope: 'agent', name: 'notes', source: '/home/me/notes', kind: 'dir', at: '2026-12-01T10:00:00.000Z', files: 2, state: 'summarized' };
    await applyMenuAction(stores, { action: 'reingest', item });
    expect(stores.app.getState().view).toBe('home');
    expect(calls).toEqual([['ingest:start', expect.objectContaining({ path: '/home/me/notes', options: expect.objectContaining({ scope: 'agent' }) })]]);
  });

  it('File › Import Conversation…: imports it in Sessions', async () => {
    const { stores, calls } = recordingStores();
    await applyMenuAction(stores, { action: 'import-conversation', path: '/home/me/chat.jsonl' });
    expect(stores.app.getState().view).toBe('sessions');
    expect(calls).toEqual([['sessions:import', { path: '/home/me/chat.jsonl' }]]);
    expect(stores.sessions.getState().importStatus).toBe('failed');
  });

  it('File › Export…: exports in the format the file name says, else in the Export view’s format', async () => {
    const { stores, calls } = recordingStores();
    await applyMenuAction(stores, { action: 'export', path: '/home/me/out.jsonl' });
    expect(stores.app.getState().view).toBe('export');
    stores.portability.getState().setFormat('markdown');
    await applyMenuAction(stores, { action: 'export', path: '/home/me/export-folder' });
    expect(calls).toEqual([
      ['export:run', { format: 'jsonl', out: '/home/me/out.jsonl' }],
      ['export:run', { format: 'markdown', out: '/home/me/export-folder' }],
    ]);
    expect(exportFormatFor('/x/A.JSON', 'contextfs')).toBe('json');
  });
});

describe('the desktop host client', () => {
  function bridge(answers: Partial<Record<string, WireResult>>) {
    let menuListener: (action: unknown) => void = () => {};
    const invoked: [string, unknown][] = [];
    const command = (name: string) => async (request: unknown) => {
      invoked.push([name, request]);
      return answers[name] ?? { ok: true, result: null };
    };
    const fake = {
      'host:capabilities': command('host:capabilities'),
      'host:pickFolder': command('host:pickFolder'),
      'host:pickFile': command('host:pickFile'),
      'host:pickSavePath': command('host:pickSavePath'),
      'host:setLocale': command('host:setLocale'),
      onMenu: (listener: (action: unknown) => void) => {
        menuListener = listener;
        return () => (menuListener = () => {});
      },
    } as unknown as CairnBridge;
    return { fake, invoked, menu: (action: unknown) => menuListener(action) };
  }

  it('in a browser: no pickers, no menu, a picker answers null', async () => {
    const host = createDesktopHost({ cairn: undefined });
    await expect(host.capabilities()).resolves.toEqual({ pickers: false, menu: false });
    await expect(host.pick('host:pickFolder', {})).resolves.toBeNull();
    await expect(host.setLocale('zh')).resolves.toBeUndefined();
  });

  it('in Electron: asks the host, answers a cancel as null and a choice as its path', async () => {
    const { fake, invoked } = bridge({ 'host:capabilities': { ok: true, result: { pickers: true, menu: true } }, 'host:pickFile': { ok: true, result: '/home/me/chat.json' } });
    const host = createDesktopHost({ cairn: fake });
    await expect(host.capabilities()).resolves.toEqual({ pickers: true, menu: true });
    await expect(host.pick('host:pickFolder', { title: 'Folder' })).resolves.toBeNull();
    await expect(host.pick('host:pickFile', {})).resolves.toBe('/home/me/chat.json');
    await host.setLocale('zh');
    expect(invoked).toEqual([
      ['host:capabilities', {}],
      ['host:pickFolder', { title: 'Folder' }],
      ['host:pickFile', {}],
      ['host:setLocale', { locale: 'zh' }],
    ]);
  });

  it('refuses an answer or a menu action that does not match the contract, and keeps an error’s code', async () => {
    const { fake, menu } = bridge({
      'host:pickFolder': { ok: true, result: 42 },
      'host:pickFile': { ok: false, error: { code: 'INVALID_INPUT', message: 'Invalid host:pickFile request' } },
    });
    const host = createDesktopHost({ cairn: fake });
    await expect(host.pick('host:pickFolder', {})).rejects.toMatchObject({ code: 'INTERNAL' });
    await expect(host.pick('host:pickFile', {})).rejects.toMatchObject({ code: 'INVALID_INPUT', message: 'desktop: Invalid host:pickFile request' });
    const actions: unknown[] = [];
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const off = host.onMenu((action) => actions.push(action));
    menu({ action: 'navigate', view: 'nowhere' });
    menu({ action: 'navigate', view: 'dag' });
    off();
    menu({ action: 'navigate', view: 'home' });
    expect(actions).toEqual([{ action: 'navigate', view: 'dag' }]);
    expect(warn).toHaveBeenCalledOnce();
    warn.mockRestore();
  });
});
