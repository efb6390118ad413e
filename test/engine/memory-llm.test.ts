/**
 * Issue 17, item 6: the LLM in the memory engine, through the engine's one LLM runtime and the
 * real OpenAI-compatible adapter, against the mock OpenAI server over HTTP on 127.0.0.1. Good
 * answers are used (buckets in batches, chains, topic labels, dedup) and recorded as the model's;
 * a fault on one unit (HTTP 500, invalid JSON, a timeout, the token budget) falls back to the rules
 * for that unit only, its cause counted in the analysis, the processor's stats and the LLM monitor;
 * a chain step whose text is not in its message is refused.
 */
import { describeCause, englishCause } from '../../shared/llm-cause.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAIModel } from '../../main/adapters/llm/openai.js';
import { createEngine, type Engine } from '../../main/engine/engine.js';
import { runTrackARules } from '../../main/engine/memory/buckets/track-a.js';
import { flatText } from '../../main/engine/memory/chains/build-chain.js';
import { runTrackB } from '../../main/engine/memory/chains/track-b.js';
import { createMemoryLlm } from '../../main/engine/memory/llm-run.js';
import { importConversations } from '../../main/engine/memory/sessions/index.js';
import { inProcessParseRunner } from '../../main/engine/parse/runner.js';
import { silentLogger } from '../../main/engine/ports/logger.js';
import type { LlmSettings } from '../../shared/contracts/api.js';
import type { Conversation, MemoryItem, SessionAnalysis } from '../../shared/types/memory.js';
import { ALTERED_STEP, memoryAnswers, promptOf, schemaNameOf } from '../support/mock-memory-llm.js';
import { reply, startMockOpenAI, type MockOpenAI, type MockReply, type MockRequest } from '../support/mock-openai-server.js';

const FILE = join(import.meta.dirname, '../fixtures/conversations/choosing-a-database.json');
const FIRST_BATCH = "[0] user: We're building a booking app";

let server: MockOpenAI;
let workspace: string;
let engine: Engine | undefined;
let conversation: Conversation;

beforeEach(async () => {
  server = await startMockOpenAI();
  workspace = await mkdtemp(join(tmpdir(), 'cairn-memory-llm-'));
  [conversation] = (await importConversations(FILE)) as [Conversation];
});
afterEach(async () => {
  await engine?.dispose();
  engine = undefined;
  await server.close();
  await rm(workspace, { recursive: true, force: true });
});

/** The engine as the CLI composes it with --llm-base-url, a short backoff and two attempts a call. */
async function openEngine(settings: Partial<LlmSettings> = {}): Promise<Engine> {
  engine = await createEngine({
    workspace,
    parser: inProcessParseRunner(),
    logger: silentLogger,
    llm: {
      createModel: createOpenAIModel,
      apiKey: 'sk-test',
      overrides: { enabled: true, baseUrl: server.url, model: 'mock-model', timeoutMs: 1000, ...settings },
      workspaceSettings: false,
      retry: { baseDelayMs: 1, maxDelayMs: 5, maxAttempts: 2 },
    },
  });
  await engine.call('sessions:import', { path: FILE, commit: false });
  return engine;
}

const analyze = (e: Engine) => e.call('sessions:analyze', { id: conversation.id, refresh: true });
const isFirstBatch = (r: MockRequest) => schemaNameOf(r) === 'bucket_classification' && promptOf(r).includes(FIRST_BATCH);
const items = (a: SessionAnalysis): MemoryItem[] => Object.values(a.buckets).flat();
const messageText = new Map<string, string>();
const textOf = (id: string) => {
  if (messageText.size === 0) for (const m of conversation.sessions.flatMap((s) => s.messages)) messageText.set(m.id, m.text);
  return messageText.get(id) ?? '';
};

describe('the memory engine with an LLM', () => {
  it('uses its answers: buckets in batches, chains whose steps quote their messages, topic labels; all recorded as the model’s', async () => {
    server.handle(memoryAnswers());
    const result = await analyze(await openEngine());
    const all = items(result);
    const batches = Math.ceil(all.length / 20);
    const bucketCalls = server.chatRequests.filter((r) => schemaNameOf(r) === 'bucket_classification');
    // Batched: one call per 20 messages, not one per message; answers asked in a strict schema.
    expect(bucketCalls).toHaveLength(batches);
    expect(bucketCalls[0]!.body?.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'bucket_classification', strict: true } });
    expect(all.every((i) => i.bucket === 'DECISION_CONTEXT' && i.reason === 'scripted')).toBe(true);
    expect(all.every((i) => i.extractor?.kind === 'llm' && i.extractor.model === 'mock-model')).toBe(true);

    expect(result.clusters.length).toBeGreaterThan(0);
    expect(result.clusters.every((c) => /^Topic \d+$/.test(c.topic_label) && c.extractor?.kind === 'llm')).toBe(true);

    expect(result.chains).toHaveLength(1);
    const [chain] = result.chains;
    expect(chain).toMatchObject({ chain_type: 'CAUSAL', extractor: { kind: 'llm', model: 'mock-model' }, metadata: { method: 'llm', refused_steps: 1 } });
    // The capitalised, quoted first step was repaired to the message's own text; the altered one refused.
    expect(chain!.nodes.map((n) => n.role)).toEqual(['problem', 'cause', 'solution']);
    expect(chain!.nodes[0]!.text.startsWith("We're building a booking app")).toBe(true);
    for (const node of chain!.nodes) expect(flatText(textOf(node.message_ids[0]!)).includes(node.text), node.text).toBe(true);
    expect(JSON.stringify(result.chains)).not.toContain(ALTERED_STEP);

    expect(result.llm).toMatchObject({ model: 'mock-model', fallbacks: 0, refused_steps: 1, stages: { buckets: { llm: batches, fallbacks: 0 }, chains: { llm: 1, fallbacks: 0 } } });
    const stats = await engine!.call('sessions:stats', {});
    expect(stats.counters).toMatchObject({ llm_buckets: batches, llm_chains: 1, llm_refused_steps: 1 });
  });

  const faults: Array<[string, MockReply, RegExp]> = [
    ['HTTP 500', reply.serverError(500, { message: 'injected fault' }), /^HTTP 500 'injected fault'$/],
    ['invalid JSON', reply.text('this is not JSON at all'), /^invalid JSON$/],
    ['a timeout', reply.hang(), /^timeout/],
  ];
  it.each(faults)('falls back to the rules for the one batch that gets %s, the other batches using the LLM', async (_name, fault, cause) => {
    server.handle(memoryAnswers({ fault: (r) => (isFirstBatch(r) ? fault : undefined) }));
    const result = await analyze(await openEngine());
    // The items in conversation order: the first 20 are the faulted batch.
    const order = runTrackARules(conversation).items.map((i) => i.id);
    const byId = new Map(items(result).map((i) => [i.id, i]));
    const first = order.slice(0, 20).map((id) => byId.get(id)!);
    const rest = order.slice(20).map((id) => byId.get(id)!);
    expect(rest.length).toBeGreaterThan(0);
    expect(first.every((i) => i.extractor?.kind === 'rules' && /LLM fallback: /.test(i.reason ?? ''))).toBe(true);
    expect(rest.every((i) => i.extractor?.kind === 'llm' && i.bucket === 'DECISION_CONTEXT')).toBe(true);
    // The other stages are untouched by it.
    expect(result.chains.every((c) => c.extractor?.kind === 'llm')).toBe(true);
    expect(result.clusters.every((c) => c.extractor?.kind === 'llm')).toBe(true);
    expect(result.llm!.stages.buckets).toEqual({ llm: rest.length > 0 ? Math.ceil(rest.length / 20) : 0, fallbacks: 1 });
    expect(result.llm!.fallbacks).toBe(1);
    expect(result.llm!.fallback_causes).toHaveLength(1);
    expect(describeCause(result.llm!.fallback_causes[0]!.cause, englishCause)).toMatch(cause);
    // Counted in the processor's stats (kept for `cairn sessions stats`) and in the LLM monitor.
    const stats = await engine!.call('sessions:stats', {});
    expect(stats.counters.llm_fallbacks_buckets).toBe(1);
    expect(stats.llm_fallback_causes.map((c) => c.count)).toEqual([1]);
    expect(describeCause(stats.llm_fallback_causes[0]!.cause, englishCause)).toMatch(cause);
    const monitor = await engine!.call('llm:stats', {});
    expect(monitor.fallbacks).toBe(1);
  }, 20_000);

  it('retries an answer of the wrong shape once with the schema restated, then falls back', async () => {
    server.handle(memoryAnswers({ fault: (r) => (isFirstBatch(r) ? reply.json({ items: 'none' }) : undefined) }));
    const result = await analyze(await openEngine());
    const tries = server.chatRequests.filter(isFirstBatch);
    expect(tries).toHaveLength(2);
    expect(tries[1]!.messages.at(-1)?.content).toMatch(/Your answer could not be used: .*JSON Schema/s);
    expect(result.llm!.fallback_causes).toEqual([{ cause: { code: 'schema' }, count: 1 }]);
  });

  it('falls back to the rules for every unit past the token budget, saying so', async () => {
    server.handle(memoryAnswers());
    const result = await analyze(await openEngine({ tokenBudget: 50 }));
    expect(server.chatRequests).toHaveLength(0);
    expect(items(result).every((i) => i.extractor?.kind === 'rules')).toBe(true);
    expect(result.chains.every((c) => c.extractor?.kind === 'rules')).toBe(true);
    expect(result.clusters.every((c) => c.extractor?.kind === 'rules')).toBe(true);
    expect(result.llm!.fallback_causes.map((c) => c.cause)).toEqual([{ code: 'budget' }]);
    expect(result.llm!.fallbacks).toBe(result.llm!.stages.buckets!.fallbacks + result.llm!.stages.chains!.fallbacks + result.llm!.stages.labels!.fallbacks);
    // The same analysis offline: the rules, identically.
    const offline = runTrackARules(conversation);
    const byId = new Map(items(result).map((i) => [i.id, i.bucket]));
    expect(offline.items.every((i) => byId.get(i.id) === i.bucket)).toBe(true);
  });

  it('asks the LLM for dedup decisions, and falls back to the rules for a decision whose call fails', async () => {
    let failDedup = false;
    server.handle(memoryAnswers({ fault: (r) => (failDedup && schemaNameOf(r) === 'memory_decision' ? reply.serverError(500, { message: 'dedup down' }) : undefined) }));
    const e = await openEngine();
    const candidate = (content: string, message: string) => ({ category: 'preference' as const, title: 'Database', content, keywords: ['postgres', 'database'], message_ids: [message], conversation_id: conversation.id, confidence: 0.9 });
    const [added] = (await e.call('memories:commit', { candidates: [candidate('Ana wants Postgres for the booking app.', 's1:1')] })).changes;
    expect(added!.op).toBe('add');
    expect(server.chatRequests).toHaveLength(0); // nothing to compare with
    const [known] = (await e.call('memories:commit', { candidates: [candidate('Ana wants Postgres for the booking app database.', 's1:2')] })).changes;
    expect(known).toMatchObject({ op: 'none', memory_id: added!.memory_id, reason: expect.stringMatching(/^llm mock-model: already known/) });
    expect(server.chatRequests.filter((r) => schemaNameOf(r) === 'memory_decision')).toHaveLength(1);

    failDedup = true;
    const [byRules] = (await e.call('memories:commit', { candidates: [candidate('Ana wants Postgres for the booking app, hosted.', 's1:3')] })).changes;
    expect(byRules!.reason).not.toMatch(/^llm/);
    expect((await e.call('llm:stats', {})).fallbacks).toBe(1);
  });
});

describe('the app path: the workspace settings', () => {
  it('analyzes and proposes with the rules until Settings turn the LLM on, then with it', async () => {
    server.handle(memoryAnswers());
    // As the engine worker composes it for the app: a provider, the settings from .cairn/settings.json.
    engine = await createEngine({ workspace, parser: inProcessParseRunner(), logger: silentLogger, llm: { createModel: createOpenAIModel, retry: { baseDelayMs: 1, maxDelayMs: 5 } } });
    await engine.call('sessions:import', { path: FILE, commit: false });
    const offline = await analyze(engine);
    expect(offline.llm).toBeUndefined();
    expect(items(offline).every((i) => i.extractor?.kind === 'rules')).toBe(true);
    expect(server.chatRequests).toHaveLength(0);

    await engine.call('settings:set', { llm: { enabled: true, baseUrl: server.url, model: 'mock-model' }, apiKey: 'sk-test' });
    const proposal = await engine.call('sessions:propose', { id: conversation.id });
    expect(proposal.llm?.model).toBe('mock-model');
    const online = await engine.call('sessions:analyze', { id: conversation.id });
    expect(online.cached).toBe(true); // the proposal's analysis, stored under the model
    expect(items(online).every((i) => i.extractor?.kind === 'llm')).toBe(true);
  });
});

describe('track B with an LLM, window by window', () => {
  it('gives the window whose call fails the rules’ chains for its messages, the others the model’s', async () => {
    const windowOf = (r: MockRequest) => /^\[(s1:\d+)\]/m.exec(promptOf(r))?.[1];
    server.handle(memoryAnswers({ fault: (r) => (windowOf(r) === 's1:11' ? reply.serverError(500, { message: 'window down' }) : undefined) }));
    const model = createOpenAIModel({ baseURL: server.url, apiKey: 'sk-test', model: 'mock-model' });
    const llm = createMemoryLlm(model);
    const chains = await runTrackB(conversation, { llm, windowMessages: 10, now: () => new Date(0) });
    expect(server.chatRequests).toHaveLength(4); // 32 messages in windows of 10
    const inWindow = (id: string) => Number(id.split(':')[1]) >= 11 && Number(id.split(':')[1]) <= 20;
    const byRules = chains.filter((c) => c.extractor?.kind === 'rules');
    const byModel = chains.filter((c) => c.extractor?.kind === 'llm');
    expect(byModel).toHaveLength(2); // the last window (s1:31, s1:32) is answered with no chain
    expect(byModel.every((c) => c.source_message_ids.every((id) => !inWindow(id)))).toBe(true);
    expect(byRules.length).toBeGreaterThan(0);
    expect(byRules.every((c) => c.source_message_ids.every(inWindow) && String(c.metadata.fallback).includes("HTTP 500 'window down'"))).toBe(true);
    expect(llm.report()).toMatchObject({ stages: { chains: { llm: 3, fallbacks: 1 } }, fallback_causes: [{ cause: { code: 'http_status', status: 500, message: 'window down' }, count: 1 }], refused_steps: 2 });
  });
});
