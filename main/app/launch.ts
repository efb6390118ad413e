/**
 * One Cairn at a time: a second launch quits and hands the running app its command line. The
 * running app shows its window and ingests the folder the command line names, as an ingest from
 * the Home view would run: through the engine's `ingest:start`, its progress and
 * result shown from the `ingest/*` events.
 *
 * @example
 * app.on('second-instance', (_event, argv, workingDirectory) => {
 *   showWindow(window);
 *   const path = launchPath(argv, workingDirectory, process.defaultApp === true);
 *   if (path) void ingestLaunchPath(engine, path, logger);
 * });
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { randomUUID } from 'node:crypto';
import { errorMessage } from '../../shared/errors.js';
import type { EngineConnection } from '../host/engine-connection.js';
import type { Logger } from '../engine/ports/logger.js';

/**
 * The folder a launch names: the last argument that is not a switch and names a folder on disk,
 * resolved from the launch's working folder. The first argument is the executable; run as
 * `electron <app>` (`defaultApp`), the second is the app. Chromium adds switches of its own,
 * which start with `-`. Files are left alone: an app script or a document opened with the app is
 * not a folder to ingest.
 */
export function launchPath(argv: readonly string[], workingDirectory: string, defaultApp: boolean): string | null {
  const args = argv.slice(defaultApp ? 2 : 1).filter((arg) => arg !== '' && !arg.startsWith('-'));
  for (const arg of args.reverse()) {
    const folder = folderAt(resolve(workingDirectory, arg));
    if (folder) return folder;
  }
  return null;
}

/**
 * The folder a path the OS hands the app names (macOS `open-file`: a folder dropped on the Dock
 * icon or opened with Cairn), or null for a file or a path that is not there.
 */
export function folderAt(path: string): string | null {
  const info = statSync(path, { throwIfNoEntry: false });
  return info?.isDirectory() ? path : null;
}

/** Brings a window to the front, out of the dock or taskbar if it was minimized. */
export function showWindow(window: { isMinimized(): boolean; restore(): void; show(): void; focus(): void }): void {
  if (window.isMinimized()) window.restore();
  window.show();
  window.focus();
}

/**
 * Ingests a path the app was handed (its command line, a second launch's, a folder dropped on the
 * Dock icon); the UI follows it from the events, so a failure is only logged here.
 */
export async function ingestLaunchPath(engine: EngineConnection, path: string, logger: Logger): Promise<void> {
  try {
    await engine.call('ingest:start', { path, jobId: randomUUID() });
  } catch (error) {
    logger.warn(`The ingest of ${path} asked for by a launch failed: ${errorMessage(error)}`);
  }
}
