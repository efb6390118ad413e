/**
 * The application menu, with `electron` mocked: the items of each menu and their accelerators,
 * File › Recent from the recently ingested folders, and what a click does (menu-actions.ts: a
 * View item sends the page its navigation, a File item shows a picker and sends the chosen path,
 * a cancelled picker sends nothing). Help opens only the app's own help files (help-docs.ts).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MenuItemConstructorOptions } from 'electron';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { RecentIngest } from '../../shared/contracts/api.js';
import { MenuAction, VIEWS } from '../../shared/contracts/host.js';
import { memoryLogger } from '../engine/ports/logger.js';
import { findHelpDocs, openHelpDoc } from './help-docs.js';
import type { Pickers } from './host-ipc.js';
import { menuActions } from './menu-actions.js';
import { MENU_LABELS } from './menu-labels.js';
import { menuTemplate, type MenuActions } from './menu.js';

vi.mock('electron', () => ({ Menu: { buildFromTemplate: (template: unknown) => ({ template }) } }));

type Item = MenuItemConstructorOptions;

const recent = (source: string, scope = 'resources'): RecentIngest => ({
  root: `ctx://${scope}/${source.split('/').at(-1)}/`,
  scope,
  name: source.split('/').at(-1)!,
  source,
  kind: 'dir',
  at: '2026-12-01T10:00:00.000Z',
  files: 3,
  state: 'summarized',
});

function spyActions(): MenuActions & { calls: [string, unknown][] } {
  const calls: [string, unknown][] = [];
  const record = (name: string) => (arg?: unknown) => void calls.push([name, arg]);
  return {
    calls,
    openFolder: record('openFolder'),
    importConversation: record('importConversation'),
    exportTo: record('exportTo'),
    openRecent: record('openRecent'),
    navigate: record('navigate'),
    openDoc: record('openDoc'),
  };
}

const submenu = (template: Item[], label: string): Item[] => {
  const menu = template.find((item) => item.label === label || item.role === label);
  if (!menu) throw new Error(`no ${label} menu`);
  return menu.submenu as Item[];
};
const click = (item: Item) => (item.click as () => void)();

describe('the menu template', () => {
  const docs = [{ label: 'Cairn Documentation', file: '/app/README.md' }];

  it('File: Open Folder…, Import Conversation…, Export…, Recent and Quit, each click to its action', () => {
    const actions = spyActions();
    const file = submenu(menuTemplate({ platform: 'linux', development: false, locale: 'en', recent: [recent('/home/me/notes')], docs, actions }), 'File');
    expect(file.filter((item) => item.type !== 'separator').map((item) => item.label ?? item.role)).toEqual(['Open Folder…', 'Import Conversation…', 'Export…', 'Recent', 'quit']);
    // Ctrl+Shift+I stays the developer tools' own shortcut.
    expect(file.filter((item) => item.click).map((item) => item.accelerator)).toEqual(['CmdOrCtrl+O', 'CmdOrCtrl+I', 'CmdOrCtrl+E']);
    for (const label of ['Open Folder…', 'Import Conversation…', 'Export…']) click(file.find((item) => item.label === label)!);
    expect(actions.calls.map(([name]) => name)).toEqual(['openFolder', 'importConversation', 'exportTo']);
  });

  it('File › Recent lists the recently ingested folders (at most ten), a click ingesting one again', () => {
    const actions = spyActions();
    const folders = Array.from({ length: 12 }, (_, i) => recent(`/home/me/project-${i}`));
    const items = submenu(submenu(menuTemplate({ platform: 'linux', development: false, locale: 'en', recent: folders, docs, actions }), 'File'), 'Recent');
    expect(items.map((item) => item.label)).toEqual(folders.slice(0, 10).map((folder) => folder.source));
    click(items[2]!);
    expect(actions.calls).toEqual([['openRecent', folders[2]]]);
    // None yet: one disabled line says so.
    const empty = submenu(submenu(menuTemplate({ platform: 'linux', development: false, locale: 'en', recent: [], docs, actions }), 'File'), 'Recent');
    expect(empty).toEqual([{ label: 'No folders ingested yet', enabled: false }]);
  });

  it('View: every view of the app with its sidebar shortcut (Alt+1 … Alt+0), a click navigating there', () => {
    const actions = spyActions();
    const view = submenu(menuTemplate({ platform: 'linux', development: false, locale: 'en', recent: [], docs, actions }), 'View');
    const views = view.filter((item) => item.click);
    expect(views.map((item) => [item.label, item.accelerator])).toEqual([
      ['Home', 'Alt+1'],
      ['Explorer', 'Alt+2'],
      ['Live DAG', 'Alt+3'],
      ['Search', 'Alt+4'],
      ['Sessions', 'Alt+5'],
      ['Memories', 'Alt+6'],
      ['Compression', 'Alt+7'],
      ['Export', 'Alt+8'],
      ['LLM monitor', 'Alt+9'],
      ['Settings', 'Alt+0'],
    ]);
    for (const labels of Object.values(MENU_LABELS)) expect(Object.keys(labels.views)).toEqual([...VIEWS]);
    for (const item of views) click(item);
    expect(actions.calls).toEqual(VIEWS.map((name) => ['navigate', name]));
    expect(view.map((item) => item.role).filter(Boolean)).toEqual(['reload', 'resetZoom', 'zoomIn', 'zoomOut', 'togglefullscreen']);
  });

  it('has the developer tools only in development, Edit with the standard roles, Help with the docs and About', () => {
    const actions = spyActions();
    const development = menuTemplate({ platform: 'linux', development: true, locale: 'en', recent: [], docs, actions });
    expect(submenu(development, 'View').map((item) => item.role)).toContain('toggleDevTools');
    const packaged = menuTemplate({ platform: 'linux', development: false, locale: 'en', recent: [], docs, actions });
    expect(submenu(packaged, 'View').map((item) => item.role)).not.toContain('toggleDevTools');
    expect(packaged.map((item) => item.label ?? item.role)).toEqual(['File', 'editMenu', 'View', 'windowMenu', 'help']);
    const help = submenu(packaged, 'help');
    expect(help.map((item) => item.label ?? item.role ?? item.type)).toEqual(['Cairn Documentation', 'separator', 'about']);
    click(help[0]!);
    expect(actions.calls).toEqual([['openDoc', docs[0]]]);
  });

  it('speaks the page’s language: in Chinese, the items Cairn names (the roles are the OS’s to translate)', () => {
    const actions = spyActions();
    const template = menuTemplate({ platform: 'linux', development: false, locale: 'zh', recent: [], docs, actions });
    expect(template.map((item) => item.label ?? item.role)).toEqual(['文件', 'editMenu', '视图', 'windowMenu', 'help']);
    const file = submenu(template, '文件');
    expect(file.filter((item) => item.label).map((item) => item.label)).toEqual(['打开文件夹…', '导入对话…', '导出…', '最近']);
    expect(submenu(file, '最近')).toEqual([{ label: '还没有导入过文件夹', enabled: false }]);
    const views = submenu(template, '视图').filter((item) => item.click);
    expect(views.map((item) => item.label)).toEqual(VIEWS.map((view) => MENU_LABELS.zh.views[view]));
    expect(views[2]!.label).toBe('实时 DAG');
    click(file[0]!);
    expect(actions.calls).toEqual([['openFolder', undefined]]);
  });

  it('on macOS: the app menu (About, Quit) first, and File closes the window instead of quitting', () => {
    const template = menuTemplate({ platform: 'darwin', development: false, locale: 'en', recent: [], docs, actions: spyActions() });
    expect(template[0]).toEqual({ role: 'appMenu' });
    expect(submenu(template, 'File').at(-1)).toEqual({ role: 'close' });
    expect(submenu(template, 'help').map((item) => item.role)).not.toContain('about');
  });
});

describe('the menu actions', () => {
  function setup(chosen: string | null) {
    const sent: MenuAction[] = [];
    const picks: [string, unknown][] = [];
    const pick = (name: string) => async (options: unknown) => {
      picks.push([name, options]);
      return chosen;
    };
    const pickers: Pickers = { pickFolder: pick('folder'), pickFile: pick('file'), pickSavePath: pick('save') };
    const openPath = vi.fn(async () => '');
    const docs = [{ label: 'Cairn Documentation', file: '/app/README.md' }];
    const logger = memoryLogger();
    const actions = menuActions({ pickers, send: (action) => sent.push(MenuAction.parse(action)), docs, openPath, logger });
    return { actions, sent, picks, openPath, docs, logger };
  }

  it('sends the page the path a picker chose, as an action the contract accepts', async () => {
    const { actions, sent, picks } = setup('/home/me/chosen');
    actions.openFolder();
    actions.importConversation();
    actions.exportTo();
    await vi.waitFor(() => expect(sent).toHaveLength(3));
    expect(sent).toEqual([
      { action: 'ingest', path: '/home/me/chosen' },
      { action: 'import-conversation', path: '/home/me/chosen' },
      { action: 'export', path: '/home/me/chosen' },
    ]);
    expect(picks.map(([name]) => name)).toEqual(['folder', 'file', 'save']);
    expect(picks[2]![1]).toMatchObject({ defaultName: 'cairn-export.json' });
  });

  it('does nothing when the picker is cancelled, and logs a picker that fails', async () => {
    const { actions, sent, picks, logger } = setup(null);
    actions.openFolder();
    actions.importConversation();
    actions.exportTo();
    await vi.waitFor(() => expect(picks).toHaveLength(3));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(sent).toEqual([]);
    const failing = menuActions({
      pickers: { pickFolder: async () => Promise.reject(new Error('no display')), pickFile: async () => null, pickSavePath: async () => null },
      send: () => {},
      docs: [],
      openPath: async () => '',
      logger,
    });
    failing.openFolder();
    await vi.waitFor(() => expect(logger.lines).toEqual([{ level: 'warn', message: 'The folder picker failed: no display', fields: undefined }]));
  });

  it('navigates and ingests a recent folder again without a picker', () => {
    const { actions, sent, picks } = setup('/unused');
    const notes = recent('/home/me/notes', 'user');
    actions.navigate('memories');
    actions.openRecent(notes);
    expect(sent).toEqual([
      { action: 'navigate', view: 'memories' },
      { action: 'reingest', item: notes },
    ]);
    expect(picks).toEqual([]);
  });

  it('opens a help file through the OS, and logs a failure in one line', async () => {
    const { actions, openPath, docs, logger } = setup(null);
    actions.openDoc(docs[0]!);
    await vi.waitFor(() => expect(openPath).toHaveBeenCalledExactlyOnceWith('/app/README.md'));
    openPath.mockResolvedValueOnce('No application knows how to open it');
    actions.openDoc(docs[0]!);
    await vi.waitFor(() => expect(logger.lines.map((line) => line.message)).toEqual(['Cannot open /app/README.md: No application knows how to open it']));
  });
});

describe('the help files', () => {
  const repo = mkdtempSync(join(tmpdir(), 'cairn-help-'));
  const resources = mkdtempSync(join(tmpdir(), 'cairn-help-resources-'));
  writeFileSync(join(repo, 'README.md'), '# Cairn\n');
  mkdirSync(join(resources, 'docs'));
  writeFileSync(join(resources, 'docs', 'ARCHITECTURE.md'), '# Architecture\n');
  afterAll(() => {
    rmSync(repo, { recursive: true, force: true });
    rmSync(resources, { recursive: true, force: true });
  });

  it('offers each help file from the first root that has it, and leaves out those found nowhere', () => {
    expect(findHelpDocs([repo, resources])).toEqual([
      { label: 'Cairn Documentation', file: join(repo, 'README.md') },
      { label: 'Architecture', file: join(resources, 'docs', 'ARCHITECTURE.md') },
    ]);
    expect(findHelpDocs(['/nonexistent'])).toEqual([]);
  });

  it('opens nothing but an offered file', async () => {
    const openPath = vi.fn(async () => '');
    const offered = findHelpDocs([repo]);
    await expect(openHelpDoc({ label: 'x', file: '/etc/passwd' }, offered, openPath)).resolves.toBe("/etc/passwd is not one of the app's help files");
    await expect(openHelpDoc({ label: 'x', file: 'https://evil.example/' }, offered, openPath)).resolves.toMatch(/not one of/);
    expect(openPath).not.toHaveBeenCalled();
    await expect(openHelpDoc(offered[0]!, offered, openPath)).resolves.toBeNull();
    expect(openPath).toHaveBeenCalledExactlyOnceWith(join(repo, 'README.md'));
  });
});
