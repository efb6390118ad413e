/**
 * An exclusive lock file stamped with its owner's pid, so that only one process at a time owns a
 * workspace's outbox. A lock left by a process that died (kill -9, power cut) is broken by the
 * next owner; a lock held by a live process is refused with `LOCKED`. The stamp also names the
 * owner's thread: an engine worker that crashed leaves its locks behind in a live process, and
 * the host that starts its replacement declares that thread dead (`declareDeadThreads`).
 *
 * The lock is written whole to a temp file and linked into place, so a reader never sees a
 * half-written lock: `link` fails when the name exists, which is what makes taking it atomic.
 */
import { link, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { threadId } from 'node:worker_threads';
import { CairnError } from '../../../shared/errors.js';

interface LockOwner {
  pid: number;
  hostname: string;
  /** What the owner is, as `ps` names it (the CLI titles itself `cairn <command>`), so a refusal can say what to wait for. */
  title?: string;
  /** The owning thread of the process (absent in locks written before threads were stamped). */
  thread?: number;
  /** Tells this acquisition apart from any other by the same pid (pids are reused). */
  token: string;
  acquired_at: string;
}

/**
 * A held lock; `release()` removes it when it is still ours.
 *
 * @example
 * const lock = await LockFile.acquire('/ws/.cairn/queue/outbox.lock', 'the outbox of /ws');
 * try { ... } finally { await lock.release(); }
 */
export class LockFile {
  private released = false;

  private constructor(
    readonly path: string,
    private readonly token: string,
  ) {}

  /** Takes the lock or throws `LOCKED` naming the live owner. `what` names the resource in messages. */
  static async acquire(path: string, what: string): Promise<LockFile> {
    // A few rounds cover the races: the owner released between our try and our read, or another
    // process broke the same stale lock first.
    for (let round = 0; round < 5; round += 1) {
      const owner: LockOwner = { pid: process.pid, hostname: hostname(), thread: threadId, title: process.title, token: randomUUID(), acquired_at: new Date().toISOString() };
      if (await tryCreate(path, JSON.stringify(owner))) return new LockFile(path, owner.token);

      const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return null;
        throw ioError(path, error);
      });
      if (text === null) continue;
      const current = parseOwner(text);
      if (current && isOwnerAlive(current)) {
        const holder = `${current.title ?? 'another process'} (pid ${current.pid} on ${current.hostname})`;
        throw new CairnError('LOCKED', `${what} is busy: ${holder} has held it since ${current.acquired_at} (lock file ${path})`, {
          details: { path, pid: current.pid, hostname: current.hostname, since: current.acquired_at, ...(current.title ? { holder: current.title } : {}) },
        });
      }
      // Dead owner, or a lock we cannot read (we only ever link complete files, so that is damage):
      // break it and try again.
      await breakStale(path, text);
    }
    throw new CairnError('LOCKED', `${what} could not be locked: other processes keep taking ${path}`, { details: { path } });
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    const text = await readFile(this.path, 'utf8').catch(() => null);
    // Someone broke our lock (they judged us dead): theirs is not ours to remove.
    if (text === null || parseOwner(text)?.token !== this.token) return;
    await rm(this.path, { force: true });
  }
}

async function tryCreate(path: string, content: string): Promise<boolean> {
  const temp = `${path}.${randomUUID()}.tmp`;
  await writeFile(temp, content, { flag: 'wx' }).catch((error: unknown) => {
    throw ioError(path, error);
  });
  try {
    await link(temp, path);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    // File systems without hard links (some network and FAT mounts): exclusive create instead.
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP' || code === 'ENOSYS') {
      try {
        await writeFile(path, content, { flag: 'wx' });
        return true;
      } catch (inner) {
        if ((inner as NodeJS.ErrnoException).code === 'EEXIST') return false;
        throw ioError(path, inner);
      }
    }
    throw ioError(path, error);
  } finally {
    await rm(temp, { force: true });
  }
}

/**
 * Moves a stale lock aside and checks that what moved is the stale lock we judged: when another
 * process broke it first and took the lock, we moved its fresh lock, and put it back.
 */
async function breakStale(path: string, staleText: string): Promise<void> {
  const aside = `${path}.stale-${randomUUID()}`;
  try {
    await rename(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw ioError(path, error);
  }
  const moved = await readFile(aside, 'utf8').catch(() => null);
  if (moved !== null && moved !== staleText) {
    // If a third process took the name in the instant between, its lock stands and the moved
    // owner finds its lock gone on release; three-way races on a dead lock are left at that.
    await link(aside, path).catch(() => undefined);
  }
  await rm(aside, { force: true });
}

function parseOwner(text: string): LockOwner | null {
  try {
    const value = JSON.parse(text) as Partial<LockOwner>;
    if (typeof value.pid !== 'number' || typeof value.token !== 'string' || typeof value.hostname !== 'string') return null;
    return {
      pid: value.pid,
      token: value.token,
      hostname: value.hostname,
      ...(typeof value.thread === 'number' ? { thread: value.thread } : {}),
      acquired_at: String(value.acquired_at ?? ''),
      ...(typeof value.title === 'string' ? { title: value.title } : {}),
    };
  } catch {
    return null;
  }
}

/** Threads of this process that ended without releasing what they owned. */
const deadThreads = new Set<number>();

/**
 * Tells this thread that threads of its own process have died (the engine workers a host saw
 * crash): their locks and journals are stale although the process lives.
 *
 * @example
 * declareDeadThreads(workerData.deadThreads ?? []);
 */
export function declareDeadThreads(threads: Iterable<number>): void {
  for (const thread of threads) deadThreads.add(thread);
}

/** Whether the process (and thread) that owns a lock (or a journal) may still be running. */
export function isOwnerAlive(owner: { pid: number; hostname: string; thread?: number }): boolean {
  // A lock from another machine (a workspace on a shared mount) cannot be checked from here.
  if (owner.hostname !== hostname()) return true;
  if (owner.pid === process.pid && owner.thread !== undefined && deadThreads.has(owner.thread)) return false;
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function ioError(path: string, cause: unknown): CairnError {
  return new CairnError('IO_ERROR', `Could not use the lock file ${path}: ${(cause as Error)?.message ?? String(cause)}`, { cause, details: { path } });
}
