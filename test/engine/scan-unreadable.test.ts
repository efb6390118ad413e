/**
 * Unreadable files and folders, for real. Root ignores permission bits, so when the tests run as
 * root the scan runs in a child process that drops to `nobody` (uid/gid 65534) first; the child
 * loads the scan bundled by esbuild into one CommonJS file, since Node 20 cannot run TypeScript.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { CairnError } from '../../shared/errors.js';
import type { Skip } from '../../shared/types/ingest.js';
import { scanFolder } from '../../main/engine/scan/scan-folder.js';

const NOBODY = 65534;
const isRoot = process.getuid?.() === 0;

let tmp: string;

beforeEach(async () => {
  tmp = await realpath(await mkdtemp(join(tmpdir(), 'cairn-scan-perm-')));
  // mkdtemp makes the folder private; `nobody` must be able to reach everything but the locked parts.
  await chmod(tmp, 0o755);
});
afterEach(async () => {
  for (const locked of ['root/locked.md', 'root/closed', 'locked-root']) await chmod(join(tmp, locked), 0o755).catch(() => undefined);
  await rm(tmp, { recursive: true, force: true });
});

interface Outcome {
  files: string[];
  dirs: string[];
  skipped: Skip[];
  lockedRoot: { code: string; message: string } | null;
}

/** Scans `root` and `lockedRoot` as a user the permission bits apply to. */
async function scanAsUnprivileged(root: string, lockedRoot: string): Promise<Outcome> {
  if (!isRoot) {
    const result = await scanFolder(root, { maxFileBytes: 1 << 20, followSymlinks: true });
    const error = await scanFolder(lockedRoot, { maxFileBytes: 1 << 20, followSymlinks: true }).then(
      () => null,
      (e: unknown) => e,
    );
    return {
      files: result.files.map((f) => f.relPath),
      dirs: result.dirs,
      skipped: result.skipped,
      lockedRoot: CairnError.is(error) ? { code: error.code, message: error.message } : null,
    };
  }
  const bundle = join(tmp, 'scan-bundle.cjs');
  await build({
    entryPoints: [fileURLToPath(new URL('../../main/engine/scan/scan-folder.ts', import.meta.url))],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile: bundle,
    logLevel: 'silent',
  });
  await chmod(bundle, 0o644);
  const child = `
    const [bundle, root, lockedRoot] = JSON.parse(process.argv[1]);
    process.setgroups([]);
    process.setgid(${NOBODY});
    process.setuid(${NOBODY});
    const { scanFolder } = require(bundle);
    const options = { maxFileBytes: 1 << 20, followSymlinks: true };
    (async () => {
      const result = await scanFolder(root, options);
      const lockedError = await scanFolder(lockedRoot, options).then(() => null, (e) => e);
      process.stdout.write(JSON.stringify({
        uid: process.getuid(),
        files: result.files.map((f) => f.relPath),
        dirs: result.dirs,
        skipped: result.skipped,
        lockedRoot: lockedError && { code: lockedError.code, message: lockedError.message },
      }));
    })().catch((e) => { console.error(e); process.exit(1); });
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', child, JSON.stringify([bundle, root, lockedRoot])], { cwd: tmp });
  const parsed = JSON.parse(stdout) as Outcome & { uid: number };
  expect(parsed.uid).toBe(NOBODY);
  return parsed;
}

describe('scanFolder: unreadable entries', () => {
  it('skips a file it cannot open and a folder it cannot list, with the errno, and fails on a root it cannot list', async () => {
    const root = join(tmp, 'root');
    await mkdir(join(root, 'closed'), { recursive: true });
    await mkdir(join(root, 'open'));
    await mkdir(join(tmp, 'locked-root'));
    await writeFile(join(root, 'ok.md'), '# Fine\n');
    await writeFile(join(root, 'locked.md'), '# Private\n');
    await writeFile(join(root, 'closed/inside.md'), '# Never seen\n');
    await writeFile(join(root, 'open/fine.md'), '# Fine too\n');
    await writeFile(join(tmp, 'locked-root/a.md'), '# A\n');
    await chmod(join(root, 'locked.md'), 0o000);
    await chmod(join(root, 'closed'), 0o000);
    await chmod(join(tmp, 'locked-root'), 0o000);

    const outcome = await scanAsUnprivileged(root, join(tmp, 'locked-root'));
    expect(outcome.files).toEqual(['ok.md', 'open/fine.md']);
    expect(outcome.dirs).toEqual(['', 'open']);
    expect(outcome.skipped).toEqual([
      { path: 'closed', reason: 'unreadable', detail: 'cannot list the folder: permission denied (EACCES)' },
      { path: 'locked.md', reason: 'unreadable', detail: 'cannot open the file: permission denied (EACCES)' },
    ]);
    expect(outcome.lockedRoot).toEqual({ code: 'IO_ERROR', message: `Cannot list ${join(tmp, 'locked-root')}: permission denied (EACCES)` });
  });
});
