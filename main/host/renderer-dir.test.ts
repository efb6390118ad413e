/**
 * How `cairn serve` finds the UI (issue 22): the built renderer beside the CLI's package is used
 * as it is; missing in a repository checkout, it is built once with a one-line notice; missing
 * anywhere else, or at a --renderer that holds none, the error is one line naming the command
 * that builds it.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CairnError } from '../../shared/errors.js';
import { findRenderer } from './renderer-dir.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cairn-renderer-dir-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function file(path: string, text = '') {
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, text);
}

/** A checkout: package.json, the renderer's sources, the Vite config and Vite itself. */
async function repository(root: string) {
  await file(join(root, 'package.json'), '{"name":"cairn"}');
  await file(join(root, 'renderer', 'index.html'), '<!doctype html>');
  await file(join(root, 'vite.config.ts'));
  await file(join(root, 'node_modules', 'vite', 'bin', 'vite.js'));
}

const failingBuild = async () => {
  throw new Error('no build expected');
};

describe('findRenderer', () => {
  it('serves dist/renderer beside the package when it is built, without building or a notice', async () => {
    await repository(dir);
    await file(join(dir, 'dist', 'renderer', 'index.html'), '<!doctype html>');
    const notices: string[] = [];
    await expect(findRenderer({ root: dir, notice: (line) => notices.push(line), build: failingBuild })).resolves.toBe(join(dir, 'dist', 'renderer'));
    expect(notices).toEqual([]);
  });

  it('builds the renderer once in a repository checkout that has none, saying so in one line', async () => {
    await repository(dir);
    const notices: string[] = [];
    const builds: string[] = [];
    const found = await findRenderer({
      root: dir,
      notice: (line) => notices.push(line),
      build: async (repo) => {
        builds.push(repo);
        await file(join(repo, 'dist', 'renderer', 'index.html'), '<!doctype html>');
      },
    });
    expect(found).toBe(join(dir, 'dist', 'renderer'));
    expect(builds).toEqual([dir]);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/^cairn: the UI is not built yet; building it once into .*dist\/renderer \(npm run build:web\)…$/);
  });

  it('says in one line which command builds it where there is nothing to build from (a package, an installed CLI)', async () => {
    await file(join(dir, 'package.json'), '{"name":"cairn"}');
    await file(join(dir, 'dist-main', 'cli.js'));
    const error = await findRenderer({ root: dir, notice: () => {}, build: failingBuild }).catch((e: unknown) => e);
    expect(CairnError.is(error, 'NOT_FOUND')).toBe(true);
    const message = (error as Error).message;
    expect(message).not.toContain('\n');
    expect(message).toContain(join(dir, 'dist', 'renderer', 'index.html'));
    expect(message).toContain('`npm run build:web`');
    expect(message).toContain('--renderer');
  });

  it('serves a --renderer folder as given, and refuses one without index.html rather than building', async () => {
    const built = join(dir, 'ui');
    await file(join(built, 'index.html'), '<!doctype html>');
    await expect(findRenderer({ explicit: built, root: dir, notice: () => {}, build: failingBuild })).resolves.toBe(built);

    await repository(dir);
    const empty = join(dir, 'empty');
    await mkdir(empty);
    const error = await findRenderer({ explicit: empty, root: dir, notice: () => {}, build: failingBuild }).catch((e: unknown) => e);
    expect(CairnError.is(error, 'NOT_FOUND')).toBe(true);
    expect((error as Error).message).toMatch(/^--renderer .*empty holds no built renderer \(no index\.html there\); build one with `npm run build:web`/);
  });

  it('reports a failed build in one line', async () => {
    await repository(dir);
    const error = await findRenderer({ root: dir, notice: () => {}, build: async () => {} }).catch((e: unknown) => e);
    expect(CairnError.is(error, 'IO_ERROR')).toBe(true);
    expect((error as Error).message).not.toContain('\n');
    expect((error as Error).message).toContain('`npm run build:web`');
  });
});
