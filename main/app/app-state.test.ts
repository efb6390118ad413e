/**
 * The app's own state in userData (app-state.ts), on real files: a round trip, a missing file
 * (first launch), a corrupt or foreign one (defaults, one warning), an atomic write, and saved
 * bounds fitted onto the displays there are now (Electron's `screen`, stood in for here).
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { memoryLogger } from '../engine/ports/logger.js';
import { DEFAULT_APP_STATE, keepWindowState, loadAppState, saveAppState, visibleBounds, windowToRestore, type Displays, type Rect } from './app-state.js';

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-app-state-'));
  file = join(dir, 'app-state.json');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const displays = (...areas: Rect[]): Displays => ({
  getAllDisplays: () => areas.map((workArea) => ({ workArea })),
  getPrimaryDisplay: () => ({ workArea: areas[0]! }),
});
const laptop = { x: 0, y: 0, width: 1440, height: 875 };
const monitor = { x: 1440, y: -200, width: 2560, height: 1415 };

describe('the app state file', () => {
  it('reads back what was saved, written atomically (no temporary file left)', () => {
    const logger = memoryLogger();
    const state = { version: 1 as const, window: { x: 100, y: 80, width: 1200, height: 800, maximized: true } };
    saveAppState(file, state, logger);
    expect(loadAppState(file, logger)).toEqual(state);
    expect(readdirSync(dir)).toEqual(['app-state.json']);
    expect(logger.lines).toEqual([]);
  });

  it('starts from the defaults on a first launch, without a warning', () => {
    const logger = memoryLogger();
    expect(loadAppState(file, logger)).toEqual(DEFAULT_APP_STATE);
    expect(logger.lines).toEqual([]);
  });

  it('replaces a corrupt or foreign file by the defaults, with one warning each', () => {
    for (const [text, why] of [
      ['{"version":1,"window":{"x":1', 'is not JSON'],
      ['{"version":2,"window":null}', 'does not match its format'],
      ['{"version":1,"window":{"x":"left","y":0,"width":10,"height":10,"maximized":false}}', 'does not match its format'],
      ['[]', 'does not match its format'],
    ]) {
      writeFileSync(file, text!);
      const logger = memoryLogger();
      expect(loadAppState(file, logger)).toEqual(DEFAULT_APP_STATE);
      expect(logger.lines).toEqual([{ level: 'warn', message: `The app's state in ${file} ${why}; using the defaults`, fields: undefined }]);
    }
  });

  it('logs a state it cannot save and runs on, leaving no temporary file', () => {
    // The path is taken by a folder with something in it: the rename over it fails, for root too.
    mkdirSync(join(file, 'taken'), { recursive: true });
    const logger = memoryLogger();
    saveAppState(file, { version: 1, window: { x: 0, y: 0, width: 900, height: 600, maximized: false } }, logger);
    expect(logger.lines).toHaveLength(1);
    expect(logger.lines[0]!.message).toMatch(/^Cannot save the app's state in .*app-state\.json: \S/);
    expect(readdirSync(dir)).toEqual(['app-state.json']);
    // In a folder that is not there: nothing can be written at all.
    saveAppState(join(file, 'taken', 'x', 'app-state.json'), DEFAULT_APP_STATE, logger);
    expect(logger.lines).toHaveLength(2);
  });
});

describe('the window bounds', () => {
  it('keeps bounds that lie on a display as they are, on whichever display they are', () => {
    expect(visibleBounds({ x: 100, y: 50, width: 1200, height: 800 }, displays(laptop, monitor))).toEqual({ x: 100, y: 50, width: 1200, height: 800 });
    expect(visibleBounds({ x: 2000, y: -100, width: 1600, height: 1000 }, displays(laptop, monitor))).toEqual({ x: 2000, y: -100, width: 1600, height: 1000 });
  });

  it('brings a window saved on a monitor since unplugged onto the primary display', () => {
    expect(visibleBounds({ x: 2000, y: -100, width: 1600, height: 1000 }, displays(laptop))).toEqual({ x: 0, y: 0, width: 1440, height: 875 });
    expect(visibleBounds({ x: -5000, y: 4000, width: 800, height: 600 }, displays(laptop, monitor))).toEqual({ x: 0, y: 275, width: 800, height: 600 });
  });

  it('pulls a window hanging off the edge of its display back inside it', () => {
    // Mostly on the monitor, its title bar above the top edge and its right side past it.
    expect(visibleBounds({ x: 3000, y: -400, width: 1200, height: 900 }, displays(laptop, monitor))).toEqual({ x: 2800, y: -200, width: 1200, height: 900 });
  });

  it('restores the saved window fitted to the displays, maximized if it was; nothing saved, nothing restored', () => {
    const saved = { version: 1 as const, window: { x: 2000, y: -100, width: 1600, height: 1000, maximized: true } };
    expect(windowToRestore(saved, displays(laptop))).toEqual({ x: 0, y: 0, width: 1440, height: 875, maximized: true });
    expect(windowToRestore(DEFAULT_APP_STATE, displays(laptop))).toBeNull();
  });

  it('saves the unmaximized bounds when the window closes, and a moment after a move or a resize', () => {
    vi.useFakeTimers();
    try {
      const listeners = new Map<string, () => void>();
      let bounds = { x: 10.4, y: 20, width: 1000, height: 700 };
      let maximized = false;
      const window = { getNormalBounds: () => bounds, isMaximized: () => maximized, on: (name: string, listener: () => void) => listeners.set(name, listener) };
      const saves: unknown[] = [];
      keepWindowState(window, (state) => saves.push(state), 500);
      listeners.get('move')!();
      bounds = { ...bounds, x: 30 };
      listeners.get('resize')!();
      vi.advanceTimersByTime(499);
      expect(saves).toEqual([]);
      vi.advanceTimersByTime(1);
      expect(saves).toEqual([{ x: 30, y: 20, width: 1000, height: 700, maximized: false }]);
      maximized = true;
      listeners.get('resize')!();
      listeners.get('close')!();
      vi.advanceTimersByTime(1000);
      expect(saves).toEqual([
        { x: 30, y: 20, width: 1000, height: 700, maximized: false },
        { x: 30, y: 20, width: 1000, height: 700, maximized: true },
      ]);
    } finally {
      vi.useRealTimers();
    }
  });
});
