import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { appendFile, copyFile, mkdir, mkdtemp, readFile, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CairnError } from '../../../shared/errors.js';
import { memoryLogger } from '../ports/logger.js';
import { declareDeadThreads } from './lock-file.js';
import { Outbox, type OutboxChange } from './outbox.js';

let root: string;
const opened: Outbox[] = [];

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'cairn-outbox-'));
});

afterEach(async () => {
  for (const outbox of opened.splice(0)) await outbox.close();
  await rm(root, { recursive: true, force: true });
});

/** A clock that moves one second per reading, so timestamps order the way the calls do. */
function steppingClock() {
  let tick = 0;
  return { now: () => new Date(Date.UTC(2024, 4, 8, 13, 56, 0) + tick++ * 1000) };
}

async function openAt(dir: string, options: Parameters<typeof Outbox.open>[1] = {}): Promise<Outbox> {
  const outbox = await Outbox.open(dir, { clock: steppingClock(), ...options });
  opened.push(outbox);
  return outbox;
}

async function closeIt(outbox: Outbox): Promise<void> {
  opened.splice(opened.indexOf(outbox), 1);
  await outbox.close();
}

/** The pid of a process that has exited (and been reaped). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  return child.pid!;
}

/** Copies the files of a live outbox as a crash would leave them, with the lock of a dead process. */
async function crashImage(from: string, to: string): Promise<void> {
  await mkdir(to, { recursive: true });
  for (const name of await readdir(from)) {
    if (name === 'outbox.lock') continue;
    await copyFile(join(from, name), join(to, name));
  }
  await writeFile(join(to, 'outbox.lock'), JSON.stringify({ pid: deadPid(), hostname: hostname(), token: 'dead', acquired_at: '2024-05-08T00:00:00Z' }));
}

const uri = (name: string) => `ctx://resources/${name}/`;

describe('Outbox', () => {
  it('keeps messages and their states across a reopen', async () => {
    const dir = join(root, 'queue');
    const outbox = await openAt(dir);
    const a = await outbox.enqueue({ uri: uri('a'), context_type: 'resource' });
    const b = await outbox.enqueue({ uri: uri('b'), context_type: 'memory' });
    const c = await outbox.enqueue({ uri: uri('c'), context_type: 'skill' });
    expect(a).toMatchObject({ uri: uri('a'), context_type: 'resource', status: 'pending', attempts: 0 });

    const claimed = await outbox.claim();
    expect(claimed).toMatchObject({ id: a.id, status: 'processing', attempts: 1 });
    await outbox.complete(a.id);
    const claimedB = await outbox.claim();
    expect(claimedB?.id).toBe(b.id);
    await outbox.fail(b.id, new CairnError('LLM_REQUEST_FAILED', 'the server said 502'));
    await closeIt(outbox);

    const again = await openAt(dir);
    expect(again.list().map((m) => [m.id, m.status])).toEqual([
      [a.id, 'completed'],
      [b.id, 'failed'],
      [c.id, 'pending'],
    ]);
    expect(again.get(b.id)?.error).toEqual({ code: 'LLM_REQUEST_FAILED', message: 'the server said 502' });
    expect(again.counts()).toEqual({ pending: 1, processing: 0, completed: 1, failed: 1, total: 3 });
    expect(again.list({ status: ['failed', 'pending'] }).map((m) => m.id)).toEqual([b.id, c.id]);
    expect(again.list({ context_type: 'skill' }).map((m) => m.id)).toEqual([c.id]);

    const retried = await again.retry(b.id);
    expect(retried.status).toBe('pending');
    expect(retried.error).toBeUndefined();
    // Retried messages go to the back of the line.
    expect((await again.claim())?.id).toBe(c.id);
    expect((await again.claim())?.id).toBe(b.id);
    expect(await again.claim()).toBeNull();
  });

  it('enqueues a URI once while it is unfinished, and again once it completed', async () => {
    const outbox = await openAt(join(root, 'queue'));
    const [first, second, third] = await Promise.all([
      outbox.enqueue({ uri: uri('docs'), context_type: 'resource' }),
      outbox.enqueue({ uri: 'CTX://resources/docs/', context_type: 'resource' }),
      outbox.enqueue({ uri: 'ctx://resources/./docs/', context_type: 'resource' }),
    ]);
    expect(second.id).toBe(first.id);
    expect(third.id).toBe(first.id);
    expect(outbox.counts().total).toBe(1);

    await outbox.claim();
    expect((await outbox.enqueue({ uri: uri('docs'), context_type: 'resource' })).id).toBe(first.id);
    await outbox.fail(first.id, new Error('boom'));
    const revived = await outbox.enqueue({ uri: uri('docs'), context_type: 'resource' });
    expect(revived).toMatchObject({ id: first.id, status: 'pending', attempts: 1 });

    await outbox.claim();
    await outbox.complete(first.id);
    const fresh = await outbox.enqueue({ uri: uri('docs'), context_type: 'resource' });
    expect(fresh.id).not.toBe(first.id);
    expect(outbox.list({ uri: uri('docs') }).map((m) => m.status)).toEqual(['completed', 'pending']);
  });

  it('never hands the same message to two concurrent claims', async () => {
    const outbox = await openAt(join(root, 'queue'));
    for (let i = 0; i < 5; i += 1) await outbox.enqueue({ uri: uri(`n${i}`), context_type: 'resource' });
    const claims = await Promise.all(Array.from({ length: 10 }, () => outbox.claim()));
    const ids = claims.filter((m) => m !== null).map((m) => m.id);
    expect(ids).toHaveLength(5);
    expect(new Set(ids).size).toBe(5);
    expect(claims.filter((m) => m === null)).toHaveLength(5);
  });

  it('claims the next pending message that passes a filter', async () => {
    const outbox = await openAt(join(root, 'queue'));
    await outbox.enqueue({ uri: uri('a'), context_type: 'resource' });
    const b = await outbox.enqueue({ uri: uri('b'), context_type: 'memory' });
    expect(await outbox.claim((m) => m.uri === uri('nothing'))).toBeNull();
    expect(await outbox.claim((m) => m.context_type === 'memory')).toMatchObject({ id: b.id, status: 'processing' });
    expect((await outbox.claim())?.uri).toBe(uri('a'));
  });

  it('refuses transitions that do not apply, with stable codes', async () => {
    const outbox = await openAt(join(root, 'queue'));
    const message = await outbox.enqueue({ uri: uri('a'), context_type: 'resource' });
    await expect(outbox.complete(message.id)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(outbox.retry(message.id)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(outbox.release(message.id)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(outbox.complete('no-such-id')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(outbox.enqueue({ uri: 'ctx://resources/../etc/', context_type: 'resource' })).rejects.toMatchObject({ code: 'PATH_ESCAPE' });
    await expect(outbox.enqueue({ uri: 'file:///etc/', context_type: 'resource' })).rejects.toMatchObject({ code: 'INVALID_URI' });
    await expect(outbox.enqueue({ uri: uri('b'), context_type: 'bogus' as never })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(outbox.get(message.id)?.status).toBe('pending');
  });

  it('writes transitions that arrive together with fewer fsyncs', async () => {
    const outbox = await openAt(join(root, 'queue'));
    await Promise.all(Array.from({ length: 200 }, (_, i) => outbox.enqueue({ uri: uri(`f${i}`), context_type: 'resource' })));
    const stats = outbox.stats();
    expect(stats.lines).toBe(200);
    expect(stats.syncs).toBeLessThan(50);
  });

  it('tells listeners about each transition once it is in the journal, until they unsubscribe', async () => {
    const dir = join(root, 'queue');
    const outbox = await openAt(dir);
    const seen: { op: string; status: string; inJournal: boolean }[] = [];
    const unsubscribe = outbox.onChange((change: OutboxChange) => {
      const journal = readFileSync(join(dir, 'journal.jsonl'), 'utf8');
      const line = JSON.stringify({ op: change.op, msg: change.message }).slice(1);
      seen.push({ op: change.op, status: change.message.status, inJournal: journal.includes(line) });
    });
    const message = await outbox.enqueue({ uri: uri('a'), context_type: 'resource' });
    await outbox.claim();
    await outbox.complete(message.id);
    unsubscribe();
    await outbox.enqueue({ uri: uri('b'), context_type: 'resource' });
    expect(seen).toEqual([
      { op: 'enqueue', status: 'pending', inJournal: true },
      { op: 'claim', status: 'processing', inJournal: true },
      { op: 'complete', status: 'completed', inJournal: true },
    ]);
  });

  it("writes a listener's enqueue made as the last change is written (it resumes after the flush looked at its queue)", async () => {
    const outbox = await openAt(join(root, 'queue'));
    const message = await outbox.enqueue({ uri: uri('a'), context_type: 'resource' });
    await outbox.claim();
    let again: Promise<unknown> | null = null;
    const off = outbox.onChange((change) => {
      if (change.op === 'complete') again = outbox.enqueue({ uri: uri('a'), context_type: 'resource' });
    });
    await outbox.complete(message.id);
    off();
    const settled = await Promise.race([again, new Promise((resolve) => setTimeout(() => resolve('stuck'), 2_000))]);
    expect(settled).toMatchObject({ uri: uri('a'), status: 'pending' });
    await outbox.close();
  });

  it('recovers from a crash image: interrupted work goes back to pending, a torn last line is ignored', async () => {
    const dir = join(root, 'queue');
    const outbox = await openAt(dir, { compactEvery: 10_000 });
    const done = await outbox.enqueue({ uri: uri('done'), context_type: 'resource' });
    const busy = await outbox.enqueue({ uri: uri('busy'), context_type: 'resource' });
    const waiting = await outbox.enqueue({ uri: uri('waiting'), context_type: 'resource' });
    await outbox.claim();
    await outbox.complete(done.id);
    await outbox.claim();

    const image = join(root, 'image');
    await crashImage(dir, image);
    // A kill in the middle of writing the next transition.
    await appendFile(join(image, 'journal.jsonl'), JSON.stringify({ n: 99, op: 'complete', msg: { ...busy, status: 'completed' } }).slice(0, 40));

    const logger = memoryLogger();
    const recovered = await openAt(image, { logger });
    expect(recovered.get(done.id)?.status).toBe('completed');
    expect(recovered.get(busy.id)).toMatchObject({ status: 'pending', attempts: 1 });
    expect(recovered.get(waiting.id)?.status).toBe('pending');
    expect(logger.lines.some((line) => line.message.includes('torn last line'))).toBe(true);
    // The interrupted message runs first again, and the journal takes new lines cleanly after the torn one.
    const next = await recovered.claim();
    expect(next).toMatchObject({ id: busy.id, attempts: 2 });
    await recovered.complete(busy.id);
    await closeIt(recovered);

    const reopened = await openAt(image);
    expect(reopened.list().map((m) => [m.id, m.status])).toEqual([
      [done.id, 'completed'],
      [busy.id, 'completed'],
      [waiting.id, 'pending'],
    ]);
  });

  it('fails a message for good once processing it was interrupted maxAttempts times', async () => {
    const dir = join(root, 'queue');
    const outbox = await openAt(dir, { maxAttempts: 2 });
    const poison = await outbox.enqueue({ uri: uri('poison'), context_type: 'resource' });
    await outbox.claim();

    const first = join(root, 'first');
    await crashImage(dir, first);
    const once = await openAt(first, { maxAttempts: 2 });
    expect(once.get(poison.id)).toMatchObject({ status: 'pending', attempts: 1 });
    await once.claim();

    const second = join(root, 'second');
    await crashImage(first, second);
    const twice = await openAt(second, { maxAttempts: 2 });
    expect(twice.get(poison.id)).toMatchObject({ status: 'failed', attempts: 2 });
    expect(twice.get(poison.id)?.error?.message).toMatch(/Abandoned after 2 attempts/);
    expect(await twice.claim()).toBeNull();
  });

  it('compacts as the journal grows and reopens to the same state', async () => {
    const dir = join(root, 'queue');
    const outbox = await openAt(dir, { compactEvery: 10 });
    for (let i = 0; i < 12; i += 1) await outbox.enqueue({ uri: uri(`c${i}`), context_type: 'resource' });
    for (let i = 0; i < 6; i += 1) {
      const message = await outbox.claim();
      await outbox.complete(message!.id);
    }
    expect(outbox.stats().compactions).toBeGreaterThanOrEqual(3);
    const journal = await readFile(join(dir, 'journal.jsonl'), 'utf8');
    expect(journal.split('\n').filter(Boolean).length).toBeLessThan(10);
    const before = outbox.list();
    await closeIt(outbox);
    const again = await openAt(dir);
    expect(again.list()).toEqual(before);
  });

  it('replays nothing twice after a crash between the snapshot rename and the journal truncation', async () => {
    const dir = join(root, 'queue');
    const outbox = await openAt(dir, { compactEvery: 10_000, keepCompleted: 0 });
    const a = await outbox.enqueue({ uri: uri('a'), context_type: 'resource' });
    const b = await outbox.enqueue({ uri: uri('b'), context_type: 'resource' });
    await outbox.claim();
    const oldJournal = await readFile(join(dir, 'journal.jsonl'), 'utf8');
    await outbox.complete(a.id);
    await outbox.claim();
    await outbox.fail(b.id, new Error('nope'));
    // close() compacts: snapshot renamed into place, journal truncated. Putting the old lines back
    // gives exactly what a crash after the rename and before the truncation leaves.
    await closeIt(outbox);
    await writeFile(join(dir, 'journal.jsonl'), oldJournal);

    const again = await openAt(dir);
    // `a` was dropped by keepCompleted: 0; replaying its old lines would bring it back as processing.
    expect(again.get(a.id)).toBeUndefined();
    expect(again.get(b.id)).toMatchObject({ status: 'failed', attempts: 1 });
    expect(again.counts().total).toBe(1);
  });

  it('keeps only the most recent completed messages at compaction', async () => {
    const dir = join(root, 'queue');
    const outbox = await openAt(dir, { keepCompleted: 2 });
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const message = await outbox.enqueue({ uri: uri(`k${i}`), context_type: 'resource' });
      ids.push(message.id);
      await outbox.claim();
      await outbox.complete(message.id);
    }
    const open = await outbox.enqueue({ uri: uri('open'), context_type: 'resource' });
    await closeIt(outbox);
    const again = await openAt(dir);
    expect(again.list().map((m) => m.id)).toEqual([ids[3], ids[4], open.id]);
  });

  it('refuses a damaged snapshot instead of starting empty', async () => {
    const dir = join(root, 'queue');
    const outbox = await openAt(dir);
    await outbox.enqueue({ uri: uri('a'), context_type: 'resource' });
    await closeIt(outbox);
    await writeFile(join(dir, 'snapshot.json'), '{"version":1,"n":3,"messages":[{"id":');
    await expect(Outbox.open(dir)).rejects.toMatchObject({ code: 'IO_ERROR' });
    // The failed open released its lock.
    await expect(readdir(dir)).resolves.not.toContain('outbox.lock');
  });
});

describe('Outbox lock', () => {
  it('lets one owner at a time open the outbox, and frees it on close', async () => {
    const dir = join(root, 'queue');
    const outbox = await openAt(dir);
    const error = await Outbox.open(dir).catch((e: unknown) => e);
    expect(CairnError.is(error, 'LOCKED')).toBe(true);
    expect((error as CairnError).details).toMatchObject({ pid: process.pid });
    await closeIt(outbox);
    expect(await readdir(dir)).not.toContain('outbox.lock');
    const again = await openAt(dir);
    expect(again.counts().total).toBe(0);
  });

  it('breaks the lock of a process that died', async () => {
    const dir = join(root, 'queue');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'outbox.lock'), JSON.stringify({ pid: deadPid(), hostname: hostname(), token: 'old', acquired_at: '2024-05-08T00:00:00Z' }));
    const outbox = await openAt(dir);
    const lock = JSON.parse(await readFile(join(dir, 'outbox.lock'), 'utf8')) as { pid: number };
    expect(lock.pid).toBe(process.pid);
    expect(outbox.counts().total).toBe(0);
  });

  it('breaks the lock of a crashed thread of this process once the host declares it dead', async () => {
    const dir = join(root, 'queue');
    await mkdir(dir, { recursive: true });
    // What an engine worker that crashed leaves: its lock, stamped with this live pid and its thread.
    await writeFile(join(dir, 'outbox.lock'), JSON.stringify({ pid: process.pid, hostname: hostname(), thread: 7, token: 'crashed', acquired_at: '2024-05-08T00:00:00Z' }));
    await expect(Outbox.open(dir)).rejects.toMatchObject({ code: 'LOCKED', details: { pid: process.pid } });
    declareDeadThreads([7]);
    const outbox = await openAt(dir);
    const lock = JSON.parse(await readFile(join(dir, 'outbox.lock'), 'utf8')) as { pid: number; thread: number; token: string };
    expect(lock).toMatchObject({ pid: process.pid, thread: threadId });
    expect(lock.token).not.toBe('crashed');
    expect(outbox.counts().total).toBe(0);
  });

  it('refuses while another live process holds the lock, and opens once it is gone', async () => {
    const dir = join(root, 'queue');
    await mkdir(dir, { recursive: true });
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      await writeFile(join(dir, 'outbox.lock'), JSON.stringify({ pid: other.pid, hostname: hostname(), token: 'other', acquired_at: '2024-05-08T00:00:00Z' }));
      await expect(Outbox.open(dir)).rejects.toMatchObject({ code: 'LOCKED', details: { pid: other.pid } });
    } finally {
      const exited = new Promise((resolve) => other.once('exit', resolve));
      other.kill('SIGKILL');
      await exited;
    }
    const outbox = await openAt(dir);
    expect(outbox.counts().total).toBe(0);
  });

  it('clears old leftovers of interrupted lock-taking, and leaves young ones alone', async () => {
    const dir = join(root, 'queue');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'outbox.lock.old.tmp'), '{}');
    await utimes(join(dir, 'outbox.lock.old.tmp'), new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));
    await writeFile(join(dir, 'outbox.lock.young.tmp'), '{}');
    await openAt(dir);
    const names = await readdir(dir);
    expect(names).not.toContain('outbox.lock.old.tmp');
    expect(names).toContain('outbox.lock.young.tmp');
  });

  it('breaks a lock file it cannot read (we only ever write whole ones)', async () => {
    const dir = join(root, 'queue');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'outbox.lock'), '');
    const outbox = await openAt(dir);
    expect(outbox.counts().total).toBe(0);
  });
});

describe('Outbox shared by processes (releaseWhenIdleMs)', () => {
  const shared = { releaseWhenIdleMs: 50, wait: { timeoutMs: 5_000 } };

  it('lets the lock go when idle, and takes it again with what the other owner did meanwhile', async () => {
    const dir = join(root, 'queue');
    const a = await openAt(dir, shared);
    const first = await a.enqueue({ uri: uri('a'), context_type: 'resource' });
    // b waits until a is idle, then sees a's message.
    const b = await openAt(dir, shared);
    expect(b.list().map((m) => m.id)).toEqual([first.id]);
    const second = await b.enqueue({ uri: uri('b'), context_type: 'resource' });
    // a's next change waits for b to be idle and reloads: b's message is there, a's is not doubled.
    const claimed = await a.claim();
    expect(claimed?.id).toBe(first.id);
    expect(a.list().map((m) => m.uri)).toEqual([uri('a'), uri('b')]);
    expect(a.get(second.id)?.status).toBe('pending');
    // A message in processing keeps the lock: b cannot take it until a completes.
    const refused = await Outbox.open(dir, { wait: { timeoutMs: 200 } }).catch((e: unknown) => e);
    expect(CairnError.is(refused, 'LOCKED')).toBe(true);
    await a.complete(first.id);
    const c = await openAt(dir, shared);
    expect(c.list().map((m) => [m.uri, m.status])).toEqual([
      [uri('a'), 'completed'],
      [uri('b'), 'pending'],
    ]);
  });

  it('keeps the lock while held, and names what holds it', async () => {
    const dir = join(root, 'queue');
    const a = await openAt(dir, shared);
    const letGo = await a.hold('the ingest of /data/notes');
    await new Promise((r) => setTimeout(r, 150));
    const refused = await Outbox.open(dir).catch((e: unknown) => e);
    expect(CairnError.is(refused, 'LOCKED')).toBe(true);
    expect((refused as Error).message).toContain('the ingest of /data/notes');
    letGo();
    const b = await openAt(dir, shared);
    expect(b.counts().total).toBe(0);
  });
});
