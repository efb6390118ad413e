/**
 * `cairn ingest <git URL> [--ref REF]` through the built CLI (issue 21 item 4), against a local
 * repository over file://: the tree and its commit, a local repository path that stays a plain
 * folder ingest without --ref, and a clone that fails in one line.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const CLI = join(ROOT, 'dist-main/cli.js');
let dir: string;
let repo: string;

function cairn(...args: string[]) {
  const run = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', cwd: dir, env: { ...process.env, CAIRN_WORKSPACE: '', CAIRN_DEBUG: '' } });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}
const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } }).trim();

beforeAll(async () => {
  if (!existsSync(CLI)) execFileSync(process.execPath, [join(ROOT, 'scripts/build-main.mjs')], { cwd: ROOT });
  dir = await mkdtemp(join(tmpdir(), 'cairn-cli-git-'));
  repo = join(dir, 'tide-log');
  await mkdir(repo);
  git('init', '--quiet', '--initial-branch', 'trunk');
  await writeFile(join(repo, 'README.md'), '# Tide log\n\nReadings by the harbour master.\n');
  git('add', '-A');
  git('-c', 'user.name=Ana', '-c', 'user.email=ana@example.com', 'commit', '--quiet', '-m', 'first');
  git('tag', 'v1');
  // An uncommitted file: a clone never has it, a folder ingest of the working tree does.
  await writeFile(join(repo, 'scratch.md'), '# Scratch\n\nNot committed.\n');
}, 120_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('cairn ingest <git URL>', () => {
  it('clones, ingests the commit as ctx://resources/<repo>/ and says which commit', () => {
    const head = git('rev-parse', 'HEAD');
    const text = cairn('ingest', `file://${repo}`, '--workspace', join(dir, 'ws'), '--workers', '0', '--no-summarize', '--no-progress');
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`Ingested file://${repo} at trunk (${head.slice(0, 12)}) → ctx://resources/tide-log/`);
    const stat = cairn('stat', 'ctx://resources/tide-log/', '--workspace', join(dir, 'ws'));
    expect(stat.stdout).toMatch(new RegExp(`^git +file://${repo} at trunk \\(${head.slice(0, 12)}\\)$`, 'm'));
    const json = cairn('ingest', repo, '--ref', 'v1', '--workspace', join(dir, 'ws'), '--workers', '0', '--no-summarize', '--json');
    expect(json.code, json.stderr).toBe(0);
    const result = JSON.parse(json.stdout) as { root: string; files: number; git: { remote: string; ref: string; commit: string } };
    // A local path with --ref is cloned too: a source of its own (the path, not the file:// URL).
    expect(result).toMatchObject({ root: 'ctx://resources/tide-log-2/', files: 1, git: { remote: repo, ref: 'v1', commit: head } });
  });

  it('keeps a local repository path without --ref a plain folder ingest (uncommitted files included)', () => {
    const json = cairn('ingest', repo, '--workspace', join(dir, 'ws-folder'), '--workers', '0', '--no-summarize', '--json');
    expect(json.code, json.stderr).toBe(0);
    const result = JSON.parse(json.stdout) as { files: number; git?: unknown };
    expect(result.files).toBe(2);
    expect(result.git).toBeUndefined();
  });

  it('fails in one line when the clone fails or the ref is unknown', () => {
    const missing = cairn('ingest', `file://${dir}/gone`, '--workspace', join(dir, 'ws'), '--workers', '0', '--no-summarize');
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim().split('\n')).toEqual([
      `cairn: NOT_FOUND: Cannot clone file://${dir}/gone: '${dir}/gone' does not appear to be a git repository. Check the URL, and that \`git clone\` can reach it from this machine.`,
    ]);
    const ref = cairn('ingest', `file://${repo}`, '--ref', 'v9', '--workspace', join(dir, 'ws'), '--workers', '0', '--no-summarize');
    expect(ref.code).toBe(1);
    expect(ref.stderr.trim().split('\n')).toEqual([`cairn: NOT_FOUND: Cannot ingest file://${repo}: it has no branch, tag or commit "v9". List its branches and tags with \`git ls-remote URL\`.`]);
  });
});
