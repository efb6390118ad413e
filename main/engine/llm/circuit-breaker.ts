/**
 * A circuit breaker stops calling a provider that keeps failing, so a dead server costs one
 * fast error per call instead of a timeout and four retries.
 *
 * closed: calls go through; `failureThreshold` consecutive failures open it.
 * open: calls fail at once with LLM_CIRCUIT_OPEN (not retryable: the caller falls back).
 * half-open: after `cooldownMs`, one trial call goes through (others still fail fast);
 * its success closes the circuit, its failure opens it for another cooldown.
 *
 * Only failures that say something about the provider's health count: retryable errors
 * (timeouts, 5xx, 429, connection errors, malformed answers). A 400 (one bad prompt) or a
 * cancelled call neither counts nor resets the count.
 *
 * Permanent failures (a refused key: 401/403; an unknown model or wrong base URL: 404; an
 * account out of quota) open the circuit at the first one and keep it open for the rest of the
 * run: no cool-down, no trial, only `reset()` closes it, because waiting does not fix a key.
 * Every later call fails fast with LLM_CIRCUIT_OPEN and a message naming the cause
 * ("authentication failed (401)"), so a run with a bad key costs at most one request per call
 * already in flight instead of one per call (issue 10).
 *
 * @example
 * const breaker = createCircuitBreaker({ failureThreshold: 5, cooldownMs: 30_000, onStateChange: (c) => emit(c) });
 * const model = withCircuitBreaker(base, breaker);
 * breaker.state; // 'closed'
 */
import { CairnError } from '../../../shared/errors.js';
import { systemClock, type Clock } from '../ports/clock.js';
import type { LanguageModel } from '../ports/language-model.js';
import { describeCause, englishCause, groupOf, type LlmCause } from '../../../shared/llm-cause.js';
import { failureCause } from './failure-cause.js';
import { wrapLanguageModel } from './wrap.js';

export type CircuitState = 'closed' | 'open' | 'half-open';

export interface CircuitStateChange {
  from: CircuitState;
  to: CircuitState;
  at: Date;
  /** Consecutive failures when it changed. */
  failures: number;
  /** The error that opened the circuit, if one did. */
  reason?: string;
  /** Set when a permanent failure opened it (see `permanentCause`): no trial will follow. */
  permanent?: string;
}

export interface CircuitBreakerOptions {
  /** Consecutive failures that open the circuit. Default 5. */
  failureThreshold?: number;
  /** How long the circuit stays open before a trial call. Default 30 s. */
  cooldownMs?: number;
  clock?: Clock;
  onStateChange?: (change: CircuitStateChange) => void;
  /** Which errors count as the provider failing. Default: retryable CairnErrors and non-Cairn errors. */
  isFailure?: (error: unknown) => boolean;
  /**
   * Names the cause when an error is permanent for the provider (it opens the circuit for the
   * run), or undefined. Default: `permanentCause`.
   */
  permanentCause?: (error: unknown) => string | undefined;
  /** Names the circuit in its errors (e.g. the provider and model). */
  name?: string;
}

export interface CircuitBreaker {
  readonly state: CircuitState;
  readonly consecutiveFailures: number;
  /** When an open circuit lets a trial call through; undefined unless open (or open for good). */
  readonly retryAt: Date | undefined;
  /** The cause of a permanent failure that opened the circuit for the run, e.g. "authentication failed (401)". */
  readonly permanentFailure: string | undefined;
  /** Runs `fn` through the breaker, or throws LLM_CIRCUIT_OPEN. */
  run<T>(fn: () => Promise<T>): Promise<T>;
  /** Closes the circuit by hand (e.g. after the user fixed the server's address). */
  reset(): void;
}

/** How long an open circuit waits before a trial call, unless told (`--llm-cooldown`). */
export const DEFAULT_COOLDOWN_MS = 30_000;

export function createCircuitBreaker(options: CircuitBreakerOptions = {}): CircuitBreaker {
  const threshold = Math.max(1, options.failureThreshold ?? 5);
  const cooldownMs = options.cooldownMs ?? DEFAULT_COOLDOWN_MS;
  const clock = options.clock ?? systemClock;
  const isFailure = options.isFailure ?? defaultIsFailure;
  const name = options.name ?? 'LLM provider';
  const permanentOf = options.permanentCause ?? permanentCause;
  let state: CircuitState = 'closed';
  let permanent: string | undefined;
  let failures = 0;
  let openedAt = 0;
  let trialInFlight = false;
  /** The cause of the last failure that counted, so a call refused by an open circuit says what the server did. */
  let lastCause: LlmCause | undefined;

  const moveTo = (to: CircuitState, reason?: string) => {
    if (to === state) return;
    const change: CircuitStateChange = { from: state, to, at: clock.now(), failures, ...(reason ? { reason } : {}) };
    state = to;
    options.onStateChange?.(change);
  };

  const open = (reason: string) => {
    openedAt = clock.now().getTime();
    moveTo('open', reason);
  };

  const rejectOpen = (): never => {
    if (permanent !== undefined) {
      throw new CairnError('LLM_CIRCUIT_OPEN', `${name}: ${permanent}; no more calls to it in this run (fix the setting and start again)`, {
        retryable: false,
        details: { state, failures, permanent, ...(lastCause === undefined ? {} : { lastCause }) },
      });
    }
    const last = lastCause === undefined ? {} : { lastCause };
    const after = `${failures} consecutive failures${lastCause === undefined ? '' : ` (the last: ${describeCause(lastCause, englishCause)})`}`;
    if (state === 'half-open') {
      throw new CairnError('LLM_CIRCUIT_OPEN', `${name}: circuit half-open after ${after}; a trial call is in flight`, {
        retryable: false,
        details: { state, failures, ...last },
      });
    }
    const retryAt = new Date(openedAt + cooldownMs);
    throw new CairnError('LLM_CIRCUIT_OPEN', `${name}: circuit open after ${after}; next trial at ${retryAt.toISOString()}`, {
      retryable: false,
      details: { state, failures, retryAt: retryAt.toISOString(), ...last },
    });
  };

  return {
    get state() {
      return state;
    },
    get consecutiveFailures() {
      return failures;
    },
    get retryAt() {
      return state === 'open' && permanent === undefined ? new Date(openedAt + cooldownMs) : undefined;
    },
    get permanentFailure() {
      return permanent;
    },
    async run<T>(fn: () => Promise<T>): Promise<T> {
      if (permanent !== undefined) rejectOpen();
      if (state === 'open') {
        if (clock.now().getTime() - openedAt < cooldownMs) rejectOpen();
        moveTo('half-open');
      }
      const trial = state === 'half-open';
      if (trial) {
        // One trial at a time: the others would pile onto a server that may still be down.
        if (trialInFlight) rejectOpen();
        trialInFlight = true;
      }
      try {
        const result = await fn();
        failures = 0;
        if (trial) moveTo('closed');
        return result;
      } catch (error) {
        const cause = permanentOf(error);
        if (cause !== undefined) {
          failures += 1;
          if (permanent === undefined) {
            permanent = cause;
            lastCause = groupOf(failureCause(error));
            openedAt = clock.now().getTime();
            const change: CircuitStateChange = { from: state, to: 'open', at: clock.now(), failures, reason: error instanceof Error ? error.message : String(error), permanent: cause };
            state = 'open';
            options.onStateChange?.(change);
          }
        } else if (isFailure(error)) {
          failures += 1;
          lastCause = groupOf(failureCause(error));
          const reason = error instanceof Error ? error.message : String(error);
          if (trial || failures >= threshold) open(reason);
        }
        throw error;
      } finally {
        if (trial) trialInFlight = false;
      }
    },
    reset() {
      failures = 0;
      permanent = undefined;
      trialInFlight = false;
      moveTo('closed');
    },
  };
}

/** Wraps a model with a breaker (a shared one, or a new one made from options). */
export function withCircuitBreaker(model: LanguageModel, breaker: CircuitBreaker | CircuitBreakerOptions = {}): LanguageModel & { readonly breaker: CircuitBreaker } {
  const circuit = 'run' in breaker ? breaker : createCircuitBreaker({ name: `${model.provider} ${model.modelId}`, ...breaker });
  return { ...wrapLanguageModel(model, (_call, next) => circuit.run(next)), breaker: circuit };
}

/**
 * The default test for permanent failures: errors that every later call to the same provider
 * and model would get too. A 400 is about one prompt and stays out.
 *
 * @example
 * permanentCause(new CairnError('LLM_REQUEST_FAILED', 'HTTP 401 ...', { details: { status: 401 } })); // 'authentication failed (401)'
 */
export function permanentCause(error: unknown): string | undefined {
  if (!CairnError.is(error)) return undefined;
  const status = error.details?.status;
  if (error.code === 'LLM_REQUEST_FAILED') {
    if (status === 401 || status === 403) return `authentication failed (${status})`;
    if (status === 404) return 'model not found (404)';
  }
  if (error.code === 'LLM_RATE_LIMITED' && !error.retryable && error.details?.serverCode === 'insufficient_quota') return 'the account is out of quota (429 insufficient_quota)';
  return undefined;
}

function defaultIsFailure(error: unknown): boolean {
  if (CairnError.is(error)) return error.retryable && error.code !== 'CANCELLED';
  return true;
}
