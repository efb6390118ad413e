/**
 * `cairn sessions analyze|commit --llm-*` as a user runs the built CLI against the mock OpenAI
 * server: the help lists the flags, the analysis comes from the LLM (each item, cluster and chain
 * says so in --json), a bad answer for one batch ends the run with its fallbacks' causes in one
 * line (as ingest does) and shows in `cairn sessions stats`, and commit and `import --commit` take
 * the same flags.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionAnalysisResult, SessionProposal } from '../../shared/contracts/api.js';
import { buildCli, ROOT, runCli } from '../support/cli.js';
import { memoryAnswers, promptOf, schemaNameOf } from '../support/mock-memory-llm.js';
import { reply, startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';

const FILE = join(ROOT, 'test/fixtures/conversations/choosing-a-database.json');

let server: MockOpenAI;
let dir: string;
let badFirstBatch = false;

const cairn = (...args: string[]) => runCli([...args, '--workspace', join(dir, 'ws')]);
const llm = () => ['--llm-base-url', server.url, '--llm-api-key', 'sk-test', '--llm-model', 'mock-model'];

beforeAll(async () => {
  buildCli();
  dir = await mkdtemp(join(tmpdir(), 'cairn-cli-sessions-llm-'));
  server = await startMockOpenAI();
  server.handle(memoryAnswers({ fault: (r) => (badFirstBatch && schemaNameOf(r) === 'bucket_classification' && promptOf(r).includes("[0] user: We're building") ? reply.text('not JSON, sorry') : undefined) }));
}, 120_000);
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

describe('cairn sessions with an LLM', () => {
  it('lists the --llm-* flags in the help of analyze, commit and import', async () => {
    for (const command of ['analyze', 'commit', 'import']) {
      const help = await runCli(['sessions', command, '--help']);
      expect(help.code).toBe(0);
      for (const flag of ['--llm-base-url', '--llm-model', '--llm-api-key', '--token-budget', '--llm-timeout']) expect(help.stdout, `${command} ${flag}`).toContain(flag);
    }
  }, 60_000);

  it('analyzes with the LLM, then falls back for one bad batch and says why at the end, in the stats too', async () => {
    expect((await cairn('sessions', 'import', FILE)).code).toBe(0);
    expect(server.chatRequests).toHaveLength(0); // importing asks no model

    const run = await cairn('sessions', 'analyze', 'choosing-a-database', '--json', ...llm());
    expect(run.code, run.stderr).toBe(0);
    const analysis = SessionAnalysisResult.parse(JSON.parse(run.stdout));
    const items = Object.values(analysis.buckets).flat();
    expect(items.every((i) => i.extractor?.kind === 'llm' && i.extractor.model === 'mock-model')).toBe(true);
    expect(analysis.clusters.every((c) => c.extractor?.kind === 'llm')).toBe(true);
    expect(analysis.chains.map((c) => c.extractor)).toEqual([{ kind: 'llm', model: 'mock-model' }]);
    expect(analysis.llm).toMatchObject({ model: 'mock-model', fallbacks: 0, refused_steps: 1 });

    // Offline, the same command asks nothing and the rules make everything.
    const before = server.chatRequests.length;
    const offline = await cairn('sessions', 'analyze', 'choosing-a-database', '--json');
    expect(offline.code, offline.stderr).toBe(0);
    expect(server.chatRequests).toHaveLength(before);
    expect(Object.values(SessionAnalysisResult.parse(JSON.parse(offline.stdout)).buckets).flat().every((i) => i.extractor?.kind === 'rules')).toBe(true);

    badFirstBatch = true;
    const faulty = await cairn('sessions', 'analyze', 'choosing-a-database', '--refresh', ...llm());
    expect(faulty.code, faulty.stderr).toBe(0);
    const lines = faulty.stdout.trim().split('\n');
    expect(lines.at(-2)).toMatch(/^LLM mock-model: 1 of 2 bucket batches, 1 of 1 chain windows, \d+ of \d+ topic labels; 1 chain step refused/);
    expect(lines.at(-1)).toBe('  1 fallback: 1 × invalid JSON');
    expect(faulty.stdout).toMatch(/Buckets \(32 messages; (\d+) of (\d+) items classified by the LLM\)/);

    const stats = await cairn('sessions', 'stats');
    expect(stats.code, stats.stderr).toBe(0);
    expect(stats.stdout).toContain('LLM fallbacks to the rules: 1 × invalid JSON');
    expect(stats.stdout).toMatch(/llm_fallbacks_buckets 1/);
    badFirstBatch = false;
  }, 120_000);

  it('commit takes the same flags: the proposal names each candidate’s extractor and the LLM’s report', async () => {
    const proposed = await cairn('sessions', 'commit', 'choosing-a-database', '--json', ...llm());
    expect(proposed.code, proposed.stderr).toBe(0);
    const proposal = SessionProposal.parse(JSON.parse(proposed.stdout));
    expect(proposal.llm?.model).toBe('mock-model');
    for (const c of proposal.candidates) expect(c.candidate.extractor?.kind).toMatch(/^(llm|rules)$/);
    const yes = await cairn('sessions', 'commit', 'choosing-a-database', '--yes', ...llm());
    expect(yes.code, yes.stderr).toBe(0);
    expect(yes.stdout).toMatch(/^LLM mock-model: /m);
    expect(yes.stdout).toMatch(/^ {2}\d+ fallbacks?/m);
  }, 120_000);

  it('import --commit takes the same flags: the analysis asks the LLM, and each commit ends with its fallbacks', async () => {
    const ws = join(dir, 'ws-import');
    const before = server.chatRequests.length;
    badFirstBatch = true;
    const run = await runCli(['sessions', 'import', FILE, '--commit', ...llm(), '--workspace', ws]);
    badFirstBatch = false;
    expect(run.code, run.stderr).toBe(0);
    expect(server.chatRequests.length).toBeGreaterThan(before);
    expect(run.stdout).toMatch(/^imported {2}ctx:\/\/session\/choosing-a-database\//m);
    expect(run.stdout).toMatch(/^LLM mock-model: 1 of 2 bucket batches, 1 of 1 chain windows/m);
    expect(run.stdout).toContain('\n  1 fallback: 1 × invalid JSON');

    // A bad flag is refused in one line naming it, before anything is imported.
    const bad = await runCli(['sessions', 'import', FILE, '--commit', ...llm(), '--llm-timeout', 'soon', '--workspace', join(dir, 'ws-bad')]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toContain('--llm-timeout must be a whole number, not "soon"');
  }, 120_000);
});
