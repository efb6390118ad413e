/**
 * The reliability wrappers around the real adapter against a real server: retries are bounded
 * and counted at the server, Retry-After is honoured, the circuit breaker opens and recovers,
 * opens for the run on a bad key or an unknown model, one limiter caps concurrency across
 * model instances, and the budget holds without refusing calls on estimates alone.
 * Waits are recorded by an injected sleep and time by a fake clock, so nothing sleeps for real.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createOpenAIModel } from '../../main/adapters/llm/openai.js';
import { createTokenBudget, withBudget } from '../../main/engine/llm/budget.js';
import { createCircuitBreaker, withCircuitBreaker, type CircuitStateChange } from '../../main/engine/llm/circuit-breaker.js';
import { createReliableModel } from '../../main/engine/llm/compose.js';
import { createLimiter, withConcurrencyLimit } from '../../main/engine/llm/limiter.js';
import { withRetry, type RetryOptions } from '../../main/engine/llm/retry.js';
import { createLlmStats, withMetering } from '../../main/engine/llm/stats.js';
import type { LanguageModel } from '../../main/engine/ports/language-model.js';
import { CairnError } from '../../shared/errors.js';
import { reply, startMockOpenAI, type MockOpenAI, type MockReply } from '../support/mock-openai-server.js';

const messages = [{ role: 'user' as const, content: 'Summarize the docs folder.' }];
const Summary = z.object({ abstract: z.string(), overview: z.string() });

let server: MockOpenAI;
beforeEach(async () => {
  server = await startMockOpenAI();
});
afterEach(async () => {
  await server.close();
});

function base(options: { timeoutMs?: number; stream?: boolean; model?: string } = {}): LanguageModel {
  return createOpenAIModel({ baseURL: server.url, apiKey: 'k', model: options.model ?? 'mock-model', timeoutMs: options.timeoutMs ?? 5_000, stream: options.stream });
}

/** A sleep that records what it was asked to wait and returns at once. */
function recordingSleep() {
  const waits: number[] = [];
  return { waits, sleep: async (ms: number) => void waits.push(ms) };
}

function fakeClock(start = Date.parse('2025-01-01T00:00:00Z')) {
  let now = start;
  return { now: () => new Date(now), advance: (ms: number) => void (now += ms) };
}

async function failure(promise: Promise<unknown>): Promise<CairnError> {
  try {
    await promise;
  } catch (error) {
    if (CairnError.is(error)) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

describe('withRetry', () => {
  const retryable: { name: string; fault: () => MockReply; code: string; stream?: boolean }[] = [
    { name: '500', fault: () => reply.serverError(500), code: 'LLM_REQUEST_FAILED' },
    { name: '503', fault: () => reply.serverError(503), code: 'LLM_REQUEST_FAILED' },
    { name: '429', fault: () => reply.rateLimited(), code: 'LLM_RATE_LIMITED' },
    { name: 'malformed body', fault: () => reply.malformed(), code: 'LLM_BAD_RESPONSE' },
    { name: 'hang (timeout)', fault: () => reply.hang(), code: 'TIMEOUT' },
    { name: 'truncated stream', fault: () => reply.truncated('cut short', { afterChunks: 1 }), code: 'LLM_BAD_RESPONSE', stream: true },
    { name: 'dropped connection', fault: () => reply.reset(), code: 'LLM_REQUEST_FAILED' },
  ];
  for (const c of retryable) {
    it(`gives up on a persistent ${c.name} after maxAttempts requests`, async () => {
      server.handle(c.fault);
      const { sleep, waits } = recordingSleep();
      // Malformed answers are retried once by default; lift that cap to see the attempt bound itself.
      const model = withRetry(base({ timeoutMs: c.code === 'TIMEOUT' ? 300 : 10_000, stream: c.stream }), { maxAttempts: 4, sleep, retryLimits: {} });
      const error = await failure(model.complete({ messages }));
      expect(error.code).toBe(c.code);
      expect(error.details?.attempts).toBe(4);
      // A client that gave up may be gone before the server has read the last body: wait for the server's count.
      await server.waitForRequests(4);
      expect(server.chatRequests).toHaveLength(4);
      expect(waits).toHaveLength(3);
    });
  }

  for (const [name, fault] of [
    ['400', () => reply.status(400)],
    ['401', () => reply.unauthorized()],
    ['404', () => reply.unknownModel()],
    ['429 insufficient_quota', () => reply.rateLimited({ code: 'insufficient_quota' })],
  ] as const) {
    it(`never retries ${name}`, async () => {
      server.handle(fault);
      const { sleep, waits } = recordingSleep();
      const error = await failure(withRetry(base(), { sleep }).complete({ messages }));
      expect(error.retryable).toBe(false);
      expect(server.chatRequests).toHaveLength(1);
      expect(waits).toEqual([]);
    });
  }

  it('recovers when a fault passes', async () => {
    server.enqueue(reply.serverError(503), reply.rateLimited(), reply.text('fine'));
    const { sleep, waits } = recordingSleep();
    const result = await withRetry(base(), { sleep }).complete({ messages });
    expect(result.text).toBe('fine');
    expect(server.chatRequests.map((r) => r.outcome)).toEqual(['status:503', 'status:429', 'text']);
    expect(waits).toHaveLength(2);
  });

  it('backs off exponentially with full jitter, within maxDelayMs', async () => {
    server.handle(() => reply.serverError(500));
    const { sleep, waits } = recordingSleep();
    const options: RetryOptions = { maxAttempts: 6, baseDelayMs: 100, maxDelayMs: 1_000, random: () => 0.5, sleep };
    await failure(withRetry(base(), options).complete({ messages }));
    // Ceilings 100, 200, 400, 800, 1000 (capped); full jitter at 0.5 waits half of each.
    expect(waits).toEqual([50, 100, 200, 400, 500]);
    waits.length = 0;
    await failure(withRetry(base(), { ...options, jitter: 'none', maxAttempts: 3 }).complete({ messages }));
    expect(waits).toEqual([100, 200]);
  });

  it('waits exactly what Retry-After asks, in seconds or as a date, capped', async () => {
    server.enqueue(reply.rateLimited({ retryAfter: 2 }), reply.serverError(503, { retryAfter: new Date(Date.now() + 4_000) }), reply.rateLimited({ retryAfter: 600 }), reply.text('ok'));
    const events: string[] = [];
    const { sleep, waits } = recordingSleep();
    const model = withRetry(base(), { sleep, random: () => 0, maxRetryAfterMs: 30_000, onRetry: (e) => events.push(e.source) });
    expect((await model.complete({ messages })).text).toBe('ok');
    expect(waits[0]).toBe(2_000);
    expect(waits[1]).toBeGreaterThan(2_000);
    expect(waits[1]).toBeLessThanOrEqual(4_000);
    expect(waits[2]).toBe(30_000);
    expect(events).toEqual(['retry-after', 'retry-after', 'retry-after']);
    expect(server.chatRequests).toHaveLength(4);
  });

  it('retries a malformed JSON answer once, then reports it', async () => {
    server.handle(() => reply.text('Sorry, no JSON today.'));
    const { sleep } = recordingSleep();
    const error = await failure(withRetry(base(), { sleep }).completeJson({ messages, schema: Summary, schemaName: 'summary' }));
    expect(error.code).toBe('LLM_BAD_RESPONSE');
    expect(server.chatRequests).toHaveLength(2);
  });

  it('stops waiting when the call is cancelled during a backoff', async () => {
    server.handle(() => reply.serverError(500));
    const controller = new AbortController();
    // The real sleep, with a backoff far longer than the test's timeout.
    const model = withRetry(base(), { baseDelayMs: 600_000, jitter: 'none' });
    const pending = failure(model.complete({ messages, signal: controller.signal }));
    await server.waitFor((s) => s.chatRequests.length === 1 && s.inFlight === 0);
    controller.abort();
    const error = await pending;
    expect(error.code).toBe('CANCELLED');
    expect(server.chatRequests).toHaveLength(1);
  });
});

describe('withCircuitBreaker', () => {
  it('opens after N consecutive failures, fails fast, and closes after a good trial', async () => {
    const clock = fakeClock();
    const changes: CircuitStateChange[] = [];
    const breaker = createCircuitBreaker({ failureThreshold: 3, cooldownMs: 10_000, clock, onStateChange: (c) => changes.push(c) });
    const model = withCircuitBreaker(base(), breaker);
    server.handle(() => reply.serverError(500));

    for (let i = 0; i < 3; i += 1) expect((await failure(model.complete({ messages }))).code).toBe('LLM_REQUEST_FAILED');
    expect(breaker.state).toBe('open');
    expect(breaker.retryAt?.getTime()).toBe(clock.now().getTime() + 10_000);

    const fast = await failure(model.complete({ messages }));
    expect(fast.code).toBe('LLM_CIRCUIT_OPEN');
    expect(fast.retryable).toBe(false);
    expect(server.chatRequests).toHaveLength(3);

    clock.advance(9_999);
    expect((await failure(model.complete({ messages }))).code).toBe('LLM_CIRCUIT_OPEN');
    expect(server.chatRequests).toHaveLength(3);

    clock.advance(1);
    server.handle(() => reply.text('back'));
    expect((await model.complete({ messages })).text).toBe('back');
    expect(breaker.state).toBe('closed');
    expect(server.chatRequests).toHaveLength(4);
    expect(changes.map((c) => `${c.from}->${c.to}`)).toEqual(['closed->open', 'open->half-open', 'half-open->closed']);
    expect(changes[0]?.failures).toBe(3);
    expect(changes[0]?.reason).toMatch(/HTTP 500/);
  });

  it('a failed trial opens it for another cooldown', async () => {
    const clock = fakeClock();
    const breaker = createCircuitBreaker({ failureThreshold: 2, cooldownMs: 1_000, clock });
    const model = withCircuitBreaker(base(), breaker);
    server.handle(() => reply.serverError(503));
    await failure(model.complete({ messages }));
    await failure(model.complete({ messages }));
    clock.advance(1_000);
    expect((await failure(model.complete({ messages }))).code).toBe('LLM_REQUEST_FAILED');
    expect(breaker.state).toBe('open');
    expect((await failure(model.complete({ messages }))).code).toBe('LLM_CIRCUIT_OPEN');
    expect(server.chatRequests).toHaveLength(3);
  });

  it('lets one trial through at a time while half-open', async () => {
    const clock = fakeClock();
    const breaker = createCircuitBreaker({ failureThreshold: 1, cooldownMs: 1_000, clock });
    const model = withCircuitBreaker(base(), breaker);
    server.enqueue(reply.serverError(500), reply.hang());
    await failure(model.complete({ messages }));
    clock.advance(1_000);
    const controller = new AbortController();
    const trial = failure(model.complete({ messages, signal: controller.signal }));
    await server.waitForRequests(2);
    expect(breaker.state).toBe('half-open');
    expect((await failure(model.complete({ messages }))).code).toBe('LLM_CIRCUIT_OPEN');
    controller.abort();
    expect((await trial).code).toBe('CANCELLED');
    // A cancelled trial says nothing about the server: the next call is the trial.
    expect(breaker.state).toBe('half-open');
    expect((await model.complete({ messages })).text).toBe('OK');
    expect(breaker.state).toBe('closed');
  });

  for (const [name, fault, cause] of [
    ['401', () => reply.unauthorized(), 'authentication failed (401)'],
    ['404', () => reply.unknownModel('mock-model'), 'model not found (404)'],
  ] as const) {
    it(`opens for the rest of the run at the first ${name}, and names the cause`, async () => {
      const clock = fakeClock();
      const changes: CircuitStateChange[] = [];
      const breaker = createCircuitBreaker({ failureThreshold: 5, cooldownMs: 1_000, clock, onStateChange: (c) => changes.push(c) });
      const model = withCircuitBreaker(base(), breaker);
      server.handle(fault);
      expect((await failure(model.complete({ messages }))).code).toBe('LLM_REQUEST_FAILED');
      expect(breaker.state).toBe('open');
      expect(breaker.permanentFailure).toBe(cause);
      expect(changes).toMatchObject([{ from: 'closed', to: 'open', failures: 1, permanent: cause }]);
      for (let i = 0; i < 5; i += 1) {
        const fast = await failure(model.complete({ messages }));
        expect(fast.code).toBe('LLM_CIRCUIT_OPEN');
        expect(fast.retryable).toBe(false);
        expect(fast.message).toContain(cause);
      }
      // No cool-down and no trial: waiting does not fix a key or a model name.
      clock.advance(3_600_000);
      expect(breaker.retryAt).toBeUndefined();
      expect((await failure(model.complete({ messages }))).message).toContain(cause);
      expect(server.chatRequests).toHaveLength(1);
      // Only a reset (the user fixed the setting) closes it.
      breaker.reset();
      server.handle(() => reply.text('fixed'));
      expect((await model.complete({ messages })).text).toBe('fixed');
      expect(breaker.permanentFailure).toBeUndefined();
      expect(server.chatRequests).toHaveLength(2);
    });
  }

  it('a run with a bad key makes at most one request per call in flight, then falls back fast', async () => {
    // Slow refusals, so the four slots are all taken before the first 401 comes back.
    server.handle(() => reply.delayed(50, reply.unauthorized()));
    const { sleep, waits } = recordingSleep();
    const stats = createLlmStats();
    const { model, breaker } = createReliableModel(base(), { limiter: createLimiter(4), stats, retry: { sleep } });
    const results = await Promise.allSettled(Array.from({ length: 40 }, () => model.complete({ messages })));
    const codes = results.map((r) => (r.status === 'rejected' && CairnError.is(r.reason) ? r.reason.code : 'other'));
    expect(server.chatRequests.length).toBeGreaterThan(0);
    expect(server.chatRequests.length).toBeLessThanOrEqual(4);
    expect(codes.filter((c) => c === 'LLM_REQUEST_FAILED')).toHaveLength(server.chatRequests.length);
    expect(codes.filter((c) => c === 'LLM_CIRCUIT_OPEN')).toHaveLength(40 - server.chatRequests.length);
    expect(waits).toEqual([]);
    expect(breaker?.permanentFailure).toBe('authentication failed (401)');
    for (const r of results) if (r.status === 'rejected' && CairnError.is(r.reason, 'LLM_CIRCUIT_OPEN')) expect(r.reason.message).toContain('authentication failed (401)');
    expect(stats.snapshot()).toMatchObject({ calls: 40, failed: 40 });
  });

  it('does not count errors that say nothing about the server (a 400 is about one prompt)', async () => {
    const breaker = createCircuitBreaker({ failureThreshold: 2 });
    const model = withCircuitBreaker(base(), breaker);
    server.handle(() => reply.status(400));
    for (let i = 0; i < 4; i += 1) await failure(model.complete({ messages }));
    expect(breaker.state).toBe('closed');
    expect(breaker.consecutiveFailures).toBe(0);
  });

  it('stops a retry loop once it opens', async () => {
    server.handle(() => reply.serverError(500));
    const { sleep } = recordingSleep();
    const { model, breaker } = createReliableModel(base(), { limiter: createLimiter(10), retry: { maxAttempts: 10, sleep }, breaker: { failureThreshold: 3, clock: fakeClock() } });
    const error = await failure(model.complete({ messages }));
    expect(error.code).toBe('LLM_CIRCUIT_OPEN');
    expect(breaker?.state).toBe('open');
    expect(server.chatRequests).toHaveLength(3);
  });
});

describe('one process-wide concurrency limit', () => {
  async function run50(models: LanguageModel[]) {
    // Long enough that every free slot is taken before the first answer comes back, even on a busy machine.
    server.handle(() => reply.delayed(100, reply.text('ok')));
    await Promise.all(Array.from({ length: 50 }, (_, i) => models[i % models.length]?.complete({ messages })));
    expect(server.chatRequests).toHaveLength(50);
  }

  it('50 calls through 3 model instances never exceed the shared limit', async () => {
    const limiter = createLimiter(10);
    await run50([withConcurrencyLimit(base({ model: 'a' }), limiter), withConcurrencyLimit(base({ model: 'b' }), limiter), withConcurrencyLimit(base({ model: 'c' }), limiter)]);
    expect(server.peakConcurrency).toBeLessThanOrEqual(10);
    // And the limit is used: the calls really did run side by side.
    expect(server.peakConcurrency).toBe(10);
    expect(limiter.peak).toBe(10);
    expect(limiter.active).toBe(0);
    expect(limiter.pending).toBe(0);
  });

  it('without the limiter the same load goes past it (the check above can fail)', async () => {
    await run50([base({ model: 'a' }), base({ model: 'b' }), base({ model: 'c' })]);
    expect(server.peakConcurrency).toBeGreaterThan(10);
  });

  it('holds across the full reliable stack with retries in play', async () => {
    const limiter = createLimiter(4);
    const { sleep } = recordingSleep();
    let n = 0;
    server.handle(() => ((n += 1) % 5 === 0 ? reply.serverError(503) : reply.delayed(60, reply.text('ok'))));
    const models = ['a', 'b', 'c'].map((id) => createReliableModel(base({ model: id }), { limiter, retry: { sleep } }).model);
    await Promise.all(Array.from({ length: 50 }, (_, i) => models[i % 3]?.complete({ messages })));
    expect(server.peakConcurrency).toBe(4);
    expect(server.chatRequests.length).toBeGreaterThan(50);
  });
});

describe('token budget', () => {
  it('stops calling once spent, and says so', async () => {
    server.handle(() => reply.text('summary', { usage: { prompt_tokens: 30, completion_tokens: 20 } }));
    const budget = createTokenBudget({ maxTokens: 400 });
    const stats = createLlmStats();
    const model = withMetering(withBudget(base(), budget), stats);
    const outcomes: string[] = [];
    for (let i = 0; i < 12; i += 1) {
      try {
        await model.complete({ messages, maxOutputTokens: 20 });
        outcomes.push('ok');
      } catch (error) {
        outcomes.push(CairnError.is(error) ? error.code : 'other');
      }
    }
    const served = outcomes.filter((o) => o === 'ok').length;
    expect(served).toBeGreaterThan(0);
    expect(served).toBeLessThan(12);
    // Every call after the first refusal is refused too, and none of them reached the server.
    expect(outcomes.slice(served)).toEqual(Array(12 - served).fill('LLM_BUDGET_EXHAUSTED'));
    expect(server.chatRequests).toHaveLength(served);
    expect(budget.spent).toBe(served * 50);
    expect(budget.spent).toBeLessThanOrEqual(400);
    expect(budget.snapshot()).toMatchObject({ maxTokens: 400, reserved: 0, exhausted: true, refusals: 12 - served });
    expect(stats.snapshot()).toMatchObject({ calls: 12, succeeded: served, errors: { LLM_BUDGET_EXHAUSTED: 12 - served }, inputTokens: served * 30, outputTokens: served * 20 });

    const refusal = await failure(model.complete({ messages, maxOutputTokens: 20 }));
    expect(refusal.message).toMatch(/token budget of 400 is spent/);
    expect(refusal.retryable).toBe(false);
  });

  it('holds when calls run concurrently', async () => {
    server.handle(() => reply.delayed(5, reply.text('x', { usage: { prompt_tokens: 10, completion_tokens: 10 } })));
    const budget = createTokenBudget({ maxTokens: 300 });
    const model = withBudget(withConcurrencyLimit(base(), createLimiter(10)), budget);
    const results = await Promise.allSettled(Array.from({ length: 40 }, () => model.complete({ messages, maxOutputTokens: 10 })));
    const ok = results.filter((r) => r.status === 'fulfilled').length;
    expect(ok).toBeGreaterThan(0);
    expect(ok).toBeLessThan(40);
    expect(server.chatRequests).toHaveLength(ok);
    expect(budget.spent).toBeLessThanOrEqual(300);
    expect(budget.reserved).toBe(0);
  });

  it('lets calls wait for reservations in flight instead of refusing them (not cut short by estimates)', async () => {
    // Each call reserves its prompt plus 200 answer tokens but uses 50: four reservations fill the budget, their spending a fifth of it.
    server.handle(() => reply.delayed(20, reply.text('x', { usage: { prompt_tokens: 30, completion_tokens: 20 } })));
    const budget = createTokenBudget({ maxTokens: 1_000 });
    const model = withBudget(withConcurrencyLimit(base(), createLimiter(4)), budget);
    const results = await Promise.allSettled(Array.from({ length: 30 }, () => model.complete({ messages, maxOutputTokens: 200 })));
    const ok = results.filter((r) => r.status === 'fulfilled').length;
    // Refusing on reservations would serve at most 4 (5 × ~210 > 1000); waiting serves until the spending leaves no room.
    expect(ok).toBeGreaterThanOrEqual(15);
    expect(budget.spent).toBe(ok * 50);
    expect(budget.spent).toBeLessThanOrEqual(1_000);
    expect(server.chatRequests).toHaveLength(ok);
    expect(budget.snapshot()).toMatchObject({ reserved: 0, refusals: 30 - ok });
    for (const r of results) {
      if (r.status === 'rejected') {
        expect(r.reason).toMatchObject({ code: 'LLM_BUDGET_EXHAUSTED' });
        const { spent, needed } = (r.reason as CairnError).details as { spent: number; needed: number };
        expect(spent + needed).toBeGreaterThan(1_000);
      }
    }
  });

  it('gives a failed call its reservation back, and charges a malformed answer what it cost', async () => {
    const budget = createTokenBudget({ maxTokens: 10_000 });
    const model = withBudget(base(), budget);
    server.enqueue(reply.serverError(500), reply.text('not json', { usage: { prompt_tokens: 70, completion_tokens: 5 } }));
    await failure(model.complete({ messages }));
    expect(budget.snapshot()).toMatchObject({ spent: 0, reserved: 0 });
    await failure(model.completeJson({ messages, schema: Summary, schemaName: 'summary' }));
    expect(budget.snapshot()).toMatchObject({ spent: 75, reserved: 0 });
  });
});

describe('metering', () => {
  it('counts calls, retries, failures, tokens and repaired answers', async () => {
    const stats = createLlmStats();
    const snapshots: number[] = [];
    stats.subscribe((s) => snapshots.push(s.calls));
    const { sleep } = recordingSleep();
    const { model } = createReliableModel(base(), { limiter: createLimiter(10), stats, retry: { sleep } });
    server.enqueue(
      reply.serverError(500),
      reply.text("{abstract: 'a', overview: 'b',}", { usage: { prompt_tokens: 12, completion_tokens: 8 } }),
      reply.unauthorized(),
    );
    await model.completeJson({ messages, schema: Summary, schemaName: 'summary' });
    await failure(model.complete({ messages }));
    stats.recordFallback('LLM_REQUEST_FAILED');
    expect(stats.snapshot()).toMatchObject({
      calls: 2,
      inFlight: 0,
      succeeded: 1,
      failed: 1,
      retries: 1,
      repaired: 1,
      fallbacks: 1,
      inputTokens: 12,
      outputTokens: 8,
      errors: { LLM_REQUEST_FAILED: 1 },
      fallbackReasons: { LLM_REQUEST_FAILED: 1 },
    });
    expect(stats.snapshot().lastError?.message).toMatch(/HTTP 401/);
    expect(snapshots.length).toBeGreaterThan(3);
  });
});
