/**
 * The bad-input corpus (issue 10): binary files named as text, a file over the size limit, broken
 * and foreign encodings, empty files, corrupt, truncated and encrypted PDFs, pathological
 * Markdown and HTML, unparsable code, odd file names, symlink loops, dangling and outside links,
 * a 120-folder-deep tree. The built CLI ingests it with two parse workers: it must finish, keep
 * every good file, and name every skipped file with its reason.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeBadCorpus, type Expectation } from '../reliability/bad-corpus.js';

const ROOT = join(import.meta.dirname, '../..');
const CLI = join(ROOT, 'dist-main/cli.js');
const MAX_FILE_BYTES = 2 * 1024 * 1024;
let tmp: string;
let corpus: string;
let expectations: Expectation[];
let result: { files: number; skipped: Array<{ path: string; reason: string; detail?: string }> };
let stderr: string;

/** Source files that became nodes: every meta file names its source. */
async function sourcesInTree(dir: string): Promise<Set<string>> {
  const found = new Set<string>();
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.json') || !entry.name.includes('meta')) continue;
    const meta = JSON.parse(await readFile(join(entry.parentPath, entry.name), 'utf8')) as { source_path?: string };
    if (meta.source_path) found.add(meta.source_path);
  }
  return found;
}

beforeAll(async () => {
  execFileSync(process.execPath, [join(ROOT, 'scripts/build-main.mjs')], { cwd: ROOT });
  tmp = await mkdtemp(join(tmpdir(), 'cairn-bad-'));
  corpus = join(tmp, 'corpus');
  expectations = await writeBadCorpus(corpus, { maxFileBytes: MAX_FILE_BYTES });
  const run = spawnSync(process.execPath, [CLI, 'ingest', corpus, '--workspace', join(tmp, 'ws'), '--workers', '2', '--max-file-size', String(MAX_FILE_BYTES), '--json'], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  stderr = run.stderr;
  expect(run.status, run.stderr).toBe(0);
  result = JSON.parse(run.stdout);
}, 240_000);
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('the bad-input corpus', () => {
  it('skips each bad file with its reason and a detail that names what was wrong', () => {
    for (const e of expectations.filter((x) => x.outcome !== 'kept')) {
      const skip = result.skipped.find((s) => s.path === e.path);
      expect(skip, `${e.path} (${e.what}) must be skipped as ${e.outcome}`).toBeDefined();
      expect(skip!.reason, e.path).toBe(e.outcome);
      expect(skip!.detail, e.path).toBeTruthy();
    }
  });

  it('keeps every good or merely odd file as a node, and skips nothing else', async () => {
    const kept = expectations.filter((x) => x.outcome === 'kept');
    const sources = await sourcesInTree(join(tmp, 'ws', 'resources'));
    for (const e of kept) expect(sources.has(join(corpus, e.path)), `${e.path} (${e.what}) must be kept`).toBe(true);
    const expectedSkips = new Set(expectations.filter((x) => x.outcome !== 'kept').map((x) => x.path));
    expect(result.skipped.filter((s) => !expectedSkips.has(s.path))).toEqual([]);
    expect(result.files).toBe(kept.length);
  });

  it('names each parse failure on stderr with the file, never crashing a worker', () => {
    expect(stderr).not.toMatch(/WORKER_CRASHED|Unhandled|TypeError/);
  });
});
