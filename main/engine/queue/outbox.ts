/**
 * The durable outbox of semantic messages (the spec's SemanticMsg, docs/SPEC.md#semantic-queue):
 * one message per tree root that needs its L0/L1 made, kept in the workspace so that a crash or a
 * kill never loses one and never makes a finished one run again.
 *
 * On disk, in the outbox folder (`{workspace}/.cairn/queue/`):
 * - `journal.jsonl`: one line per state transition, `{"n": seq, "op": ..., "msg": full message}`,
 *   appended and fsync'd before the transition's promise resolves. Transitions that arrive while
 *   an fsync is in flight are written and synced together (group commit).
 * - `snapshot.json`: every message as of seq `n`, written by compaction (temp file, fsync,
 *   rename) after which the journal is truncated. Replay skips journal lines with `n` at or below
 *   the snapshot's, so a crash between the rename and the truncation replays nothing twice.
 * - `outbox.lock`: the pid of the one process that owns the outbox (lock-file.ts).
 *
 * Many processes share a workspace (an ingest, the app, `cairn mcp`): with `releaseWhenIdleMs`
 * the owner lets the lock go once nothing is in flight (no write, no message processing, no
 * `hold`), and takes it again, reloading from disk what others did meanwhile, at its next change.
 *
 * A torn last line (a kill in the middle of a write) is ignored: its transition never committed.
 *
 * @example
 * const outbox = await Outbox.open(join(workspace, '.cairn', 'queue'));
 * await outbox.enqueue({ uri: 'ctx://resources/docs/', context_type: 'resource' });
 * await runOutbox(outbox, async (message) => summarize(message.uri), { concurrency: 2 }); // run-outbox.ts
 * await outbox.close();
 */
import { mkdir, open, readFile, readdir, rm, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { CairnError, errorMessage } from '../../../shared/errors.js';
import { ContextType } from '../../../shared/types/node.js';
import { normalizeCtxUri } from '../../../shared/uri.js';
import { systemClock, type Clock } from '../ports/clock.js';
import { silentLogger, type Logger } from '../ports/logger.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { LockFile, type LockWait } from './lock-file.js';

export const MessageStatus = z.enum(['pending', 'processing', 'completed', 'failed']);
export type MessageStatus = z.infer<typeof MessageStatus>;

export const SemanticMsgSchema = z.object({
  id: z.string().min(1),
  /** The root to summarize: a directory URI, or a file node's URI when a single file was ingested. */
  uri: z.string().min(1),
  context_type: ContextType,
  status: MessageStatus,
  /** How many times processing started (a crash mid-processing counts). */
  attempts: z.number().int().nonnegative(),
  enqueued_at: z.string(),
  updated_at: z.string(),
  /** Why the last attempt failed. */
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});
export type SemanticMsg = Readonly<z.infer<typeof SemanticMsgSchema>>;

export type OutboxOp = 'enqueue' | 'claim' | 'complete' | 'fail' | 'retry' | 'release' | 'drop';

export interface OutboxChange {
  op: OutboxOp;
  /** The message after the transition. */
  message: SemanticMsg;
}

export interface OutboxFilter {
  status?: MessageStatus | readonly MessageStatus[];
  uri?: string;
  context_type?: ContextType;
}

export interface OutboxCounts {
  pending: number;
  processing: number;
  completed: number;
  failed: number;
  total: number;
}

export interface OutboxOptions {
  clock?: Clock;
  logger?: Logger;
  /** Compact once the journal holds this many lines. Default 1000. */
  compactEvery?: number;
  /**
   * A message whose processing was interrupted by the death of its process this many times fails
   * instead of running again, so one message that kills the process cannot loop forever. Default 5.
   */
  maxAttempts?: number;
  /** Completed messages kept (the most recent); older ones are dropped at compaction. Default 10 000. */
  keepCompleted?: number;
  /** What a refusal to open names as busy (the engine names its workspace). Default: "The outbox in {dir}". */
  lockName?: string;
  /** Wait for a live owner's lock instead of refusing it at once (lock-file.ts). */
  wait?: LockWait;
  /** Let the lock go after this long with nothing in flight; it is taken again at the next change. Default: kept until close. */
  releaseWhenIdleMs?: number;
}

/** Counters for tests and diagnostics. */
export interface OutboxStats {
  /** Transitions written to the journal in this session. */
  lines: number;
  /** fsyncs of the journal in this session (fewer than `lines` when transitions were batched). */
  syncs: number;
  compactions: number;
}

const JournalLine = z.object({ n: z.number().int().positive(), op: z.string(), msg: SemanticMsgSchema });
const Snapshot = z.object({ version: z.literal(1), n: z.number().int().nonnegative(), messages: z.array(SemanticMsgSchema) });

const JOURNAL = 'journal.jsonl';
const SNAPSHOT = 'snapshot.json';
const LOCK = 'outbox.lock';

interface QueuedLine {
  line: string;
  change: OutboxChange;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * The durable outbox; one open instance per workspace (it holds the lock).
 *
 * @example
 * const outbox = await Outbox.open(join(workspace, '.cairn', 'queue'), { logger });
 * const message = await outbox.enqueue({ uri: 'ctx://resources/docs/', context_type: 'resource' });
 * const claimed = await outbox.claim(); // the same message, now processing
 * await outbox.complete(claimed!.id);
 * await outbox.close();
 */
export class Outbox {
  private readonly messages = new Map<string, SemanticMsg>();
  /** Pending ids in the order they will be claimed. */
  private readonly pendingIds = new Set<string>();
  /** The one unfinished (pending, processing or failed) message of each URI. */
  private readonly openByUri = new Map<string, string>();
  private readonly listeners = new Set<(change: OutboxChange) => void>();
  private readonly queued: QueuedLine[] = [];
  private readonly statsCounters: OutboxStats = { lines: 0, syncs: 0, compactions: 0 };
  private seq = 0;
  private journalLines = 0;
  private flushing: Promise<void> | null = null;
  private lastCommit: Promise<void> = Promise.resolve();
  private broken: CairnError | null = null;
  private closed = false;
  private journal!: FileHandle;
  /** The lock is let go (idle); the next change takes it again and reloads. */
  private dormant = false;
  private waking: Promise<void> | null = null;
  private sleeping: Promise<void> | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  private holds = 0;

  private constructor(
    readonly dir: string,
    private lock: LockFile,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly compactEvery: number,
    private readonly maxAttempts: number,
    private readonly keepCompleted: number,
    private readonly options: OutboxOptions,
  ) {}

  /**
   * Opens (creating it if needed) the outbox in `dir`, taking its lock. Messages left
   * `processing` by a process that died go back to `pending` (or to `failed` after `maxAttempts`).
   * Throws `LOCKED` when a live process owns it.
   */
  static async open(dir: string, options: OutboxOptions = {}): Promise<Outbox> {
    await mkdir(dir, { recursive: true });
    const lock = await Outbox.takeLock(dir, options);
    try {
      const outbox = new Outbox(
        dir,
        lock,
        options.clock ?? systemClock,
        options.logger ?? silentLogger,
        Math.max(1, options.compactEvery ?? 1000),
        Math.max(1, options.maxAttempts ?? 5),
        Math.max(0, options.keepCompleted ?? 10_000),
        options,
      );
      await outbox.load();
      outbox.scheduleRelease();
      return outbox;
    } catch (error) {
      await lock.release();
      throw error;
    }
  }

  private static takeLock(dir: string, options: OutboxOptions): Promise<LockFile> {
    return LockFile.acquire(join(dir, LOCK), options.lockName ?? `The outbox in ${dir}`, options.wait ? { wait: options.wait } : {});
  }

  /**
   * Keeps the lock (taking it again if it was let go, waiting as `wait` says) until the returned
   * function is called: for work that must not share the workspace, like an ingest. `activity`
   * is what a process waiting for the lock is told ("the ingest of /x").
   */
  async hold(activity: string): Promise<() => void> {
    this.holds += 1;
    this.cancelRelease();
    try {
      await this.awake();
    } catch (error) {
      this.holds -= 1;
      throw error;
    }
    await this.lock.describe(activity);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.holds -= 1;
      this.scheduleRelease();
    };
  }

  /**
   * Adds a message for `uri`, or returns the unfinished one it already has (a failed one goes
   * back to pending), so enqueueing the same root twice does its work once.
   */
  async enqueue(input: { uri: string; context_type: ContextType }): Promise<SemanticMsg> {
    await this.awake();
    this.assertUsable();
    const uri = normalizeCtxUri(input.uri);
    const contextType = ContextType.safeParse(input.context_type);
    if (!contextType.success) {
      throw new CairnError('INVALID_INPUT', `Unknown context type ${JSON.stringify(input.context_type)}`, { details: { uri } });
    }
    const existingId = this.openByUri.get(uri);
    const existing = existingId === undefined ? undefined : this.messages.get(existingId);
    if (existing) {
      if (existing.status === 'failed') return this.transition(existing.id, 'retry', ['failed'], { status: 'pending', error: undefined });
      // It may have been added by a call whose write is still in flight: answer once it is durable.
      await this.lastCommit;
      this.assertUsable();
      return this.messages.get(existing.id) ?? existing;
    }
    const now = this.now();
    const message: SemanticMsg = Object.freeze({
      id: randomUUID(),
      uri,
      context_type: contextType.data,
      status: 'pending',
      attempts: 0,
      enqueued_at: now,
      updated_at: now,
    });
    this.put(message);
    await this.commit('enqueue', message);
    return message;
  }

  /**
   * Takes the next pending message (pending → processing, attempts + 1), or null when none is
   * pending. With `filter`, the next pending message that passes it.
   */
  async claim(filter?: (message: SemanticMsg) => boolean): Promise<SemanticMsg | null> {
    await this.awake();
    this.assertUsable();
    for (const id of this.pendingIds) {
      const message = this.messages.get(id);
      if (!message || (filter && !filter(message))) continue;
      return this.transition(id, 'claim', ['pending'], { status: 'processing', attempts: message.attempts + 1 });
    }
    return null;
  }

  /** processing → completed. */
  async complete(id: string): Promise<SemanticMsg> {
    await this.awake();
    return this.transition(id, 'complete', ['processing'], { status: 'completed', error: undefined });
  }

  /** pending or processing → failed, keeping why. */
  async fail(id: string, error: unknown): Promise<SemanticMsg> {
    await this.awake();
    const code = CairnError.is(error) ? error.code : 'INTERNAL';
    return this.transition(id, 'fail', ['pending', 'processing'], { status: 'failed', error: { code, message: errorMessage(error) } });
  }

  /** failed → pending, to run again. */
  async retry(id: string): Promise<SemanticMsg> {
    await this.awake();
    return this.transition(id, 'retry', ['failed'], { status: 'pending', error: undefined });
  }

  /** processing → pending without counting a failure: the consumer stopped (cancelled) before finishing it. */
  async release(id: string): Promise<SemanticMsg> {
    await this.awake();
    return this.transition(id, 'release', ['processing'], { status: 'pending' });
  }

  /**
   * Forgets the messages whose URI passes `which` (those of a tree that was removed or moved);
   * one being processed is kept, and returned in `kept`, for the caller to refuse or wait.
   */
  async drop(which: (uri: string) => boolean): Promise<{ dropped: SemanticMsg[]; kept: SemanticMsg[] }> {
    await this.awake();
    this.assertUsable();
    const dropped: SemanticMsg[] = [];
    const kept: SemanticMsg[] = [];
    for (const message of [...this.messages.values()]) {
      if (!which(message.uri)) continue;
      if (message.status === 'processing') {
        kept.push(message);
        continue;
      }
      this.forget(message.id);
      dropped.push(message);
    }
    await Promise.all(dropped.map((message) => this.commit('drop', message)));
    return { dropped, kept };
  }

  get(id: string): SemanticMsg | undefined {
    return this.messages.get(id);
  }

  /** Messages in the order they were enqueued. */
  list(filter: OutboxFilter = {}): SemanticMsg[] {
    const statuses = filter.status === undefined ? null : new Set<MessageStatus>(typeof filter.status === 'string' ? [filter.status] : filter.status);
    const uri = filter.uri === undefined ? undefined : normalizeCtxUri(filter.uri);
    const out: SemanticMsg[] = [];
    for (const message of this.messages.values()) {
      if (statuses && !statuses.has(message.status)) continue;
      if (uri !== undefined && message.uri !== uri) continue;
      if (filter.context_type !== undefined && message.context_type !== filter.context_type) continue;
      out.push(message);
    }
    return out;
  }

  counts(): OutboxCounts {
    const counts: OutboxCounts = { pending: 0, processing: 0, completed: 0, failed: 0, total: 0 };
    for (const message of this.messages.values()) {
      counts[message.status] += 1;
      counts.total += 1;
    }
    return counts;
  }

  stats(): OutboxStats {
    return { ...this.statsCounters };
  }

  /** Called after each transition is durable, in commit order. */
  onChange(listener: (change: OutboxChange) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /**
   * Writes what is in flight, compacts and releases the lock. Stop consumers (abort `runOutbox`)
   * first: operations after close throw.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.cancelRelease();
    await this.waking?.catch(() => undefined);
    await this.sleeping;
    if (this.dormant) {
      this.listeners.clear();
      return;
    }
    while (this.flushing) await this.flushing;
    if (!this.broken && this.journalLines > 0) {
      await this.compact().catch((error: unknown) => this.logger.warn('Could not compact the outbox on close', { dir: this.dir, error: errorMessage(error) }));
    }
    await this.journal.close().catch(() => undefined);
    this.listeners.clear();
    await this.lock.release();
  }

  // ---- the lock, let go when idle ----

  /** Nothing in flight: no write queued, no message processing (ours to finish), no hold. */
  private isIdle(): boolean {
    if (this.closed || this.dormant || this.broken || this.holds > 0 || this.flushing || this.queued.length > 0) return false;
    for (const message of this.messages.values()) if (message.status === 'processing') return false;
    return true;
  }

  private cancelRelease(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  private scheduleRelease(): void {
    const after = this.options.releaseWhenIdleMs;
    if (after === undefined) return;
    this.cancelRelease();
    if (!this.isIdle()) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (!this.isIdle()) return;
      // Dormant from this moment: a change that comes now waits for the release, then takes the lock again.
      this.dormant = true;
      this.sleeping = this.letGo().finally(() => {
        this.sleeping = null;
      });
    }, after);
    this.idleTimer.unref();
  }

  private async letGo(): Promise<void> {
    try {
      if (this.journalLines > 0) await this.compact();
      await this.journal.close();
    } catch (error) {
      this.logger.warn('Could not compact the outbox before letting its lock go', { dir: this.dir, error: errorMessage(error) });
      await this.journal.close().catch(() => undefined);
    }
    await this.lock.release();
  }

  /** Takes the lock again after it was let go, and reloads what other processes did meanwhile. */
  private async awake(): Promise<void> {
    if (this.sleeping) await this.sleeping;
    if (!this.dormant || this.closed) return;
    this.waking ??= (async () => {
      const lock = await Outbox.takeLock(this.dir, this.options);
      try {
        this.messages.clear();
        this.pendingIds.clear();
        this.openByUri.clear();
        this.journalLines = 0;
        await this.load();
      } catch (error) {
        await lock.release();
        throw error;
      }
      this.lock = lock;
      this.dormant = false;
    })().finally(() => {
      this.waking = null;
    });
    await this.waking;
    this.scheduleRelease();
  }

  // ---- state ----

  private now(): string {
    return this.clock.now().toISOString();
  }

  private assertUsable(): void {
    if (this.broken) throw this.broken;
    if (this.closed) throw new CairnError('INTERNAL', `The outbox in ${this.dir} is closed`);
  }

  private async transition(id: string, op: OutboxOp, from: readonly MessageStatus[], patch: Partial<SemanticMsg>): Promise<SemanticMsg> {
    this.assertUsable();
    const current = this.messages.get(id);
    if (!current) throw new CairnError('NOT_FOUND', `No message ${id} in the outbox`, { details: { id } });
    if (!from.includes(current.status)) {
      throw new CairnError('INVALID_INPUT', `Cannot ${op} message ${id}: it is ${current.status}`, { details: { id, status: current.status, op } });
    }
    const next: { -readonly [K in keyof SemanticMsg]: SemanticMsg[K] } = { ...current, ...patch, updated_at: this.now() };
    if (next.error === undefined) delete next.error;
    const frozen = Object.freeze(next);
    // The in-memory state changes now, before the write, so that two concurrent claims can never
    // take the same message; the caller hears back only once the transition is durable.
    this.put(frozen);
    await this.commit(op, frozen);
    return frozen;
  }

  private put(message: SemanticMsg): void {
    this.messages.set(message.id, message);
    if (message.status === 'pending') this.pendingIds.add(message.id);
    else this.pendingIds.delete(message.id);
    if (message.status === 'completed') {
      if (this.openByUri.get(message.uri) === message.id) this.openByUri.delete(message.uri);
    } else {
      this.openByUri.set(message.uri, message.id);
    }
  }

  private forget(id: string): void {
    const message = this.messages.get(id);
    if (!message) return;
    this.messages.delete(id);
    this.pendingIds.delete(id);
    if (this.openByUri.get(message.uri) === id) this.openByUri.delete(message.uri);
  }

  // ---- journal ----

  private commit(op: OutboxOp, message: SemanticMsg): Promise<void> {
    this.seq += 1;
    const line = JSON.stringify({ n: this.seq, op, msg: message }) + '\n';
    const done = new Promise<void>((resolve, reject) => this.queued.push({ line, change: { op, message }, resolve, reject }));
    this.lastCommit = done.catch(() => undefined);
    this.cancelRelease();
    this.startFlush();
    return done;
  }

  private startFlush(): void {
    this.flushing ??= this.flush().finally(() => {
      this.flushing = null;
      // A commit made between the loop's last look at the queue and this moment (a listener's
      // enqueue resumes after an await) found a flush running and left its line to it.
      if (this.queued.length > 0) this.startFlush();
      else this.scheduleRelease();
    });
  }

  /** Group commit: everything queued while the previous fsync ran goes out in one write and one fsync. */
  private async flush(): Promise<void> {
    while (this.queued.length > 0) {
      const batch = this.queued.splice(0);
      try {
        if (this.broken) throw this.broken;
        await this.journal.appendFile(batch.map((entry) => entry.line).join(''));
        await this.journal.datasync();
      } catch (error) {
        // Memory is now ahead of the disk; refuse everything until the outbox is reopened from disk.
        this.broken ??= new CairnError('IO_ERROR', `Could not write the outbox journal in ${this.dir}: ${errorMessage(error)}; reopen the outbox`, {
          cause: error,
          details: { dir: this.dir },
        });
        for (const entry of batch) entry.reject(this.broken);
        continue;
      }
      this.statsCounters.lines += batch.length;
      this.statsCounters.syncs += 1;
      this.journalLines += batch.length;
      for (const entry of batch) {
        entry.resolve();
        this.notify(entry.change);
      }
      if (this.journalLines >= this.compactEvery) {
        await this.compact().catch((error: unknown) =>
          this.logger.warn('Could not compact the outbox; the journal keeps growing until the next try', { dir: this.dir, error: errorMessage(error) }),
        );
      }
    }
  }

  private notify(change: OutboxChange): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch (error) {
        this.logger.error('An outbox listener threw', { error: errorMessage(error) });
      }
    }
  }

  /**
   * Snapshot, then truncate the journal. The snapshot is taken from memory in one synchronous step
   * and stamped with the last seq handed out, which may include transitions still queued for the
   * journal: they are then in the snapshot already, and replay skips their lines.
   */
  private async compact(): Promise<void> {
    this.pruneCompleted();
    const snapshot = JSON.stringify({ version: 1, n: this.seq, messages: [...this.messages.values()] });
    await writeFileAtomic(join(this.dir, SNAPSHOT), snapshot, { durable: true });
    await this.journal.truncate(0);
    await this.journal.datasync();
    this.journalLines = 0;
    this.statsCounters.compactions += 1;
  }

  private pruneCompleted(): void {
    const completed = [...this.messages.values()].filter((message) => message.status === 'completed');
    if (completed.length <= this.keepCompleted) return;
    completed.sort((a, b) => (a.updated_at < b.updated_at ? -1 : a.updated_at > b.updated_at ? 1 : 0));
    for (const message of completed.slice(0, completed.length - this.keepCompleted)) this.messages.delete(message.id);
  }

  private async load(): Promise<void> {
    for (const name of await readdir(this.dir)) {
      // Temp files of a compaction killed before its rename.
      if (name.startsWith('.cairn-tmp-')) await rm(join(this.dir, name), { force: true });
      // Leftovers of a lock taken or broken by a process killed midway; young ones may belong to
      // a process taking the lock right now, so only old ones go.
      if (name.startsWith(`${LOCK}.`)) {
        const info = await stat(join(this.dir, name)).catch(() => null);
        if (info && Date.now() - info.mtimeMs > 60_000) await rm(join(this.dir, name), { force: true });
      }
    }

    const snapshotPath = join(this.dir, SNAPSHOT);
    const snapshotText = await readIfExists(snapshotPath);
    let snapshotSeq = 0;
    if (snapshotText !== null) {
      let parsed: z.infer<typeof Snapshot>;
      try {
        parsed = Snapshot.parse(JSON.parse(snapshotText));
      } catch (error) {
        // Snapshots are written atomically and fsync'd, so this is outside damage: refuse rather
        // than start empty and lose every message silently.
        throw new CairnError('IO_ERROR', `The outbox snapshot ${snapshotPath} is unreadable; move it aside to start an empty outbox`, {
          cause: error,
          details: { path: snapshotPath },
        });
      }
      snapshotSeq = parsed.n;
      for (const message of parsed.messages) this.put(Object.freeze(message));
    }

    const journalPath = join(this.dir, JOURNAL);
    const journalText = (await readIfExists(journalPath)) ?? '';
    let lastSeq = snapshotSeq;
    const lines = journalText.split('\n');
    // The last piece has no newline: empty after a clean write, a torn line after a kill mid-write.
    const torn = lines.pop();
    if (torn) this.logger.info('Ignored a torn last line in the outbox journal (a write interrupted by a crash)', { path: journalPath, bytes: torn.length });
    lines.forEach((text, index) => {
      if (!text) return;
      const entry = parseLine(text);
      if (!entry) {
        // Lines are full states, so skipping a damaged one loses an intermediate state, never a message's latest.
        this.logger.error('Skipped an unreadable line in the outbox journal', { path: journalPath, line: index + 1 });
        return;
      }
      lastSeq = Math.max(lastSeq, entry.n);
      if (entry.n <= snapshotSeq) return;
      if (entry.op === 'drop') this.forget(entry.msg.id);
      else this.put(Object.freeze(entry.msg));
    });
    this.seq = lastSeq;

    this.recoverInterrupted();
    this.journal = await open(journalPath, 'a');
    try {
      // Makes the recovery durable, drops a torn tail and starts this session with an empty journal.
      await this.compact();
    } catch (error) {
      await this.journal.close().catch(() => undefined);
      throw new CairnError('IO_ERROR', `Could not open the outbox in ${this.dir}: ${errorMessage(error)}`, { cause: error, details: { dir: this.dir } });
    }
  }

  /** Interrupted messages go back to pending at the head of the line: they were next once already. */
  private recoverInterrupted(): void {
    const now = this.now();
    const waiting = [...this.pendingIds];
    for (const message of [...this.messages.values()]) {
      if (message.status !== 'processing') continue;
      const abandoned = message.attempts >= this.maxAttempts;
      const next: SemanticMsg = abandoned
        ? {
            ...message,
            status: 'failed',
            updated_at: now,
            error: { code: 'INTERNAL', message: `Abandoned after ${message.attempts} attempts: the process stopped while processing it each time` },
          }
        : { ...message, status: 'pending', updated_at: now };
      this.put(Object.freeze(next));
      this.logger.info(abandoned ? 'An interrupted outbox message failed for good' : 'An interrupted outbox message goes back to pending', {
        id: message.id,
        uri: message.uri,
        attempts: message.attempts,
      });
    }
    for (const id of waiting) {
      this.pendingIds.delete(id);
      this.pendingIds.add(id);
    }
  }
}

function parseLine(text: string): { n: number; op: string; msg: SemanticMsg } | null {
  try {
    const result = JournalLine.safeParse(JSON.parse(text));
    return result.success ? result.data : null;
  } catch {
    return null;
  }
}

async function readIfExists(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new CairnError('IO_ERROR', `Could not read ${path}: ${errorMessage(error)}`, { cause: error, details: { path } });
  }
}
