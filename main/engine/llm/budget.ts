/**
 * A per-run token budget (input + output tokens). Before a call, its estimate is reserved
 * (prompt tokens counted with the tokenizer, plus `maxOutputTokens` or a default for the
 * answer); after it, the reservation is settled with the usage the server reported. A call
 * whose estimate no longer fits what is spent is refused with LLM_BUDGET_EXHAUSTED (not
 * retryable), so the DAG falls back to its offline summary and says so. Reservations keep
 * concurrent calls from overspending together.
 *
 * A call that fits the spending but not the reservations in flight waits (`acquire`) until
 * they settle, usually far below their estimates, instead of being refused: the estimates are
 * generous, so refusing on them cut runs short with most of the budget unspent (issue 10).
 * Waiters are served first come, first served; one whose estimate no longer fits what was
 * spent meanwhile is refused then.
 *
 * The budget can end slightly above `maxTokens` when answers run longer than estimated; pass
 * `maxOutputTokens` on calls to make the estimate a bound.
 *
 * @example
 * const budget = createTokenBudget({ maxTokens: 200_000 });
 * const model = withBudget(base, budget);
 * // ... run ...
 * budget.snapshot(); // { maxTokens: 200000, spent: 181234, reserved: 0, remaining: 18766, refusals: 3, exhausted: true }
 */
import { CairnError } from '../../../shared/errors.js';
import type { LanguageModel, Usage } from '../ports/language-model.js';
import { estimateTokens } from '../../lib/tokens.js';
import { wrapLanguageModel } from './wrap.js';

export interface BudgetSnapshot {
  maxTokens: number;
  /** Tokens of settled calls (input + output). */
  spent: number;
  /** Tokens held by calls in flight. */
  reserved: number;
  remaining: number;
  /** Calls refused for lack of budget. */
  refusals: number;
  /** True once a call was refused or nothing remains. */
  exhausted: boolean;
}

export interface BudgetReservation {
  readonly tokens: number;
  /** Replaces the reservation with what the call really used. */
  settle(usage: Usage): void;
  /** Gives the reservation back (the call failed without using tokens). */
  release(): void;
}

export interface TokenBudget {
  readonly maxTokens: number;
  readonly spent: number;
  readonly reserved: number;
  readonly remaining: number;
  readonly exhausted: boolean;
  /** Holds `tokens` for a call now, or throws LLM_BUDGET_EXHAUSTED when they do not fit beside the reservations in flight. */
  reserve(tokens: number): BudgetReservation;
  /**
   * Holds `tokens` for a call, waiting for reservations in flight to settle when only they stand
   * in the way; rejects with LLM_BUDGET_EXHAUSTED once the spending alone leaves no room, or with
   * CANCELLED when `signal` aborts.
   */
  acquire(tokens: number, signal?: AbortSignal): Promise<BudgetReservation>;
  /** Calls waiting in `acquire`. */
  readonly waiting: number;
  snapshot(): BudgetSnapshot;
}

export function createTokenBudget(options: { maxTokens: number }): TokenBudget {
  const maxTokens = options.maxTokens;
  if (!(maxTokens >= 0)) throw new CairnError('INVALID_INPUT', `the token budget must be a number of tokens, not ${maxTokens}`);
  let spent = 0;
  let reserved = 0;
  let refusals = 0;
  const queue: { need: number; grant: () => void; refuse: () => void }[] = [];

  const remaining = () => Math.max(0, maxTokens - spent - reserved);
  const snapshot = (): BudgetSnapshot => ({ maxTokens, spent, reserved, remaining: remaining(), refusals, exhausted: refusals > 0 || remaining() === 0 });
  const needOf = (tokens: number) => Math.max(0, Math.ceil(tokens));
  // Spending only grows: an estimate that does not fit beside it never will.
  const hopeless = (need: number) => spent + need > maxTokens;
  const fitsNow = (need: number) => spent + reserved + need <= maxTokens;

  const refusal = (need: number): CairnError => {
    refusals += 1;
    return new CairnError(
      'LLM_BUDGET_EXHAUSTED',
      `The token budget of ${maxTokens} is spent: ${spent} used, ${reserved} held by calls in flight, and this call needs about ${need}`,
      { retryable: false, details: { ...snapshot(), needed: need } },
    );
  };

  const hold = (need: number): BudgetReservation => {
    reserved += need;
    let open = true;
    const close = () => {
      if (!open) return false;
      open = false;
      reserved -= need;
      return true;
    };
    return {
      tokens: need,
      settle(usage: Usage) {
        if (!close()) return;
        spent += usage.inputTokens + usage.outputTokens;
        drain();
      },
      release() {
        if (close()) drain();
      },
    };
  };

  // Serves the queue in order after a reservation closed: refuses the waiters that can never
  // fit, grants the head while it fits, and stops at the first that must wait longer.
  const drain = () => {
    while (queue.length > 0) {
      const head = queue[0]!;
      if (hopeless(head.need)) {
        queue.shift();
        head.refuse();
      } else if (fitsNow(head.need)) {
        queue.shift();
        head.grant();
      } else return;
    }
  };

  return {
    maxTokens,
    get spent() {
      return spent;
    },
    get reserved() {
      return reserved;
    },
    get remaining() {
      return remaining();
    },
    get exhausted() {
      return snapshot().exhausted;
    },
    get waiting() {
      return queue.length;
    },
    snapshot,
    reserve(tokens: number): BudgetReservation {
      const need = needOf(tokens);
      if (!fitsNow(need)) throw refusal(need);
      return hold(need);
    },
    acquire(tokens: number, signal?: AbortSignal): Promise<BudgetReservation> {
      const need = needOf(tokens);
      if (signal?.aborted) return Promise.reject(cancelled(signal.reason));
      if (hopeless(need)) return Promise.reject(refusal(need));
      // Newcomers queue behind earlier waiters, so a stream of small calls cannot starve a big one.
      if (queue.length === 0 && fitsNow(need)) return Promise.resolve(hold(need));
      return new Promise<BudgetReservation>((resolve, reject) => {
        const waiter = {
          need,
          grant: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve(hold(need));
          },
          refuse: () => {
            signal?.removeEventListener('abort', onAbort);
            reject(refusal(need));
          },
        };
        const onAbort = () => {
          const index = queue.indexOf(waiter);
          if (index !== -1) queue.splice(index, 1);
          reject(cancelled(signal?.reason));
          // The head may have been what held the others back.
          drain();
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        queue.push(waiter);
      });
    },
  };
}

function cancelled(reason: unknown): CairnError {
  return new CairnError('CANCELLED', 'The LLM call was cancelled while waiting for the token budget', { cause: reason, retryable: false });
}

export interface WithBudgetOptions {
  /** Answer tokens reserved when a call does not set maxOutputTokens. Default 1024. */
  defaultOutputTokens?: number;
}

export function withBudget(model: LanguageModel, budget: TokenBudget, options: WithBudgetOptions = {}): LanguageModel {
  const defaultOutput = options.defaultOutputTokens ?? 1024;
  return wrapLanguageModel(model, async (call, next) => {
    const estimate = estimateTokens(call.options.messages) + (call.options.maxOutputTokens ?? defaultOutput);
    const reservation = await budget.acquire(estimate, call.options.signal);
    try {
      const result = await next();
      reservation.settle(result.usage);
      return result;
    } catch (error) {
      // A malformed answer still cost its tokens; the adapter reports them with the error.
      const usage = CairnError.is(error) ? usageOf(error.details?.usage) : undefined;
      if (usage) reservation.settle(usage);
      else reservation.release();
      throw error;
    }
  });
}

function usageOf(value: unknown): Usage | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { inputTokens, outputTokens } = value as Partial<Usage>;
  return typeof inputTokens === 'number' && typeof outputTokens === 'number' ? { inputTokens, outputTokens } : undefined;
}
