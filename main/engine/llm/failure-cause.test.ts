import { describe, expect, it } from 'vitest';
import { CairnError } from '../../../shared/errors.js';
import { describeCause, englishCause, groupOf } from '../../../shared/llm-cause.js';
import { createCircuitBreaker } from './circuit-breaker.js';
import { failureCause } from './failure-cause.js';

describe('failureCause', () => {
  it('reads a code and its parameters from the error, not from its English message', () => {
    expect(failureCause(new CairnError('TIMEOUT', 'p m: no answer within 5000 ms', { retryable: true, details: { timeoutMs: 5000 } }))).toEqual({ code: 'timeout', timeout_ms: 5000 });
    expect(failureCause(new CairnError('LLM_BUDGET_EXHAUSTED', 'spent'))).toEqual({ code: 'budget' });
    expect(failureCause(new CairnError('LLM_REQUEST_FAILED', 'p m: whatever the words', { retryable: true, details: { problem: 'network' } }))).toEqual({ code: 'network' });
    expect(failureCause(new CairnError('LLM_REQUEST_FAILED', 'p m: HTTP 500', { details: { status: 500, serverMessage: 'injected fault' } }))).toEqual({ code: 'http_status', status: 500, message: 'injected fault' });
    const schema = failureCause(new CairnError('LLM_BAD_RESPONSE', 'p m: x', { details: { problem: 'schema', issues: ['abstract: Required'], excerpt: '{"x":1}' } }));
    expect(schema).toEqual({ code: 'schema', issues: ['abstract: Required'], answer: '{"x":1}' });
    // The group leaves out what differs per call, so fallbacks add up.
    expect(groupOf(schema)).toEqual({ code: 'schema' });
  });

  it('names an open circuit by the failure that opened it, and a permanent one by its status', async () => {
    const breaker = createCircuitBreaker({ failureThreshold: 2 });
    const fault = () => Promise.reject(new CairnError('LLM_REQUEST_FAILED', 'p m: HTTP 503', { retryable: true, details: { status: 503, serverMessage: 'overloaded' } }));
    for (let i = 0; i < 2; i += 1) await breaker.run(fault).catch(() => undefined);
    const refused = await breaker.run(() => Promise.resolve('never')).catch((error: unknown) => error);
    expect(failureCause(refused)).toEqual({ code: 'circuit_open', after: { code: 'http_status', status: 503, message: 'overloaded' } });
    expect(describeCause(failureCause(refused), englishCause)).toBe("circuit open after repeated HTTP 503 'overloaded'");

    const stopped = createCircuitBreaker();
    await stopped.run(() => Promise.reject(new CairnError('LLM_REQUEST_FAILED', 'p m: HTTP 401', { details: { status: 401, serverMessage: 'bad key' } }))).catch(() => undefined);
    const next = await stopped.run(() => Promise.resolve('never')).catch((error: unknown) => error);
    expect(failureCause(next)).toMatchObject({ code: 'circuit_open', permanent: true });
    expect(describeCause(failureCause(next), englishCause)).toBe('circuit open: authentication failed (401)');
  });
});
