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

describe('createTokenBudget.acquire', () => {
  it('waits for reservations in flight instead of refusing, and refuses once spending leaves no room', async () => {
    const budget = createTokenBudget({ maxTokens: 100 });
    const a = await budget.acquire(60);
    const waiting = budget.acquire(50);
    expect(budget.waiting).toBe(1);
    // The reservation settles far below its estimate: the waiter now fits.
    a.settle({ inputTokens: 10, outputTokens: 10 });
    const b = await waiting;
    expect(budget.snapshot()).toMatchObject({ spent: 20, reserved: 50, refusals: 0 });
    // 20 spent + 90 > 100 will never fit, whatever settles: refused at once.
    await expect(budget.acquire(90)).rejects.toMatchObject({ code: 'LLM_BUDGET_EXHAUSTED' });
    // 20 spent + 50 held + 40 fits only after b settles, and b spends 45: 65 + 40 > 100, so refused then.
    const late = budget.acquire(40);
    expect(budget.waiting).toBe(1);
    b.settle({ inputTokens: 40, outputTokens: 5 });
    await expect(late).rejects.toMatchObject({ code: 'LLM_BUDGET_EXHAUSTED', details: { spent: 65, needed: 40 } });
    expect(budget.snapshot()).toMatchObject({ spent: 65, reserved: 0, refusals: 2 });
  });

  it('serves waiters in order and leaves the queue when cancelled', async () => {
    const budget = createTokenBudget({ maxTokens: 100 });
    const first = await budget.acquire(90);
    const order: string[] = [];
    const controller = new AbortController();
    const big = budget.acquire(80, controller.signal).then(
      () => order.push('big'),
      (e: CairnError) => order.push(`big:${e.code}`),
    );
    const small = budget.acquire(20).then((r) => {
      order.push('small');
      return r;
    });
    // The small one fits beside nothing but the first; it still queues behind the big one.
    expect(budget.waiting).toBe(2);
    controller.abort();
    await big;
    first.release();
    (await small).release();
    expect(order).toEqual(['big:CANCELLED', 'small']);
    expect(budget.snapshot()).toMatchObject({ spent: 0, reserved: 0 });
    expect(budget.waiting).toBe(0);
  });

  it('never overspends and refuses only what cannot fit (seeded random schedules)', async () => {
    for (let seed = 1; seed <= 40; seed += 1) {
      let state = seed * 7919;
      const random = () => {
        state = (state * 1103515245 + 12345) % 2147483648;
        return state / 2147483648;
      };
      const maxTokens = 200 + Math.floor(random() * 800);
      const budget = createTokenBudget({ maxTokens });
      const check = () => {
        expect(budget.spent + budget.reserved).toBeLessThanOrEqual(maxTokens);
        expect(budget.reserved).toBeGreaterThanOrEqual(0);
      };
      let served = 0;
      let refused = 0;
      const calls = Array.from({ length: 30 }, async () => {
        // Arrive at random moments.
        for (let i = Math.floor(random() * 5); i > 0; i -= 1) await Promise.resolve();
        const need = 10 + Math.floor(random() * 150);
        let reservation;
        try {
          reservation = await budget.acquire(need);
        } catch (error) {
          expect(CairnError.is(error, 'LLM_BUDGET_EXHAUSTED')).toBe(true);
          const details = (error as CairnError).details as { spent: number; needed: number };
          // Refused only when the spending alone leaves no room for it.
          expect(details.spent + details.needed).toBeGreaterThan(maxTokens);
          refused += 1;
          return;
        }
        check();
        for (let i = Math.floor(random() * 8); i > 0; i -= 1) await Promise.resolve();
        served += 1;
        // Usage at most the estimate (the estimate is a bound when maxOutputTokens is set); some calls fail.
        if (random() < 0.2) reservation.release();
        else reservation.settle({ inputTokens: Math.floor(random() * need * 0.5), outputTokens: Math.floor(random() * need * 0.5) });
        check();
      });
      await Promise.all(calls);
      expect(served + refused).toBe(30);
      expect(budget.snapshot()).toMatchObject({ reserved: 0, refusals: refused });
      expect(budget.waiting).toBe(0);
      expect(budget.spent).toBeLessThanOrEqual(maxTokens);
    }
  });
});
