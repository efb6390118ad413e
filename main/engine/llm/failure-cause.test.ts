import { describe, expect, it } from 'vitest';
import { CairnError } from '../../../shared/errors.js';
import { createCircuitBreaker } from './circuit-breaker.js';
import { failureCause } from './failure-cause.js';

describe('failureCause', () => {
  it('names a timeout, a refusal, and an open circuit by the failure that opened it', async () => {
    expect(failureCause(new CairnError('TIMEOUT', 'p m: no answer within 5000 ms', { retryable: true, details: { timeoutMs: 5000 } })).group).toBe('timeout after 5000 ms');
    expect(failureCause(new CairnError('LLM_BUDGET_EXHAUSTED', 'spent')).group).toBe('token budget exhausted');
    expect(failureCause(new CairnError('LLM_REQUEST_FAILED', 'p m: could not reach the server (ECONNREFUSED)', { retryable: true })).group).toBe('could not reach the server');

    const breaker = createCircuitBreaker({ failureThreshold: 2 });
    const fault = () => Promise.reject(new CairnError('LLM_REQUEST_FAILED', 'p m: HTTP 503', { retryable: true, details: { status: 503, serverMessage: 'overloaded' } }));
    for (let i = 0; i < 2; i += 1) await breaker.run(fault).catch(() => undefined);
    const refused = await breaker.run(() => Promise.resolve('never')).catch((error: unknown) => error);
    expect(failureCause(refused).group).toBe("circuit open after repeated HTTP 503 'overloaded'");
  });
});
