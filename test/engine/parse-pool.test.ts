/**
 * The parse pool with real worker threads running a test parser that speaks the real protocol
 * (test/support/rpc-parse-test.worker.ts): routing, transfer, crashes, cancellation, disposal.
 */
import { spawn } from 'node:child_process';
import { threadId } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CairnError } from '../../shared/errors.js';
import type { ParsedFile, ParseInput } from '../../main/engine/parse/types.js';
import type { ParseRunner } from '../../main/engine/parse/runner.js';
import { memoryLogger } from '../../main/engine/ports/logger.js';
import { createParsePool, type ParsePoolOptions } from '../../main/workers/parse-pool.js';
import { bundleForTest, type TestBundle } from '../support/rpc-bundle.js';

let worker: TestBundle;
let idleChild: TestBundle;
const pools: ParseRunner[] = [];

beforeAll(async () => {
  [worker, idleChild] = await Promise.all([bundleForTest('test/support/rpc-parse-test.worker.ts'), bundleForTest('test/support/rpc-parse-idle-child.ts')]);
});

afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.dispose()));
});

afterAll(async () => {
  await worker?.dispose();
  await idleChild?.dispose();
});

function pool(options: Partial<ParsePoolOptions> = {}): ParseRunner {
  const created = createParsePool({ workerUrl: worker.url, size: 1, ...options });
  pools.push(created);
  return created;
}

function input(relPath: string, text = relPath): ParseInput {
  return { path: `/src/${relPath}`, relPath, bytes: new TextEncoder().encode(text), split: { maxTokens: 1024, minTokens: 512 }, codeSummaryMode: 'ast' };
}

const warning = (parsed: ParsedFile, key: string) => parsed.warnings.find((w) => w.startsWith(`${key}:`))?.slice(key.length + 1);
const content = (parsed: ParsedFile) => (parsed.node.kind === 'file' ? parsed.node.content : null);

describe('parse pool', () => {
  it('parses in a worker thread and transfers the bytes instead of copying them', async () => {
    const runner = pool();
    expect(runner.concurrency).toBe(1);
    const job = input('notes/hello.txt', 'hello, worker');
    const parsed = await runner.parse(job);
    expect(content(parsed)).toBe('hello, worker');
    expect(Number(warning(parsed, 'thread'))).not.toBe(threadId);
    // Transferred: the caller's buffer is detached.
    expect(job.bytes.byteLength).toBe(0);

    // A view into a larger buffer: only a copy of the view moves, the rest stays usable.
    const big = new TextEncoder().encode('0123456789-the-file-0123456789');
    const view = big.subarray(10, 20);
    const fromView = await runner.parse({ ...input('notes/view.txt'), bytes: view });
    expect(content(fromView)).toBe('-the-file-');
    expect(big.byteLength).toBe(30);
  });

  it('routes jobs to idle workers first, so parallel jobs run on different threads', async () => {
    const runner = pool({ size: 2 });
    expect(runner.concurrency).toBe(2);
    const results = await Promise.all([runner.parse(input('slow/200')), runner.parse(input('slow/200'))]);
    const threads = new Set(results.map((r) => warning(r, 'thread')));
    expect(threads.size).toBe(2);

    // Many jobs over two workers: all done, both workers used.
    const many = await Promise.all(Array.from({ length: 10 }, (_, i) => runner.parse(input(`slow/${10 + (i % 3) * 10}`))));
    expect(new Set(many.map((r) => warning(r, 'thread')))).toEqual(threads);
  });

  it('rejects a parser error for that file only, with its code', async () => {
    const runner = pool();
    const error = await runner.parse(input('fail/bad.md')).catch((e: unknown) => e);
    expect(CairnError.is(error, 'PARSE_FAILED')).toBe(true);
    expect((error as CairnError).message).toBe('Cannot parse fail/bad.md');
    expect((error as CairnError).details).toEqual({ relPath: 'fail/bad.md' });
    const next = await runner.parse(input('ok.txt'));
    expect(warning(next, 'parsed')).toBe('2');
  });

  it.each([
    ['exit/now.md', /while parsing exit\/now\.md \(exit code 7\)/],
    ['throw/now.md', /while parsing throw\/now\.md \(the parser blew up\)/],
  ])('fails only the job a crashed worker was running (%s) and replaces the worker', async (relPath, message) => {
    const logger = memoryLogger();
    const runner = pool({ size: 1, perWorker: 2, logger });
    const first = await runner.parse(input('first.txt'));
    const crashed = runner.parse(input(relPath));
    // Sent to the same worker, queued behind the crash.
    const behind = runner.parse(input('behind.txt', 'still here'));

    const error = await crashed.catch((e: unknown) => e);
    expect(CairnError.is(error, 'WORKER_CRASHED')).toBe(true);
    expect((error as CairnError).message).toMatch(message);
    expect((error as CairnError).details).toMatchObject({ relPath, path: `/src/${relPath}` });

    const after = await behind;
    expect(content(after)).toBe('still here');
    expect(warning(after, 'thread')).not.toBe(warning(first, 'thread'));
    expect(warning(after, 'parsed')).toBe('1');
    expect(logger.lines.some((line) => line.level === 'warn' && line.fields?.file === relPath)).toBe(true);
  });

  it('cancels jobs that wait: in the pool and in the worker, without parsing them', async () => {
    const runner = pool({ size: 1, perWorker: 2 });
    await runner.parse(input('warm-up.txt'));
    const inWorker = new AbortController();
    const inPool = new AbortController();
    const running = runner.parse(input('slow/300'));
    const queuedInWorker = runner.parse(input('queued-in-worker.txt'), inWorker.signal);
    const queuedInPool = runner.parse(input('queued-in-pool.txt'), inPool.signal);

    inPool.abort();
    inWorker.abort();
    await expect(queuedInPool).rejects.toMatchObject({ code: 'CANCELLED', message: 'Parsing queued-in-pool.txt was cancelled' });
    await expect(queuedInWorker).rejects.toMatchObject({ code: 'CANCELLED' });
    await running;
    const next = await runner.parse(input('next.txt'));
    // warm-up, slow/300, next: the two cancelled jobs never ran.
    expect(warning(next, 'parsed')).toBe('3');

    const already = new AbortController();
    already.abort();
    await expect(runner.parse(input('never.txt'), already.signal)).rejects.toMatchObject({ code: 'CANCELLED' });
  });

  it('rejects what is pending on dispose and waits for the workers to end', async () => {
    const runner = createParsePool({ workerUrl: worker.url, size: 1 });
    await runner.parse(input('warm-up.txt'));
    const long = runner.parse(input('slow/10000')).catch((e: unknown) => e);
    const waiting = runner.parse(input('waiting.txt')).catch((e: unknown) => e);
    const started = performance.now();
    await runner.dispose();
    expect(performance.now() - started).toBeLessThan(5000);
    expect(await long).toMatchObject({ code: 'CANCELLED' });
    expect(await waiting).toMatchObject({ code: 'CANCELLED' });
    await expect(runner.parse(input('late.txt'))).rejects.toMatchObject({ code: 'CANCELLED' });
  });

  it('gives up with WORKER_CRASHED when workers cannot start', async () => {
    const logger = memoryLogger();
    const runner = pool({ workerUrl: pathToFileURL(join(worker.file, '..', 'no-such-worker.mjs')), size: 2, logger });
    const error = await runner.parse(input('a.txt')).catch((e: unknown) => e);
    expect(CairnError.is(error, 'WORKER_CRASHED')).toBe(true);
    expect((error as CairnError).message).toMatch(/stop before they are ready/);
    expect(logger.lines.filter((line) => line.message.includes('before it was ready'))).toHaveLength(3);
    await expect(runner.parse(input('b.txt'))).rejects.toMatchObject({ code: 'WORKER_CRASHED' });
  });

  it('does not keep a process alive once its workers are idle', async () => {
    const child = spawn(process.execPath, [idleChild.file, worker.url.href], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    clearTimeout(timer);
    expect(stderr).toBe('');
    expect(stdout).toBe('parsed idle\n');
    expect(code).toBe(0);
  });

  it('lets a worker idle for idleExitMs go, quietly, and starts a new one for the next file', async () => {
    const logger = memoryLogger();
    const runner = pool({ idleExitMs: 100, logger });
    const first = warning(await runner.parse(input('a.txt')), 'thread');
    // Busy back to back: the same worker keeps every job.
    const busy = [];
    for (let i = 0; i < 3; i++) busy.push(warning(await runner.parse(input(`b${i}.txt`)), 'thread'));
    expect(new Set(busy)).toEqual(new Set([first]));
    // Idle past idleExitMs: that worker (its tokenizer, grammars and heap) is gone, a new one parses.
    await new Promise((resolve) => setTimeout(resolve, 400));
    const later = await runner.parse(input('c.txt', 'after a pause'));
    expect(content(later)).toBe('after a pause');
    expect(warning(later, 'thread')).not.toBe(first);
    // Its exit was asked for: no crash is reported.
    expect(logger.lines.filter((e) => e.level === 'warn' || e.level === 'error')).toEqual([]);
  });
});
