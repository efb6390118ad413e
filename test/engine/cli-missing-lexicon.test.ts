/**
 * An installation without the local embedder's lexicon (assets/lexicon, copied to
 * dist-main/lexicon by the build): `cairn search` says so in one line (code, message, what to
 * do) and exits 1, instead of a stack trace. The built CLI is copied without its lexicon into a
 * temporary folder, next to a link to the repository's node_modules.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '../..');
let dir: string;

beforeAll(async () => {
  const built = join(ROOT, 'dist-main/cli.js');
  if (!existsSync(built) || !readFileSync(built, 'utf8').includes('one legend of sources at the end')) {
    execFileSync(process.execPath, [join(ROOT, 'scripts/build-main.mjs')], { cwd: ROOT });
  }
  dir = await mkdtemp(join(tmpdir(), 'cairn-no-lexicon-'));
  cpSync(join(ROOT, 'dist-main'), join(dir, 'cli'), { recursive: true });
  rmSync(join(dir, 'cli/lexicon'), { recursive: true, force: true });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
}, 120_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('cairn search without the lexicon', () => {
  it('prints one line naming the code, what is missing and what to do, and exits 1', () => {
    for (const args of [['search', 'lamp cleaning', '-w', 'ws'], ['search', 'lamp', '-w', 'ws', '--mode', 'fts']]) {
      const run = spawnSync(process.execPath, [join(dir, 'cli/cli.js'), ...args], { encoding: 'utf8', cwd: dir });
      expect(run.status, run.stderr).toBe(1);
      expect(run.stdout).toBe('');
      const lines = run.stderr.trimEnd().split('\n');
      expect(lines, run.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(/^cairn: NOT_FOUND: The local embedder's lexicon \(lexicon\/wordnet-en\.txt\) is missing from this installation; looked in /);
      expect(lines[0]).toContain('Reinstall Cairn; in a source checkout, run `npm run build:main`');
      expect(lines[0]).not.toContain('ctx:// URI');
    }
  }, 120_000);
});
