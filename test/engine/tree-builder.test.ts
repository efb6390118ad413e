/**
 * The tree builder on a first ingest: the staged tree goes into place whole (one rename), every
 * listed file reaches the index, and a staged file no longer listed (its source went away after a
 * killed run staged it) leaves neither a node nor a record. A root that exists takes the per-file
 * path, which keeps what is already there.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ContextIndex } from '../../main/engine/ports/context-index.js';
import { silentLogger } from '../../main/engine/ports/logger.js';
import { buildTree, type FileOutcome } from '../../main/engine/tree/tree-builder.js';
import { ContextFS } from '../../main/engine/tree/context-fs.js';
import { sha256 } from '../../main/engine/util/hash.js';

let workspace: string;
let fs: ContextFS;

beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'cairn-tree-builder-'));
  fs = await ContextFS.open(workspace);
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

const NOW = '2026-12-02T00:00:00.000Z';
const ROOT = 'ctx://resources/go/';
const STAGING = 'ctx://temp/job-1/';

/** Stages `relPath` as the parse does: content and meta under the job's folder. */
async function stage(relPath: string, content: string): Promise<FileOutcome> {
  const target = `${ROOT}${relPath}`;
  await fs.writeFile(`${STAGING}${relPath}`, content, {
    uri: target,
    kind: 'file',
    context_type: 'resource',
    source_path: `/src/go/${relPath}`,
    source_hash: sha256(content),
    content_hash: sha256(content),
    tokens: 3,
    created_at: NOW,
    updated_at: NOW,
  });
  return { relPath, target, staging: `${STAGING}${relPath}`, state: 'staged', kind: 'file', sourceHash: sha256(content), bytes: content.length, tokens: 3, nodeCount: 1 };
}

function recordingIndex(): ContextIndex & { written: string[]; removed: string[] } {
  const written: string[] = [];
  const removed: string[] = [];
  return {
    written,
    removed,
    async upsert(records) {
      for (const r of records) written.push(r.id);
    },
    async removeUnder(uri) {
      removed.push(uri);
    },
  };
}

function build(files: FileOutcome[], index: ContextIndex, dirs: string[]) {
  return buildTree({
    fs,
    index,
    logger: silentLogger,
    now: NOW,
    rootUri: ROOT,
    stagingRoot: STAGING,
    sourceIsFile: false,
    source: '/src/go',
    contextType: 'resource',
    files,
    dirs: dirs.map((relPath) => ({ relPath, uri: relPath ? `${ROOT}${relPath}/` : ROOT })),
    skipped: [],
    signal: new AbortController().signal,
    onProgress() {},
  });
}

describe('buildTree', () => {
  it('moves a first ingest into place whole and drops a staged file that is no longer listed', async () => {
    const files = [await stage('net/dial.go', 'package net // dial'), await stage('net/http/server.go', 'package http // serve'), await stage('go.mod', 'module std')];
    await stage('net/gone.go', 'package net // deleted since');
    const index = recordingIndex();

    const result = await build(files, index, ['', 'net', 'net/http', 'empty']);

    expect(result).toMatchObject({ rootUri: ROOT, changed: 3 + 4, removed: 1, needsSummary: true });
    expect((await fs.ls(ROOT)).map((e) => e.uri).sort()).toEqual([`${ROOT}empty/`, `${ROOT}go.mod`, `${ROOT}net/`]);
    expect((await fs.ls(`${ROOT}net/`)).map((e) => e.uri).sort()).toEqual([`${ROOT}net/dial.go`, `${ROOT}net/http/`]);
    expect(await fs.readFileContent(`${ROOT}net/http/server.go`)).toBe('package http // serve');
    expect(index.written.sort()).toEqual(files.map((f) => `${f.target}#2`).sort());
    expect(index.removed).toEqual([`${ROOT}net/gone.go`]);
    expect((await fs.readMeta(ROOT))?.tree_hash).toBeDefined();
    // The job's staging folder went with the move.
    expect(await readdir(join(workspace, 'temp'))).toEqual([]);
  });

  it('moves file by file into a root that exists, keeping its other nodes', async () => {
    const first = [await stage('a.go', 'package a')];
    await build(first, recordingIndex(), ['']);
    const second = [await stage('b.go', 'package b')];
    const unchanged: FileOutcome = { ...(first[0] as FileOutcome), state: 'unchanged' };
    const index = recordingIndex();

    const result = await build([unchanged, ...second], index, ['']);

    expect(result).toMatchObject({ changed: 2, removed: 0 });
    expect((await fs.ls(ROOT)).map((e) => e.uri).sort()).toEqual([`${ROOT}a.go`, `${ROOT}b.go`]);
    expect(index.written).toEqual([`${ROOT}b.go#2`]);
  });
});
