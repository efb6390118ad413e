/**
 * The journaled index buffer: records wait in memory for one big write, their URIs wait in a
 * journal on disk, and a process that finds the journal of a dead one re-indexes those nodes
 * from ContextFS. Real files, a real ContextFS, a real dead process id.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { ContextFS } from '../../main/engine/tree/context-fs.js';
import { journaledIndex } from '../../main/engine/index/journaled-index.js';
import { declareDeadThreads } from '../../main/engine/queue/lock-file.js';
import type { ContextIndex, IndexInput } from '../../main/engine/ports/context-index.js';
import { silentLogger } from '../../main/engine/ports/logger.js';

let workspace: string;
let journalDir: string;
let fs: ContextFS;

/** An index that remembers what reached it, in order. */
function recordingIndex() {
  const calls: Array<{ op: 'upsert'; ids: string[] } | { op: 'remove'; uri: string }> = [];
  const index: ContextIndex = {
    async upsert(records) {
      calls.push({ op: 'upsert', ids: records.map((r) => r.id) });
    },
    async removeUnder(uri) {
      calls.push({ op: 'remove', uri });
    },
  };
  return { index, calls };
}

function record(uri: string, level: 0 | 1 | 2 = 2): IndexInput {
  return { id: `${uri}#${level}`, uri, parent_uri: null, level, context_type: 'resource', category: 'markdown', text: `text of ${uri}`, tokens: 3, content_hash: 'h', updated_at: '2026-12-01T00:00:00Z', provenance: {} };
}

/** The pid of a process that has exited: its journal is an orphan. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'cairn-journal-'));
  journalDir = join(workspace, '.cairn/index-journal');
  fs = await ContextFS.open(workspace);
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

describe('journaled index', () => {
  it('holds records until the buffer fills, journaling their URIs, and forgets the journal once written', async () => {
    const { index, calls } = recordingIndex();
    const buffered = journaledIndex(index, { fs, journalDir, logger: silentLogger, bufferRecords: 3 });
    await buffered.upsert([record('ctx://resources/a.md'), record('ctx://resources/a.md', 0)]);
    expect(calls).toEqual([]);
    const [segment] = await readdir(journalDir);
    expect(segment).toMatch(new RegExp(`~${process.pid}\\.${threadId}~`));
    expect((await readFile(join(journalDir, segment!), 'utf8')).trim().split('\n')).toEqual(['ctx://resources/a.md']);

    await buffered.upsert([record('ctx://resources/b.md')]);
    expect(calls).toEqual([{ op: 'upsert', ids: ['ctx://resources/a.md#2', 'ctx://resources/a.md#0', 'ctx://resources/b.md#2'] }]);
    expect(await readdir(journalDir)).toEqual([]);
  });

  it('writes the buffer before a delete, so a later delete is never overtaken by an older write', async () => {
    const { index, calls } = recordingIndex();
    const buffered = journaledIndex(index, { fs, journalDir, logger: silentLogger });
    await buffered.upsert([record('ctx://resources/docs/a.md')]);
    await buffered.removeUnder('ctx://resources/docs/');
    expect(calls).toEqual([
      { op: 'upsert', ids: ['ctx://resources/docs/a.md#2'] },
      { op: 'remove', uri: 'ctx://resources/docs/' },
    ]);
  });

  it('flushes before searching and on close', async () => {
    const { index, calls } = recordingIndex();
    const searched: string[] = [];
    const buffered = journaledIndex(
      { ...index, search: async (query) => (searched.push(`${calls.length}:${query.text}`), []), close: async () => void searched.push('closed') },
      { fs, journalDir, logger: silentLogger },
    );
    await buffered.upsert([record('ctx://resources/a.md')]);
    await buffered.search!({ text: 'tide' });
    expect(searched).toEqual(['1:tide']);
    await buffered.upsert([record('ctx://resources/b.md')]);
    await buffered.close!();
    expect(calls.map((c) => (c.op === 'upsert' ? c.ids : c.uri))).toEqual([['ctx://resources/a.md#2'], ['ctx://resources/b.md#2']]);
    expect(searched).toEqual(['1:tide', 'closed']);
  });

  it("replays a dead process's journal from ContextFS: nodes that exist are re-indexed, vanished ones removed", async () => {
    // A file node as the ingest leaves it: content plus meta with its own abstract.
    await mkdir(join(workspace, 'resources/notes'), { recursive: true });
    await writeFile(join(workspace, 'resources/notes/tide.md'), '# Tide\n\nThe gauge reads high at noon.\n');
    await fs.writeMeta('ctx://resources/notes/tide.md', {
      uri: 'ctx://resources/notes/tide.md',
      kind: 'file',
      context_type: 'resource',
      abstract: 'Tide gauge readings.',
      created_at: '2026-12-01T00:00:00Z',
      updated_at: '2026-12-01T00:00:00Z',
    });
    await mkdir(journalDir, { recursive: true });
    const orphan = `${hostname()}~${deadPid()}~0b1c2d3e-0000-4000-8000-000000000000.log`;
    await writeFile(join(journalDir, orphan), 'ctx://resources/notes/tide.md\nctx://resources/notes/gone.md\nctx://resources/notes/tide.md\n');
    // A live process's journal (ours, from another engine in this process) is left alone.
    const live = `${hostname()}~${process.pid}~0b1c2d3e-1111-4000-8000-000000000000.log`;
    await writeFile(join(journalDir, live), 'ctx://resources/notes/other.md\n');

    const { index, calls } = recordingIndex();
    const buffered = journaledIndex(index, { fs, journalDir, logger: silentLogger });
    expect(await buffered.replayed()).toBe(2);
    expect(calls).toEqual([
      { op: 'upsert', ids: ['ctx://resources/notes/tide.md#2', 'ctx://resources/notes/tide.md#0'] },
      { op: 'remove', uri: 'ctx://resources/notes/gone.md' },
    ]);
    expect(await readdir(journalDir)).toEqual([live]);
  });

  it('replays the journal of a crashed thread of this process once the host declares it dead', async () => {
    await mkdir(join(workspace, 'resources/notes'), { recursive: true });
    await writeFile(join(workspace, 'resources/notes/tide.md'), '# Tide\n\nThe gauge reads high at noon.\n');
    await fs.writeMeta('ctx://resources/notes/tide.md', { uri: 'ctx://resources/notes/tide.md', kind: 'file', context_type: 'resource', created_at: '2026-12-01T00:00:00Z', updated_at: '2026-12-01T00:00:00Z' });
    await mkdir(journalDir, { recursive: true });
    const crashed = `${hostname()}~${process.pid}.5~0b1c2d3e-3333-4000-8000-000000000000.log`;
    const live = `${hostname()}~${process.pid}.6~0b1c2d3e-4444-4000-8000-000000000000.log`;
    await writeFile(join(journalDir, crashed), 'ctx://resources/notes/tide.md\n');
    await writeFile(join(journalDir, live), 'ctx://resources/notes/other.md\n');
    // Before the host says so, thread 5 may be alive: both segments are left alone.
    expect(await journaledIndex(recordingIndex().index, { fs, journalDir, logger: silentLogger }).replayed()).toBe(0);
    declareDeadThreads([5]);
    const { index, calls } = recordingIndex();
    expect(await journaledIndex(index, { fs, journalDir, logger: silentLogger }).replayed()).toBe(1);
    expect(calls).toEqual([{ op: 'upsert', ids: ['ctx://resources/notes/tide.md#2'] }]);
    expect(await readdir(journalDir)).toEqual([live]);
  });

  it('replays many nodes in a few large writes, not one write per node', async () => {
    await mkdir(join(workspace, 'resources/log'), { recursive: true });
    const uris: string[] = [];
    for (let i = 0; i < 1200; i++) {
      const uri = `ctx://resources/log/day-${i}.md`;
      await writeFile(join(workspace, `resources/log/day-${i}.md`), `Day ${i}: the gauge read ${i} cm.\n`);
      await fs.writeMeta(uri, { uri, kind: 'file', context_type: 'resource', created_at: '2026-12-01T00:00:00Z', updated_at: '2026-12-01T00:00:00Z' });
      uris.push(uri);
    }
    await mkdir(journalDir, { recursive: true });
    await writeFile(join(journalDir, `${hostname()}~${deadPid()}~0b1c2d3e-2222-4000-8000-000000000000.log`), uris.join('\n') + '\n');
    const { index, calls } = recordingIndex();
    const buffered = journaledIndex(index, { fs, journalDir, logger: silentLogger });
    expect(await buffered.replayed()).toBe(1200);
    const upserts = calls.filter((c) => c.op === 'upsert');
    expect(upserts.length).toBe(3);
    expect(new Set(upserts.flatMap((c) => c.ids))).toEqual(new Set(uris.map((uri) => `${uri}#2`)));
  });
});

describe('journaled index under concurrency', () => {
  it('a search that starts while a flush is writing waits for that write', async () => {
    const written: string[] = [];
    let release!: () => void;
    const slow = new Promise<void>((resolve) => (release = resolve));
    const inner: ContextIndex & { search: (q: { text: string }) => Promise<never[]> } = {
      async upsert(records) {
        await slow;
        written.push(...records.map((r) => r.id));
      },
      async removeUnder() {},
      async search() {
        searchedAfter = [...written];
        return [];
      },
    };
    let searchedAfter: string[] = [];
    const buffered = journaledIndex(inner, { fs, journalDir, logger: silentLogger });
    await buffered.upsert([record('ctx://resources/a.md')]);
    const flushing = buffered.flush();
    const searching = buffered.search!({ text: 'a' });
    // Let both get as far as they can while the write is held up.
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    await Promise.all([flushing, searching]);
    expect(searchedAfter).toEqual(['ctx://resources/a.md#2']);
  });

  it('upserts at the same time share journal writes, and each returns once its URIs are in the segment', async () => {
    const { index, calls } = recordingIndex();
    const buffered = journaledIndex(index, { fs, journalDir, logger: silentLogger, bufferRecords: 1000 });
    const uris = Array.from({ length: 40 }, (_, i) => `ctx://resources/n${i}.md`);
    await Promise.all(uris.map((uri) => buffered.upsert([record(uri), record(uri, 0)])));
    const [segment] = await readdir(journalDir);
    expect((await readFile(join(journalDir, segment!), 'utf8')).trim().split('\n').sort()).toEqual([...uris].sort());
    expect(calls).toEqual([]);
    await buffered.close!();
    expect(calls).toHaveLength(1);
    expect(await readdir(journalDir)).toEqual([]);
  });

  it('records upserted while a flush is writing stay journaled until their own write, and writes come in slices', async () => {
    const written: string[][] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const inner: ContextIndex = {
      async upsert(records) {
        await held;
        written.push(records.map((r) => r.uri));
      },
      async removeUnder() {},
    };
    const buffered = journaledIndex(inner, { fs, journalDir, logger: silentLogger, bufferRecords: 200 });
    const first = Array.from({ length: 200 }, (_, i) => `ctx://resources/a${i}.md`);
    const filling = Promise.all(first.map((uri) => buffered.upsert([record(uri)])));
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The first 200 are being written (held): a record arriving now goes to a new segment.
    await buffered.upsert([record('ctx://resources/late.md')]);
    const segments = await readdir(journalDir);
    expect(segments).toHaveLength(2);
    const contents = await Promise.all(segments.map((name) => readFile(join(journalDir, name), 'utf8')));
    expect(contents.filter((text) => text.includes('ctx://resources/late.md'))).toEqual(['ctx://resources/late.md\n']);
    release();
    await filling;
    // 200 records in slices of 128; the late one's segment is still on disk, owed its write.
    expect(written.map((batch) => batch.length)).toEqual([128, 72]);
    expect(await readdir(journalDir)).toHaveLength(1);
    await buffered.close!();
    expect(written.at(-1)).toEqual(['ctx://resources/late.md']);
    expect(await readdir(journalDir)).toEqual([]);
  });
});

