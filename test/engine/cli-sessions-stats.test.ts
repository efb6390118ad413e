/**
 * `cairn sessions stats` as a user runs it: the built CLI on a temp workspace, after an import and
 * an analyze made by earlier commands (each its own process): the text names the stages, the
 * cache's hit rate, the components' health and the buffered chains; `--json` is the contract's
 * SessionStats; and a workspace whose track B is switched off analyzes without chains.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionAnalysisResult, SessionStats } from '../../shared/contracts/api.js';

const ROOT = join(import.meta.dirname, '../..');
const CLI = join(ROOT, 'dist-main/cli.js');
const DEPLOY = join(ROOT, 'test/fixtures/conversations/deploy-staging-failing.json');
let dir: string;

function cairn(...args: string[]) {
  const run = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', cwd: dir, env: { ...process.env, CAIRN_WORKSPACE: '' } });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

beforeAll(async () => {
  // `npm run -s build:main` when the bundle is missing or predates this command.
  if (!existsSync(CLI) || !existsSync(join(ROOT, 'dist-main/track.worker.js')) || !readFileSync(CLI, 'utf8').includes('tracks run')) {
    execFileSync(process.execPath, [join(ROOT, 'scripts/build-main.mjs')], { cwd: ROOT });
  }
  dir = await mkdtemp(join(tmpdir(), 'cairn-cli-stats-'));
}, 120_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('cairn sessions stats', () => {
  it('prints the figures of the analyses earlier commands made, and --json is the documented shape', () => {
    const workspace = join(dir, 'ws');
    expect(cairn('sessions', 'import', DEPLOY, '--workspace', workspace).code).toBe(0);
    const analyzed = cairn('sessions', 'analyze', 'deploy-staging-failing', '--workspace', workspace, '--json');
    expect(analyzed.code).toBe(0);
    const analysis = SessionAnalysisResult.parse(JSON.parse(analyzed.stdout));
    expect(cairn('sessions', 'analyze', 'deploy-staging-failing', '--workspace', workspace).code).toBe(0);

    const text = cairn('sessions', 'stats', '--workspace', workspace);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^Memory processor: healthy, parallel, tracks run worker-threads\n/);
    expect(text.stdout).toMatch(/^ {2}track_a +1× +mean \d+\.\d\d ms, min \d+\.\d\d ms, max \d+\.\d\d ms$/m);
    expect(text.stdout).toMatch(/^ {2}track_b +1× /m);
    expect(text.stdout).toContain('Cache: hit rate 50.0% (1 of 2 lookups)');
    expect(text.stdout).toMatch(/^ {2}workers +healthy /m);
    expect(text.stdout).toContain(`Chain buffer: ${analysis.chains.length} chains waiting in 1 conversation`);
    expect(text.stdout).toContain(`  ${analysis.chains[0]!.summary.slice(0, 40)}`);

    const json = cairn('sessions', 'stats', '--workspace', workspace, '--json');
    expect(json.code).toBe(0);
    const stats = SessionStats.parse(JSON.parse(json.stdout));
    expect(stats.stages.track_b?.count).toBe(1);
    expect(stats.cache.hit_rate).toBe(0.5);
    expect(stats.buffer.conversations.map((c) => [c.conversation_id, c.chains])).toEqual([['deploy-staging-failing', analysis.chains.length]]);
  }, 120_000);

  it('analyzes without chains where the workspace switched track B off (the setting is the default of the CLI)', async () => {
    const workspace = join(dir, 'ws-no-b');
    await mkdir(join(workspace, '.cairn'), { recursive: true });
    await writeFile(join(workspace, '.cairn/settings.json'), JSON.stringify({ version: 1, memory: { trackA: true, trackB: false } }));
    const run = cairn('sessions', 'analyze', DEPLOY, '--workspace', workspace, '--json');
    expect(run.code).toBe(0);
    const analysis = SessionAnalysisResult.parse(JSON.parse(run.stdout));
    expect(analysis.tracks).toMatchObject({ a: true, b: false });
    expect(analysis.chains).toEqual([]);
    const stats = SessionStats.parse(JSON.parse(cairn('sessions', 'stats', '--workspace', workspace, '--json').stdout));
    expect(stats.stages.track_b).toBeUndefined();
    expect(stats.stages.track_a?.count).toBe(1);
    expect(stats.buffer.chains).toBe(0);
  }, 120_000);
});
