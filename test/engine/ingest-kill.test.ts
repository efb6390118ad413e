/**
 * kill -9 in the middle of a real ingest (the built CLI in a child process), several times, then
 * a run to the end: the tree must equal the one a clean ingest builds, with nothing lost,
 * nothing duplicated and nothing left in staging; the search index must hold exactly the
 * records the tree gives (records buffered by a killed process are replayed from the journal).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine } from '../../main/engine/engine.js';
import { inProcessParseRunner } from '../../main/engine/parse/runner.js';
// The reliability suite's helpers: the same seeded tree, snapshots and index check, and a private
// copy of the built CLI (a rebuild by another run cannot swap its chunks under a killed one).
import { buildCli, generateTree, indexVersusTree, runCli, snapshot } from '../reliability/support.js';
import { prng } from '../support/prng.js';

let tmp: string;
let source: string;

beforeAll(async () => {
  buildCli();
  tmp = await mkdtemp(join(tmpdir(), 'cairn-kill-'));
  source = join(tmp, 'field-notes');
  await generateTree(source, 1200, prng(42), { sections: 6, sentences: 60 });
}, 120_000);
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('ingest survives kill -9', () => {
  it('resumes after repeated kills and ends with exactly the tree a clean run builds', async () => {
    const reference = join(tmp, 'ws-reference');
    const engine = await createEngine({ workspace: reference, parser: inProcessParseRunner() });
    await engine.call('ingest:start', { path: source });
    await engine.call('summarize:run', {});
    await engine.dispose();
    const expected = await snapshot(reference);
    expect(expected.size).toBeGreaterThan(2400);

    const workspace = join(tmp, 'ws-killed');
    const random = prng(7);
    let killed = 0;
    for (let trial = 0; trial < 5; trial++) {
      const delay = 250 + Math.floor(random() * 2500);
      const run = await runCli(['ingest', source, '--workspace', workspace, '--workers', '2', '--json'], { killAfterMs: delay });
      if (run.signal === 'SIGKILL') killed += 1;
      else expect(run.code, run.stderr).toBe(0);
    }
    expect(killed).toBeGreaterThan(0);

    const final = await runCli(['ingest', source, '--workspace', workspace, '--workers', '2', '--json']);
    expect(final.code, final.stderr).toBe(0);
    const result = JSON.parse(final.stdout);
    expect(result.root).toBe('ctx://resources/field-notes/');

    const actual = await snapshot(workspace);
    expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [path, text] of expected) expect(actual.get(path), path).toBe(text);
    expect(existsSync(join(workspace, 'temp')) ? await readdir(join(workspace, 'temp')) : []).toEqual([]);
    expect((await readdir(join(workspace, '.cairn/jobs'))).filter((n) => n.endsWith('.json'))).toEqual([]);
    // The queue holds the root once, finished: no message was lost or duplicated by the kills.
    const { Outbox } = await import('../../main/engine/queue/outbox.js');
    const queue = await Outbox.open(join(workspace, '.cairn/queue'));
    const messages = queue.list();
    await queue.close();
    expect(messages.map((m) => [m.uri, m.status])).toEqual([['ctx://resources/field-notes/', 'completed']]);

    // The index agrees with ContextFS: every record the tree gives, once, and nothing else.
    const { wanted, ids } = await indexVersusTree(workspace);
    expect(ids.length).toBe(new Set(ids).size);
    expect(new Set(ids)).toEqual(wanted);
    expect(existsSync(join(workspace, '.cairn/index-journal')) ? await readdir(join(workspace, '.cairn/index-journal')) : []).toEqual([]);
  }, 420_000);
});
