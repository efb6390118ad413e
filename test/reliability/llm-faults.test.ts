/**
 * LLM faults matrix (issue 10): the built CLI summarizes a small generated tree through the mock
 * OpenAI-compatible server (`--llm-base-url`) while the server misbehaves: timeouts, 429 with and
 * without Retry-After, 500, 503, malformed JSON, truncated streams, an unknown model (404) and a
 * refused key (401; both open the breaker for the run). Each fault runs twice: intermittent (the first attempt of every third
 * prompt fails) and persistent (every request fails). Every run must finish with exit 0 and a
 * complete DAG (summaries fall back where needed); retries stay bounded, counted at the server;
 * the circuit breaker stops requests under a persistent fault and recovers through one half-open
 * probe after its cool-down; `--token-budget` holds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { reply, startMockOpenAI, type MockOpenAI, type MockReply, type MockRequest } from '../support/mock-openai-server.js';
import { buildCli, envInt, generateTree, runCli, writeFigures } from './support.js';
import { prng } from '../support/prng.js';

const FILES = envInt('CAIRN_FAULT_FILES', 12);
/** withRetry's default: attempts per call, the first included. */
const MAX_ATTEMPTS = 4;
const ANSWER = { abstract: 'Readings from the harbour gauges.', overview: '# Gauges\n\n- readings', categories: ['notes'] };
const USAGE = { prompt_tokens: 50, completion_tokens: 10 };

let tmp: string;
let source: string;
let bigSource: string;
const figures: Record<string, unknown>[] = [];

interface LlmReport {
  calls: number;
  retries: number;
  failed: number;
  fallbacks: number;
  fallback_reasons: Record<string, number>;
  token_budget: { max: number; spent: number; refusals: number; exhausted: boolean } | null;
}
interface IngestJson {
  summary: { dirs_total: number; dirs_done: number; files_total: number; files_done: number };
  llm: LlmReport;
}

interface Fault {
  name: string;
  /** The faulty answer. */
  fault: () => MockReply;
  /** Retried by design (intermittent faults then succeed on a later attempt). */
  retryable: boolean;
  flags?: string[];
}

const FAULTS: Fault[] = [
  { name: 'timeout', fault: () => reply.hang(), retryable: true, flags: ['--llm-timeout', '1000'] },
  { name: '429 with Retry-After', fault: () => reply.rateLimited({ retryAfter: 1 }), retryable: true },
  { name: '429 without Retry-After', fault: () => reply.rateLimited(), retryable: true },
  { name: '500', fault: () => reply.serverError(500), retryable: true },
  { name: '503', fault: () => reply.serverError(503), retryable: true },
  { name: 'malformed JSON', fault: () => reply.malformed(), retryable: true },
  { name: 'truncated stream', fault: () => reply.truncated(JSON.stringify(ANSWER)), retryable: true, flags: ['--llm-stream'] },
  { name: 'stream cut (connection dropped)', fault: () => reply.truncated(JSON.stringify(ANSWER), { mode: 'destroy' }), retryable: true, flags: ['--llm-stream'] },
  { name: 'unknown model (404)', fault: () => reply.unknownModel('mock-model'), retryable: false },
  { name: 'auth failure (401)', fault: () => reply.unauthorized(), retryable: false },
];

function promptOf(request: MockRequest): string {
  return request.messages.map((m) => m.content).join('\n');
}

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

async function ingest(server: MockOpenAI, name: string, flags: string[], from = source): Promise<{ result: IngestJson; ms: number; stderr: string }> {
  const workspace = join(tmp, `ws-${name.replace(/\W+/g, '-')}`);
  const run = await runCli(['ingest', from, '--workspace', workspace, '--workers', '0', '--json', '--no-progress', '--llm-base-url', server.url, '--llm-model', 'mock-model', '--llm-api-key', 'sk-test', ...flags]);
  expect(run.code, `${name}: ${run.stderr}`).toBe(0);
  const result = JSON.parse(run.stdout) as IngestJson;
  // The DAG always completes: every directory and file got a summary, from the LLM or the fallback.
  expect(result.summary.dirs_done, name).toBe(result.summary.dirs_total);
  expect(result.summary.files_done, name).toBe(result.summary.files_total);
  await rm(workspace, { recursive: true, force: true });
  return { result, ms: run.ms, stderr: run.stderr };
}

beforeAll(async () => {
  buildCli();
  tmp = await mkdtemp(join(tmpdir(), 'cairn-faults-'));
  source = join(tmp, 'gauges');
  await generateTree(source, FILES, prng(11));
  bigSource = join(tmp, 'field-notes');
  await generateTree(bigSource, envInt('CAIRN_BREAKER_FILES', 250), prng(12));
}, 240_000);
afterAll(async () => {
  await writeFigures('llm-faults', { files: FILES, runs: figures });
  await rm(tmp, { recursive: true, force: true });
});

describe('LLM faults through the built CLI', () => {
  for (const f of FAULTS) {
    it(`${f.name}: survives intermittent and persistent faults with bounded retries`, async () => {
      const server = await startMockOpenAI();
      try {
        // Intermittent: the first attempt of every third prompt fails, everything else answers.
        let injected = 0;
        const seen = new Set<string>();
        server.handle((request) => {
          const prompt = promptOf(request);
          const first = !seen.has(prompt);
          seen.add(prompt);
          if (first && hash(prompt) % 3 === 0) {
            injected += 1;
            return f.fault();
          }
          return reply.json(ANSWER, { usage: USAGE });
        });
        // Two calls in flight at most, so five failures in a row (the breaker's threshold) stay rare.
        const flaky = await ingest(server, `${f.name}-intermittent`, ['--max-concurrent-llm', '2', ...(f.flags ?? [])]);
        const flakyRequests = server.chatRequests.length;
        expect(injected).toBeGreaterThan(0);
        expect(flakyRequests).toBeLessThanOrEqual(flaky.result.llm.calls * MAX_ATTEMPTS);
        if (f.retryable) {
          expect(flaky.result.llm.retries).toBeGreaterThan(0);
          // Each fallback is explained by an injected fault (a retried call usually recovers).
          expect(flaky.result.llm.fallbacks).toBeLessThanOrEqual(injected);
        } else {
          // A refused key or an unknown model is permanent: never retried, and the first one opens the
          // breaker for the run, so the calls after it fall back without a request and say why.
          expect(flaky.result.llm.retries).toBe(0);
          expect(flaky.result.llm.fallbacks).toBeGreaterThanOrEqual(injected);
          expect(flakyRequests).toBeLessThanOrEqual(flaky.result.llm.calls);
          expect(flaky.result.llm.fallback_reasons.LLM_CIRCUIT_OPEN ?? 0).toBe(flaky.result.llm.fallbacks - injected);
        }
        figures.push({ fault: f.name, mode: 'intermittent', injected, calls: flaky.result.llm.calls, requests: flakyRequests, retries: flaky.result.llm.retries, fallbacks: flaky.result.llm.fallbacks, ms: flaky.ms });

        // Persistent: every request fails. Everything falls back; the breaker caps the requests.
        server.reset();
        server.handle(() => f.fault());
        const dead = await ingest(server, `${f.name}-persistent`, ['--max-concurrent-llm', '4', '--llm-cooldown', '600000', ...(f.flags ?? [])]);
        const deadRequests = server.chatRequests.length;
        expect(dead.result.llm.fallbacks).toBe(dead.result.llm.calls);
        expect(deadRequests).toBeLessThanOrEqual(dead.result.llm.calls * MAX_ATTEMPTS);
        if (f.retryable) {
          // The breaker opened: most calls never reached the server.
          expect(dead.result.llm.fallback_reasons.LLM_CIRCUIT_OPEN ?? 0).toBeGreaterThan(0);
          expect(deadRequests).toBeLessThan(dead.result.llm.calls);
        } else {
          // At most one request per call in flight (4), then the breaker is open for the run.
          expect(dead.result.llm.retries).toBe(0);
          expect(deadRequests).toBeLessThanOrEqual(4);
          expect(dead.result.llm.fallback_reasons.LLM_CIRCUIT_OPEN ?? 0).toBe(dead.result.llm.calls - deadRequests);
        }
        figures.push({ fault: f.name, mode: 'persistent', calls: dead.result.llm.calls, requests: deadRequests, retries: dead.result.llm.retries, fallbacks: dead.result.llm.fallbacks, fallback_reasons: dead.result.llm.fallback_reasons, ms: dead.ms });
      } finally {
        await server.close();
      }
    }, 180_000);
  }

  it('honours Retry-After: the retry of a 429 waits the seconds the server asked for', async () => {
    const server = await startMockOpenAI();
    try {
      server.enqueue(reply.rateLimited({ retryAfter: 2 }));
      server.handle(() => reply.json(ANSWER, { usage: USAGE }));
      const run = await ingest(server, 'retry-after', ['--max-concurrent-llm', '1']);
      const first = server.chatRequests[0]!;
      expect(first.outcome).toBe('status:429');
      // Other calls take the free slot meanwhile; the retry is the next request with the same prompt.
      const second = server.chatRequests.slice(1).find((r) => promptOf(r) === promptOf(first));
      expect(second).toBeDefined();
      expect(second!.receivedAt - first.receivedAt).toBeGreaterThanOrEqual(1900);
      expect(run.result.llm.fallbacks).toBe(0);
      figures.push({ fault: '429 Retry-After: 2 (timing)', mode: 'once', calls: run.result.llm.calls, requests: server.chatRequests.length, retries: run.result.llm.retries, fallbacks: 0, retry_gap_ms: second!.receivedAt - first.receivedAt, ms: run.ms });
    } finally {
      await server.close();
    }
  }, 120_000);

  it('opens the circuit breaker under a failing server and recovers through a half-open probe after the cool-down', async () => {
    const server = await startMockOpenAI();
    const COOLDOWN = 1000;
    const settledAt = new Map<number, number>();
    server.on('settled', (r) => settledAt.set(r.seq, Date.now()));
    try {
      // 500s until the breaker has been open for a while, then a healthy server, slow enough that the run outlasts the cool-down.
      let healthyFrom = Infinity;
      server.handle((request) => {
        if (request.seq <= 6) {
          if (request.seq === 6) healthyFrom = Date.now() + COOLDOWN / 2;
          return reply.serverError(500);
        }
        return Date.now() >= healthyFrom ? reply.json(ANSWER, { usage: USAGE }) : reply.serverError(500);
      });
      // A larger tree, so that the run (its fallbacks take a few ms each) outlasts the cool-down.
      const run = await ingest(server, 'breaker', ['--max-concurrent-llm', '4', '--llm-cooldown', String(COOLDOWN), '--llm-timeout', '5000'], bigSource);
      const requests = server.chatRequests;
      // Find the pause: the breaker's cool-down, during which the server saw nothing.
      const gaps = requests.slice(1).map((r, i) => ({ at: i + 1, gap: r.receivedAt - requests[i]!.receivedAt }));
      const pause = gaps.find((g) => g.gap >= COOLDOWN * 0.9);
      expect(pause, JSON.stringify(gaps.slice(0, 12))).toBeDefined();
      const before = requests.slice(0, pause!.at);
      const probe = requests[pause!.at]!;
      expect(before.every((r) => r.outcome === 'status:500')).toBe(true);
      // The half-open probe went alone and succeeded; the requests after it are answered.
      expect(probe.outcome).toBe('json');
      const after = requests.slice(pause!.at + 1);
      expect(after.length).toBeGreaterThan(0);
      // Half-open lets one trial through: nothing else reached the server before the probe settled.
      expect(after.every((r) => r.receivedAt >= settledAt.get(probe.seq)!)).toBe(true);
      expect(after.every((r) => r.outcome === 'json')).toBe(true);
      expect(run.result.llm.fallback_reasons.LLM_CIRCUIT_OPEN ?? 0).toBeGreaterThan(0);
      expect(run.result.llm.calls - run.result.llm.fallbacks).toBeGreaterThan(0);
      figures.push({
        fault: 'breaker open → half-open → closed',
        mode: 'recovery',
        calls: run.result.llm.calls,
        requests: requests.length,
        failing_requests_before_open: before.length,
        pause_ms: pause!.gap,
        answered_after_probe: after.length + 1,
        retries: run.result.llm.retries,
        fallbacks: run.result.llm.fallbacks,
        ms: run.ms,
      });
    } finally {
      await server.close();
    }
  }, 120_000);

  it('holds --token-budget: tokens spent never pass the budget, and the rest falls back', async () => {
    const server = await startMockOpenAI();
    const BUDGET = 2500;
    try {
      server.handle(() => reply.json(ANSWER, { usage: USAGE }));
      const run = await ingest(server, 'budget', ['--max-concurrent-llm', '4', '--token-budget', String(BUDGET)]);
      const budget = run.result.llm.token_budget!;
      expect(budget.max).toBe(BUDGET);
      expect(server.chatRequests.length).toBeGreaterThan(0);
      expect(budget.spent).toBeLessThanOrEqual(BUDGET);
      expect(budget.exhausted || budget.refusals > 0).toBe(true);
      // Counted at the server: what it billed (60 tokens per answer) stays within the budget too.
      const billed = server.chatRequests.filter((r) => r.outcome === 'json').length * (USAGE.prompt_tokens + USAGE.completion_tokens);
      expect(billed).toBeLessThanOrEqual(BUDGET);
      expect(run.result.llm.fallback_reasons.LLM_BUDGET_EXHAUSTED ?? 0).toBeGreaterThan(0);
      figures.push({ fault: `--token-budget ${BUDGET}`, mode: 'budget', calls: run.result.llm.calls, requests: server.chatRequests.length, spent: budget.spent, billed_at_server: billed, fallbacks: run.result.llm.fallbacks, ms: run.ms });
    } finally {
      await server.close();
    }
  }, 120_000);
});
