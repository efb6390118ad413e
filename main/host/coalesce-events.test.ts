import { describe, expect, it } from 'vitest';
import { coalesceEvents } from './coalesce-events.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('coalesceEvents', () => {
  it('flushes at most once per interval, keeping every event in order', async () => {
    const flushes: { at: number; events: number[] }[] = [];
    const coalescer = coalesceEvents<number>((events) => flushes.push({ at: performance.now(), events }), { intervalMs: 100 });
    const started = performance.now();
    let next = 0;
    while (performance.now() - started < 550) {
      coalescer.push(next++);
      await sleep(3);
    }
    coalescer.dispose();

    expect(flushes.flatMap((flush) => flush.events)).toEqual(Array.from({ length: next }, (_, i) => i));
    // 550 ms of events: about 6 flushes, never two within 100 ms of each other (dispose excepted).
    const timed = flushes.slice(0, -1);
    for (let i = 1; i < timed.length; i += 1) expect(timed[i]!.at - timed[i - 1]!.at).toBeGreaterThanOrEqual(99.5);
    expect(flushes.length).toBeGreaterThanOrEqual(4);
    expect(flushes.length).toBeLessThanOrEqual(8);
  });

  it('sends the first event after a quiet spell without waiting, batching the same tick', async () => {
    const flushes: string[][] = [];
    const coalescer = coalesceEvents<string>((events) => flushes.push(events), { intervalMs: 100 });
    coalescer.push('a');
    coalescer.push('b');
    await sleep(20);
    expect(flushes).toEqual([['a', 'b']]);
    coalescer.push('c');
    await sleep(20);
    // Within the interval: held back.
    expect(flushes).toEqual([['a', 'b']]);
    await sleep(120);
    expect(flushes).toEqual([['a', 'b'], ['c']]);
    coalescer.dispose();
  });

  it('delivers what is buffered on dispose and drops later events', async () => {
    const flushes: number[][] = [];
    const coalescer = coalesceEvents<number>((events) => flushes.push(events), { intervalMs: 1000 });
    coalescer.push(1);
    await sleep(10);
    coalescer.push(2);
    coalescer.push(3);
    coalescer.dispose();
    coalescer.push(4);
    await sleep(20);
    expect(flushes).toEqual([[1], [2, 3]]);
  });
});
