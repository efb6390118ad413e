/**
 * The desktop host's own commands (shared/contracts/host.ts): its capabilities, the native
 * pickers and the menu's language, on `cairn:host:*` channels, guarded and answered like the engine's commands (ipc.ts).
 * The application menu opens the same pickers (menu.ts), so their dialog options live here once.
 */
import { dialog, ipcMain, type BrowserWindow, type OpenDialogOptions, type SaveDialogOptions } from 'electron';
import { join } from 'node:path';
import { HOST_COMMAND_NAMES, parseHostRequest, type HostCapabilities, type HostCommandName, type HostCommandResponse } from '../../shared/contracts/host.js';
import { ipcChannel } from '../../shared/contracts/wire.js';
import type { Locale } from '../../shared/locale.js';
import type { Logger } from '../engine/ports/logger.js';
import { appOnlyHandler } from './ipc.js';

export const DESKTOP_CAPABILITIES: HostCapabilities = { pickers: true, menu: true };

type FileFilter = { name: string; extensions: string[] };

export interface Pickers {
  /** Each resolves to the chosen absolute path, or null when the person cancelled. */
  pickFolder(options?: { title?: string }): Promise<string | null>;
  pickFile(options?: { title?: string; filters?: FileFilter[] }): Promise<string | null>;
  pickSavePath(options?: { title?: string; defaultName?: string; filters?: FileFilter[] }): Promise<string | null>;
}

/**
 * The OS's pickers, modal to the app's window when it has one. A save starts in `startFolder`
 * (the person's documents): the page names at most a file name, never where to write.
 */
export function nativePickers(window: () => BrowserWindow | null, startFolder: () => string): Pickers {
  const open = async (options: OpenDialogOptions) => {
    const parent = window();
    const { canceled, filePaths } = parent ? await dialog.showOpenDialog(parent, options) : await dialog.showOpenDialog(options);
    return canceled ? null : (filePaths[0] ?? null);
  };
  return {
    pickFolder: ({ title } = {}) => open({ title: title ?? 'Choose a folder', properties: ['openDirectory', 'createDirectory'] }),
    pickFile: ({ title, filters } = {}) => open({ title: title ?? 'Choose a file', properties: ['openFile'], ...(filters ? { filters } : {}) }),
    async pickSavePath({ title, defaultName, filters } = {}) {
      const options: SaveDialogOptions = {
        title: title ?? 'Save as',
        defaultPath: defaultName ? join(startFolder(), defaultName) : startFolder(),
        properties: ['createDirectory', 'showOverwriteConfirmation'],
        ...(filters ? { filters } : {}),
      };
      const parent = window();
      const { canceled, filePath } = parent ? await dialog.showSaveDialog(parent, options) : await dialog.showSaveDialog(options);
      return canceled || !filePath ? null : filePath;
    },
  };
}

/** What the host commands reach: the pickers, and the menu's language. */
export interface HostServices {
  pickers: Pickers;
  setLocale(locale: Locale): void;
}

async function answer(command: HostCommandName, request: unknown, { pickers, setLocale }: HostServices): Promise<HostCommandResponse<HostCommandName>> {
  switch (command) {
    case 'host:capabilities':
      parseHostRequest(command, request);
      return DESKTOP_CAPABILITIES;
    case 'host:pickFolder':
      return pickers.pickFolder(parseHostRequest(command, request));
    case 'host:pickFile':
      return pickers.pickFile(parseHostRequest(command, request));
    case 'host:pickSavePath':
      return pickers.pickSavePath(parseHostRequest(command, request));
    case 'host:setLocale':
      setLocale(parseHostRequest(command, request).locale);
      return null;
  }
}

/** Registers a handler per host command; returns the function that removes them. */
export function registerHostHandlers(services: HostServices, logger: Logger): () => void {
  for (const command of HOST_COMMAND_NAMES) {
    ipcMain.handle(
      ipcChannel(command),
      appOnlyHandler(command, logger, (request) => answer(command, request, services)),
    );
  }
  return () => {
    for (const command of HOST_COMMAND_NAMES) ipcMain.removeHandler(ipcChannel(command));
  };
}
