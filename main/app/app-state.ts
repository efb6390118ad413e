/**
 * What the desktop app remembers of itself between launches, in `app-state.json` in Electron's
 * userData folder: the window's place, size and whether it was maximized. (The workspace keeps
 * its own settings in `.cairn/settings.json`; the recently ingested folders are the engine's
 * `ingest:recent`, so the File › Recent menu and Home show one list.)
 *
 * The file is written whole to a temporary file and renamed over the old one, so a crash leaves
 * either version. A file that cannot be read or does not match is replaced by the defaults, with
 * one warning. Saved bounds are fitted onto a display that is there now: a window saved on a
 * monitor since unplugged opens on the primary one.
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { errorMessage } from '../../shared/errors.js';
import type { Logger } from '../engine/ports/logger.js';

const WindowState = z.object({
  x: z.number().int(),
  y: z.number().int(),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  maximized: z.boolean(),
});
export type WindowState = z.infer<typeof WindowState>;

const AppStateFile = z.object({ version: z.literal(1), window: WindowState.nullable() });
export type AppState = z.infer<typeof AppStateFile>;

export const DEFAULT_APP_STATE: AppState = { version: 1, window: null };

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The part of Electron's `screen` this needs. */
export interface Displays {
  getAllDisplays(): { workArea: Rect }[];
  getPrimaryDisplay(): { workArea: Rect };
}

/** Reads the app's state; a missing file is a first launch, a bad one is reported and ignored. */
export function loadAppState(file: string, logger: Logger): AppState {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') logger.warn(`Cannot read the app's state in ${file} (${errorMessage(error)}); using the defaults`);
    return DEFAULT_APP_STATE;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    logger.warn(`The app's state in ${file} is not JSON; using the defaults`);
    return DEFAULT_APP_STATE;
  }
  const parsed = AppStateFile.safeParse(json);
  if (!parsed.success) {
    logger.warn(`The app's state in ${file} does not match its format; using the defaults`);
    return DEFAULT_APP_STATE;
  }
  return parsed.data;
}

/** Writes the app's state atomically; a failure is logged (the app runs on without it). */
export function saveAppState(file: string, state: AppState, logger: Logger): void {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, `${JSON.stringify(AppStateFile.parse(state), null, 2)}\n`);
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    logger.warn(`Cannot save the app's state in ${file}: ${errorMessage(error)}`);
  }
}

function overlap(a: Rect, b: Rect): number {
  const width = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const height = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return width > 0 && height > 0 ? width * height : 0;
}

/**
 * Saved bounds fitted onto the display they overlap most (the primary one when they overlap
 * none): no larger than its work area, and moved inside it, so the title bar can be reached.
 */
export function visibleBounds(saved: Rect, displays: Displays): Rect {
  let area = displays.getPrimaryDisplay().workArea;
  let best = 0;
  for (const { workArea } of displays.getAllDisplays()) {
    const shared = overlap(saved, workArea);
    if (shared > best) [area, best] = [workArea, shared];
  }
  const width = Math.min(saved.width, area.width);
  const height = Math.min(saved.height, area.height);
  const x = Math.min(Math.max(saved.x, area.x), area.x + area.width - width);
  const y = Math.min(Math.max(saved.y, area.y), area.y + area.height - height);
  return { x, y, width, height };
}

/** The window a launch opens: the saved one made visible, or null for the default size, centred. */
export function windowToRestore(state: AppState, displays: Displays): WindowState | null {
  if (!state.window) return null;
  return { ...visibleBounds(state.window, displays), maximized: state.window.maximized };
}

/** The part of a BrowserWindow whose state is kept. */
export interface TrackedWindow {
  getNormalBounds(): Rect;
  isMaximized(): boolean;
  on(event: 'close' | 'resize' | 'move', listener: () => void): unknown;
}

/**
 * Saves the window's state when it closes and a moment after it is moved or resized (a crash then
 * loses little). The size kept is the unmaximized one, so a maximized window restores to it.
 */
export function keepWindowState(window: TrackedWindow, save: (state: WindowState) => void, delayMs = 1000): void {
  let timer: NodeJS.Timeout | null = null;
  const record = () => {
    const { x, y, width, height } = window.getNormalBounds();
    save({ x: Math.round(x), y: Math.round(y), width: Math.round(width), height: Math.round(height), maximized: window.isMaximized() });
  };
  const later = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      record();
    }, delayMs);
    timer.unref?.();
  };
  window.on('resize', later);
  window.on('move', later);
  window.on('close', () => {
    if (timer) clearTimeout(timer);
    timer = null;
    record();
  });
}
