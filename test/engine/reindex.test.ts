/**
 * An index that stays its size (issue 20): a workspace's real LanceDB index after an ingest and
 * any number of rebuilds (`index:rebuild`, what `cairn reindex` runs) holds one version, about
 * the bytes of a fresh copy of its rows, and searches answer the same before and after the
 * replaced versions are removed. A rebuild rewrites rows in place: one that dies midway (an
 * error at a write here, SIGKILL of the CLI below) leaves every node searchable, and the next one
 * repairs the index, removing the records of nodes that are gone but none written beside it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { cp, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { createEngine, type EngineIndex } from '../../main/engine/engine.js';
import { inProcessParseRunner } from '../../main/engine/parse/runner.js';
import { defaultIndexUri, lazySearchIndex } from '../../main/host/open-index.js';
import { openLanceStore } from '../../main/adapters/store/lancedb/index.js';
import { createLocalEmbedder } from '../../main/adapters/embed/local.js';
import { shapeNodeRecords } from '../../main/engine/index/node-records.js';
import { ContextFS } from '../../main/engine/tree/context-fs.js';
import type { SearchMode } from '../../main/engine/index/search-index.js';
import type { NodeMeta } from '../../shared/types/node.js';

const ROOT = join(import.meta.dirname, '../..');
const CLI = join(ROOT, 'dist-main/cli.js');
const DIMS = createLocalEmbedder().dimensions;
let tmp: string;
let workspace: string;

/** The index as the CLI opens it: no idle timer, and closing removes the versions its last optimize replaced. */
const cliIndex = () => lazySearchIndex(workspace, { idleOptimizeMs: 0, cleanupOnClose: true });

async function withEngine<T>(run: (engine: Awaited<ReturnType<typeof createEngine>>) => Promise<T>, index: EngineIndex = cliIndex()): Promise<T> {
  const engine = await createEngine({ workspace, parser: inProcessParseRunner(), index });
  try {
    return await run(engine);
  } finally {
    await engine.dispose();
  }
}

async function folderBytes(dir: string): Promise<number> {
  let bytes = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    bytes += entry.isDirectory() ? await folderBytes(path) : (await stat(path)).size;
  }
  return bytes;
}

async function versionsOf(uri: string): Promise<number> {
  const db = await lancedb.connect(uri);
  const table = await db.openTable('context');
  try {
    return (await table.listVersions()).length;
  } finally {
    table.close();
    db.close();
  }
}

/** Every record of the workspace's index, vectors included, and the bytes of its text. */
async function readIndex() {
  const store = await openLanceStore({ uri: defaultIndexUri(workspace), dimensions: DIMS, idleOptimizeMs: 0 });
  try {
    const records = await store.find({ limit: 100_000, withVectors: true });
    return { records, ids: records.map((r) => r.id).sort(), textBytes: records.reduce((sum, r) => sum + Buffer.byteLength(r.text), 0) };
  } finally {
    await store.close();
  }
}

const metaOf = (uri: string): NodeMeta => ({ uri, kind: 'file', context_type: 'resource', created_at: '2024-05-08T13:56:00.000Z', updated_at: '2024-05-08T13:56:00.000Z' });

/** The bytes of a fresh index holding the same rows, written in one go: what the index needs at least. */
async function freshCopyBytes(): Promise<number> {
  const { records } = await readIndex();
  const uri = join(tmp, `fresh-${Date.now()}`);
  const store = await openLanceStore({ uri, dimensions: DIMS, idleOptimizeMs: 0, cleanupOnClose: true });
  await store.upsert(records.map((r) => ({ ...r, vector: r.vector ?? null })));
  await store.optimize();
  await store.close();
  return folderBytes(uri);
}

const QUERIES: { text: string; mode: SearchMode }[] = [
  { text: 'battery voltage antenna cable', mode: 'hybrid' },
  { text: '电池电压', mode: 'fts' },
  { text: 'uplink retries after the storm', mode: 'vector' },
  { text: 'base server packet windows station', mode: 'hierarchical' },
  { text: 'json encoder decimal', mode: 'hybrid' },
];

async function answers(engine: Awaited<ReturnType<typeof createEngine>>) {
  const out = [];
  for (const query of QUERIES) {
    const { hits } = await engine.call('search:query', { query: query.text, mode: query.mode, topK: 8 });
    out.push(hits.map((hit) => ({ uri: hit.uri, level: hit.level, score: Number(hit.score.toFixed(5)) })));
  }
  return out;
}

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'cairn-reindex-'));
  workspace = join(tmp, 'workspace');
  const source = join(tmp, 'sample');
  await cp(join(ROOT, 'assets/sample'), source, { recursive: true });
  await cp(join(ROOT, 'test/fixtures/docs'), join(source, 'docs-fixtures'), { recursive: true });
  await withEngine(async (engine) => {
    await engine.call('ingest:start', { path: source });
    await engine.call('summarize:run', {});
  });
}, 180_000);
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('the index after an ingest and rebuilds', () => {
  it('holds one version at about the size of a fresh copy of its rows, however many rebuilds run, and answers the same', async () => {
    const index = defaultIndexUri(workspace);
    const ingested = await readIndex();
    expect(ingested.records.length).toBeGreaterThan(100);
    expect(await versionsOf(index)).toBe(1);
    const fresh = await freshCopyBytes();
    const afterIngest = await folderBytes(index);
    expect(afterIngest).toBeLessThanOrEqual(2 * fresh);

    // Searched right after the rebuild, while the versions it replaced are still on disk, and again once they are gone.
    const beforeCleanup = await withEngine(async (engine) => {
      const { records } = await engine.call('index:rebuild', {});
      expect(records).toBe(ingested.records.length);
      expect(await versionsOf(index)).toBeGreaterThan(1);
      return answers(engine);
    });
    expect(beforeCleanup.flat().length).toBeGreaterThan(20);
    const sizes = [await folderBytes(index)];
    expect(await withEngine(answers)).toEqual(beforeCleanup);

    for (let run = 2; run <= 3; run += 1) {
      await withEngine((engine) => engine.call('index:rebuild', {}));
      sizes.push(await folderBytes(index));
      expect(await versionsOf(index)).toBe(1);
    }
    // A rebuild writes what was there: the size stays, give or take the full-text index's segments.
    for (const size of sizes) expect(size).toBeLessThanOrEqual(sizes[0]! * 1.05);
    expect(sizes[2]!).toBeLessThanOrEqual(2 * fresh);
    expect((await readIndex()).ids).toEqual(ingested.ids);
    expect(await withEngine(answers)).toEqual(beforeCleanup);
  }, 180_000);

  it('after a rebuild that died midway every node is still there, and the next rebuild repairs the index', async () => {
    const { ids } = await readIndex();
    const fs = await ContextFS.open(workspace);
    // Damage to repair: one node's records lost, and records of a node that no longer exists.
    const lost = ids.filter((id) => id.startsWith('ctx://resources/sample/notes/'));
    expect(lost.length).toBeGreaterThan(0);
    const gone = shapeNodeRecords('ctx://resources/sample/gone.md', metaOf('ctx://resources/sample/gone.md'), { content: 'a zebracorn note that was deleted' });
    const damage = cliIndex();
    await damage.removeRecords(lost);
    await damage.upsert(gone);
    await damage.close!();

    // The second write of the rebuild fails, as if the process had died there.
    const real = cliIndex();
    let writes = 0;
    const dying: EngineIndex = {
      ...real,
      async upsert(records) {
        writes += 1;
        if (writes === 2) throw new Error('the process died here');
        await real.upsert(records);
      },
    };
    await expect(withEngine((engine) => engine.call('index:rebuild', {}), dying)).rejects.toThrow(/died here/);
    expect(writes).toBe(2);
    const midway = await readIndex();
    // Nothing that was indexed went missing: every node written before the rebuild still answers.
    for (const id of ids.filter((id) => !lost.includes(id))) expect(midway.ids).toContain(id);
    const hits = await withEngine(async (engine) => (await engine.call('search:query', { query: 'battery voltage', mode: 'fts' })).hits);
    expect(hits.length).toBeGreaterThan(0);

    // A node written beside the next rebuild (an ingest at the same moment) keeps its records.
    const beside = 'ctx://resources/sample/beside.md';
    const besideRecords = async () => {
      await fs.writeFile(beside, 'written while the rebuild ran', metaOf(beside));
      return shapeNodeRecords(beside, metaOf(beside), { content: 'written while the rebuild ran' });
    };
    const repairing = cliIndex();
    const withWriterBeside: EngineIndex = {
      ...repairing,
      async recordIds() {
        // The rebuild has walked the tree: the new node lands after its walk, before its sweep.
        await repairing.upsert(await besideRecords());
        return repairing.recordIds!();
      },
    };
    await withEngine((engine) => engine.call('index:rebuild', {}), withWriterBeside);
    const repaired = await readIndex();
    expect(repaired.ids).toEqual([...ids, `${beside}#2`].sort());
    expect(await versionsOf(defaultIndexUri(workspace))).toBe(1);

    await fs.rm(beside);
    await withEngine((engine) => engine.call('index:rebuild', {}));
    expect((await readIndex()).ids).toEqual(ids);
  }, 180_000);

  it('a reindex killed with SIGKILL leaves a whole, searchable index, and the next one repairs it', async () => {
    if (!existsSync(CLI)) spawnSync(process.execPath, [join(ROOT, 'scripts/build-main.mjs')], { cwd: ROOT });
    const { ids } = await readIndex();
    const versionsDir = join(defaultIndexUri(workspace), 'context.lance', '_versions');
    const manifests = async () => (await readdir(versionsDir)).filter((name) => name.endsWith('.manifest')).length;
    const baseline = await manifests();
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.CAIRN_EMBED_MODEL;
    delete env.CAIRN_INDEX_URI;
    const child = spawn(process.execPath, [CLI, 'reindex', '--workspace', workspace, '--json'], { env, stdio: 'ignore' });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    // Killed at its first commit: the rows it rewrote are in, the rest as they were, nothing swept or cleaned.
    while ((await manifests()) <= baseline && child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 5));
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    const killed = await readIndex();
    for (const id of ids) expect(killed.ids).toContain(id);
    const hits = await withEngine(async (engine) => (await engine.call('search:query', { query: '电池电压', mode: 'fts' })).hits);
    expect(hits.length).toBeGreaterThan(0);

    const again = spawnSync(process.execPath, [CLI, 'reindex', '--workspace', workspace, '--json'], { env, encoding: 'utf8' });
    expect(again.status, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).records).toBe(ids.length);
    expect((await readIndex()).ids).toEqual(ids);
    expect(await versionsOf(defaultIndexUri(workspace))).toBe(1);
  }, 180_000);
});
