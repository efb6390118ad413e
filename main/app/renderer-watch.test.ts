/**
 * The window's page comes back after it dies or hangs, a bounded number of times.
 */
import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { memoryLogger } from '../engine/ports/logger.js';
import { restartBudget } from './restart-budget.js';
import { watchRenderer, type WatchedWindow } from './renderer-watch.js';

function fakeWindow() {
  const window = new EventEmitter();
  const contents = Object.assign(new EventEmitter(), {
    reload: vi.fn(),
    // As in Electron: ending the renderer emits render-process-gone.
    forcefullyCrashRenderer: vi.fn(() => contents.emit('render-process-gone', {}, { reason: 'killed' })),
    isDestroyed: () => false,
  });
  return { window: Object.assign(window, { webContents: contents }) as unknown as WatchedWindow & EventEmitter, contents };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('watchRenderer', () => {
  it('reloads a page whose renderer crashed, but not one that exited cleanly', () => {
    const { window, contents } = fakeWindow();
    const logger = memoryLogger();
    watchRenderer(window, { logger });
    contents.emit('render-process-gone', {}, { reason: 'clean-exit' });
    expect(contents.reload).not.toHaveBeenCalled();
    contents.emit('render-process-gone', {}, { reason: 'crashed' });
    expect(contents.reload).toHaveBeenCalledOnce();
    expect(logger.lines.at(-1)).toMatchObject({ level: 'warn', message: "The window's page ended (crashed); reloading it" });
  });

  it('restarts a page that stays unresponsive, and leaves one that recovers', () => {
    const { window, contents } = fakeWindow();
    watchRenderer(window, { logger: memoryLogger(), hangMs: 10_000 });
    window.emit('unresponsive');
    vi.advanceTimersByTime(9_000);
    window.emit('responsive');
    vi.advanceTimersByTime(5_000);
    expect(contents.forcefullyCrashRenderer).not.toHaveBeenCalled();

    window.emit('unresponsive');
    window.emit('unresponsive');
    vi.advanceTimersByTime(10_000);
    expect(contents.forcefullyCrashRenderer).toHaveBeenCalledOnce();
    expect(contents.reload).toHaveBeenCalledOnce();
  });

  it('stops reloading a page that keeps dying (3 a minute), and says so', () => {
    const { window, contents } = fakeWindow();
    const logger = memoryLogger();
    let now = 0;
    watchRenderer(window, { logger, budget: restartBudget({ max: 3, windowMs: 60_000, now: () => now }) });
    for (let i = 0; i < 4; i += 1) {
      now += 1_000;
      contents.emit('render-process-gone', {}, { reason: 'oom' });
    }
    expect(contents.reload).toHaveBeenCalledTimes(3);
    expect(logger.lines.at(-1)).toMatchObject({ level: 'error', message: "The window's page ended again (oom); it is not reloaded, having ended too often" });
    now += 60_000;
    contents.emit('render-process-gone', {}, { reason: 'oom' });
    expect(contents.reload).toHaveBeenCalledTimes(4);
  });

  it('stops watching when the window closes', () => {
    const { window, contents } = fakeWindow();
    const stop = watchRenderer(window, { logger: memoryLogger() });
    window.emit('unresponsive');
    stop();
    vi.advanceTimersByTime(60_000);
    contents.emit('render-process-gone', {}, { reason: 'crashed' });
    expect(contents.forcefullyCrashRenderer).not.toHaveBeenCalled();
    expect(contents.reload).not.toHaveBeenCalled();
  });
});
