/**
 * What the desktop host offers the page beyond the engine's commands (api.ts): native pickers
 * and the application menu. Only Electron implements them (main/app/host-ipc.ts, the preload);
 * in a browser the page keeps its uploads, and `BROWSER_CAPABILITIES` says so. The renderer asks
 * `host:capabilities` before it shows a "Choose…" button, and validates every answer here.
 *
 * Each picker answers the chosen absolute path, or null when the person cancelled.
 */
import { z } from 'zod';
import { CairnError } from '../errors.js';
import { LOCALES } from '../locale.js';
import { RecentIngest } from './api.js';

/** The app's views, in the order of the sidebar and of their shortcuts (Alt+1 … Alt+9, Alt+0). */
export const VIEWS = ['home', 'explorer', 'dag', 'search', 'sessions', 'memories', 'compress', 'export', 'monitor', 'settings'] as const;
export type View = (typeof VIEWS)[number];
export const View = z.enum(VIEWS);

/** The shortcut of a view: Alt with its place in `VIEWS` (the tenth is Alt+0). */
export function viewShortcut(view: View): string {
  return `Alt+${(VIEWS.indexOf(view) + 1) % 10}`;
}

export const HostCapabilities = z.object({
  /** Native folder, file and save pickers (host:pickFolder, host:pickFile, host:pickSavePath). */
  pickers: z.boolean(),
  /** An application menu that sends `MenuAction`s to the page. */
  menu: z.boolean(),
});
export type HostCapabilities = z.infer<typeof HostCapabilities>;

/** A browser has neither: folders and conversations are uploaded, exports downloaded. */
export const BROWSER_CAPABILITIES: HostCapabilities = { pickers: false, menu: false };

const Title = z.string().min(1).max(200);
/** A picker filter, e.g. { name: 'Conversations', extensions: ['json', 'jsonl'] }. */
const FileFilter = z.object({
  name: z.string().min(1).max(100),
  extensions: z.array(z.string().regex(/^(\*|[A-Za-z0-9]{1,16})$/, 'an extension without its dot, or *')).min(1).max(20),
});
const Filters = z.array(FileFilter).max(10);
/** A file name alone: the save picker starts in the person's folder, never in a path the page names. */
const FileName = z
  .string()
  .min(1)
  .max(255)
  .refine((name) => !/[/\\\0]/.test(name) && name !== '.' && name !== '..', 'a file name without a folder');
const PickedPath = z.string().min(1).nullable();

//#region Host commands (Electron only; main/app/host-ipc.ts)
export const hostCommands = {
  'host:capabilities': {
    request: z.object({}).strict(),
    response: HostCapabilities,
  },
  'host:pickFolder': {
    request: z.object({ title: Title.optional() }).strict(),
    response: PickedPath,
  },
  'host:pickFile': {
    request: z.object({ title: Title.optional(), filters: Filters.optional() }).strict(),
    response: PickedPath,
  },
  'host:pickSavePath': {
    request: z.object({ title: Title.optional(), defaultName: FileName.optional(), filters: Filters.optional() }).strict(),
    response: PickedPath,
  },
  /** The page's language, so the application menu speaks it too (sent at start and on each change). */
  'host:setLocale': {
    request: z.object({ locale: z.enum(LOCALES) }).strict(),
    response: z.null(),
  },
} as const;
//#endregion

export type HostCommandName = keyof typeof hostCommands;
export type HostCommandRequest<K extends HostCommandName> = z.input<(typeof hostCommands)[K]['request']>;
export type HostCommandResponse<K extends HostCommandName> = z.output<(typeof hostCommands)[K]['response']>;
export const HOST_COMMAND_NAMES = Object.keys(hostCommands) as HostCommandName[];

/** Validates a host command's request; bad input becomes an INVALID_INPUT error naming the fields. */
export function parseHostRequest<K extends HostCommandName>(name: K, input: unknown): z.output<(typeof hostCommands)[K]['request']> {
  const result = hostCommands[name].request.safeParse(input);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join('.') || '(request)'}: ${issue.message}`);
    throw new CairnError('INVALID_INPUT', `Invalid ${name} request: ${problems.join('; ')}`, { details: { command: name, problems } });
  }
  return result.data as z.output<(typeof hostCommands)[K]['request']>;
}

/**
 * What a click in the application menu asks of the page. The host has already shown the native
 * picker: the page gets the chosen path and runs the action as its own views would.
 */
export const MenuAction = z.discriminatedUnion('action', [
  z.object({ action: z.literal('navigate'), view: View }),
  /** File › Open Folder…: ingest it as Home's form would. */
  z.object({ action: z.literal('ingest'), path: z.string().min(1).max(4096) }),
  /** File › Recent: ingest it again, into its tree (Home's "ingest again"). */
  z.object({ action: z.literal('reingest'), item: RecentIngest }),
  z.object({ action: z.literal('import-conversation'), path: z.string().min(1).max(4096) }),
  z.object({ action: z.literal('export'), path: z.string().min(1).max(4096) }),
]);
export type MenuAction = z.infer<typeof MenuAction>;

/** The IPC channel of menu actions, main to page. */
export const IPC_MENU_CHANNEL = 'cairn:menu';
