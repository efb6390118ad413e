/**
 * Brings the window's page back when it dies or hangs. A renderer process that ended (crashed,
 * killed, out of memory) is reloaded; one that stays unresponsive for `hangMs` is ended, which
 * reloads it the same way. Reloads are bounded (3 a minute by default): a page that keeps dying
 * is left as it is, and the log says why.
 *
 * @example
 * const stop = watchRenderer(window, { logger });
 * window.on('closed', stop);
 */
import type { BrowserWindow, RenderProcessGoneDetails } from 'electron';
import type { Logger } from '../engine/ports/logger.js';
import { restartBudget, type RestartBudget } from './restart-budget.js';

/** The part of a BrowserWindow watched. */
export interface WatchedWindow {
  on(event: 'unresponsive' | 'responsive', listener: () => void): unknown;
  removeListener(event: 'unresponsive' | 'responsive', listener: () => void): unknown;
  webContents: Pick<BrowserWindow['webContents'], 'reload' | 'forcefullyCrashRenderer' | 'isDestroyed'> & {
    on(event: 'render-process-gone', listener: (event: unknown, details: Pick<RenderProcessGoneDetails, 'reason'>) => void): unknown;
    removeListener(event: 'render-process-gone', listener: (event: unknown, details: Pick<RenderProcessGoneDetails, 'reason'>) => void): unknown;
  };
}

export interface RendererWatchOptions {
  logger: Logger;
  /** How long the page may stay unresponsive before it is restarted. Default 10 s. */
  hangMs?: number;
  budget?: RestartBudget;
}

/** Watches a window's page; returns the function that stops watching. */
export function watchRenderer(window: WatchedWindow, options: RendererWatchOptions): () => void {
  const { logger } = options;
  const hangMs = options.hangMs ?? 10_000;
  const budget = options.budget ?? restartBudget({ max: 3, windowMs: 60_000 });
  const contents = window.webContents;
  let hang: ReturnType<typeof setTimeout> | null = null;

  const onGone = (_event: unknown, details: Pick<RenderProcessGoneDetails, 'reason'>) => {
    if (details.reason === 'clean-exit' || contents.isDestroyed()) return;
    if (!budget.take()) {
      logger.error(`The window's page ended again (${details.reason}); it is not reloaded, having ended too often`);
      return;
    }
    logger.warn(`The window's page ended (${details.reason}); reloading it`);
    contents.reload();
  };
  const onUnresponsive = () => {
    hang ??= setTimeout(() => {
      hang = null;
      if (contents.isDestroyed()) return;
      logger.warn(`The window's page did not respond for ${hangMs} ms; restarting it`);
      // Ending the renderer emits render-process-gone ('killed'), and onGone reloads the page in a new process.
      contents.forcefullyCrashRenderer();
    }, hangMs);
  };
  const onResponsive = () => {
    if (hang) clearTimeout(hang);
    hang = null;
  };

  contents.on('render-process-gone', onGone);
  window.on('unresponsive', onUnresponsive);
  window.on('responsive', onResponsive);
  return () => {
    onResponsive();
    window.removeListener('unresponsive', onUnresponsive);
    window.removeListener('responsive', onResponsive);
    if (!contents.isDestroyed()) contents.removeListener('render-process-gone', onGone);
  };
}
