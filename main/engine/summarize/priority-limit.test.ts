import { describe, expect, it } from 'vitest';
import { priorityLimit } from './priority-limit.js';

/** A task the test finishes by hand. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe('priorityLimit', () => {
  it('runs at most `concurrency` tasks; waiters start highest priority first, first come first served among equals', async () => {
    const limit = priorityLimit(2);
    const started: string[] = [];
    const gates = new Map<string, ReturnType<typeof gate>>();
    const task = (name: string, priority: number) => {
      const g = gate();
      gates.set(name, g);
      return limit(priority, async () => {
        started.push(name);
        await g.opened;
        return name;
      });
    };
    const runs = [task('a', 0), task('b', 0), task('low', 1), task('high', 5), task('mid-1', 3), task('mid-2', 3)];
    await Promise.resolve();
    expect(started).toEqual(['a', 'b']);
    for (const name of ['a', 'b', 'high', 'mid-1', 'mid-2', 'low']) {
      gates.get(name)!.open();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(started).toEqual(['a', 'b', 'high', 'mid-1', 'mid-2', 'low']);
    expect(await Promise.all(runs)).toEqual(['a', 'b', 'low', 'high', 'mid-1', 'mid-2']);
  });

  it('frees the slot when a task throws', async () => {
    const limit = priorityLimit(1);
    await expect(limit(0, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await limit(0, async () => 'next')).toBe('next');
  });

  it('refuses a concurrency that is not a positive integer', () => {
    expect(() => priorityLimit(0)).toThrow(RangeError);
  });
});
