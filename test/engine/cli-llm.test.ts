/**
 * `cairn ingest` with an LLM, as a user runs the built CLI: flags or environment configure the
 * OpenAI-compatible server, the summary names calls, tokens and fallbacks, and the API key is
 * sent to the server but never printed nor stored in the workspace.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCli, CLI, ROOT, runCli } from '../support/cli.js';
import { reply, startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';
import { llmFromFlags } from '../../main/cli/llm-config.js';
import { filesUnder } from '../reliability/support.js';

const SAMPLE = join(ROOT, 'assets/sample');
const KEY = 'sk-cairn-secret-7f3a9c1e5b';

let server: MockOpenAI;
let workspace: string;

/** Async (support/cli.ts): the mock server answers from this process while the CLI runs. */
const cairn = (args: string[], env: Record<string, string> = {}) => runCli(args, { CAIRN_WORKSPACE: workspace, ...env });

// Always rebuild: this test is about the CLI's current flags.
beforeAll(buildCli, 120_000);
beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'cairn-cli-llm-'));
  server = await startMockOpenAI();
  server.handle(() => reply.json({ abstract: 'Mock abstract.', overview: '# Mock\n\n- overview', categories: ['docs'] }, { usage: { prompt_tokens: 50, completion_tokens: 10 } }));
});
afterEach(async () => {
  await server.close();
  await rm(workspace, { recursive: true, force: true });
});

describe('llmFromFlags', () => {
  it('makes one settings patch of the flags over the environment; offline with neither a key nor a base URL', () => {
    const oneShot = { keyStorage: 'memory', workspaceSettings: false };
    expect(llmFromFlags({}, {}, 'one-shot')).toEqual({ ...oneShot, overrides: {} });
    expect(llmFromFlags({ llmModel: 'x' }, { CAIRN_LLM_MODEL: 'y' }, 'one-shot')).toEqual({ ...oneShot, overrides: { model: 'x' } });
    expect(llmFromFlags({}, { OPENAI_API_KEY: 'k', CAIRN_LLM_MODEL: 'y' }, 'one-shot')).toEqual({ ...oneShot, apiKey: 'k', overrides: { enabled: true, model: 'y' } });
    expect(
      llmFromFlags({ llmBaseUrl: 'http://a/v1', llmModel: 'm', maxConcurrentLlm: '3', tokenBudget: '900', llmCooldown: '5000', llmStream: true }, { OPENAI_BASE_URL: 'http://b/v1', CAIRN_LLM_MODEL: 'n', OPENAI_API_KEY: 'k' }, 'one-shot'),
    ).toEqual({ ...oneShot, apiKey: 'k', overrides: { enabled: true, baseUrl: 'http://a/v1', model: 'm', maxConcurrent: 3, tokenBudget: 900 }, stream: true, cooldownMs: 5000 });
    // `cairn serve`: the flags given override the saved settings; the environment only supplies the key.
    expect(llmFromFlags({}, { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: 'http://b/v1', CAIRN_LLM_MODEL: 'n' }, 'serve')).toEqual({ apiKey: 'k', keyStorage: 'memory', overrides: {} });
    expect(llmFromFlags({ llmBaseUrl: 'http://a/v1', llmTimeout: '2000' }, {}, 'serve')).toEqual({ keyStorage: 'memory', overrides: { enabled: true, baseUrl: 'http://a/v1', timeoutMs: 2000 } });
  });

  it('refuses values outside the contract in one line naming the flag or the variable', () => {
    const refusal = (flags: Parameters<typeof llmFromFlags>[0], env: Record<string, string> = {}) => {
      try {
        llmFromFlags(flags, env, 'one-shot');
        return 'accepted';
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(refusal({ maxConcurrentLlm: '0' })).toBe('--max-concurrent-llm must be at least 1');
    expect(refusal({ maxConcurrentLlm: '65' })).toBe('--max-concurrent-llm must be at most 64');
    expect(refusal({ maxConcurrentLlm: '64' })).toBe('accepted');
    expect(refusal({ tokenBudget: 'lots' })).toBe('--token-budget must be a whole number, not "lots"');
    expect(refusal({ tokenBudget: '0' })).toBe('--token-budget must be at least 1');
    expect(refusal({ llmTimeout: '10', llmModel: 'm' })).toBe('--llm-timeout must be at least 1000 ms');
    expect(refusal({ llmCooldown: '-1' })).toBe('--llm-cooldown must be a whole number, not "-1"');
    expect(refusal({}, { OPENAI_BASE_URL: 'ftp://mirror' })).toBe('$OPENAI_BASE_URL must be an http:// or https:// URL');
    expect(refusal({ maxConcurrentLlm: '100', llmTimeout: '999999999' })).toBe('--max-concurrent-llm must be at most 64; --llm-timeout must be at most 600000 ms');
  });
});

describe('cairn ingest with an LLM', () => {
  it('summarizes through the server from flags, reports calls and tokens, and never shows or stores the key', async () => {
    const flags = ['--llm-base-url', server.url, '--llm-model', 'mock-model', '--llm-api-key', KEY, '--workers', '0'];
    const json = await cairn(['ingest', SAMPLE, '--json', ...flags]);
    expect(json.code, json.stderr).toBe(0);
    const result = JSON.parse(json.stdout);
    expect(server.chatRequests.length).toBeGreaterThan(0);
    // The key went to the server as the bearer token...
    expect(server.chatRequests.every((r) => r.apiKey === KEY)).toBe(true);
    expect(result.llm).toMatchObject({ model: 'mock-model', base_url: server.url, calls: server.chatRequests.length, fallbacks: 0 });
    expect(result.llm.input_tokens).toBe(50 * server.chatRequests.length);
    expect(result.summary.llm_calls).toBe(server.chatRequests.length);

    const text = await cairn(['ingest', join(SAMPLE, 'notes'), '--name', 'notes-text', '-v', ...flags]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/LLM mock-model: \d+ calls \(0 retries, 0 failed\), [\d,]+ input \+ [\d,]+ output tokens, 0 fallbacks/);

    // A server that refuses the key: the 401 errors and fallbacks must not echo it either.
    server.configure({ apiKey: 'sk-the-right-one' });
    const failing = await cairn(['ingest', join(SAMPLE, 'docs'), '--name', 'docs-failing', '--json', '-v', ...flags]);
    expect(failing.code, failing.stderr).toBe(0);
    expect(JSON.parse(failing.stdout).llm.fallbacks).toBeGreaterThan(0);
    expect(JSON.parse(failing.stdout).llm.fallback_reasons).toHaveProperty('LLM_REQUEST_FAILED');
    // ...but nowhere else: not on stdout, stderr or in --json, not in any workspace file.
    for (const run of [json, text, failing]) {
      expect(run.stdout).not.toContain(KEY);
      expect(run.stderr).not.toContain(KEY);
    }
    const files = await filesUnder(workspace);
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) expect((await readFile(file)).includes(KEY), file).toBe(false);
  }, 120_000);

  it('reads the environment when no flag is given, and names fallbacks in the summary', async () => {
    server.handle(() => reply.serverError(500));
    const run = await cairn(['ingest', join(SAMPLE, 'notes'), '--workers', '0'], { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: KEY, CAIRN_LLM_MODEL: 'env-model' });
    expect(run.code, run.stderr).toBe(0);
    expect(server.chatRequests[0]?.model).toBe('env-model');
    expect(run.stdout).toMatch(/LLM env-model: .* [1-9]\d* fallbacks \(.*LLM_/);
    expect(run.stdout + run.stderr).not.toContain(KEY);
  }, 120_000);

  it('--estimate makes no LLM call, and its calls and tokens match the run that follows', async () => {
    // A realistic answer length, so the estimate's assumption about abstracts (about 60 tokens) holds.
    const abstract = 'Field notes on the harbour uplink: how the gauges report, which retries the modem makes, and what the operators check first when readings stop arriving.';
    server.handle(() => reply.json({ abstract, overview: '# Notes\n\n- gauges\n- retries', categories: ['docs'] }));
    const flags = ['--llm-base-url', server.url, '--llm-model', 'gpt-4o-mini', '--workers', '0', '--token-budget', '100'];
    const estimated = await cairn(['ingest', SAMPLE, '--estimate', '--json', ...flags]);
    expect(estimated.code, estimated.stderr).toBe(0);
    expect(server.chatRequests).toHaveLength(0);
    const { estimate } = JSON.parse(estimated.stdout);
    expect(estimate).toMatchObject({ root: 'ctx://resources/sample/', model: 'gpt-4o-mini', llm_configured: true, fits_budget: false });
    expect(estimate.calls).toBe(estimate.files + estimate.directories);
    expect(estimate.cost_usd).toBeGreaterThan(0);

    const text = await cairn(['ingest', SAMPLE, '--estimate', ...flags]);
    expect(text.stdout).toMatch(/Estimate: summarizing ctx:\/\/resources\/sample\/ takes \d+ LLM calls .* ≈ \$[\d.]+ with gpt-4o-mini/);
    expect(text.stdout).toContain('Nothing was summarized');
    expect(server.chatRequests).toHaveLength(0);

    const run = await cairn(['ingest', SAMPLE, '--json', ...flags.slice(0, -2)]);
    expect(run.code, run.stderr).toBe(0);
    expect(server.chatRequests).toHaveLength(estimate.calls);
    const { countTokens } = await import('../../main/lib/tokens.js');
    const sent = server.chatRequests.reduce((sum, r) => sum + r.messages.reduce((n, m) => n + 4 + countTokens(m.content), 0), 0);
    expect(Math.abs(estimate.input_tokens - sent) / sent).toBeLessThan(0.1);
  }, 120_000);

  it('stays offline and extractive with neither a key nor a base URL', async () => {
    const run = await cairn(['ingest', join(SAMPLE, 'notes'), '--workers', '0']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('No LLM configured');
    expect(server.requests).toHaveLength(0);
  }, 60_000);
});

/**
 * Starts `cairn <args>` and stops it (SIGTERM) once it prints its first line on stdout (a watch
 * cycle, serve's URL), or lets it exit by itself (ingest, a refusal).
 */
function untilFirstLine(args: string[]): Promise<{ code: number | null; line: string | null; stderr: string }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(OPENAI_|CAIRN_)/.test(k)));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...env, CAIRN_WORKSPACE: workspace } });
    let stdout = '';
    let stderr = '';
    let line: string | null = null;
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (line === null && stdout.includes('\n')) {
        line = stdout.slice(0, stdout.indexOf('\n'));
        child.kill('SIGTERM');
      }
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, line, stderr }));
  });
}

describe('the LLM limits of every command', () => {
  it('refuses --max-concurrent-llm 100 the same way in ingest, watch and serve, and accepts 64', async () => {
    const notes = join(SAMPLE, 'notes');
    const renderer = join(workspace, 'renderer');
    await mkdir(renderer, { recursive: true });
    await writeFile(join(renderer, 'index.html'), '<!doctype html><title>stub</title>');
    const commands = {
      ingest: ['ingest', notes, '--workers', '0'],
      watch: ['watch', notes],
      serve: ['serve', '--port', '0', '--renderer', renderer],
    };
    const llm = ['--llm-base-url', server.url, '--llm-model', 'mock-model'];
    for (const [name, args] of Object.entries(commands)) {
      const refused = await untilFirstLine([...args, ...llm, '--max-concurrent-llm', '100']);
      expect({ name, code: refused.code, stderr: refused.stderr }).toEqual({ name, code: 2, stderr: `cairn: INVALID_INPUT: --max-concurrent-llm must be at most 64. See \`cairn ${name} --help\`.\n` });
    }
    expect(server.chatRequests).toHaveLength(0);

    const ingest = await cairn([...commands.ingest, ...llm, '--max-concurrent-llm', '64']);
    expect(ingest.code, ingest.stderr).toBe(0);
    const watch = await untilFirstLine([...commands.watch, '--json', ...llm, '--max-concurrent-llm', '64']);
    expect(JSON.parse(watch.line ?? 'null'), watch.stderr).toMatchObject({ reason: 'initial', root: 'ctx://resources/notes/' });
    const serve = await untilFirstLine([...commands.serve, ...llm, '--max-concurrent-llm', '64']);
    expect(serve.line, serve.stderr).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=/);
    // Both summarizing commands called the LLM with the limit accepted.
    expect(server.chatRequests.length).toBeGreaterThan(0);
  }, 180_000);

  it('never lets the workspace\'s saved settings switch a one-shot command to the LLM', async () => {
    // The app turned the LLM on for this workspace; `cairn ingest` without a key or a base URL stays offline.
    await mkdir(join(workspace, '.cairn'), { recursive: true });
    const saved = JSON.stringify({ version: 1, llm: { enabled: true, baseUrl: server.url, model: 'saved-model', maxConcurrent: 2, tokenBudget: null, timeoutMs: 60000 } });
    await writeFile(join(workspace, '.cairn', 'settings.json'), saved);
    const run = await cairn(['ingest', join(SAMPLE, 'notes'), '--workers', '0', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).not.toHaveProperty('llm');
    expect(server.requests).toHaveLength(0);
    // Nor does the command rewrite them.
    expect(await readFile(join(workspace, '.cairn', 'settings.json'), 'utf8')).toBe(saved);
  }, 60_000);
});
