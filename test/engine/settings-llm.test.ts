/**
 * The app's engine choosing its summarizer from the settings: extractive until the LLM is turned
 * on, then the OpenAI-compatible server of the settings (a real scripted one on 127.0.0.1), with
 * llm:stats and `llm/stats-changed` counting the calls; settings:test makes one tiny request.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EngineEvent } from '../../shared/contracts/api.js';
import { createOpenAIModel } from '../../main/adapters/llm/openai.js';
import { createEngine, type Engine } from '../../main/engine/engine.js';
import { inProcessParseRunner } from '../../main/engine/parse/runner.js';
import { silentLogger } from '../../main/engine/ports/logger.js';
import { reply, startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';

const SAMPLE = join(import.meta.dirname, '../../assets/sample');
const KEY = 'sk-settings-test-5e1f0a9b77c3';

let server: MockOpenAI;
let workspace: string;
let engine: Engine | null = null;

async function open(apiKey?: string): Promise<Engine> {
  engine = await createEngine({ workspace, parser: inProcessParseRunner(), logger: silentLogger, llm: { createModel: createOpenAIModel, apiKey, retry: { baseDelayMs: 1, maxDelayMs: 5 } } });
  return engine;
}

async function ingestAndSummarize(e: Engine, folder: string) {
  const ingest = await e.call('ingest:start', { path: join(SAMPLE, folder) });
  const { runs } = await e.call('summarize:run', { uri: ingest.root });
  return { root: ingest.root, run: runs[0]! };
}

beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'cairn-settings-llm-'));
  server = await startMockOpenAI({ apiKey: KEY });
  server.handle(() => reply.json({ abstract: 'Mock LLM abstract.', overview: '# Mock\n\n- overview', categories: ['docs'] }, { usage: { prompt_tokens: 40, completion_tokens: 8 } }));
});
afterEach(async () => {
  await engine?.dispose();
  engine = null;
  await server.close();
  await rm(workspace, { recursive: true, force: true });
});

describe('the engine LLM from settings', () => {
  it('summarizes extractively until the settings turn the LLM on, then through the configured server', async () => {
    const e = await open();
    expect((await e.call('settings:get', {})).summarizer).toBe('extractive');
    const before = await ingestAndSummarize(e, 'notes');
    expect(before.run.llm_calls).toBe(0);
    expect(server.chatRequests).toHaveLength(0);

    const view = await e.call('settings:set', { llm: { enabled: true, baseUrl: server.url, model: 'gpt-4o-mini', maxConcurrent: 2 }, apiKey: KEY });
    expect(view.summarizer).toBe('llm');
    expect(view.apiKey).toEqual({ set: true, last4: '77c3', storage: 'memory' });
    expect(JSON.stringify(view)).not.toContain(KEY.slice(0, 12));
    expect(await readFile(join(workspace, '.cairn', 'settings.json'), 'utf8')).not.toContain(KEY);

    // The next run goes to the server with the key, at most 2 calls at a time.
    const events: EngineEvent[] = [];
    // Stats events go to every subscriber (the web host, the window), not to one call.
    const off = e.subscribe((event) => events.push(event));
    const { root, run } = await ingestAndSummarize(e, 'docs');
    expect(run.llm_calls).toBeGreaterThan(0);
    expect(run.fallbacks).toBe(0);
    expect(server.chatRequests.length).toBe(run.llm_calls);
    expect(server.chatRequests.every((r) => r.apiKey === KEY)).toBe(true);
    expect((await e.call('fs:read', { uri: root, level: 0 })).content).toContain('Mock LLM abstract.');
    expect(server.peakConcurrency).toBeLessThanOrEqual(2);

    const stats = await e.call('llm:stats', {});
    expect(stats).toMatchObject({ active: true, model: 'gpt-4o-mini', breaker: 'closed', failed: 0 });
    expect(stats.calls).toBe(server.chatRequests.length);
    expect(stats.inputTokens).toBe(40 * stats.calls);
    expect(stats.outputTokens).toBe(8 * stats.calls);
    expect(stats.costUsd).toBeCloseTo((40 * 0.15 + 8 * 0.6) * stats.calls / 1e6, 12);
    expect(stats.recent.length).toBe(Math.min(50, stats.calls));
    expect(stats.recent[0]).toMatchObject({ outcome: 'ok', inputTokens: 40, outputTokens: 8 });
    await expect.poll(() => events.filter((event) => event.type === 'llm/stats-changed').at(-1)?.stats.calls).toBe(stats.calls);
    off();

    // Turned off again: the next run is extractive and the server sees nothing more.
    await e.call('settings:set', { llm: { enabled: false } });
    const seen = server.chatRequests.length;
    const after = await ingestAndSummarize(e, 'src');
    expect(after.run.llm_calls).toBe(0);
    expect(server.chatRequests.length).toBe(seen);
  });

  it('emits llm/stats-changed at most about four times a second while calls run', async () => {
    const e = await open(KEY);
    server.handle(() => reply.delayed(30, reply.json({ abstract: 'Slow abstract.', overview: 'o', categories: [] })));
    await e.call('settings:set', { llm: { enabled: true, baseUrl: server.url, maxConcurrent: 1 } });
    const stamps: number[] = [];
    const off = e.subscribe((event) => {
      if (event.type === 'llm/stats-changed') stamps.push(performance.now());
    });
    const started = performance.now();
    await ingestAndSummarize(e, 'docs');
    const elapsed = performance.now() - started;
    off();
    expect(server.chatRequests.length).toBeGreaterThan(3);
    expect(stamps.length).toBeGreaterThan(0);
    expect(stamps.length).toBeLessThanOrEqual(Math.ceil(elapsed / 250) + 2);
    for (let i = 1; i < stamps.length; i++) expect(stamps[i]! - stamps[i - 1]!).toBeGreaterThanOrEqual(240);
  });

  it('gives each summary run the whole token budget, and shows the current run\'s in the monitor', async () => {
    const e = await open(KEY);
    // Every answer bills the whole budget: each run's calls past the first answer fall back.
    server.handle(() => reply.json({ abstract: 'Costly abstract.', overview: 'o', categories: [] }, { usage: { prompt_tokens: 9_000, completion_tokens: 1_000 } }));
    await e.call('settings:set', { llm: { enabled: true, baseUrl: server.url, maxConcurrent: 1, tokenBudget: 10_000 } });
    const first = await ingestAndSummarize(e, 'notes');
    expect(first.run.llm_calls).toBeGreaterThan(0);
    expect(first.run.fallbacks).toBeGreaterThan(0);
    expect((await e.call('llm:stats', {})).budget).toMatchObject({ maxTokens: 10_000, spent: 10_000 * first.run.llm_calls, exhausted: true });
    const second = await ingestAndSummarize(e, 'docs');
    expect(second.run.llm_calls).toBeGreaterThan(0);
    expect((await e.call('llm:stats', {})).budget).toMatchObject({ maxTokens: 10_000, spent: 10_000 * second.run.llm_calls });
    expect(server.chatRequests).toHaveLength(first.run.llm_calls + second.run.llm_calls);
  });

  it('leaves the monitor\'s counters and budget as they are when estimating', async () => {
    const e = await open(KEY);
    await e.call('settings:set', { llm: { enabled: true, baseUrl: server.url, tokenBudget: 100_000 } });
    await ingestAndSummarize(e, 'notes');
    const before = await e.call('llm:stats', {});
    expect(before.calls).toBeGreaterThan(0);
    expect(before.budget).toMatchObject({ maxTokens: 100_000, used: 48 * before.calls, spent: 48 * before.calls, refusals: 0, exhausted: false });

    // A tree queued and not summarized, estimated alone and with everything queued.
    const held = await e.call('ingest:start', { path: join(SAMPLE, 'docs'), summarize: false });
    const one = await e.call('summarize:estimate', { uri: held.root });
    const all = await e.call('summarize:estimate', {});
    expect(one).toMatchObject({ llm: true, model: 'gpt-4o-mini' });
    expect(one.estimates[0]!.calls).toBeGreaterThan(0);
    expect(all.estimates.map((estimate) => estimate.root)).toContain(held.root);
    expect(await e.call('llm:stats', {})).toEqual(before);
    expect(server.chatRequests).toHaveLength(before.calls);
  });

  it('tests the connection with one tiny request and reports a refusal as text', async () => {
    const e = await open();
    await e.call('settings:set', { llm: { baseUrl: server.url, model: 'gpt-4o-mini' } });
    const bad = await e.call('settings:test', { apiKey: 'sk-wrong-key-000000' });
    expect(bad.ok).toBe(false);
    expect(bad.message).toMatch(/401|key|auth/i);
    expect(bad.message).not.toContain('sk-wrong-key');
    const good = await e.call('settings:test', { apiKey: KEY });
    expect(good).toMatchObject({ ok: true, model: 'gpt-4o-mini' });
    expect(server.chatRequests.at(-1)!.body).toMatchObject({ max_tokens: 5 });
    // A test neither saves the key nor counts in the monitor.
    expect((await e.call('settings:get', {})).apiKey.set).toBe(false);
    expect((await e.call('llm:stats', {})).calls).toBe(0);
  });
});
