import { describe, expect, it } from 'vitest';
import { CairnError } from '../../../shared/errors.js';
import { createTokenBudget } from './budget.js';

describe('createTokenBudget', () => {
  it('reserves, settles with real usage, and releases', () => {
    const budget = createTokenBudget({ maxTokens: 100 });
    const a = budget.reserve(40);
    const b = budget.reserve(40);
    expect(budget.snapshot()).toMatchObject({ spent: 0, reserved: 80, remaining: 20, exhausted: false });
    a.settle({ inputTokens: 20, outputTokens: 5 });
    b.release();
    expect(budget.snapshot()).toMatchObject({ spent: 25, reserved: 0, remaining: 75 });
    // Settling twice changes nothing.
    a.settle({ inputTokens: 1000, outputTokens: 0 });
    expect(budget.spent).toBe(25);
  });

  it('refuses what does not fit, counting in-flight reservations', () => {
    const budget = createTokenBudget({ maxTokens: 100 });
    budget.reserve(60);
    let error: unknown;
    try {
      budget.reserve(50);
    } catch (e) {
      error = e;
    }
    expect(CairnError.is(error, 'LLM_BUDGET_EXHAUSTED')).toBe(true);
    expect((error as CairnError).details).toMatchObject({ maxTokens: 100, reserved: 60, needed: 50 });
    expect(budget.snapshot()).toMatchObject({ refusals: 1, exhausted: true });
    // A smaller call still fits.
    expect(budget.reserve(40).tokens).toBe(40);
  });

  it('rejects a budget that is not a number of tokens', () => {
    expect(() => createTokenBudget({ maxTokens: Number.NaN })).toThrow(/token budget/);
  });
});
