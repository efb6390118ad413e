import { describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { CairnError } from '../../../shared/errors.js';
import { TaskPool } from './task-pool.js';

const cancelled = () => new CairnError('CANCELLED', 'cancelled');

describe('TaskPool', () => {
  it('runs tasks that add tasks, never more than the limit at once', async () => {
    const pool = new TaskPool(3, undefined, cancelled);
    let running = 0;
    let peak = 0;
    let done = 0;
    const task = (depth: number) => async () => {
      running++;
      peak = Math.max(peak, running);
      await sleep(1);
      running--;
      done++;
      if (depth < 4) for (let i = 0; i < 3; i++) pool.run(task(depth + 1));
    };
    pool.run(task(0));
    await pool.idle();
    expect(done).toBe(1 + 3 + 9 + 27 + 81);
    expect(peak).toBe(3);
  });

  it('rejects with the first failure once the running tasks have settled', async () => {
    const pool = new TaskPool(2, undefined, cancelled);
    let settled = 0;
    pool.run(async () => {
      throw new Error('boom');
    });
    pool.run(async () => {
      await sleep(20);
      settled++;
    });
    await expect(pool.idle()).rejects.toThrow('boom');
    expect(settled).toBe(1);
  });

  it('stops on abort and rejects with the cancellation error', async () => {
    const controller = new AbortController();
    const pool = new TaskPool(1, controller.signal, cancelled);
    let ran = 0;
    for (let i = 0; i < 10; i++) {
      pool.run(async () => {
        ran++;
        if (ran === 2) controller.abort();
        await sleep(1);
      });
    }
    const error = await pool.idle().catch((e: unknown) => e);
    expect(CairnError.is(error, 'CANCELLED')).toBe(true);
    expect(ran).toBe(2);
    pool.dispose();
  });
});
