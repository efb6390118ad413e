/**
 * fs:rm and fs:mv (issue 21, item 3) on real files and a real LanceDB index in a temp dir: what
 * goes is counted, the index follows (no stale record; renamed records are searchable under
 * their new URIs), the queue follows, and an operation interrupted midway is finished by the
 * next one.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine, type Engine } from '../../main/engine/engine.js';
import { inProcessParseRunner } from '../../main/engine/parse/runner.js';
import type { EngineIndex } from '../../main/engine/ports/engine-index.js';
import { Outbox } from '../../main/engine/queue/outbox.js';
import { lazySearchIndex } from '../../main/host/open-index.js';
import { indexVersusTree } from '../reliability/support.js';

const ROOT = join(import.meta.dirname, '../..');
let tmp: string;
let workspace: string;
let engine: Engine | undefined;

async function open(index?: EngineIndex): Promise<Engine> {
  engine = await createEngine({ workspace, parser: inProcessParseRunner(), index: index ?? lazySearchIndex(workspace, { idleOptimizeMs: 0 }) });
  return engine;
}

async function close(): Promise<void> {
  await engine?.dispose();
  engine = undefined;
}

/** Every index record id, read from LanceDB after the engine closed. */
async function indexIds(): Promise<string[]> {
  const { ids, wanted } = await indexVersusTree(workspace);
  // The index holds exactly what the tree gives, once.
  expect(ids.length).toBe(new Set(ids).size);
  expect(new Set(ids)).toEqual(wanted);
  return ids;
}

async function queued(): Promise<string[]> {
  const queue = await Outbox.open(join(workspace, '.cairn/queue'));
  const uris = queue.list({ status: ['pending', 'processing', 'failed'] }).map((m) => m.uri);
  await queue.close();
  return uris;
}

beforeEach(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'cairn-manage-'));
  workspace = join(tmp, 'ws');
  await cp(join(ROOT, 'assets/sample'), join(tmp, 'sample'), { recursive: true });
  await cp(join(ROOT, 'assets/sample/docs'), join(tmp, 'handbook'), { recursive: true });
  const e = await open();
  await e.call('ingest:start', { path: join(tmp, 'sample') });
  await e.call('ingest:start', { path: join(tmp, 'handbook') });
  await e.call('summarize:run', {});
}, 120_000);
afterEach(async () => {
  await close();
  await rm(tmp, { recursive: true, force: true });
});

describe('fs:rm', () => {
  it('counts what goes, then removes the tree: files, sidecars, queue entries and index records', async () => {
    const e = engine!;
    const plan = await e.call('fs:rm', { uri: 'ctx://resources/handbook/', dryRun: true });
    expect(plan).toMatchObject({ uri: 'ctx://resources/handbook/', removed: false });
    expect(plan.files).toBe(3);
    expect(plan.nodes).toBeGreaterThan(plan.files);
    expect(existsSync(join(workspace, 'resources/handbook'))).toBe(true);

    const before = await e.call('search:query', { query: 'storm review uplink', uriPrefix: 'ctx://resources/handbook/' });
    expect(before.hits.length).toBeGreaterThan(0);
    const done = await e.call('fs:rm', { uri: 'ctx://resources/handbook/' });
    expect(done).toEqual({ ...plan, removed: true });
    expect(existsSync(join(workspace, 'resources/handbook'))).toBe(false);
    const after = await e.call('search:query', { query: 'storm review uplink', uriPrefix: 'ctx://resources/handbook/' });
    expect(after.hits).toEqual([]);
    expect((await e.call('ingest:recent', {})).items.map((i) => i.root)).toEqual(['ctx://resources/sample/']);
    await close();
    const ids = await indexIds();
    expect(ids.some((id) => id.startsWith('ctx://resources/handbook/'))).toBe(false);
    expect(ids.some((id) => id.startsWith('ctx://resources/sample/'))).toBe(true);
  });

  it('removes one node inside a tree and queues the tree so its summaries are made again', async () => {
    const e = engine!;
    const done = await e.call('fs:rm', { uri: 'ctx://resources/sample/docs/operations.md' });
    expect(done.removed).toBe(true);
    expect(done.files).toBe(1);
    const docs = await e.call('fs:stat', { uri: 'ctx://resources/sample/docs/' });
    expect(docs.meta?.summary_status).toBe('owed');
    await close();
    expect(await queued()).toEqual(['ctx://resources/sample/']);
    const ids = await indexIds();
    expect(ids.filter((id) => id.startsWith('ctx://resources/sample/docs/operations.md'))).toEqual([]);
  });

  it('refuses scope roots and long-term memories', async () => {
    await expect(engine!.call('fs:rm', { uri: 'ctx://resources/' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(engine!.call('fs:rm', { uri: 'ctx://resources/nothing-here/' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(engine!.call('fs:rm', { uri: 'ctx://user/memories/preferences/' })).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('cairn memories forget') });
    await expect(engine!.call('fs:mv', { from: 'ctx://resources/handbook/', to: 'ctx://session/handbook/' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});

describe('fs:mv', () => {
  it('renames a tree; its records move to the new URIs and are found there', async () => {
    const e = engine!;
    const moved = await e.call('fs:mv', { from: 'ctx://resources/handbook/', to: 'ctx://resources/manual/' });
    expect(moved).toMatchObject({ from: 'ctx://resources/handbook/', to: 'ctx://resources/manual/' });
    expect(moved.records).toBeGreaterThan(0);
    expect(existsSync(join(workspace, 'resources/handbook'))).toBe(false);
    const meta = JSON.parse(await readFile(join(workspace, 'resources/manual/.meta.json'), 'utf8'));
    expect(meta.uri).toBe('ctx://resources/manual/');
    const hits = (await e.call('search:query', { query: 'storm review uplink' })).hits.map((h) => h.uri);
    expect(hits.some((uri) => uri.startsWith('ctx://resources/manual/'))).toBe(true);
    expect(hits.some((uri) => uri.startsWith('ctx://resources/handbook/'))).toBe(false);
    // A node's level reads under the new URI.
    expect((await e.call('fs:read', { uri: 'ctx://resources/manual/', level: 0 })).content.length).toBeGreaterThan(0);
    await close();
    const ids = await indexIds();
    expect(ids.some((id) => id.startsWith('ctx://resources/handbook/'))).toBe(false);
    expect(ids.filter((id) => id.startsWith('ctx://resources/manual/')).length).toBe(moved.records);
  });

  it('refuses a target that exists and a move into itself', async () => {
    await expect(engine!.call('fs:mv', { from: 'ctx://resources/handbook/', to: 'ctx://resources/sample/' })).rejects.toMatchObject({ code: 'ALREADY_EXISTS' });
    await expect(engine!.call('fs:mv', { from: 'ctx://resources/handbook/', to: 'ctx://resources/handbook/inner/' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('a move interrupted after the rename is finished by the next operation', async () => {
    await close();
    // The index fails the move's first write of new records: the files are renamed, the records are not.
    const real = lazySearchIndex(workspace, { idleOptimizeMs: 0 });
    let failing = true;
    const flaky: EngineIndex = {
      ...real,
      upsert: async (records) => {
        if (failing && records.some((r) => r.uri.startsWith('ctx://resources/manual/'))) throw new Error('simulated crash');
        return real.upsert(records);
      },
      removeUnder: (uri) => real.removeUnder(uri),
      search: real.search!.bind(real),
      close: () => real.close!(),
    };
    const e = await open(flaky);
    await expect(e.call('fs:mv', { from: 'ctx://resources/handbook/', to: 'ctx://resources/manual/' })).rejects.toThrow();
    expect(existsSync(join(workspace, 'resources/manual'))).toBe(true);
    expect(await readdir(join(workspace, '.cairn/manage'))).toHaveLength(1);
    failing = false;
    await close();

    const next = await open();
    // The next operation (here a dry run does not count; a real one does) first finishes the move.
    await next.call('fs:rm', { uri: 'ctx://resources/sample/README.md' });
    expect(await readdir(join(workspace, '.cairn/manage'))).toEqual([]);
    const hits = (await next.call('search:query', { query: 'storm review uplink' })).hits.map((h) => h.uri);
    expect(hits.some((uri) => uri.startsWith('ctx://resources/manual/'))).toBe(true);
    await close();
    const ids = await indexIds();
    expect(ids.some((id) => id.startsWith('ctx://resources/handbook/'))).toBe(false);
    expect(ids.some((id) => id.startsWith('ctx://resources/manual/'))).toBe(true);
  });
});
