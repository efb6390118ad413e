/**
 * `cairn serve` without a built UI (issue 22), through the built CLI: installed where there is
 * nothing to build it from (the CLI bundle and its package.json alone, as npm installs it), and
 * pointed at a --renderer folder with none in it, it exits 1 before starting anything, with one
 * line on stderr naming the command that builds the UI, and nothing on stdout (where the URL goes).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const CLI = join(ROOT, 'dist-main/cli.js');
let dir: string;

function serve(cli: string, ...args: string[]) {
  const run = spawnSync(process.execPath, [cli, 'serve', '--port', '0', '--workspace', join(dir, 'workspace'), ...args], {
    encoding: 'utf8',
    cwd: dir,
    timeout: 60_000,
    env: { ...process.env, CAIRN_WORKSPACE: '' },
  });
  return { code: run.status, stdout: run.stdout, lines: run.stderr.split('\n').filter((line) => line.trim() !== '') };
}

beforeAll(async () => {
  if (!existsSync(CLI)) execFileSync(process.execPath, [join(ROOT, 'scripts/build-main.mjs')], { cwd: ROOT });
  dir = await mkdtemp(join(tmpdir(), 'cairn-serve-renderer-'));
}, 120_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('cairn serve without a built UI', () => {
  it('installed without dist/renderer, says in one line which command builds it and exits 1', async () => {
    const installed = join(dir, 'installed');
    await mkdir(installed);
    cpSync(join(ROOT, 'dist-main'), join(installed, 'dist-main'), { recursive: true });
    await writeFile(join(installed, 'package.json'), JSON.stringify({ name: 'cairn', type: 'module' }));
    await symlink(join(ROOT, 'node_modules'), join(installed, 'node_modules'), 'dir');

    const run = serve(join(installed, 'dist-main', 'cli.js'));
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.lines, run.lines.join('\n')).toHaveLength(1);
    expect(run.lines[0]).toContain(`cairn: NOT_FOUND: The UI is not built: ${join(installed, 'dist', 'renderer', 'index.html')} is missing; build it with \`npm run build:web\``);
  });

  it('pointed at a --renderer folder without index.html, refuses it in one line and exits 1', async () => {
    const empty = join(dir, 'empty-ui');
    await mkdir(empty);
    const run = serve(CLI, '--renderer', empty);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.lines, run.lines.join('\n')).toHaveLength(1);
    expect(run.lines[0]).toContain(`cairn: NOT_FOUND: --renderer ${empty} holds no built renderer`);
  });
});
