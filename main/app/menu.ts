/**
 * The application menu. File opens a folder to ingest, imports a conversation and exports, each
 * through a native picker; File › Recent lists the folders recently ingested into the workspace
 * (the engine's `ingest:recent`, as on Home: the app has one workspace, so there are no
 * workspaces to switch). View goes to each view of the app with the sidebar's shortcut. Help
 * opens the documentation that ships with the app, and the About panel.
 *
 * The template is built by a plain function (`menuTemplate`) so a test can read it; every click
 * goes to a `MenuActions` callback and nothing here reaches around the contract.
 */
import { Menu, type MenuItemConstructorOptions } from 'electron';
import type { RecentIngest } from '../../shared/contracts/api.js';
import { VIEWS, viewShortcut, type View } from '../../shared/contracts/host.js';
import type { Locale } from '../../shared/locale.js';
import type { HelpDoc } from './help-docs.js';
import { MENU_LABELS, type MenuLabels } from './menu-labels.js';

export interface MenuActions {
  openFolder(): void;
  importConversation(): void;
  exportTo(): void;
  openRecent(item: RecentIngest): void;
  navigate(view: View): void;
  openDoc(doc: HelpDoc): void;
}

export interface MenuContext {
  platform: NodeJS.Platform;
  development: boolean;
  /** The page's language (menu-labels.ts); English until the page says otherwise. */
  locale: Locale;
  /** Recently ingested roots, newest first (the Recent submenu shows the first `RECENT_IN_MENU`). */
  recent: readonly RecentIngest[];
  docs: readonly HelpDoc[];
  actions: MenuActions;
}

export const RECENT_IN_MENU = 10;

function recentSubmenu(recent: readonly RecentIngest[], actions: MenuActions, labels: MenuLabels): MenuItemConstructorOptions[] {
  // A tree ingested from a folder that is gone can still be listed on Home, but not opened again here.
  const items = recent.slice(0, RECENT_IN_MENU).map(
    (item): MenuItemConstructorOptions => ({ label: item.source, sublabel: item.root, click: () => actions.openRecent(item) }),
  );
  return items.length > 0 ? items : [{ label: labels.noRecent, enabled: false }];
}

export function menuTemplate({ platform, development, locale, recent, docs, actions }: MenuContext): MenuItemConstructorOptions[] {
  const mac = platform === 'darwin';
  const labels = MENU_LABELS[locale];
  return [
    ...(mac ? [{ role: 'appMenu' as const }] : []),
    {
      label: labels.file,
      submenu: [
        { label: labels.openFolder, accelerator: 'CmdOrCtrl+O', click: () => actions.openFolder() },
        { label: labels.importConversation, accelerator: 'CmdOrCtrl+I', click: () => actions.importConversation() },
        { label: labels.export, accelerator: 'CmdOrCtrl+E', click: () => actions.exportTo() },
        { type: 'separator' },
        { label: labels.recent, submenu: recentSubmenu(recent, actions, labels) },
        { type: 'separator' },
        // macOS quits from the app menu; a File menu there closes the window.
        mac ? { role: 'close' } : { role: 'quit' },
      ],
    },
    { role: 'editMenu' },
    {
      label: labels.view,
      submenu: [
        ...VIEWS.map((view): MenuItemConstructorOptions => ({ label: labels.views[view], accelerator: viewShortcut(view), click: () => actions.navigate(view) })),
        { type: 'separator' },
        { role: 'reload' },
        ...(development ? [{ role: 'toggleDevTools' as const }] : []),
        { type: 'separator' },
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        { type: 'separator' },
        { role: 'togglefullscreen' },
      ],
    },
    { role: 'windowMenu' },
    {
      role: 'help',
      submenu: [
        ...docs.map((doc): MenuItemConstructorOptions => ({ label: doc.label, click: () => actions.openDoc(doc) })),
        ...(docs.length > 0 ? [{ type: 'separator' as const }] : []),
        // On macOS About sits in the app menu.
        ...(mac ? [] : [{ role: 'about' as const }]),
      ],
    },
  ];
}

export function buildMenu(context: MenuContext): Menu {
  return Menu.buildFromTemplate(menuTemplate(context));
}
