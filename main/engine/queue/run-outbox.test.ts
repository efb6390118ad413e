import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CairnError } from '../../../shared/errors.js';
import { Outbox } from './outbox.js';
import { runOutbox } from './run-outbox.js';

let root: string;
let outbox: Outbox;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'cairn-run-outbox-'));
  outbox = await Outbox.open(join(root, 'queue'));
});

afterEach(async () => {
  await outbox.close();
  await rm(root, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function enqueueMany(count: number, prefix = 'm'): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) ids.push((await outbox.enqueue({ uri: `ctx://resources/${prefix}${i}/`, context_type: 'resource' })).id);
  return ids;
}

describe('runOutbox', () => {
  it('drains every message with at most `concurrency` handlers at once', async () => {
    await enqueueMany(12);
    let running = 0;
    let peak = 0;
    const handled: string[] = [];
    const result = await runOutbox(
      outbox,
      async (message) => {
        running += 1;
        peak = Math.max(peak, running);
        await sleep(5);
        handled.push(message.uri);
        running -= 1;
      },
      { concurrency: 3 },
    );
    expect(result).toEqual({ completed: 12, failed: 0, released: 0 });
    expect(peak).toBe(3);
    expect(new Set(handled).size).toBe(12);
    expect(outbox.counts()).toMatchObject({ completed: 12, pending: 0, processing: 0 });
  });

  it('fails the messages whose handler throws and completes the others', async () => {
    const ids = await enqueueMany(4);
    const result = await runOutbox(outbox, async (message) => {
      if (message.uri.endsWith('m2/')) throw new CairnError('LLM_RATE_LIMITED', 'slow down');
    });
    expect(result).toEqual({ completed: 3, failed: 1, released: 0 });
    expect(outbox.get(ids[2]!)).toMatchObject({ status: 'failed', error: { code: 'LLM_RATE_LIMITED', message: 'slow down' } });
  });

  it('stops on abort: handlers see the signal, interrupted messages go back to pending, finished ones stay done', async () => {
    await enqueueMany(10);
    const controller = new AbortController();
    let started = 0;
    const result = await runOutbox(
      outbox,
      async (_message, { signal }) => {
        started += 1;
        if (started === 4) controller.abort();
        if (started >= 3) {
          // Work that honours cancellation.
          await new Promise((_resolve, reject) => {
            if (signal.aborted) reject(signal.reason);
            signal.addEventListener('abort', () => reject(signal.reason), { once: true });
          });
        }
      },
      { concurrency: 2, signal: controller.signal },
    );
    expect(result.completed).toBe(2);
    expect(result.released).toBe(2);
    expect(result.failed).toBe(0);
    expect(outbox.counts()).toMatchObject({ completed: 2, processing: 0, pending: 8, failed: 0 });

    // A second run picks up exactly what is left.
    const second = await runOutbox(outbox, async () => undefined, { concurrency: 2 });
    expect(second.completed).toBe(8);
    expect(outbox.counts()).toMatchObject({ completed: 10, pending: 0 });
  });

  it('takes only the messages its filter passes, asked at each claim, and reports each outcome once it is durable', async () => {
    const ids = await enqueueMany(5);
    const skipped = new Set(['ctx://resources/m1/', 'ctx://resources/m3/']);
    const seen: string[] = [];
    const result = await runOutbox(
      outbox,
      async (message) => {
        // A filter that changes during the run: m3 is let in once m2 ran.
        if (message.uri === 'ctx://resources/m2/') skipped.delete('ctx://resources/m3/');
        if (message.uri === 'ctx://resources/m4/') throw new Error('disk full');
        return message.uri.toUpperCase();
      },
      {
        filter: (message) => !skipped.has(message.uri),
        onCompleted: (message, value) => seen.push(`${outbox.get(message.id)!.status} ${value}`),
        onFailed: (message, error) => seen.push(`${outbox.get(message.id)!.status} ${error.code}: ${error.message}`),
      },
    );
    expect(result).toEqual({ completed: 3, failed: 1, released: 0 });
    expect(seen).toEqual(['completed CTX://RESOURCES/M0/', 'completed CTX://RESOURCES/M2/', 'completed CTX://RESOURCES/M3/', 'failed INTERNAL: disk full']);
    expect(outbox.get(ids[1]!)).toMatchObject({ status: 'pending', attempts: 0 });
    expect(outbox.get(ids[4]!)).toMatchObject({ status: 'failed', error: { code: 'INTERNAL', message: 'disk full' } });
  });

  it('keeps waiting for new messages in follow mode until aborted', async () => {
    const controller = new AbortController();
    const handled: string[] = [];
    const run = runOutbox(
      outbox,
      async (message) => {
        handled.push(message.uri);
      },
      { concurrency: 2, signal: controller.signal, follow: true },
    );
    await sleep(20);
    await enqueueMany(3, 'late');
    for (let i = 0; i < 100 && handled.length < 3; i += 1) await sleep(10);
    expect(handled.sort()).toEqual(['ctx://resources/late0/', 'ctx://resources/late1/', 'ctx://resources/late2/']);
    controller.abort();
    await expect(run).resolves.toEqual({ completed: 3, failed: 0, released: 0 });
  });

  it('rejects when the outbox itself fails, after the other lanes stop', async () => {
    await enqueueMany(3);
    const run = runOutbox(
      outbox,
      async () => {
        await sleep(10);
      },
      { concurrency: 2 },
    );
    // Closing under a running consumer: its next transition cannot be recorded.
    await sleep(2);
    const closing = outbox.close();
    await expect(run).rejects.toBeInstanceOf(CairnError);
    await closing;
    outbox = await Outbox.open(join(root, 'queue'));
    expect(outbox.counts().total).toBe(3);
  });
});
