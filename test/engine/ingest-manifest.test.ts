/**
 * The manifest an ingest leaves (main/engine/ingest/manifest.ts) lets the next ingest of an
 * unchanged tree skip every file's meta read and head sniff. These tests hold it to the same
 * answers the meta reads gave: nodes removed, corrupted or swapped for links since are seen.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, readFile, rename, rm, symlink, unlink, utimes, writeFile, stat, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine, type Engine } from '../../main/engine/engine.js';
import { inProcessParseRunner } from '../../main/engine/parse/runner.js';

let tmp: string;
let workspace: string;
let source: string;
let engine: Engine;

beforeEach(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'cairn-manifest-'));
  workspace = join(tmp, 'ws');
  source = join(tmp, 'notes');
  await mkdir(join(source, 'sub'), { recursive: true });
  await writeFile(join(source, 'a.md'), '# Alpha\n\nThe alpha note talks about tides.\n');
  await writeFile(join(source, 'sub', 'b.md'), '# Beta\n\nThe beta note talks about winds.\n');
  await writeFile(join(source, 'sub', 'c.go'), 'package sub\n\n// Gamma returns three.\nfunc Gamma() int { return 3 }\n');
  engine = await createEngine({ workspace, parser: inProcessParseRunner() });
});
afterEach(async () => {
  await engine.dispose();
  await rm(tmp, { recursive: true, force: true });
});

const ingest = () => engine.call('ingest:start', { path: source });
const nodePath = (rel: string) => join(workspace, 'resources', 'notes', rel);

describe('the ingest manifest', () => {
  it('is written by an ingest, and an unchanged re-ingest finds every file unchanged', async () => {
    await ingest();
    expect(await readdir(join(workspace, '.cairn', 'manifests'))).toHaveLength(1);
    const again = await ingest();
    expect(again).toMatchObject({ files: 3, changed: 0, removed: 0 });
    expect((await engine.call('fs:read', { uri: 'ctx://resources/notes/sub/c.go', level: 2 })).content).toContain('func Gamma');
  });

  it('trusts size and mtime as the metas did: a file turned binary behind the same size and mtime is not sniffed again', async () => {
    const path = join(source, 'sub', 'b.md');
    const when = 1_700_000_000; // whole seconds: utimes cannot set back a nanosecond mtime
    await utimes(path, when, when);
    await ingest();
    const bytes = Buffer.from(await readFile(path));
    bytes.fill(0, 0, 16);
    await writeFile(path, bytes);
    await utimes(path, when, when);
    expect((await stat(path)).mtimeMs).toBe(when * 1000);
    const again = await ingest();
    expect(again.skipped.map((s) => s.path)).not.toContain('sub/b.md');
    expect(again.changed).toBe(0);
  });

  it('puts back a node removed from the workspace by hand', async () => {
    await ingest();
    await unlink(nodePath('sub/b.md'));
    const again = await ingest();
    expect(again.changed).toBeGreaterThan(0);
    expect((await engine.call('fs:read', { uri: 'ctx://resources/notes/sub/b.md', level: 2 })).content).toContain('winds');
  });

  it('rewrites a meta corrupted by hand, as a meta read would', async () => {
    await ingest();
    await writeFile(nodePath('a.md.meta.json'), '{ not json');
    const again = await ingest();
    expect(again.changed).toBeGreaterThan(0);
    expect((await engine.fs.readMeta('ctx://resources/notes/a.md'))?.source_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('still refuses a folder of the tree swapped for a link that leads outside the workspace', async () => {
    await ingest();
    // The folder moved out whole (its files keep their inodes and times) and linked back.
    const outside = join(tmp, 'outside-sub');
    await rename(nodePath('sub'), outside);
    await symlink(outside, nodePath('sub'));
    await expect(ingest()).rejects.toMatchObject({ code: 'PATH_ESCAPE' });
    // Nothing was written through the link.
    expect(await readdir(outside)).not.toContain('.cairn-tmp');
  });
});
