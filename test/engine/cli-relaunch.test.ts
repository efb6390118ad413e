/**
 * The CLI runs its bulk commands (ingest, reindex, summarize, watch) in a child process with
 * MALLOC_ARENA_MAX=2, a fixed mmap threshold and a fixed V8 heap growth on Linux
 * (main/cli/relaunch.ts, issue 20: the peak memory of an ingest): the
 * command prints and exits as before, and a `kill -9` of the command a user started still stops
 * the work (the crash guarantees are about that process).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HEAP_GROWTH_FLAG, childExecArgv, shouldRelaunch } from '../../main/cli/relaunch.js';
import { CLI, buildCli, runCli } from '../support/cli.js';

let tmp: string;
let tree: string;

beforeAll(async () => {
  buildCli();
  tmp = await mkdtemp(join(tmpdir(), 'cairn-relaunch-'));
  tree = join(tmp, 'notes');
  for (let d = 0; d < 20; d += 1) {
    await mkdir(join(tree, `part${d}`), { recursive: true });
    for (let f = 0; f < 20; f += 1) {
      await writeFile(join(tree, `part${d}`, `note${f}.md`), `# Note ${d}.${f}\n\n${'The uplink retries after a storm front passes. '.repeat(40)}\n`);
    }
  }
}, 120_000);
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const childrenOf = (pid: number): number[] => {
  const path = `/proc/${pid}/task/${pid}/children`;
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
};
const alive = (pid: number) => existsSync(`/proc/${pid}`) && !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
const until = async (condition: () => boolean, ms: number, what: string) => {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

describe('which commands run in a child with MALLOC_ARENA_MAX', () => {
  it('the bulk index writers on Linux, unless the variable is set or CAIRN_RELAUNCH=0', () => {
    for (const command of ['ingest', 'reindex', 'summarize', 'watch']) expect(shouldRelaunch([command, 'x'], {}, 'linux')).toBe(true);
    for (const command of ['search', 'cat', 'ls', 'tree', 'mcp', 'skeleton']) expect(shouldRelaunch([command, 'x'], {}, 'linux')).toBe(false);
    expect(shouldRelaunch(['--version'], {}, 'linux')).toBe(false);
    expect(shouldRelaunch(['ingest', 'x'], { MALLOC_ARENA_MAX: '4' }, 'linux')).toBe(false);
    expect(shouldRelaunch(['ingest', 'x'], { CAIRN_RELAUNCH: '0' }, 'linux')).toBe(false);
    expect(shouldRelaunch(['ingest', 'x'], { CAIRN_RELAUNCHED: '4242' }, 'linux')).toBe(false);
    expect(shouldRelaunch(['ingest', 'x'], {}, 'darwin')).toBe(false);
  });
});

describe("the child's Node flags", () => {
  it("are the command's own plus a fixed heap growth, unless the command line sets one", () => {
    expect(childExecArgv([])).toEqual([HEAP_GROWTH_FLAG]);
    expect(childExecArgv(['--max-old-space-size=4096'])).toEqual(['--max-old-space-size=4096', HEAP_GROWTH_FLAG]);
    expect(childExecArgv(['--heap-growing-percent=80'])).toEqual(['--heap-growing-percent=80']);
    expect(childExecArgv(['--heap_growing_percent=80'])).toEqual(['--heap_growing_percent=80']);
  });

  it('reach the process that does the work', async () => {
    // A preload that, in the relaunched child only, writes down the flags that process started with.
    const preload = join(tmp, 'flags.cjs');
    const seen = join(tmp, 'flags.json');
    await writeFile(preload, `if (process.env.CAIRN_RELAUNCHED) require('node:fs').writeFileSync(${JSON.stringify(seen)}, JSON.stringify(process.execArgv));\n`);
    const run = await new Promise<number | null>((resolve) => {
      const command = spawn(process.execPath, ['--require', preload, CLI, 'ingest', tree, '--workspace', join(tmp, 'ws-flags'), '--no-progress', '--json', '--no-summarize'], { stdio: 'ignore' });
      command.on('exit', resolve);
    });
    expect(run).toBe(0);
    expect(JSON.parse(readFileSync(seen, 'utf8'))).toEqual(['--require', preload, HEAP_GROWTH_FLAG]);
  }, 120_000);
});

describe('the relaunched command', () => {
  it('ingests as before: one JSON document, exit 0, and the same exit code and error line on bad input', async () => {
    const ok = await runCli(['ingest', tree, '--workspace', join(tmp, 'ws-ok'), '--no-progress', '--json', '--no-summarize']);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ root: 'ctx://resources/notes/', files: 400 });
    const missing = join(tmp, 'missing');
    const bad = await runCli(['ingest', missing, '--workspace', join(tmp, 'ws-bad')]);
    const direct = await runCli(['ingest', missing, '--workspace', join(tmp, 'ws-bad')], { CAIRN_RELAUNCH: '0' });
    expect(bad.code).toBe(direct.code);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toBe(direct.stderr);
  }, 120_000);

  it('runs with MALLOC_ARENA_MAX=2 and a fixed mmap threshold in a child that dies when the command is killed with SIGKILL', async () => {
    const command = spawn(process.execPath, [CLI, 'ingest', tree, '--workspace', join(tmp, 'ws-kill'), '--no-progress', '--json'], { stdio: 'ignore' });
    const pid = command.pid!;
    let child = 0;
    await until(() => (child = childrenOf(pid)[0] ?? 0) > 0, 20_000, 'the child process');
    const environ = () => readFileSync(`/proc/${child}/environ`, 'utf8').split('\0');
    await until(() => environ().includes('MALLOC_ARENA_MAX=2'), 5000, 'its environment');
    // glibc's mmap threshold fixed at its starting value, so that glibc does not raise it.
    expect(environ()).toContain('MALLOC_MMAP_THRESHOLD_=131072');
    const exited = new Promise((resolve) => command.on('exit', resolve));
    command.kill('SIGKILL');
    await exited;
    await until(() => !alive(child), 20_000, 'the child dying with its parent');
  }, 120_000);

  it('stops with the command on Ctrl-Z (SIGTSTP) and goes on when the shell wakes it (SIGCONT)', async () => {
    const command = spawn(process.execPath, [CLI, 'ingest', tree, '--workspace', join(tmp, 'ws-stop'), '--no-progress', '--json'], { stdio: 'ignore' });
    const pid = command.pid!;
    let child = 0;
    await until(() => (child = childrenOf(pid)[0] ?? 0) > 0, 20_000, 'the child process');
    const state = (p: number) => /^State:\s+(\S)/m.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1];
    // The child's own process group does not get the terminal's SIGTSTP: the parent passes it on.
    await until(() => state(child) !== undefined, 5000, 'the child started');
    command.kill('SIGTSTP');
    await until(() => state(pid) === 'T' && state(child) === 'T', 10_000, 'both stopped');
    command.kill('SIGCONT');
    await until(() => state(pid) !== 'T' && state(child) !== 'T', 10_000, 'both running again');
    const code = await new Promise((resolve) => command.on('exit', resolve));
    expect(code).toBe(0);
  }, 120_000);
});
