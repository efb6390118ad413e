/**
 * A run that dies after moving a parsed file into place but before its records reach the index
 * journal (the crash soak found one such record missing): the next run of the same ingest finds
 * the file unchanged, and must still hand its records to the index.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine } from '../../main/engine/engine.js';
import { inProcessParseRunner } from '../../main/engine/parse/runner.js';
import type { ContextIndex } from '../../main/engine/ports/context-index.js';
import { rebuildIndex } from '../../main/engine/index/rebuild.js';
import { ContextFS } from '../../main/engine/tree/context-fs.js';

const SAMPLE = join(import.meta.dirname, '../../assets/sample');
let workspace: string;

beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'cairn-resume-index-'));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

describe('resuming an ingest', () => {
  it('indexes again what a killed run moved into place but never journaled', async () => {
    // The journal cannot be written (a file where its folder should be): the first file moved
    // into place fails its index write, as if the process died right after the move.
    await mkdir(join(workspace, '.cairn'), { recursive: true });
    await writeFile(join(workspace, '.cairn/index-journal'), 'not a folder');
    const nothing: ContextIndex = { async upsert() {}, async removeUnder() {} };
    const first = await createEngine({ workspace, parser: inProcessParseRunner(), index: nothing });
    await expect(first.call('ingest:start', { path: SAMPLE, summarize: false })).rejects.toThrow();
    await first.dispose().catch(() => undefined);
    await rm(join(workspace, '.cairn/index-journal'), { force: true });

    const written = new Set<string>();
    const recording: ContextIndex = {
      async upsert(records) {
        for (const r of records) written.add(r.id);
      },
      async removeUnder() {},
    };
    const second = await createEngine({ workspace, parser: inProcessParseRunner(), index: recording });
    await second.call('ingest:start', { path: SAMPLE, summarize: false });
    await second.dispose();
    // Every leaf of the tree reached the index, the ones the first run moved included.
    const wanted = new Set<string>();
    await rebuildIndex(await ContextFS.open(workspace), { upsert: async (records) => records.forEach((r) => r.level === 2 && wanted.add(r.id)), removeUnder: async () => {} });
    expect(wanted.size).toBeGreaterThan(5);
    expect([...wanted].filter((id) => !written.has(id))).toEqual([]);

    // A later ingest of the unchanged folder (a new job) writes nothing again.
    written.clear();
    const third = await createEngine({ workspace, parser: inProcessParseRunner(), index: recording });
    await third.call('ingest:start', { path: SAMPLE, summarize: false });
    await third.dispose();
    expect([...written]).toEqual([]);
  });
});
