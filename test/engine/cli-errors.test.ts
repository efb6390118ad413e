/**
 * How the built CLI fails (issue 21): whatever goes wrong, a person reads one line naming the
 * error's code, what happened and what to do, and the process exits with a documented code
 * (0 done, 1 failed, 2 bad command line, 3 workspace busy, 4 unexpected); --verbose adds the
 * stack; --json prints one JSON error document on stdout instead.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LockFile } from '../../main/engine/queue/lock-file.js';

const ROOT = join(import.meta.dirname, '../..');
const CLI = join(ROOT, 'dist-main/cli.js');
const SAMPLE = join(ROOT, 'assets/sample');
const CONVERSATION = join(ROOT, 'test/fixtures/conversations/deploy-staging-failing.json');
let dir: string;

function cairn(...args: string[]) {
  const run = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', cwd: dir, env: { ...process.env, CAIRN_WORKSPACE: '', CAIRN_DEBUG: '' } });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** The lines a person sees on stderr. */
const linesOf = (text: string) => text.split('\n').filter((line) => line.trim() !== '');
const STACK_FRAME = /^\s+at .+/m;

beforeAll(async () => {
  if (!existsSync(CLI)) execFileSync(process.execPath, [join(ROOT, 'scripts/build-main.mjs')], { cwd: ROOT });
  dir = await mkdtemp(join(tmpdir(), 'cairn-cli-errors-'));
}, 120_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('cairn errors', () => {
  it('a second ingest into a workspace another process holds says so in one line and exits 3', async () => {
    const workspace = join(dir, 'locked');
    const queue = join(workspace, '.cairn', 'queue');
    await mkdir(queue, { recursive: true });
    // Held the way an ingest holds it: the outbox lock, stamped with a live process (this one).
    const lock = await LockFile.acquire(join(queue, 'outbox.lock'), 'the test');
    try {
      const text = cairn('ingest', SAMPLE, '--workspace', workspace, '--workers', '0', '--no-wait');
      expect(text.code).toBe(3);
      expect(text.stdout).toBe('');
      const lines = linesOf(text.stderr);
      expect(lines, text.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^cairn: LOCKED: The workspace ${workspace.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is busy: .* \\(pid ${process.pid} on [^)]+\\) has held it since .*\\. Wait for it to finish, or use another --workspace\\.$`));
      expect(text.stderr).not.toMatch(STACK_FRAME);

      const verbose = cairn('ingest', SAMPLE, '--workspace', workspace, '--workers', '0', '--no-wait', '--verbose');
      expect(verbose.code).toBe(3);
      // --verbose also logs (info: lines); the error itself is the same line.
      expect(linesOf(verbose.stderr)).toContain(lines[0]);
      expect(verbose.stderr).toMatch(/^CairnError: The workspace .* is busy/m);
      expect(verbose.stderr).toMatch(STACK_FRAME);
      expect(verbose.stderr).toContain('acquire');

      const json = cairn('ingest', SAMPLE, '--workspace', workspace, '--workers', '0', '--no-wait', '--json');
      expect(json.code).toBe(3);
      expect(JSON.parse(json.stdout)).toEqual({
        error: { code: 'LOCKED', message: expect.stringContaining('is busy'), details: expect.objectContaining({ pid: process.pid, path: join(queue, 'outbox.lock') }) },
      });
      expect(json.stderr).not.toMatch(STACK_FRAME);
    } finally {
      await lock.release();
    }
    // Once the lock is free, the same command works.
    expect(cairn('ingest', SAMPLE, '--workspace', workspace, '--workers', '0', '--no-summarize', '--json').code).toBe(0);
  }, 120_000);

  it('a bad flag or value prints one line and exits 2, and --json keeps it one JSON document', () => {
    const unknown = cairn('ingest', SAMPLE, '--bogus');
    expect(unknown.code).toBe(2);
    expect(linesOf(unknown.stderr)).toEqual(["cairn: INVALID_INPUT: unknown option '--bogus'. See `cairn ingest --help`."]);

    const typo = cairn('memories', 'list', '--jsno');
    expect(typo.code).toBe(2);
    expect(linesOf(typo.stderr)).toEqual(["cairn: INVALID_INPUT: unknown option '--jsno' (Did you mean --json?). See `cairn memories list --help`."]);

    const missing = cairn('cat');
    expect(missing.code).toBe(2);
    expect(linesOf(missing.stderr)).toEqual(["cairn: INVALID_INPUT: missing required argument 'uri'. See `cairn cat --help`."]);

    const value = cairn('cat', 'ctx://resources/x.md', '--level', '7', '--workspace', join(dir, 'empty'));
    expect(value.code).toBe(2);
    expect(linesOf(value.stderr)).toEqual(['cairn: INVALID_INPUT: --level must be 0, 1 or 2, not "7". See `cairn cat --help`.']);

    const json = cairn('search', '--bogus', '--json');
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toEqual({ error: { code: 'INVALID_INPUT', message: "unknown option '--bogus'" } });
    expect(json.stderr).toBe('');
  });

  it('a command group without its subcommand shows its help and exits 2; --help and --version exit 0', () => {
    const group = cairn('sessions');
    expect(group.code).toBe(2);
    expect(group.stderr).toContain('Usage: cairn sessions');
    const help = cairn('--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Exit codes:\n  0  done\n  1  failed');
    expect(help.stdout).toContain('3  workspace busy');
    expect(cairn('--version').code).toBe(0);
  });

  it('an unexpected error says it is a bug and where to report it, in one line; --verbose adds the stack', async () => {
    const workspace = join(dir, 'damaged');
    expect(cairn('sessions', 'import', CONVERSATION, '--workspace', workspace, '--json').code).toBe(0);
    // A conversation file cut short (a full disk, a hand edit): nothing reads it with a named error yet.
    await writeFile(join(workspace, 'session/deploy-staging-failing/conversation.json'), '{"id": "deploy-staging-failing", "sessions": [');

    const text = cairn('sessions', 'analyze', 'deploy-staging-failing', '--workspace', workspace);
    expect(text.code).toBe(4);
    const lines = linesOf(text.stderr);
    expect(lines, text.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^cairn: unexpected error \(INTERNAL\): SyntaxError: .*JSON.*\. This is a bug in Cairn: please report it on the issue tracker of the repository you got Cairn from, with the output of the same command run with --verbose\.$/);
    expect(text.stderr).not.toMatch(STACK_FRAME);

    const verbose = cairn('sessions', 'analyze', 'deploy-staging-failing', '--workspace', workspace, '-v');
    expect(verbose.code).toBe(4);
    expect(verbose.stderr).toContain(lines[0]);
    expect(verbose.stderr).toMatch(/^SyntaxError: /m);
    expect(verbose.stderr).toMatch(STACK_FRAME);

    const json = cairn('sessions', 'analyze', 'deploy-staging-failing', '--workspace', workspace, '--json');
    expect(json.code).toBe(4);
    expect(JSON.parse(json.stdout).error).toMatchObject({ code: 'INTERNAL', message: expect.stringMatching(/JSON/) });
  }, 120_000);

  it('a system error nothing named is an I/O failure (exit 1), not a bug', async () => {
    const file = join(dir, 'a-file');
    await writeFile(file, 'not a folder');
    const run = cairn('ls', '--workspace', file);
    expect(run.code).toBe(1);
    expect(linesOf(run.stderr)).toEqual([expect.stringMatching(/^cairn: IO_ERROR: ENOTDIR: not a directory, .*\. Check that the path exists, that you may read and write it, and that the disk has room\.$/)]);
  });
});
