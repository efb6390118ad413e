/**
 * Concurrency (issue 10), with the built CLI in child processes on one workspace:
 * - searches while an ingest runs answer, with hits, and no error;
 * - two ingests started together: the workspace's outbox lock (main/engine/queue/lock-file.ts)
 *   lets one process own the queue, so the other either finishes too or stops with LOCKED; after
 *   a last run the workspace is exactly what a clean run builds;
 * - exports while an ingest runs: every exported node is complete (a file with its content and
 *   meta as they end up, a directory summary only once it is final), nothing from staging.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Outbox } from '../../main/engine/queue/outbox.js';
import { buildCli, envInt, generateTree, indexVersusTree, runCli, snapshot, writeFigures, type CliRun } from './support.js';
import { prng } from '../support/prng.js';

const SMALL = envInt('CAIRN_CONC_SMALL_FILES', 60);
const LARGE = envInt('CAIRN_CONC_FILES', 300);

let tmp: string;
let small: string;
let large: string;
const figures: Record<string, unknown> = {};

interface ExportedNode {
  uri: string;
  kind: 'dir' | 'file';
  content?: string;
  abstract?: string;
  overview?: string;
  meta?: Record<string, unknown>;
}

function errorCode(run: CliRun): string | undefined {
  try {
    return (JSON.parse(run.stdout) as { error?: { code: string } }).error?.code;
  } catch {
    return undefined;
  }
}

/** A workspace with the small tree ingested and summarized. */
async function seeded(name: string): Promise<string> {
  const workspace = join(tmp, name);
  const run = await runCli(['ingest', small, '--workspace', workspace, '--workers', '1', '--json', '--no-progress']);
  expect(run.code, run.stderr).toBe(0);
  return workspace;
}

/** Runs `during` over and over while `background` runs, and once more if it never got to. */
async function whileRunning<T>(background: Promise<CliRun>, during: (i: number) => Promise<T>): Promise<{ bg: CliRun; results: T[] }> {
  let done = false;
  const finished = background.then((run) => {
    done = true;
    return run;
  });
  const results: T[] = [];
  while (!done) results.push(await during(results.length));
  return { bg: await finished, results };
}

beforeAll(async () => {
  buildCli();
  tmp = await mkdtemp(join(tmpdir(), 'cairn-concurrency-'));
  small = join(tmp, 'harbour');
  large = join(tmp, 'field-notes');
  await generateTree(small, SMALL, prng(3));
  await generateTree(large, LARGE, prng(4));
}, 240_000);
afterAll(async () => {
  await writeFigures('concurrency', figures);
  await rm(tmp, { recursive: true, force: true });
});

describe('concurrency on one workspace', () => {
  it('answers searches while an ingest runs', async () => {
    const workspace = await seeded('ws-search');
    const ingest = runCli(['ingest', large, '--workspace', workspace, '--workers', '1', '--json', '--no-progress']);
    const { bg, results } = await whileRunning(ingest, () => runCli(['search', 'harbour gauge reading', '--workspace', workspace, '--json', '--top-k', '5']));
    expect(bg.code, bg.stderr).toBe(0);
    expect(results.length).toBeGreaterThan(1);
    for (const search of results) {
      expect(search.code, search.stdout + search.stderr).toBe(0);
      expect((JSON.parse(search.stdout) as { hits: unknown[] }).hits.length).toBeGreaterThan(0);
    }
    figures.search_during_ingest = { searches: results.length, errors: 0, ingest_ms: bg.ms, search_ms_max: Math.max(...results.map((r) => r.ms)) };
  }, 600_000);

  it('two ingests at once: the second finishes consistently or is refused with LOCKED, and the workspace ends exact', async () => {
    const reference = join(tmp, 'ws-reference');
    const clean = await runCli(['ingest', large, '--workspace', reference, '--workers', '1', '--json', '--no-progress']);
    expect(clean.code, clean.stderr).toBe(0);
    const expected = await snapshot(reference);

    const workspace = join(tmp, 'ws-twice');
    const args = ['ingest', large, '--workspace', workspace, '--workers', '1', '--json', '--no-progress'];
    const both = await Promise.all([runCli(args), runCli(args)]);
    const outcomes = both.map((run) => (run.code === 0 ? 'finished' : (errorCode(run) ?? `exit ${run.code}: ${run.stderr.slice(-300)}`)));
    for (const outcome of outcomes) expect(['finished', 'LOCKED']).toContain(outcome);
    expect(outcomes).toContain('finished');

    // Whatever happened, one more run leaves exactly the clean run's workspace.
    const last = await runCli(args);
    expect(last.code, last.stderr).toBe(0);
    const actual = await snapshot(workspace);
    expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [path, text] of expected) expect(actual.get(path), path).toBe(text);
    const queue = await Outbox.open(join(workspace, '.cairn/queue'));
    const messages = queue.list();
    await queue.close();
    expect(messages.map((m) => [m.uri, m.status])).toEqual([['ctx://resources/field-notes/', 'completed']]);
    const { wanted, ids } = await indexVersusTree(workspace);
    expect(ids.length).toBe(new Set(ids).size);
    expect(new Set(ids)).toEqual(wanted);
    figures.two_ingests = { outcomes, contextfs_files: expected.size, index_records: ids.length };
  }, 600_000);

  it('exports while an ingest runs: every exported node is complete', async () => {
    const workspace = await seeded('ws-export');
    const ingest = runCli(['ingest', large, '--workspace', workspace, '--workers', '1', '--json', '--no-progress']);
    const { bg, results } = await whileRunning(ingest, async (i) => {
      const out = join(tmp, `export-${i}.json`);
      const run = await runCli(['export', '--format', 'json', '--out', out, '--workspace', workspace, '--json']);
      return { run, out };
    });
    expect(bg.code, bg.stderr).toBe(0);
    expect(results.length).toBeGreaterThan(1);

    // The final state, to compare each export with.
    const finalOut = join(tmp, 'export-final.json');
    const finalRun = await runCli(['export', '--format', 'json', '--out', finalOut, '--workspace', workspace, '--json']);
    expect(finalRun.code, finalRun.stderr).toBe(0);
    const read = async (path: string) => (JSON.parse(await readFile(path, 'utf8')) as { nodes: ExportedNode[] }).nodes;
    // A meta compared without its timestamps, keys sorted; a summary still owed (the summarizer had
    // not reached the node yet) leaves its summary fields out, a done one must be the final one.
    const stable = (meta: Record<string, unknown> | undefined, owed: boolean) => {
      const copy: Record<string, unknown> = { ...meta, created_at: null, updated_at: null, content_updated_at: null };
      if (owed) for (const key of ['abstract', 'overview', 'summary_status', 'summary_reason']) delete copy[key];
      return JSON.stringify(Object.fromEntries(Object.entries(copy).sort(([a], [b]) => (a < b ? -1 : 1))));
    };
    const final = new Map((await read(finalOut)).map((n) => [n.uri, n]));

    let nodesChecked = 0;
    let owedNodes = 0;
    const failures: Record<string, number> = {};
    for (const { run, out } of results) {
      if (run.code !== 0) {
        const code = errorCode(run) ?? 'crash';
        failures[code] = (failures[code] ?? 0) + 1;
        expect.soft(run.code, `export failed during the ingest: ${run.stdout}${run.stderr.slice(-400)}`).toBe(0);
        continue;
      }
      for (const node of await read(out)) {
        nodesChecked += 1;
        expect(node.uri.startsWith('ctx://temp/'), node.uri).toBe(false);
        const last = final.get(node.uri);
        expect(last, `${node.uri} was exported but is not in the finished tree`).toBeDefined();
        if (node.kind === 'file') {
          expect(node.content, node.uri).toBe(last!.content);
          const owed = node.meta?.summary_status !== 'done';
          if (owed) {
            expect(node.meta?.summary_status, node.uri).toBe('owed');
            owedNodes += 1;
          }
          expect(stable(node.meta, owed), node.uri).toBe(stable(last!.meta, owed));
        } else {
          if (node.abstract !== undefined) expect(node.abstract, node.uri).toBe(last!.abstract);
          if (node.overview !== undefined) expect(node.overview, node.uri).toBe(last!.overview);
        }
      }
    }
    figures.export_during_ingest = { exports: results.length, failed_exports: failures, nodes_checked: nodesChecked, nodes_with_summary_owed: owedNodes, final_nodes: final.size, ingest_ms: bg.ms };
  }, 600_000);
});
