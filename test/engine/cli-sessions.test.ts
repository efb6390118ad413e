/**
 * `cairn sessions` as a user runs it: the built CLI (with its bundled track workers) on real
 * conversation files in a temp workspace: import, analyze --json in the shape of
 * docs/ARCHITECTURE.md#the-cli, readable text, commit (review: --json proposes, no terminal refuses,
 * --yes commits what the trigger proposes), list, and an error that names the file and the reason.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionAnalysisResult, SessionCommitResult, SessionProposal } from '../../shared/contracts/api.js';

const ROOT = join(import.meta.dirname, '../..');
const CLI = join(ROOT, 'dist-main/cli.js');
const DEPLOY = join(ROOT, 'test/fixtures/conversations/deploy-staging-failing.json');
const JSONL = join(ROOT, 'test/fixtures/conversations/formats/chat.jsonl');
let dir: string;
let workspace: string;

function cairn(...args: string[]) {
  const run = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', cwd: dir, env: { ...process.env, CAIRN_WORKSPACE: '' } });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

beforeAll(async () => {
  // `npm run -s build:main` when the bundle is missing or predates this command or its worker.
  if (!existsSync(CLI) || !existsSync(join(ROOT, 'dist-main/track.worker.js')) || !readFileSync(CLI, 'utf8').includes('Nothing committed: no terminal to ask')) {
    execFileSync(process.execPath, [join(ROOT, 'scripts/build-main.mjs')], { cwd: ROOT });
  }
  dir = await mkdtemp(join(tmpdir(), 'cairn-cli-sessions-'));
  workspace = join(dir, 'ws');
}, 120_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('cairn sessions', () => {
  it('imports a file, and a second import changes nothing', () => {
    const first = cairn('sessions', 'import', DEPLOY, '--workspace', workspace, '--json');
    expect(first.code).toBe(0);
    const result = JSON.parse(first.stdout);
    expect(result.conversations).toMatchObject([{ id: 'deploy-staging-failing', uri: 'ctx://session/deploy-staging-failing/', messages: 35, unchanged: false, records: 35 }]);
    const text = cairn('sessions', 'import', DEPLOY, '--workspace', workspace);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^unchanged ctx:\/\/session\/deploy-staging-failing\/ .*35 messages, cairn\)/);
  }, 120_000);

  it('analyzes an imported conversation with --json in the documented shape', () => {
    const run = cairn('sessions', 'analyze', 'deploy-staging-failing', '--workspace', workspace, '--json');
    expect(run.code).toBe(0);
    const json = JSON.parse(run.stdout);
    for (const key of ['buckets', 'clusters', 'chains', 'links', 'validations', 'summary', 'trigger', 'tracks', 'timings_ms']) expect(json).toHaveProperty(key);
    const parsed = SessionAnalysisResult.parse(json);
    expect(parsed.tracks).toEqual({ a: true, b: true, degraded: false });
    expect(parsed.trigger.action).toBe('COORDINATED_EXTRACTION');
    expect(parsed.clusters.length).toBeGreaterThan(0);
    expect(parsed.chains.length).toBeGreaterThan(0);
    // A second run answers from the analysis stored next to the conversation.
    const again = JSON.parse(cairn('sessions', 'analyze', 'ctx://session/deploy-staging-failing/', '--workspace', workspace, '--json').stdout);
    expect(again.cached).toBe(true);
  }, 120_000);

  it('analyzes a file in place as readable text, with a track switched off', () => {
    const run = cairn('sessions', 'analyze', JSONL, '--workspace', workspace, '--no-track-b');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Conversation chat\n/);
    expect(run.stdout).toMatch(/Buckets \(\d+ messages\)\n {2}TASK_CONTEXT +\d+/);
    expect(run.stdout).toContain('Track B: off');
    expect(run.stdout).toMatch(/Trigger: WAIT/);
    expect(run.stdout).toMatch(/score \d\.\d{3} ≤ 0\.7: WAIT/);
    const withChains = cairn('sessions', 'analyze', DEPLOY, '--workspace', workspace, '--no-track-a');
    expect(withChains.stdout).toContain('Track A: off');
    expect(withChains.stdout).toMatch(/ CAUSAL +\d\.\d\d {2}.+ → .+/);
  }, 120_000);

  it('commit --json proposes and commits nothing, refuses without a terminal, and --yes commits what the trigger proposes', () => {
    const memories = () => JSON.parse(cairn('memories', 'list', '--workspace', workspace, '--json').stdout).memories as { title: string }[];
    const json = cairn('sessions', 'commit', 'deploy-staging-failing', '--workspace', workspace, '--json');
    expect(json.code).toBe(0);
    const proposal = SessionProposal.parse(JSON.parse(json.stdout));
    expect(proposal.action).toBe('COORDINATED_EXTRACTION');
    const auto = proposal.candidates.filter((c) => c.auto);
    const held = proposal.candidates.filter((c) => !c.auto);
    expect(auto.length).toBeGreaterThan(3);
    expect(held.length).toBeGreaterThan(0);
    expect(memories()).toEqual([]);

    // No terminal to ask and no --yes: the candidates are printed, nothing is committed, and it says how.
    const refused = cairn('sessions', 'commit', 'deploy-staging-failing', '--workspace', workspace);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toContain(`[1/${proposal.candidates.length}] ${proposal.candidates[0]!.candidate.category}: `);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toContain(`Nothing committed: no terminal to ask. Pass --yes to commit the ${auto.length} candidates`);
    expect(memories()).toEqual([]);

    const yes = cairn('sessions', 'commit', 'deploy-staging-failing', '--workspace', workspace, '--yes', '--json');
    expect(yes.code).toBe(0);
    const result = SessionCommitResult.parse(JSON.parse(yes.stdout));
    expect(result.candidates).toBe(auto.length);
    expect(result.changes.some((c) => c.op === 'add' && (c.after?.message_ids.length ?? 0) > 0)).toBe(true);
    // Only what the gate lets through: none of the candidates held for review became a memory.
    const titles = new Set(memories().map((m) => m.title));
    expect(titles.size).toBe(result.changes.filter((c) => c.op === 'add').length);
    for (const c of held) expect(titles.has(c.candidate.title)).toBe(false);
    const text = cairn('sessions', 'commit', 'deploy-staging-failing', '--workspace', workspace, '--yes');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^deploy-staging-failing: COORDINATED_EXTRACTION \(0\.\d{3}\), \d+ candidates: /);
    expect(text.stdout).toContain('bucket_ready');
  }, 120_000);

  it('lists what was imported', () => {
    const json = JSON.parse(cairn('sessions', 'list', '--workspace', workspace, '--json').stdout);
    expect(json.conversations).toMatchObject([{ id: 'deploy-staging-failing', messages: 35, analyzed: true }]);
    const text = cairn('sessions', 'list', '--workspace', workspace);
    expect(text.stdout).toMatch(/^deploy-staging-failing +35 msgs {2}cairn +analyzed {2}Staging deploy/);
  }, 60_000);

  it('names the file and the reason when it cannot be read', async () => {
    const broken = join(dir, 'broken.json');
    await writeFile(broken, '{"sessions": [');
    const run = cairn('sessions', 'import', broken, '--workspace', workspace);
    expect(run.code).not.toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('broken.json');
    expect(run.stderr).toMatch(/invalid JSON/);
    const json = cairn('sessions', 'analyze', 'no-such-conversation', '--workspace', workspace, '--json');
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout).error).toMatchObject({ code: 'NOT_FOUND' });
    expect(JSON.parse(json.stdout).error.message).toContain('no-such-conversation');
  }, 60_000);
});
