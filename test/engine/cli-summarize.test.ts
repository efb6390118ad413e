/**
 * `cairn summarize --upgrade` as a user runs the built CLI against the mock OpenAI-compatible
 * server: offline it says in one line that nothing is stronger, `--estimate` calls nothing, the
 * upgrade re-summarizes the offline tree through the LLM and a second one calls nothing, and a
 * run's fallbacks end with their causes grouped in one line.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCli, runCli } from '../support/cli.js';
import { reply, startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';

let server: MockOpenAI;
let tmp: string;

const cairn = (args: string[]) => runCli(args, { CAIRN_WORKSPACE: join(tmp, 'ws') });

beforeAll(buildCli, 120_000);
beforeEach(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'cairn-cli-summarize-'));
  server = await startMockOpenAI();
  server.handle(() => reply.json({ abstract: 'An LLM abstract.', overview: '# LLM\n\n- overview', categories: ['docs'] }, { usage: { prompt_tokens: 40, completion_tokens: 8 } }));
});
afterEach(async () => {
  await server.close();
  await rm(tmp, { recursive: true, force: true });
});

describe('cairn summarize', () => {
  it('--upgrade: one line offline, nothing called by --estimate, the LLM once, then nothing; a forced run names its fallbacks’ causes', async () => {
    const folder = join(tmp, 'station');
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'storms.md'), '# Storms\n\nThe uplink dropped twice during the May storm.\n');
    await writeFile(join(folder, 'power.md'), '# Power\n\nThe panels give 40 W at noon.\n');
    const ingest = await cairn(['ingest', folder, '--workers', '0']);
    expect(ingest.code, ingest.stderr).toBe(0);

    const offline = await cairn(['summarize', '--upgrade']);
    expect(offline.code, offline.stderr).toBe(0);
    expect(offline.stdout.trim().split('\n')).toHaveLength(1);
    expect(offline.stdout).toMatch(/^Nothing to upgrade: without an LLM .*--llm-base-url/);

    const llm = ['--llm-base-url', server.url, '--llm-model', 'mock-model', '--llm-api-key', 'sk-test'];
    const estimate = await cairn(['summarize', 'ctx://resources/station/', '--upgrade', '--estimate', ...llm]);
    expect(estimate.code, estimate.stderr).toBe(0);
    expect(estimate.stdout).toContain('takes 3 LLM calls (2 files, 1 directories');
    expect(server.chatRequests).toHaveLength(0);

    const upgrade = await cairn(['summarize', '--upgrade', '--json', ...llm]);
    expect(upgrade.code, upgrade.stderr).toBe(0);
    expect(JSON.parse(upgrade.stdout).runs[0]).toMatchObject({ root: 'ctx://resources/station/', filesSummarized: 2, dirsSummarized: 1, fallbacks: 0 });
    expect(server.chatRequests).toHaveLength(3);

    const again = await cairn(['summarize', '--upgrade', ...llm]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('Upgraded ctx://resources/station/');
    expect(again.stdout).toContain('(0 summaries written, 1 unchanged), 0 LLM calls');
    expect(server.chatRequests).toHaveLength(3);

    server.handle(() => reply.serverError(500, { message: 'injected fault' }));
    const faulty = await cairn(['summarize', '--force', ...llm, '--token-budget', '100000']);
    expect(faulty.code, faulty.stderr).toBe(0);
    // Each call is retried until the breaker opens for the run; the causes still name the 500.
    expect(faulty.stdout).toMatch(/\n {2}3 fallbacks: \d × (circuit open after repeated )?HTTP 500 'injected fault'/);
  }, 120_000);

  it('refuses --upgrade with --force in one line (a usage error)', async () => {
    const both = await cairn(['summarize', '--upgrade', '--force']);
    expect(both.code).toBe(2);
    expect(both.stderr.trim().split('\n')).toHaveLength(1);
    expect(both.stderr).toContain('--upgrade and --force exclude each other');
  }, 60_000);
});
