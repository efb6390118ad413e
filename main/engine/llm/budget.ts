/**
 * A per-run token budget (input + output tokens). Before a call, its estimate is reserved
 * (prompt tokens counted with the tokenizer, plus `maxOutputTokens` or a default for the
 * answer); after it, the reservation is settled with the usage the server reported. A call
 * whose estimate no longer fits is refused with LLM_BUDGET_EXHAUSTED (not retryable), so the
 * DAG falls back to its offline summary and says so. Reservations keep concurrent calls from
 * overspending together.
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
import { estimateTokens } from './tokens.js';
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
  /** Holds `tokens` for a call, or throws LLM_BUDGET_EXHAUSTED when they do not fit. */
  reserve(tokens: number): BudgetReservation;
  snapshot(): BudgetSnapshot;
}

export function createTokenBudget(options: { maxTokens: number }): TokenBudget {
  const maxTokens = options.maxTokens;
  if (!(maxTokens >= 0)) throw new CairnError('INVALID_INPUT', `the token budget must be a number of tokens, not ${maxTokens}`);
  let spent = 0;
  let reserved = 0;
  let refusals = 0;

  const remaining = () => Math.max(0, maxTokens - spent - reserved);
  const snapshot = (): BudgetSnapshot => ({ maxTokens, spent, reserved, remaining: remaining(), refusals, exhausted: refusals > 0 || remaining() === 0 });

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
    snapshot,
    reserve(tokens: number): BudgetReservation {
      const need = Math.max(0, Math.ceil(tokens));
      if (spent + reserved + need > maxTokens) {
        refusals += 1;
        throw new CairnError(
          'LLM_BUDGET_EXHAUSTED',
          `The token budget of ${maxTokens} is spent: ${spent} used, ${reserved} held by calls in flight, and this call needs about ${need}`,
          { retryable: false, details: { ...snapshot(), needed: need } },
        );
      }
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
          if (close()) spent += usage.inputTokens + usage.outputTokens;
        },
        release() {
          close();
        },
      };
    },
  };
}

export interface WithBudgetOptions {
  /** Answer tokens reserved when a call does not set maxOutputTokens. Default 1024. */
  defaultOutputTokens?: number;
}

export function withBudget(model: LanguageModel, budget: TokenBudget, options: WithBudgetOptions = {}): LanguageModel {
  const defaultOutput = options.defaultOutputTokens ?? 1024;
  return wrapLanguageModel(model, async (call, next) => {
    const estimate = estimateTokens(call.options.messages) + (call.options.maxOutputTokens ?? defaultOutput);
    const reservation = budget.reserve(estimate);
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
