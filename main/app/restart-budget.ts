/**
 * How many restarts something may have in a sliding window: the engine worker after crashes, the
 * window's page after it hung or died. Past the budget a crash loop stops instead of spinning.
 *
 * @example
 * const budget = restartBudget({ max: 3, windowMs: 60_000 });
 * if (budget.take()) restart(); else giveUp();
 */
export interface RestartBudget {
  /** Spends one restart; false when `max` were already spent within the window. */
  take(): boolean;
}

export function restartBudget(options: { max: number; windowMs: number; now?: () => number }): RestartBudget {
  const now = options.now ?? Date.now;
  const spent: number[] = [];
  return {
    take() {
      const at = now();
      while (spent.length > 0 && at - spent[0]! >= options.windowMs) spent.shift();
      if (spent.length >= options.max) return false;
      spent.push(at);
      return true;
    },
  };
}
