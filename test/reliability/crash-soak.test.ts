/**
 * Crash soak (issue 10): the built CLI ingests a generated tree and is killed with SIGKILL at
 * seeded random moments, during the ingest (scan, parse, build) and during the summarization
 * that follows it. After each chain of kills a run goes to the end, and the workspace must be
 * exactly what a clean run builds: the same ContextFS files, an index holding each record the
 * tree gives once and nothing else, no staging or job files, and the root once in the outbox,
 * completed. Which phase each kill hit is read from the workspace it left behind.
 *
 * Full size by default (1,000 files, 20 kills); CAIRN_SOAK_FILES / CAIRN_SOAK_TRIALS shrink it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Outbox } from '../../main/engine/queue/outbox.js';
import { buildCli, entries, envInt, generateTree, indexVersusTree, runCli, snapshot, writeFigures } from './support.js';
import { prng } from '../support/prng.js';

const FILES = envInt('CAIRN_SOAK_FILES', 1000);
const TRIALS = envInt('CAIRN_SOAK_TRIALS', 20);
/** Kills in a row on one workspace before a run is let finish and the workspace is checked. */
const KILLS_PER_CHAIN = envInt('CAIRN_SOAK_KILLS_PER_CHAIN', 4);
const ROOT_URI = 'ctx://resources/field-notes/';

let tmp: string;
let source: string;

type Phase = 'ingest' | 'summarize' | 'finished';

/** Which phase a killed run was in, from what it left: job files mean the ingest had not ended. */
async function phaseLeft(workspace: string): Promise<Phase> {
  const jobs = (await entries(join(workspace, '.cairn/jobs'))).filter((n) => n.endsWith('.json'));
  if (jobs.length > 0) return 'ingest';
  if ((await entries(join(workspace, '.cairn/queue'))).length === 0) return 'ingest';
  const queue = await Outbox.open(join(workspace, '.cairn/queue'));
  const root = queue.list().find((m) => m.uri === ROOT_URI);
  await queue.close();
  if (!root) return 'ingest';
  return root.status === 'completed' ? 'finished' : 'summarize';
}

/** True while a run summarizes: the ingest finished (no job file) and the root is in the queue journal. */
function inSummarization(workspace: string): boolean {
  const jobs = join(workspace, '.cairn/jobs');
  if (existsSync(jobs) && readdirSync(jobs).some((n) => n.endsWith('.json'))) return false;
  return existsSync(join(workspace, '.cairn/queue/journal.jsonl'));
}

beforeAll(async () => {
  buildCli();
  tmp = await mkdtemp(join(tmpdir(), 'cairn-soak-'));
  source = join(tmp, 'field-notes');
  await generateTree(source, FILES, prng(42));
}, 240_000);
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('crash soak: kill -9 during ingest and summarization', () => {
  it(`survives ${TRIALS} kills on a ${FILES}-file tree with nothing lost, duplicated or left behind`, async () => {
    const started = performance.now();
    const args = (workspace: string) => ['ingest', source, '--workspace', workspace, '--workers', '2', '--json', '--no-progress'];

    // The clean run: the reference tree, and the timings that place the kills.
    const reference = join(tmp, 'ws-reference');
    const clean = await runCli(args(reference));
    expect(clean.code, clean.stderr).toBe(0);
    const cleanResult = JSON.parse(clean.stdout) as { ms: number; summary: { ms: number } };
    const expected = await snapshot(reference);
    expect(expected.size).toBeGreaterThan(FILES);
    // The ingest's window in the clean run, start-up included.
    const ingestEnd = clean.ms - cleanResult.summary.ms;

    const random = prng(20261201);
    const kills: { trial: number; aim: Phase; delayMs: number; phase: Phase }[] = [];
    const checks: { workspace: string; kills: number; resumeMs: number }[] = [];
    // Figures after every checked chain, so a run cut short still records the trials it did.
    const record = async (done: boolean) => {
      const byPhase = { ingest: 0, summarize: 0, finished: 0 };
      for (const kill of kills) byPhase[kill.phase] += 1;
      await writeFigures('crash-soak', {
        complete: done,
        files: FILES,
        contextfs_files: expected.size,
        trials: kills.length,
        chains_checked: checks.length,
        kills_by_phase: byPhase,
        clean_run_ms: clean.ms,
        clean_ingest_ms: cleanResult.ms,
        clean_summary_ms: cleanResult.summary.ms,
        kills,
        checks: checks.map((c) => ({ kills: c.kills, resume_ms: c.resumeMs })),
        lost: 0,
        duplicated: 0,
        wall_ms: Math.round(performance.now() - started),
      });
      return byPhase;
    };
    let chain = 0;
    while (kills.length < TRIALS) {
      chain += 1;
      const workspace = join(tmp, `ws-chain-${chain}`);
      let inChain = 0;
      while (inChain < KILLS_PER_CHAIN && kills.length < TRIALS) {
        // Alternate the aim. Ingest kills: a random moment inside the clean run's ingest window.
        // Summarization kills: wait until the ingest has handed the root to the outbox (no job file
        // left, the queue journal written), then a random part of the clean run's summarization.
        const aimSummary = kills.length % 2 === 1;
        let delayMs = Math.round(300 + random() * ingestEnd);
        const extraMs = Math.round(random() * cleanResult.summary.ms * 0.8);
        const t0 = performance.now();
        const run = await runCli(args(workspace), {
          ...(aimSummary ? {} : { killAfterMs: delayMs }),
          onStart: (kill, exited) => {
            if (!aimSummary) return;
            const poll = setInterval(() => {
              if (exited()) return clearInterval(poll);
              if (!inSummarization(workspace)) return;
              clearInterval(poll);
              setTimeout(kill, extraMs);
              delayMs = Math.round(performance.now() - t0 + extraMs);
            }, 50);
          },
        });
        if (run.signal !== 'SIGKILL') {
          // The run finished before the kill: a complete run, checked like the others.
          expect(run.code, run.stderr).toBe(0);
          break;
        }
        kills.push({ trial: kills.length + 1, aim: aimSummary ? 'summarize' : 'ingest', delayMs, phase: await phaseLeft(workspace) });
        inChain += 1;
      }

      const final = await runCli(args(workspace));
      expect(final.code, final.stderr).toBe(0);
      expect(JSON.parse(final.stdout).root).toBe(ROOT_URI);
      checks.push({ workspace, kills: inChain, resumeMs: final.ms });

      // ContextFS: exactly the clean run's files, byte for byte (timestamps aside).
      const actual = await snapshot(workspace);
      expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort());
      for (const [path, text] of expected) expect(actual.get(path), path).toBe(text);
      // Nothing left in staging, no job files, the root once in the outbox and completed.
      expect(await entries(join(workspace, 'temp'))).toEqual([]);
      expect((await entries(join(workspace, '.cairn/jobs'))).filter((n) => n.endsWith('.json'))).toEqual([]);
      const queue = await Outbox.open(join(workspace, '.cairn/queue'));
      const messages = queue.list();
      await queue.close();
      expect(messages.map((m) => [m.uri, m.status])).toEqual([[ROOT_URI, 'completed']]);
      // The index: every record the tree gives, once each, and nothing else.
      const { wanted, ids } = await indexVersusTree(workspace);
      expect(ids.length).toBe(new Set(ids).size);
      expect(new Set(ids)).toEqual(wanted);
      expect(await entries(join(workspace, '.cairn/index-journal'))).toEqual([]);
      await rm(workspace, { recursive: true, force: true });
      await record(false);
    }

    const byPhase = await record(true);
    expect(kills.length).toBe(TRIALS);
    // The soak is only worth its name if both phases were hit (read from the state each kill left).
    expect(byPhase.ingest).toBeGreaterThan(0);
    expect(byPhase.summarize).toBeGreaterThan(0);
  }, 3_600_000);
});
