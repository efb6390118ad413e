import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CairnError } from '../../../shared/errors.js';
import { isOwnerAlive, LockFile, type LockHolder } from './lock-file.js';

let dir: string;
let lockPath: string;
const children: ChildProcess[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cairn-lock-'));
  lockPath = join(dir, 'outbox.lock');
});
afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

/** A live process other than this one, and its start time as /proc gives it. */
async function liveProcess(): Promise<{ pid: number; started: number }> {
  const child = spawn('sleep', ['60'], { stdio: 'ignore' });
  children.push(child);
  await new Promise((resolve) => child.once('spawn', resolve));
  const stat = await readFile(`/proc/${child.pid}/stat`, 'utf8');
  return { pid: child.pid!, started: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]) };
}

const lockOf = (owner: Record<string, unknown>) => writeFile(lockPath, JSON.stringify({ hostname: hostname(), token: 'theirs', acquired_at: new Date().toISOString(), ...owner }));

describe('LockFile liveness', () => {
  it('counts a zombie as dead: its lock is taken at once', async () => {
    // sh starts a child that exits a second later, once sh has become `sleep`, which never reaps it: a zombie (a child that exits before the exec may be reaped by sh).
    const parent = spawn('sh', ['-c', 'sleep 1 & echo $!; exec sleep 60'], { stdio: ['ignore', 'pipe', 'ignore'] });
    children.push(parent);
    const zombie = Number(await new Promise<string>((resolve) => parent.stdout!.once('data', (d: Buffer) => resolve(d.toString()))));
    for (let i = 0; i < 500; i++) {
      if ((await readFile(`/proc/${zombie}/stat`, 'utf8')).includes(') Z ')) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(await readFile(`/proc/${zombie}/stat`, 'utf8')).toContain(') Z ');
    await lockOf({ pid: zombie });
    const lock = await LockFile.acquire(lockPath, 'The test lock');
    expect(JSON.parse(await readFile(lockPath, 'utf8')).pid).toBe(process.pid);
    await lock.release();
  });

  it('tells a live owner from a new process that was given its pid (by start time)', async () => {
    const live = await liveProcess();
    expect(isOwnerAlive({ pid: live.pid, hostname: hostname(), started: live.started })).toBe(true);
    expect(isOwnerAlive({ pid: live.pid, hostname: hostname(), started: live.started - 1 })).toBe(false);
    // Locks written before start times were recorded still count their pid as the owner.
    expect(isOwnerAlive({ pid: live.pid, hostname: hostname() })).toBe(true);
  });

  it('takes a lock at once after its owner is killed with SIGKILL', async () => {
    const live = await liveProcess();
    await lockOf({ pid: live.pid, started: live.started });
    await expect(LockFile.acquire(lockPath, 'The test lock')).rejects.toMatchObject({ code: 'LOCKED' });
    process.kill(live.pid, 'SIGKILL');
    // No wait: not even the instant while the kernel tears it down counts as alive.
    const lock = await LockFile.acquire(lockPath, 'The test lock');
    await lock.release();
  });
});

describe('LockFile waiting', () => {
  it('waits for a live owner, says what it waits for, and takes the lock once it is released', async () => {
    const first = await LockFile.acquire(lockPath, 'The test lock');
    await first.describe('the ingest of /data/notes');
    const heard: LockHolder[] = [];
    const second = LockFile.acquire(lockPath, 'The test lock', { wait: { timeoutMs: null, onWait: (holder) => heard.push(holder) } });
    await new Promise((r) => setTimeout(r, 300));
    expect(heard).toEqual([expect.objectContaining({ pid: process.pid, doing: 'the ingest of /data/notes' })]);
    await first.release();
    const lock = await second;
    expect(JSON.parse(await readFile(lockPath, 'utf8')).pid).toBe(process.pid);
    await lock.release();
  });

  it('gives up with LOCKED after the timeout', async () => {
    const live = await liveProcess();
    await lockOf({ pid: live.pid, started: live.started, title: 'cairn ingest' });
    const started = Date.now();
    const error = await LockFile.acquire(lockPath, 'The test lock', { wait: { timeoutMs: 400 } }).catch((e: unknown) => e);
    expect(Date.now() - started).toBeGreaterThanOrEqual(390);
    expect(CairnError.is(error, 'LOCKED')).toBe(true);
    expect((error as Error).message).toMatch(/cairn ingest \(pid \d+ .*waited/);
  });

  it('stops waiting when the owner dies', async () => {
    const live = await liveProcess();
    await lockOf({ pid: live.pid, started: live.started });
    const waiting = LockFile.acquire(lockPath, 'The test lock', { wait: { timeoutMs: 10_000 } });
    setTimeout(() => process.kill(live.pid, 'SIGKILL'), 200);
    const lock = await waiting;
    expect(JSON.parse(await readFile(lockPath, 'utf8')).pid).toBe(process.pid);
    await lock.release();
  });
});
