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
 */
import { appendFile, mkdir, readFile, readdir, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { ContextIndex, IndexInput } from '../ports/context-index.js';
import type { Logger } from '../ports/logger.js';
import type { ContextFS } from '../tree/context-fs.js';
import { isOwnerAlive } from '../queue/lock-file.js';
import { nodeRecords } from './node-records.js';
import type { SearchIndex } from './search-index.js';

export interface JournaledIndexOptions {
  fs: ContextFS;
  /** Folder of journal segments, e.g. `<workspace>/.cairn/index-journal`. */
  journalDir: string;
  logger: Logger;
  /** Records held before one write (default 512). */
  bufferRecords?: number;
}

/** A ContextIndex that may also search, optimize after bulk writes, and own resources to close. */
export interface EngineIndex extends ContextIndex {
  search?: SearchIndex['search'];
  optimize?(): Promise<void>;
  close?(): Promise<void>;
}

export interface JournaledIndex extends EngineIndex {
  /** Writes the buffer now. */
  flush(): Promise<void>;
  /** Resolves when dead processes' journals are replayed, with the records that took. */
  replayed(): Promise<number>;
}

/** A segment is named `{hostname}~{pid}~{uuid}.log`, so a replayer can tell a dead owner from a live one. */
function segmentName(): string {
  return `${hostname().replaceAll('~', '-')}~${process.pid}~${randomUUID()}.log`;
}

function segmentOwner(name: string): { hostname: string; pid: number } | null {
  const match = /^(.+)~(\d+)~[0-9a-f-]+\.log$/.exec(name);
  return match ? { hostname: match[1]!, pid: Number(match[2]) } : null;
}

export function journaledIndex(inner: EngineIndex, options: JournaledIndexOptions): JournaledIndex {
  const limit = options.bufferRecords ?? 512;
  let pending: IndexInput[] = [];
  let segment = join(options.journalDir, segmentName());
  let segmentWritten = false;
  let replay: Promise<number> | null = null;
  const ready = () => (replay ??= replayDeadSegments(inner, options));

  // Flushes run one after another: a search that flushes while an earlier flush is still
  // writing must wait for that write too, or it would miss the records in flight.
  let writing: Promise<void> = Promise.resolve();
  const flush = (): Promise<void> => {
    const run = writing.then(async () => {
      await ready();
      if (pending.length === 0) return;
      const batch = pending;
      const done = segment;
      pending = [];
      // Records that arrive during the write journal into a fresh segment, so deleting this one
      // after the write cannot forget them.
      segment = join(options.journalDir, segmentName());
      segmentWritten = false;
      await inner.upsert(batch);
      await rm(done, { force: true });
    });
    writing = run.catch(() => undefined);
    return run;
  };

  const search = inner.search;
  const optimize = inner.optimize;
  return {
    async upsert(records) {
      await ready();
      if (records.length === 0) return;
      if (!segmentWritten) {
        await mkdir(options.journalDir, { recursive: true });
        segmentWritten = true;
      }
      const uris = [...new Set(records.map((r) => r.uri))];
      await appendFile(segment, uris.join('\n') + '\n');
      pending.push(...records);
      if (pending.length >= limit) await flush();
    },
    async removeUnder(uri) {
      await flush();
      await inner.removeUnder(uri);
    },
    ...(search ? { search: async (query) => (await flush(), search.call(inner, query)) } : {}),
    ...(optimize ? { optimize: async () => (await flush(), optimize.call(inner)) } : {}),
    async close() {
      await flush();
      await inner.close?.();
    },
    flush,
    replayed: ready,
  };
}

/** Re-indexes the nodes named in segments whose process is gone; returns how many records it wrote. */
async function replayDeadSegments(inner: ContextIndex, options: JournaledIndexOptions): Promise<number> {
  const names = await readdir(options.journalDir).catch(() => [] as string[]);
  let written = 0;
  for (const name of names) {
    const owner = segmentOwner(name);
    if (!owner || (owner.pid === process.pid && owner.hostname === hostname()) || isOwnerAlive(owner)) continue;
    const path = join(options.journalDir, name);
    const uris = new Set((await readFile(path, 'utf8').catch(() => '')).split('\n').filter(Boolean));
    for (const uri of uris) {
      const kind = await options.fs.kindOf(uri);
      if (kind === null) {
        await inner.removeUnder(uri);
        continue;
      }
      const records = await nodeRecords(options.fs, uri, kind);
      if (records.length > 0) await inner.upsert(records);
      written += records.length;
    }
    await rm(path, { force: true });
    options.logger.info(`Index: replayed ${uris.size} node(s) a stopped process had not yet written (${name})`);
  }
  return written;
}
