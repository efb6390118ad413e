/**
 * The upload's question (issue 21): an uploaded folder whose name a tree of another source has
 * is asked about (update it, or add a copy); a re-upload, or a tree once updated from this
 * upload, is not: the engine updates it in place. Against a real engine on real files.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine, type Engine } from '../../main/engine/engine.js';
import { inProcessParseRunner } from '../../main/engine/parse/runner.js';
import { uploadClash, type EngineCaller } from '../../renderer/features/upload/clash.js';

let tmp: string;
let engine: Engine;
let client: EngineCaller;

beforeEach(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'cairn-clash-'));
  engine = await createEngine({ workspace: join(tmp, 'ws'), parser: inProcessParseRunner() });
  client = { call: (command, request) => engine.call(command, request) };
});
afterEach(async () => {
  await engine.dispose();
  await rm(tmp, { recursive: true, force: true });
});

describe('an upload whose name is taken', () => {
  it('asks only when the name clashes with another source, and updating makes the upload a source of that tree', async () => {
    const original = join(tmp, 'home', 'git');
    await mkdir(original, { recursive: true });
    await writeFile(join(original, 'a.md'), '# A\n\nA note.\n');
    const upload = join(tmp, 'ws', 'uploads', 'git');
    expect(await uploadClash(client, upload, 'resources')).toBeNull();
    await engine.call('ingest:start', { path: original });
    await cp(original, upload, { recursive: true });
    expect(await uploadClash(client, upload, 'resources')).toBe('ctx://resources/git/');
    // The path ingest itself is no clash with its own tree.
    expect(await uploadClash(client, original, 'resources')).toBeNull();
    // "Update": the upload updates the tree in place and is one of its sources; asked no more.
    expect((await engine.call('ingest:start', { path: upload, options: { onClash: 'update' } })).root).toBe('ctx://resources/git/');
    expect(await uploadClash(client, upload, 'resources')).toBeNull();
    expect((await engine.call('fs:ls', { uri: 'ctx://resources/' })).entries.map((e) => e.name)).toEqual(['git']);
  });
});
