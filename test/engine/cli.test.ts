/**
 * The built `cairn` CLI as a user runs it: --help everywhere, --json printing exactly one JSON
 * document on stdout, readable text otherwise, and clear errors with a failing exit code.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '../..');
const CLI = join(ROOT, 'dist-main/cli.js');
const SAMPLE = join(ROOT, 'assets/sample');
let workspace: string;

function cairn(...args: string[]) {
  const run = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { ...process.env, CAIRN_WORKSPACE: workspace } });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

beforeAll(async () => {
  if (!existsSync(CLI)) execFileSync(process.execPath, [join(ROOT, 'scripts/build-main.mjs')], { cwd: ROOT });
  workspace = await mkdtemp(join(tmpdir(), 'cairn-cli-'));
}, 60_000);
afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

describe('cairn CLI', () => {
  it('documents every command in --help', () => {
    const help = cairn('--help');
    expect(help.code).toBe(0);
    for (const command of ['ingest', 'ls', 'tree', 'cat', 'stat', 'skeleton', 'serve']) expect(help.stdout).toContain(command);
    const ingestHelp = cairn('ingest', '--help');
    expect(ingestHelp.stdout).toContain('--workspace');
    expect(ingestHelp.stdout).toContain('--json');
  });

  it('ingests and summarizes the sample, then browses it', () => {
    const ingest = cairn('ingest', SAMPLE, '--json', '--workers', '1');
    expect(ingest.code, ingest.stderr).toBe(0);
    const result = JSON.parse(ingest.stdout);
    expect(result).toMatchObject({ root: 'ctx://resources/sample/', files: 9 });
    expect(result.skipped.map((s: { path: string }) => s.path).sort()).toEqual(['build.log', 'logo.png']);
    expect(result.summary.dirsSummarized).toBeGreaterThanOrEqual(5);

    const tree = cairn('tree', 'ctx://resources/sample/');
    expect(tree.code).toBe(0);
    expect(tree.stdout).toMatch(/^sample\/ {2}— /);
    expect(tree.stdout).toContain('├── docs/');
    expect(cairn('tree', 'ctx://resources/sample/').stdout).toBe(tree.stdout);

    const abstract = cairn('cat', 'ctx://resources/sample/', '--level', '0');
    expect(abstract.code).toBe(0);
    expect(abstract.stdout.trim().length).toBeGreaterThan(10);
    expect(abstract.stdout.length).toBeLessThanOrEqual(257);

    const skeleton = cairn('cat', 'ctx://resources/sample/src/station.py', '--level', '1');
    expect(skeleton.stdout).toContain('class Station');

    // A split document's folder prints as the whole document.
    const doc = cairn('cat', 'ctx://resources/sample/docs/architecture.md/');
    expect(doc.code, doc.stderr).toBe(0);
    expect(doc.stdout).toBe(readFileSync(join(SAMPLE, 'docs/architecture.md'), 'utf8'));

    const stat = cairn('stat', 'ctx://resources/sample/', '--json');
    expect(JSON.parse(stat.stdout).meta.summary_status).toBe('done');

    const again = JSON.parse(cairn('ingest', SAMPLE, '--json', '--workers', '0').stdout);
    expect(again.changed).toBe(0);
    expect(again.summary?.dirsSummarized ?? 0).toBe(0);
  }, 60_000);

  it('lists and draws release notes in natural order', async () => {
    const notes = join(workspace, '..', `${workspace.split('/').pop()}-release-notes`);
    await mkdir(notes, { recursive: true });
    for (const name of ['2.39.5.txt', '2.4.0.txt', '1.5.0.1.txt', 'file10.md', 'file9.md']) await writeFile(join(notes, name), `Release ${name}\n`);
    try {
      expect(cairn('ingest', notes, '--json', '--workers', '0', '--no-summarize').code).toBe(0);
      const root = `ctx://resources/${notes.split('/').pop()}/`;
      const ls = JSON.parse(cairn('ls', root, '--json').stdout) as { entries: { name: string }[] };
      const natural = ['1.5.0.1.txt', '2.4.0.txt', '2.39.5.txt', 'file9.md', 'file10.md'];
      expect(ls.entries.map((e) => e.name)).toEqual(natural);
      const tree = cairn('tree', root).stdout;
      const at = natural.map((name) => tree.indexOf(name));
      expect(at.every((index) => index > 0)).toBe(true);
      expect([...at].sort((a, b) => a - b)).toEqual(at);
    } finally {
      await rm(notes, { recursive: true, force: true });
    }
  }, 60_000);

  it('prints skeletons in the documented JSON shape', () => {
    const run = cairn('skeleton', join(SAMPLE, 'src'), '--json');
    expect(run.code).toBe(0);
    const { files } = JSON.parse(run.stdout);
    expect(files.map((f: { file: string }) => f.file)).toEqual(['api.ts', 'station.py', 'uplink.go']);
    const station = files[1];
    expect(station.classes.map((c: { name: string }) => c.name)).toEqual(['Quantity', 'Statistics', 'Window', 'Station']);
    expect(station.functions[0]).toMatchObject({ name: 'encode_packet', params: expect.stringContaining('station_id: int'), return_type: 'bytes' });
  });

  it('makes the skeletons of a folder in worker threads, printed in scan order, the same bytes as in one thread', async () => {
    const tree = await mkdtemp(join(tmpdir(), 'cairn-skeleton-'));
    try {
      // 60 files: several batches per worker, so answers can arrive out of order.
      const sources = ['api.ts', 'station.py', 'uplink.go'].map((name) => [name, readFileSync(join(SAMPLE, 'src', name), 'utf8')] as const);
      for (let i = 0; i < 20; i += 1) {
        await mkdir(join(tree, `pkg${String(i).padStart(2, '0')}`), { recursive: true });
        for (const [name, text] of sources) await writeFile(join(tree, `pkg${String(i).padStart(2, '0')}`, name), text);
      }
      const pooled = cairn('skeleton', tree, '--json', '--workers', '2');
      const inline = cairn('skeleton', tree, '--json', '--workers', '0');
      expect(pooled.code, pooled.stderr).toBe(0);
      expect(pooled.stdout).toBe(inline.stdout);
      const { files } = JSON.parse(pooled.stdout);
      expect(pooled.stdout).toBe(JSON.stringify({ files }, null, 2) + '\n');
      expect(files).toHaveLength(60);
      expect(files.slice(0, 4).map((f: { file: string }) => f.file)).toEqual(['pkg00/api.ts', 'pkg00/station.py', 'pkg00/uplink.go', 'pkg01/api.ts']);
      expect(files.at(-1).file).toBe('pkg19/uplink.go');
      const text = cairn('skeleton', tree, '--workers', '2');
      expect(text.stdout).toBe(cairn('skeleton', tree, '--workers', '0').stdout);
      expect(text.stdout.match(/class Station/g)).toHaveLength(20);
      expect(cairn('skeleton', tree, '--workers', 'many').stderr).toContain('--workers must be a whole number');
    } finally {
      await rm(tree, { recursive: true, force: true });
    }
  }, 60_000);

  it('prints a folder with one source file or none the same with workers as without (the workers start during the scan and are let go)', async () => {
    const tree = await mkdtemp(join(tmpdir(), 'cairn-skeleton-few-'));
    try {
      await writeFile(join(tree, 'notes.md'), '# Notes\n');
      const none = cairn('skeleton', tree, '--json', '--workers', '2');
      expect(none.code, none.stderr).toBe(0);
      expect(JSON.parse(none.stdout)).toEqual({ files: [] });
      expect(cairn('skeleton', tree, '--workers', '2').stdout).toContain('no supported source files');
      await writeFile(join(tree, 'station.py'), readFileSync(join(SAMPLE, 'src', 'station.py'), 'utf8'));
      const one = cairn('skeleton', tree, '--json', '--workers', '2');
      expect(one.code, one.stderr).toBe(0);
      expect(one.stdout).toBe(cairn('skeleton', tree, '--json', '--workers', '0').stdout);
      expect(JSON.parse(one.stdout).files.map((f: { file: string }) => f.file)).toEqual(['station.py']);
    } finally {
      await rm(tree, { recursive: true, force: true });
    }
  }, 60_000);

  it('ends quietly when its reader stops early (`cairn skeleton … | head`)', async () => {
    const err = join(workspace, 'pipe.err');
    // The skeletons of the engine's sources are far more than a pipe holds: writes go on after head has gone.
    const run = spawnSync('bash', ['-c', 'set -o pipefail; "$0" "$1" skeleton "$2" 2>"$3" | head -c 100 >/dev/null', process.execPath, CLI, join(ROOT, 'main/engine'), err], { encoding: 'utf8' });
    expect(readFileSync(err, 'utf8')).toBe('');
    expect(run.status).toBe(0);
  });

  it('fails clearly: one JSON error document with --json, a sentence and exit code otherwise', () => {
    const json = cairn('cat', 'ctx://resources/../../etc/passwd', '--json');
    expect(json.code).not.toBe(0);
    expect(JSON.parse(json.stdout).error.code).toBe('PATH_ESCAPE');
    const text = cairn('cat', 'ctx://resources/nothing-here.md');
    expect(text.code).toBe(1);
    expect(text.stderr).toContain('No such node: ctx://resources/nothing-here.md');
  });
});
