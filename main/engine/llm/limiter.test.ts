import { describe, expect, it } from 'vitest';
import { CairnError } from '../../../shared/errors.js';
import { createLimiter } from './limiter.js';

/** A task the test finishes by hand, and that says when it started, so the order of events is explicit. */
function gate() {
  let open!: () => void;
  let began!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const started = new Promise<void>((resolve) => (began = resolve));
  return { open, opened, began, started };
}

describe('createLimiter', () => {
  it('runs at most `concurrency` tasks and serves waiters in order', async () => {
    const limiter = createLimiter(2);
    const gates = [gate(), gate(), gate(), gate()];
    const started: number[] = [];
    const runs = gates.map((g, i) =>
      limiter.run(async () => {
        started.push(i);
        g.began();
        await g.opened;
        return i;
      }),
    );
    await Promise.all([gates[0]?.started, gates[1]?.started]);
    expect(started).toEqual([0, 1]);
    expect({ active: limiter.active, pending: limiter.pending }).toEqual({ active: 2, pending: 2 });
    gates[1]?.open();
    await gates[2]?.started;
    expect(started).toEqual([0, 1, 2]);
    expect({ active: limiter.active, pending: limiter.pending }).toEqual({ active: 2, pending: 1 });
    for (const g of gates) g.open();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3]);
    expect({ active: limiter.active, pending: limiter.pending, peak: limiter.peak }).toEqual({ active: 0, pending: 0, peak: 2 });
  });

  it('frees the slot when a task throws', async () => {
    const limiter = createLimiter(1);
    await expect(limiter.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await limiter.run(async () => 'next')).toBe('next');
  });

  it('drops a waiter whose signal aborts, without running it', async () => {
    const limiter = createLimiter(1);
    const blocker = gate();
    const first = limiter.run(() => blocker.opened);
    const controller = new AbortController();
    let ran = false;
    const waiting = limiter.run(async () => {
      ran = true;
    }, controller.signal);
    expect(limiter.pending).toBe(1);
    controller.abort();
    const error = await waiting.catch((e: unknown) => e);
    expect(CairnError.is(error, 'CANCELLED')).toBe(true);
    expect(limiter.pending).toBe(0);
    blocker.open();
    await first;
    expect(ran).toBe(false);
    expect(limiter.active).toBe(0);
  });

  it('refuses a limit that is not a positive integer', () => {
    expect(() => createLimiter(0)).toThrow(/positive integer/);
    expect(createLimiter().concurrency).toBe(10);
  });
});
