/**
 * What a launch hands the running app: the folder or file on its command line, found among the
 * executable, the app path (run as `electron <app>`) and Chromium's switches.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { CairnError } from '../../shared/errors.js';
import { memoryLogger } from '../engine/ports/logger.js';
import type { EngineConnection } from '../host/engine-connection.js';
import { folderAt, ingestLaunchPath, launchPath, showWindow } from './launch.js';

const home = mkdtempSync(join(tmpdir(), 'cairn-launch-'));
mkdirSync(join(home, 'notes'));
writeFileSync(join(home, 'todo.md'), '# To do\n');
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('launchPath', () => {
  it('takes the last argument that names a folder, resolved from the launch folder', () => {
    expect(launchPath(['/opt/Cairn/cairn', join(home, 'notes')], '/', false)).toBe(join(home, 'notes'));
    expect(launchPath(['/opt/Cairn/cairn', '--allow-file-access-from-files', 'notes', '--original-process-start-time=1'], home, false)).toBe(join(home, 'notes'));
    expect(launchPath(['/opt/Cairn/cairn', 'notes', 'todo.md'], home, false)).toBe(join(home, 'notes'));
    expect(launchPath(['/opt/Cairn/cairn', 'notes', 'missing-folder'], home, false)).toBe(join(home, 'notes'));
  });

  it('finds nothing in a bare launch, and skips the app folder of `electron <app>`', () => {
    expect(launchPath(['/opt/Cairn/cairn'], home, false)).toBeNull();
    expect(launchPath(['/opt/Cairn/cairn', '--inspect', 'missing'], home, false)).toBeNull();
    // `electron .` from the repository: "." is the app, not a folder to ingest.
    expect(launchPath(['/usr/bin/electron', '.'], home, true)).toBeNull();
    expect(launchPath(['/usr/bin/electron', '.', 'notes'], home, true)).toBe(join(home, 'notes'));
  });
});

describe('folderAt (macOS open-file: a folder dropped on the Dock icon)', () => {
  it('takes a folder, and leaves a file or a missing path alone', () => {
    expect(folderAt(join(home, 'notes'))).toBe(join(home, 'notes'));
    expect(folderAt(join(home, 'todo.md'))).toBeNull();
    expect(folderAt(join(home, 'missing'))).toBeNull();
  });
});

describe('a launch handed over', () => {
  it('brings the window back out of the dock and to the front', () => {
    const window = { isMinimized: () => true, restore: vi.fn(), show: vi.fn(), focus: vi.fn() };
    showWindow(window);
    expect(window.restore).toHaveBeenCalledOnce();
    expect(window.show).toHaveBeenCalledOnce();
    expect(window.focus).toHaveBeenCalledOnce();
  });

  it('ingests the path as an ingest of its own job, and logs a refusal (the UI sees the ingest events)', async () => {
    const calls: [string, unknown][] = [];
    const engine = {
      call: async (command: string, request: unknown) => {
        calls.push([command, request]);
        throw new CairnError('NOT_FOUND', 'engine: no such folder');
      },
      subscribe: () => () => {},
    } as unknown as EngineConnection;
    const logger = memoryLogger();
    await ingestLaunchPath(engine, join(home, 'notes'), logger);
    expect(calls).toEqual([['ingest:start', { path: join(home, 'notes'), jobId: expect.stringMatching(/^[0-9a-f-]{36}$/) }]]);
    expect(logger.lines).toEqual([{ level: 'warn', message: `The ingest of ${join(home, 'notes')} asked for by a launch failed: engine: no such folder`, fields: undefined }]);
  });
});
