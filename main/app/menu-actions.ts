/**
 * What the menu's items do. The File items show a native picker here, then hand the chosen path
 * to the page as a `MenuAction`: the page runs it as its own view would (Home's ingest with its
 * progress, errors and "update or copy?", the Sessions import, the Export view), so a menu
 * ingest looks like any other. A cancelled picker does nothing.
 */
import type { MenuAction } from '../../shared/contracts/host.js';
import { errorMessage } from '../../shared/errors.js';
import type { Logger } from '../engine/ports/logger.js';
import { openHelpDoc, type HelpDoc } from './help-docs.js';
import type { Pickers } from './host-ipc.js';
import type { MenuActions } from './menu.js';

/** The formats `sessions:import` detects (main/engine/memory/sessions/detect.ts). */
export const CONVERSATION_FILTERS = [
  { name: 'Conversations', extensions: ['json', 'jsonl', 'md', 'txt'] },
  { name: 'All files', extensions: ['*'] },
];

/** A .json or .jsonl file exports in that format; any other name is a folder in the Export view's format. */
export const EXPORT_FILTERS = [
  { name: 'Cairn JSON', extensions: ['json'] },
  { name: 'JSON Lines', extensions: ['jsonl'] },
  { name: 'Folder (the Export view’s format)', extensions: ['*'] },
];

export interface MenuActionDeps {
  pickers: Pickers;
  /** Sends an action to the page (brings the window forward first). */
  send(action: MenuAction): void;
  /** Help files on offer, and Electron's `shell.openPath`. */
  docs: readonly HelpDoc[];
  openPath(path: string): Promise<string>;
  logger: Logger;
}

export function menuActions({ pickers, send, docs, openPath, logger }: MenuActionDeps): MenuActions {
  /** Runs a picker and sends what it chose; a picker that fails is logged, a cancel is nothing. */
  const pickThen = (what: string, pick: () => Promise<string | null>, action: (path: string) => MenuAction) => {
    pick().then(
      (path) => {
        if (path) send(action(path));
      },
      (error: unknown) => logger.warn(`The ${what} picker failed: ${errorMessage(error)}`),
    );
  };
  return {
    openFolder: () => pickThen('folder', () => pickers.pickFolder({ title: 'Open a folder to ingest' }), (path) => ({ action: 'ingest', path })),
    importConversation: () =>
      pickThen('conversation', () => pickers.pickFile({ title: 'Import a conversation', filters: CONVERSATION_FILTERS }), (path) => ({ action: 'import-conversation', path })),
    exportTo: () =>
      pickThen('export', () => pickers.pickSavePath({ title: 'Export the workspace', defaultName: 'cairn-export.json', filters: EXPORT_FILTERS }), (path) => ({ action: 'export', path })),
    openRecent: (item) => send({ action: 'reingest', item }),
    navigate: (view) => send({ action: 'navigate', view }),
    openDoc: (doc) => {
      void openHelpDoc(doc, docs, openPath).then((failure) => {
        if (failure) logger.warn(failure);
      });
    },
  };
}
