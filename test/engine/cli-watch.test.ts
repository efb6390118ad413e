/**
 * `cairn watch` as a user runs it: the built CLI watching a real folder. The first update
 * ingests and summarizes everything; an edit then re-summarizes only the edited file and its
 * ancestors; a new file and a deletion are followed; Ctrl+C stops it cleanly. With an LLM (the
 * mock OpenAI-compatible server over HTTP), each update is a summary run with its own
 * --token-budget.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdtemp, rm, unlink, writeFile, appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { reply, startMockOpenAI } from '../support/mock-openai-server.js';

const ROOT = join(import.meta.dirname, '../..');
const CLI = join(ROOT, 'dist-main/cli.js');
const SAMPLE = join(ROOT, 'assets/sample');

interface Cycle {
  reason: 'initial' | 'changes';
  paths: string[];
  root: string;
  changed: number;
  removed: number;
  summary: { dirsSummarized: number; dirsReused: number; filesSummarized: number; fallbacks: number; llm_calls: number } | null;
}

let tmp: string;
let child: ChildProcess | null = null;

/** Starts the watcher and returns a function that waits for its next update line. */
function startWatch(folder: string, workspace: string, flags: string[] = []) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(OPENAI_|CAIRN_)/.test(k)));
  child = spawn(process.execPath, [CLI, 'watch', folder, '--workspace', workspace, '--json', '--debounce', '150', ...flags], { env });
  const cycles: Cycle[] = [];
  const waiters: Array<() => void> = [];
  let buffer = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      cycles.push(JSON.parse(buffer.slice(0, nl)) as Cycle);
      buffer = buffer.slice(nl + 1);
      waiters.splice(0).forEach((wake) => wake());
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let seen = 0;
  const next = async (): Promise<Cycle> => {
    const deadline = Date.now() + 90_000;
    while (cycles.length <= seen) {
      if (Date.now() > deadline) throw new Error(`no update from cairn watch; stderr: ${stderr}`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 500);
      });
    }
    return cycles[seen++]!;
  };
  return { next, stderr: () => stderr };
}

beforeAll(() => {
  execFileSync(process.execPath, [join(ROOT, 'scripts/build-main.mjs')], { cwd: ROOT });
}, 120_000);
beforeEach(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'cairn-watch-'));
});
afterEach(async () => {
  child?.kill('SIGKILL');
  child = null;
  await rm(tmp, { recursive: true, force: true });
});

describe('cairn watch', () => {
  it('keeps the tree in step: an edit re-summarizes only its ancestors, additions and deletions follow', async () => {
    const folder = join(tmp, 'field');
    await cp(SAMPLE, folder, { recursive: true });
    const watch = startWatch(folder, join(tmp, 'ws'));

    const initial = await watch.next();
    expect(initial).toMatchObject({ reason: 'initial', root: 'ctx://resources/field/' });
    expect(initial.summary!.dirsSummarized).toBeGreaterThanOrEqual(4);

    // notes/ sits directly under the root: notes/ and the root are summarized again; the file
    // itself got its new L0/L1 offline when it was parsed (summarize/ingest-file-summaries.ts).
    await appendFile(join(folder, 'notes/2024-05-08-storm-review.md'), '\n## Follow-up\n\nThe spare mast arrived on Friday.\n');
    const edit = await watch.next();
    expect(edit.reason).toBe('changes');
    expect(edit.paths).toEqual(['notes/2024-05-08-storm-review.md']);
    expect(edit.summary).toMatchObject({ dirsSummarized: 2, filesSummarized: 0 });
    expect(edit.summary!.dirsReused).toBeGreaterThan(0);

    await writeFile(join(folder, 'docs/wind.md'), '# Wind\n\nGusts above 40 knots stop the crane.\n');
    const added = await watch.next();
    expect(added.paths).toEqual(['docs/wind.md']);
    expect(added.changed).toBeGreaterThan(0);

    await unlink(join(folder, 'docs/wind.md'));
    const removed = await watch.next();
    expect(removed.removed).toBe(1);

    child!.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child!.once('exit', (c) => resolve(c)));
    expect(code, watch.stderr()).toBe(0);
  }, 240_000);

  it('gives each update the whole --token-budget: a run that spent it does not starve the next', async () => {
    const server = await startMockOpenAI();
    // Every answer bills the whole budget: in each run the calls that fit before the first
    // answer settles go out, and the rest fall back with LLM_BUDGET_EXHAUSTED.
    server.handle(() => reply.json({ abstract: 'An abstract that cost a lot.', overview: '# Costly\n\n- overview', categories: ['docs'] }, { usage: { prompt_tokens: 9_000, completion_tokens: 1_000 } }));
    try {
      const folder = join(tmp, 'field');
      await cp(SAMPLE, folder, { recursive: true });
      const watch = startWatch(folder, join(tmp, 'ws'), ['--llm-base-url', server.url, '--llm-model', 'mock-model', '--token-budget', '10000', '--max-concurrent-llm', '1']);

      const initial = await watch.next();
      expect(initial.summary!.llm_calls, watch.stderr()).toBeGreaterThan(0);
      expect(initial.summary!.fallbacks).toBeGreaterThan(0);
      const before = server.chatRequests.length;

      await appendFile(join(folder, 'notes/2024-05-08-storm-review.md'), '\n## Follow-up\n\nThe spare mast arrived on Friday.\n');
      const edit = await watch.next();
      expect(edit.paths).toEqual(['notes/2024-05-08-storm-review.md']);
      // A new run with a new budget: its calls reach the server again.
      expect(edit.summary!.llm_calls, watch.stderr()).toBeGreaterThan(0);
      expect(server.chatRequests.length - before).toBe(edit.summary!.llm_calls);
    } finally {
      await server.close();
    }
  }, 240_000);

  it('refuses a bad --debounce with INVALID_INPUT', async () => {
    const run = spawn(process.execPath, [CLI, 'watch', tmp, '--workspace', join(tmp, 'ws'), '--debounce', 'soon', '--json']);
    let stdout = '';
    run.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const code = await new Promise<number | null>((resolve) => run.once('exit', (c) => resolve(c)));
    expect(code).toBe(2);
    expect(JSON.parse(stdout).error.code).toBe('INVALID_INPUT');
  }, 60_000);
});
