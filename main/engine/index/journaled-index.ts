/**
 * Buffers index writes and journals them, so a kill -9 loses no record.
 *
 * Every LanceDB write is a commit (0.1 to 0.3 s), so the ingest's one-file-at-a-time upserts
 * are buffered into a few large writes. A buffer lives in memory, though, and the ingest and
 * the DAG never redo a file or a directory they finished: records lost with a killed process
 * would stay missing. So before a record enters the buffer its URI is appended to a journal
 * segment in `.cairn/index-journal/`, and the segment is deleted once its records are written.
 * Whoever opens the index next replays the segments of dead processes by re-reading those
 * nodes from ContextFS (the truth), and removes the records of nodes that no longer exist.
 * Upserts are by stable id, so a replay never duplicates a record.
 *
 * A segment stays open while it is current, and the URIs of upserts that arrive while one
 * append is being written go out together in the next one: an append per upsert (open, write,
 * close) cost the DAG about a third of a millisecond of main thread per node. An upsert still
 * returns only once its URIs are in the segment (in the kernel, which a kill -9 does not undo).
 */
import { mkdir, open, readFile, readdir, rm, type FileHandle } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { threadId } from 'node:worker_threads';
import type { ContextIndex, IndexInput } from '../ports/context-index.js';
import type { EngineIndex } from '../ports/engine-index.js';
import type { Logger } from '../ports/logger.js';
import type { ContextFS } from '../tree/context-fs.js';
import { isOwnerAlive } from '../queue/lock-file.js';
import { nodeRecords } from './node-records.js';

export interface JournaledIndexOptions {
  fs: ContextFS;
  /** Folder of journal segments, e.g. `<workspace>/.cairn/index-journal`. */
  journalDir: string;
  logger: Logger;
  /** Records held before one write (default 512). */
  bufferRecords?: number;
}

export interface JournaledIndex extends EngineIndex {
  /** Writes the buffer now. */
  flush(): Promise<void>;
  /** Resolves when dead processes' journals are replayed, with the records that took. */
  replayed(): Promise<number>;
}

/** Records per write of a flush (see flush). */
const WRITE_SLICE = 128;

/**
 * A segment is named `{hostname}~{pid}.{thread}~{uuid}.log`, so a replayer can tell a dead owner
 * from a live one, a crashed engine worker of a live process included (`.{thread}` is absent in
 * segments written before threads were named).
 */
function segmentName(): string {
  return `${hostname().replaceAll('~', '-')}~${process.pid}.${threadId}~${randomUUID()}.log`;
}

function segmentOwner(name: string): { hostname: string; pid: number; thread?: number } | null {
  const match = /^(.+)~(\d+)(?:\.(\d+))?~[0-9a-f-]+\.log$/.exec(name);
  if (!match) return null;
  return { hostname: match[1]!, pid: Number(match[2]), ...(match[3] !== undefined ? { thread: Number(match[3]) } : {}) };
}

/** One journal segment and the records it vouches for until they are written. */
interface Segment {
  path: string;
  records: IndexInput[];
  handle: Promise<FileHandle> | null;
  /** URIs waiting for the next append, and the upserts waiting on it. */
  queued: string[];
  waiters: { resolve(): void; reject(error: unknown): void }[];
  /** The append being written (it writes the queue again until the queue is empty). */
  appending: Promise<void> | null;
  /** The flush the segment's filling asked for: the upserts that find it full share one write. */
  flushing: Promise<void> | null;
}

export function journaledIndex(inner: EngineIndex, options: JournaledIndexOptions): JournaledIndex {
  const limit = options.bufferRecords ?? 512;
  const newSegment = (): Segment => ({ path: join(options.journalDir, segmentName()), records: [], handle: null, queued: [], waiters: [], appending: null, flushing: null });
  let segment = newSegment();
  let replay: Promise<number> | null = null;
  const ready = () => (replay ??= replayDeadSegments(inner, options));

  const openSegment = (seg: Segment): Promise<FileHandle> =>
    (seg.handle ??= (async () => {
      await mkdir(options.journalDir, { recursive: true });
      return open(seg.path, 'a');
    })());

  /** Writes everything queued on the segment, one write per round, until nothing is queued. */
  const drainAppends = async (seg: Segment): Promise<void> => {
    // The upserts of one turn of the event loop (the DAG finishes several nodes at once) share a write.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (seg.queued.length > 0) {
      const uris = seg.queued;
      const waiters = seg.waiters;
      seg.queued = [];
      seg.waiters = [];
      try {
        const handle = await openSegment(seg);
        await handle.write(uris.join('\n') + '\n');
        for (const waiter of waiters) waiter.resolve();
      } catch (error) {
        for (const waiter of waiters) waiter.reject(error);
      }
    }
    seg.appending = null;
  };

  const append = (seg: Segment, uris: string[]): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      seg.queued.push(...uris);
      seg.waiters.push({ resolve, reject });
      seg.appending ??= drainAppends(seg);
    });

  /** Closes a segment once its appends are written; its file stays until its records are. */
  const closeSegment = async (seg: Segment): Promise<void> => {
    await seg.appending;
    if (seg.handle) await (await seg.handle.catch(() => null))?.close().catch(() => undefined);
  };

  // Flushes run one after another: a search that flushes while an earlier flush is still
  // writing must wait for that write too, or it would miss the records in flight.
  let writing: Promise<void> = Promise.resolve();
  const flush = (): Promise<void> => {
    const run = writing.then(async () => {
      await ready();
      const done = segment;
      if (done.records.length === 0) return;
      // Records that arrive during the write journal into a fresh segment, so deleting this one
      // after the write cannot forget them.
      segment = newSegment();
      await closeSegment(done);
      // Written in slices with a turn of the event loop between them: embedding and converting
      // 512 records is a few hundred ms of main-thread CPU, and in one piece it would stall
      // every LLM call in flight for that long (the DAG's latency-bound pipeline, issue 4).
      for (let i = 0; i < done.records.length; i += WRITE_SLICE) {
        if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
        await inner.upsert(done.records.slice(i, i + WRITE_SLICE));
      }
      await rm(done.path, { force: true });
    });
    writing = run.catch(() => undefined);
    return run;
  };

  const search = inner.search;
  const optimize = inner.optimize;
  const recordIds = inner.recordIds;
  const removeRecords = inner.removeRecords;
  return {
    async upsert(records) {
      await ready();
      if (records.length === 0) return;
      // The records join the segment their URIs are journaled in, at once: a flush that takes
      // the segment waits for this append and writes these records before deleting it.
      const seg = segment;
      seg.records.push(...records);
      await append(seg, [...new Set(records.map((r) => r.uri))]);
      if (seg.records.length >= limit) await (seg.flushing ??= flush());
    },
    async removeUnder(uri) {
      await flush();
      await inner.removeUnder(uri);
    },
    ...(search ? { search: async (query) => (await flush(), search.call(inner, query)) } : {}),
    ...(optimize ? { optimize: async () => (await flush(), optimize.call(inner)) } : {}),
    // Both see this process's buffered writes first, as a search does.
    ...(recordIds ? { recordIds: async () => (await flush(), recordIds.call(inner)) } : {}),
    ...(removeRecords ? { removeRecords: async (ids: string[]) => (await flush(), removeRecords.call(inner, ids)) } : {}),
    async close() {
      await flush();
      await closeSegment(segment);
      await inner.close?.();
    },
    ...(inner.prepare ? { prepare: inner.prepare.bind(inner) } : {}),
    flush,
    replayed: ready,
  };
}

/** Records per store write while replaying a dead process's journal. */
const REPLAY_BATCH = 512;

/** Re-indexes the nodes named in segments whose process is gone; returns how many records it wrote. */
async function replayDeadSegments(inner: ContextIndex, options: JournaledIndexOptions): Promise<number> {
  const names = await readdir(options.journalDir).catch(() => [] as string[]);
  let written = 0;
  for (const name of names) {
    const owner = segmentOwner(name);
    // This process's own segments count as alive (isOwnerAlive), unless their thread was declared dead.
    if (!owner || isOwnerAlive(owner)) continue;
    const path = join(options.journalDir, name);
    const uris = new Set((await readFile(path, 'utf8').catch(() => '')).split('\n').filter(Boolean));
    // Written in batches: one store write per node made a resume after kills spend most of its
    // time in hundreds of one-record writes (the crash soak's resumes took 2–7× a clean run).
    let batch: IndexInput[] = [];
    const writeBatch = async () => {
      if (batch.length > 0) await inner.upsert(batch);
      written += batch.length;
      batch = [];
    };
    for (const uri of uris) {
      const kind = await options.fs.kindOf(uri);
      if (kind === null) {
        await writeBatch();
        await inner.removeUnder(uri);
        continue;
      }
      batch.push(...(await nodeRecords(options.fs, uri, kind)));
      if (batch.length >= REPLAY_BATCH) await writeBatch();
    }
    await writeBatch();
    await rm(path, { force: true });
    options.logger.info(`Index: replayed ${uris.size} node(s) a stopped process had not yet written (${name})`);
  }
  return written;
}
