/**
 * An exclusive lock file stamped with its owner's pid, so that only one process at a time owns a
 * workspace's outbox. A lock left by a process that died (kill -9, power cut) is broken by the
 * next owner; a lock held by a live process is waited for (with `wait`) or refused with `LOCKED`.
 * "Alive" means running: on Linux a zombie, a process already exiting, or a new process that got
 * the dead owner's pid does not count (see `isOwnerAlive`). The stamp also names the owner's
 * thread: an engine worker that crashed leaves its locks behind in a live process, and the host
 * that starts its replacement declares that thread dead (`declareDeadThreads`).
 *
 * The lock is written whole to a temp file and linked into place, so a reader never sees a
 * half-written lock: `link` fails when the name exists, which is what makes taking it atomic.
 */
import { readFileSync } from 'node:fs';
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
  /** When the owner process started (Linux: clock ticks after boot), so a reused pid is not taken for the owner. */
  started?: number;
  /** What the owner is doing with the lock ("the ingest of /home/me/notes"), and since when. */
  activity?: string;
  activity_since?: string;
}

/** The live owner a waiting acquisition waits for. */
export interface LockHolder {
  pid: number;
  hostname: string;
  /** What it is doing: its activity, else its process title. */
  doing: string;
  /** When it started doing it (ISO time). */
  since: string;
}

export interface LockWait {
  /** Give up with `LOCKED` after this long; null waits as long as it takes. */
  timeoutMs: number | null;
  /** Called when the wait starts, and again when the holder changes. */
  onWait?: (holder: LockHolder) => void;
  signal?: AbortSignal;
}

/** The one line that says what a wait is for: "waiting for the ingest of /x, pid 12, started 12 s ago". */
export function describeWait(holder: LockHolder, now = Date.now()): string {
  const since = Date.parse(holder.since);
  const ago = Number.isFinite(since) ? `, started ${Math.max(0, Math.round((now - since) / 1000))} s ago` : '';
  return `waiting for ${holder.doing}, pid ${holder.pid}${ago}`;
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
    private readonly owner: LockOwner,
  ) {}

  /**
   * Says what the owner now does with the lock, for anyone who waits for it. Replaces the lock
   * file whole (rename), so a reader sees the old or the new one, both ours.
   */
  async describe(activity: string): Promise<void> {
    if (this.released) return;
    const next: LockOwner = { ...this.owner, activity, activity_since: new Date().toISOString() };
    const temp = `${this.path}.${randomUUID()}.tmp`;
    try {
      await writeFile(temp, JSON.stringify(next), { flag: 'wx' });
      const text = await readFile(this.path, 'utf8').catch(() => null);
      if (text === null || parseOwner(text)?.token !== this.token) return;
      await rename(temp, this.path);
    } catch {
      // Only what waiters are told is lost; the lock itself stands.
    } finally {
      await rm(temp, { force: true });
    }
  }

  /**
   * Takes the lock. A live owner is waited for when `wait` is given (polling; the owner's death
   * or release frees it), else refused at once: `LOCKED` names the owner. `what` names the
   * resource in messages.
   */
  static async acquire(path: string, what: string, options: { wait?: LockWait } = {}): Promise<LockFile> {
    const wait = options.wait;
    const started = Date.now();
    let waitedFor: string | null = null;
    let poll = 50;
    // A few rounds cover the races: the owner released between our try and our read, or another
    // process broke the same stale lock first.
    for (let round = 0; round < 5; round += 1) {
      const owner: LockOwner = { pid: process.pid, hostname: hostname(), thread: threadId, title: process.title, token: randomUUID(), acquired_at: new Date().toISOString(), ...ownStart() };
      if (await tryCreate(path, JSON.stringify(owner))) return new LockFile(path, owner.token, owner);

      const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return null;
        throw ioError(path, error);
      });
      if (text === null) continue;
      const current = parseOwner(text);
      if (current && isOwnerAlive(current)) {
        const holder: LockHolder = {
          pid: current.pid,
          hostname: current.hostname,
          doing: current.activity ?? current.title ?? 'another process',
          since: current.activity_since ?? current.acquired_at,
        };
        const waited = Date.now() - started;
        if (!wait || (wait.timeoutMs !== null && waited >= wait.timeoutMs) || wait.signal?.aborted) {
          const after = wait && waited > 0 ? ` (waited ${Math.round(waited / 1000)} s)` : '';
          throw new CairnError('LOCKED', `${what} is busy: ${holder.doing} (pid ${holder.pid} on ${holder.hostname}) has held it since ${holder.since}${after} (lock file ${path})`, {
            details: { path, pid: current.pid, hostname: current.hostname, since: holder.since, holder: holder.doing },
          });
        }
        const key = `${current.token}|${holder.doing}`;
        if (waitedFor !== key) {
          waitedFor = key;
          wait.onWait?.(holder);
        }
        const left = wait.timeoutMs === null ? poll : Math.min(poll, Math.max(1, wait.timeoutMs - waited));
        await sleep(left, wait.signal);
        poll = Math.min(500, poll * 2);
        // Waiting on a live owner is not a race round.
        round = -1;
        continue;
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
      ...(typeof value.started === 'number' ? { started: value.started } : {}),
      ...(typeof value.activity === 'string' ? { activity: value.activity, activity_since: String(value.activity_since ?? value.acquired_at ?? '') } : {}),
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

/**
 * Whether the process (and thread) that owns a lock (or a journal) may still be running.
 * `started` (from the lock) tells the owner apart from a later process that was given the same pid.
 */
export function isOwnerAlive(owner: { pid: number; hostname: string; thread?: number; started?: number }): boolean {
  // A lock from another machine (a workspace on a shared mount) cannot be checked from here.
  if (owner.hostname !== hostname()) return true;
  if (owner.pid === process.pid && owner.thread !== undefined && deadThreads.has(owner.thread)) return false;
  const proc = procState(owner.pid);
  if (proc === 'gone') return false;
  if (proc) {
    // Z: a zombie, X: dead; PF_EXITING: killed and being torn down (its locks are as good as free).
    if (proc.state === 'Z' || proc.state === 'X' || (proc.flags & PF_EXITING) !== 0 || killPending(owner.pid)) return false;
    if (owner.started !== undefined && proc.started !== owner.started) return false;
    return true;
  }
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The kernel's flag for a task that has begun to exit (include/linux/sched.h). */
const PF_EXITING = 0x4;

/**
 * A process's state, flags and start time from Linux's /proc/PID/stat; 'gone' when /proc says
 * there is no such process; null where there is no /proc to ask.
 */
function procState(pid: number): { state: string; flags: number; started: number } | 'gone' | null {
  if (process.platform !== 'linux') return null;
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'gone' : null;
  }
  // "pid (comm) state ppid …": comm may hold spaces and parentheses, so fields count from the last ")".
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  const flags = Number(fields[6]);
  const started = Number(fields[19]);
  if (!state || !Number.isFinite(flags) || !Number.isFinite(started)) return null;
  return { state, flags, started };
}

/** SIGKILL sent and not yet acted on: the instant between `kill -9` and the kernel tearing the process down. */
function killPending(pid: number): boolean {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return false;
  }
  const SIGKILL_BIT = 1n << 8n;
  for (const key of ['SigPnd', 'ShdPnd']) {
    const hex = new RegExp(`^${key}:\\s*([0-9a-f]+)$`, 'm').exec(text)?.[1];
    if (hex && (BigInt(`0x${hex}`) & SIGKILL_BIT) !== 0n) return true;
  }
  return false;
}

/** This process's start time, stamped into its locks. */
function ownStart(): { started?: number } {
  const proc = procState(process.pid);
  return proc && proc !== 'gone' ? { started: proc.started } : {};
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

function ioError(path: string, cause: unknown): CairnError {
  return new CairnError('IO_ERROR', `Could not use the lock file ${path}: ${(cause as Error)?.message ?? String(cause)}`, { cause, details: { path } });
}
