/**
 * The DAG summarizing a generated tree through the engine's LLM as the CLI configures it
 * (llm-config.ts's flags → the engine's runtime: metering → retry → budget → limiter → breaker →
 * the OpenAI adapter), against the mock
 * OpenAI-compatible server over real HTTP: concurrency stays under the limit, faults are
 * retried a bounded number of times and then fall back (recorded in node meta), the token
 * budget stops calls once spent, and an edit re-summarizes only the path to the root.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EngineEvent } from '../../shared/contracts/api.js';
import type { Engine } from '../../main/engine/engine.js';
import { silentLogger } from '../../main/engine/ports/logger.js';
import { openEngine } from '../../main/cli/compose.js';
import { llmFromFlags } from '../../main/cli/llm-config.js';
import { reply, startMockOpenAI, type MockOpenAI, type MockReply, type MockRequest } from '../support/mock-openai-server.js';

const MAX_ATTEMPTS = 4;
// Short waits keep the test fast; a 429's Retry-After is still honoured, capped at this.
const RETRY = { maxAttempts: MAX_ATTEMPTS, baseDelayMs: 5, maxDelayMs: 20, maxRetryAfterMs: 50 };

let tmp: string;
let server: MockOpenAI;
let engine: Engine | undefined;

beforeEach(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'cairn-dag-llm-'));
  server = await startMockOpenAI();
});
afterEach(async () => {
  await engine?.dispose();
  engine = undefined;
  await server.close();
  await rm(tmp, { recursive: true, force: true });
});

interface Tree {
  root: string;
  files: number;
  dirs: number;
  /** The deepest file, relative to the root, and how many directories hold it (the root included). */
  deepFile: string;
  deepFileDepth: number;
}

/** A tree `levels` directories deep below the root, `fanout` subdirectories each, `leafFiles` files per leaf, one note per inner directory. */
async function generateTree(root: string, levels: number, fanout: number, leafFiles: number): Promise<Tree> {
  let files = 0;
  let dirs = 0;
  let deepFile = '';
  const walk = async (dir: string, rel: string, level: number) => {
    dirs += 1;
    await mkdir(dir, { recursive: true });
    if (level === levels) {
      for (let i = 0; i < leafFiles; i += 1) {
        await writeFile(join(dir, `note-${i}.md`), `# Note ${rel} ${i}\n\nThe ${i}th note of ${rel || 'the root'}: observations about station ${level}-${i}.\n`);
        files += 1;
      }
      if (!deepFile) deepFile = `${rel}/note-0.md`;
      return;
    }
    await writeFile(join(dir, 'index.md'), `# Index of ${rel || 'root'}\n\nWhat the folders below hold.\n`);
    files += 1;
    for (let i = 0; i < fanout; i += 1) await walk(join(dir, `d${level}-${i}`), rel ? `${rel}/d${level}-${i}` : `d${level}-${i}`, level + 1);
  };
  await walk(root, '', 0);
  return { root, files, dirs, deepFile, deepFileDepth: levels + 1 };
}

/** The node a chat request summarizes, from the prompt llmSummarizer writes: `... "name" (ctx://...)`. */
function uriOf(request: MockRequest): string {
  const user = request.messages.find((m) => m.role === 'user')?.content ?? '';
  return /\((ctx:\/\/[^)\s]+)\)/.exec(user)?.[1] ?? '';
}

function isDirectoryCall(request: MockRequest): boolean {
  return (request.messages.find((m) => m.role === 'user')?.content ?? '').startsWith('Summarize the directory');
}

function answer(request: MockRequest): MockReply {
  const uri = uriOf(request);
  return reply.json(
    { abstract: `LLM abstract of ${uri}`, overview: `# ${uri}\n\n- summarized by the mock model`, categories: ['notes'] },
    { latencyMs: 3, usage: { prompt_tokens: 100, completion_tokens: 20 } },
  );
}

async function open(flags: Record<string, string>, breaker?: { failureThreshold: number }): Promise<Engine> {
  const llm = llmFromFlags({ llmBaseUrl: server.url, llmModel: 'mock-model', llmApiKey: 'sk-test', llmTimeout: '5000', ...flags }, {}, 'one-shot');
  engine = await openEngine({ workspace: join(tmp, 'ws'), workers: 0, logger: silentLogger, llm: { ...llm, retry: RETRY, ...(breaker ? { breaker } : {}) } });
  return engine;
}

/** The engine's LLM counters, as the monitor and `cairn ingest --json` read them. */
const statsOf = (e: Engine) => e.call('llm:stats', {});

async function ingestAndSummarize(path: string) {
  if (!engine) throw new Error('no engine');
  const ingest = await engine.call('ingest:start', { path });
  const events: EngineEvent[] = [];
  const { runs } = await engine.call('summarize:run', { uri: ingest.root }, { onEvent: (e) => events.push(e) });
  // Nothing changed: no run at all.
  const run = runs.find((r) => r.root === ingest.root) ?? runs[0];
  return { ingest, run: run!, runs, events };
}

async function abstractOf(uri: string): Promise<string> {
  return (await engine!.call('fs:read', { uri, level: 0 })).content;
}

async function metaOf(uri: string) {
  const stat = await engine!.call('fs:stat', { uri });
  return stat.meta as Record<string, unknown>;
}

describe('DAG summaries through the engine LLM the CLI configures', () => {
  it('summarizes every node with at most --max-concurrent-llm calls in flight', async () => {
    const tree = await generateTree(join(tmp, 'src'), 3, 3, 6);
    server.handle((request) => reply.delayed(15, answer(request)));
    const e = await open({ maxConcurrentLlm: '4' });
    const { ingest, run } = await ingestAndSummarize(tree.root);

    expect(run.fallbacks).toBe(0);
    expect(run.failed).toBe(0);
    expect(run.dirsSummarized).toBe(tree.dirs);
    expect(run.llm_calls).toBe(server.chatRequests.length);
    expect(server.peakConcurrency).toBeLessThanOrEqual(4);
    expect(server.peakConcurrency).toBeGreaterThan(1);
    expect(await statsOf(e)).toMatchObject({ calls: run.llm_calls, retries: 0, fallbacks: 0 });
    const root = await metaOf(ingest.root);
    expect(root).toMatchObject({ summary_status: 'done', summary_reason: 'llm:mock-model' });
    expect(await abstractOf(ingest.root)).toContain(`LLM abstract of ${ingest.root}`);
  }, 60_000);

  it('finishes through 500/503/429/malformed/truncated faults with bounded retries, and falls back for good failures', async () => {
    const tree = await generateTree(join(tmp, 'src'), 3, 2, 5);
    const attempts = new Map<string, number>();
    // Transient faults on the first attempt of some calls; two directories and one file fail every attempt.
    const transient: MockReply[] = [
      reply.serverError(500),
      reply.serverError(503),
      reply.rateLimited({ retryAfter: 1 }),
      reply.malformed(),
      reply.truncated('{"abstract": "cut'),
    ];
    let faultIndex = 0;
    const failDir = (uri: string) => uri === 'ctx://resources/src/d0-0/' || uri === 'ctx://resources/src/d0-1/d1-0/';
    const failFile = (uri: string) => uri === 'ctx://resources/src/d0-1/d1-1/d2-1/note-2.md';
    server.handle((request) => {
      const uri = uriOf(request);
      const n = (attempts.get(uri) ?? 0) + 1;
      attempts.set(uri, n);
      if (isDirectoryCall(request) && failDir(uri)) return reply.serverError(500);
      if (failFile(uri)) return reply.serverError(503);
      if (n === 1 && attempts.size % 3 === 0) return transient[faultIndex++ % transient.length]!;
      return answer(request);
    });
    // The permanent failures retry back to back; with the default breaker (5 consecutive
    // failures) they can open the circuit and make the counts below depend on timing.
    const e = await open({ maxConcurrentLlm: '3' }, { failureThreshold: 1000 });
    const { ingest, run } = await ingestAndSummarize(tree.root);

    expect(faultIndex).toBeGreaterThanOrEqual(transient.length);
    // Bounded: no node was asked more than maxAttempts times, and the permanent failures exactly that.
    for (const [uri, n] of attempts) expect(n, uri).toBeLessThanOrEqual(MAX_ATTEMPTS);
    const failedDirs = [...attempts.keys()].filter((uri) => failDir(uri));
    expect(failedDirs).toHaveLength(2);
    for (const uri of failedDirs) expect(attempts.get(uri)).toBe(MAX_ATTEMPTS);
    expect(server.chatRequests.length).toBeLessThanOrEqual(attempts.size * MAX_ATTEMPTS);

    // Everything else succeeded after its retry; exactly the three permanent failures fell back.
    expect(run.fallbacks).toBe(3);
    expect(run.failed).toBe(0);
    expect(run.dirsSummarized).toBe(tree.dirs);
    const stats = await statsOf(e);
    expect(stats.fallbacks).toBe(3);
    expect(stats.retries).toBeGreaterThanOrEqual(faultIndex + 3 * (MAX_ATTEMPTS - 1));

    for (const uri of failedDirs) {
      const meta = await metaOf(uri);
      expect(meta.summary_status).toBe('fallback');
      expect(String(meta.summary_reason)).toMatch(/^seed fallback after: .*HTTP 500/);
      // The seed's fallback abstract is built from the children, not the model's answer.
      const abstract = await abstractOf(uri);
      expect(abstract).not.toContain('LLM abstract');
      expect(abstract.trim().length).toBeGreaterThan(0);
    }
    const file = await metaOf(`${ingest.root}d0-1/d1-1/d2-1/note-2.md`);
    expect(file.summary_status).toBe('fallback');
    expect(String(file.summary_reason)).toMatch(/after: .*HTTP 503/);
    // A parent of a fallback still gets its LLM summary.
    expect(await metaOf(`${ingest.root}d0-1/`)).toMatchObject({ summary_status: 'done', summary_reason: 'llm:mock-model' });
  }, 60_000);

  it('stops LLM calls once the token budget is spent; the rest fall back and say so', async () => {
    const tree = await generateTree(join(tmp, 'src'), 2, 3, 4);
    server.handle((request) => answer(request));
    // Each call reserves its prompt plus 1024 answer tokens: a budget of 5,000 fits a handful.
    const e = await open({ tokenBudget: '5000', maxConcurrentLlm: '1' });
    const { run, events } = await ingestAndSummarize(tree.root);

    const budget = (await statsOf(e)).budget!;
    expect(budget.exhausted).toBe(true);
    expect(budget.spent).toBeLessThanOrEqual(5000);
    expect(budget.refusals).toBeGreaterThan(0);
    expect(server.chatRequests.length).toBeGreaterThan(0);
    expect(server.chatRequests.length).toBeLessThan(tree.files + tree.dirs);
    // Refusals never reach the server, and every node not summarized by the model fell back.
    expect(run.llm_calls).toBe(server.chatRequests.length);
    expect(run.fallbacks).toBe(tree.files + tree.dirs - server.chatRequests.length);
    expect((await statsOf(e)).fallbackReasons).toEqual({ LLM_BUDGET_EXHAUSTED: run.fallbacks });
    const fellBack = events.flatMap((e) => (e.type === 'dag/fallback-used' ? [e] : []));
    expect(fellBack).toHaveLength(run.fallbacks);
    const meta = await metaOf(fellBack[fellBack.length - 1]!.uri);
    expect(meta.summary_status).toBe('fallback');
    expect(String(meta.summary_reason)).toMatch(/token budget of 5000 is spent/);
  }, 60_000);

  it('re-summarizes only the edited file and its ancestors: at most depth + 1 calls', async () => {
    const tree = await generateTree(join(tmp, 'src'), 4, 2, 12);
    expect(tree.files).toBeGreaterThanOrEqual(200);
    server.handle((request) => answer(request));
    await open({});
    const first = await ingestAndSummarize(tree.root);
    expect(first.run.fallbacks).toBe(0);
    expect(server.chatRequests.length).toBe(tree.files + tree.dirs);

    server.reset();
    const unchanged = await ingestAndSummarize(tree.root);
    expect(unchanged.ingest.changed).toBe(0);
    expect(unchanged.run?.dirsSummarized ?? 0).toBe(0);
    expect(server.chatRequests.length).toBe(0);

    server.reset();
    await writeFile(join(tree.root, tree.deepFile), '# Edited\n\nA new observation replaced the old one.\n');
    const again = await ingestAndSummarize(tree.root);
    expect(again.ingest.changed).toBeGreaterThanOrEqual(1);
    const calls = server.chatRequests.map(uriOf);
    expect(calls.length).toBeLessThanOrEqual(tree.deepFileDepth + 1);
    expect(calls).toContain(`${first.ingest.root}${tree.deepFile}`);
    expect(calls).toContain(first.ingest.root);
    expect(again.run.dirsReused).toBeGreaterThan(0);
  }, 120_000);
});
