/**
 * What the Home view asks of the engine: an ingest that builds the tree and holds its summaries
 * queued (`summarize: false`) even while background runs drain the queue, an estimate priced for
 * the settings' model, summarize:run releasing the hold, and ingest:recent listing the ingested
 * folders newest first with when, file count and summary state.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine, type Engine } from '../../main/engine/engine.js';
import { inProcessParseRunner } from '../../main/engine/parse/runner.js';
import { silentLogger } from '../../main/engine/ports/logger.js';
import { parseRequest } from '../../shared/contracts/api.js';

const SAMPLE = join(import.meta.dirname, '../../assets/sample');

let workspace: string;
let engine: Engine | null = null;
let tick = 0;
// A clock that moves a minute per reading, so "most recent first" does not hang on equal times.
const clock = { now: () => new Date(Date.UTC(2026, 0, 1, 0, tick++)) };

beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'cairn-home-'));
  engine = await createEngine({ workspace, parser: inProcessParseRunner(), logger: silentLogger, autoSummarize: true, clock });
});
afterEach(async () => {
  await engine?.dispose();
  engine = null;
  await rm(workspace, { recursive: true, force: true });
});

async function backgroundIdle(e: Engine, root: string): Promise<void> {
  // Background runs finish with a dag/finished for each root they claimed.
  await new Promise<void>((resolve) => {
    const off = e.subscribe((event) => {
      if (event.type === 'dag/finished' && event.root === root) {
        off();
        resolve();
      }
    });
  });
}

describe('Home: estimate first and recent folders', () => {
  it('holds an estimate-first tree queued while background runs summarize others, then runs it on summarize:run', async () => {
    const e = engine!;
    const held = await e.call('ingest:start', { path: join(SAMPLE, 'docs'), summarize: false });
    const otherDone = backgroundIdle(e, 'ctx://resources/notes/');
    const otherResult = await e.call('ingest:start', { path: join(SAMPLE, 'notes') });
    expect(otherResult.root).toBe('ctx://resources/notes/');
    await otherDone;

    expect((await e.call('fs:stat', { uri: otherResult.root })).meta?.summary_status).toBe('done');
    expect((await e.call('fs:stat', { uri: held.root })).meta?.summary_status).not.toBe('done');

    const estimate = await e.call('summarize:estimate', { uri: held.root });
    expect(estimate.llm).toBe(false);
    expect(estimate.model).toBe('gpt-4o-mini');
    const [first] = estimate.estimates;
    expect(first!.root).toBe(held.root);
    expect(first!.calls).toBeGreaterThan(0);
    expect(first!.input_tokens).toBeGreaterThan(0);
    // gpt-4o-mini: $0.15 in and $0.60 out per million tokens.
    expect(first!.cost_usd).toBeCloseTo((first!.input_tokens * 0.15 + first!.output_tokens * 0.6) / 1_000_000, 10);

    let recent = (await e.call('ingest:recent', {})).items;
    expect(recent.map((r) => r.root)).toEqual([otherResult.root, held.root]);
    expect(recent[1]).toMatchObject({ scope: 'resources', name: 'docs', source: join(SAMPLE, 'docs'), kind: 'dir', files: held.files, state: 'queued' });
    expect(recent[0]).toMatchObject({ state: 'summarized', files: otherResult.files });

    const { runs } = await e.call('summarize:run', { uri: held.root });
    expect(runs).toHaveLength(1);
    expect(runs[0]!.root).toBe(held.root);
    expect((await e.call('fs:stat', { uri: held.root })).meta?.summary_status).toBe('done');
    recent = (await e.call('ingest:recent', { limit: 1 })).items;
    expect(recent).toHaveLength(1);
    expect(recent[0]!.root).toBe(otherResult.root);

    // Ingesting again updates the same root, moves it to the top and notes the new time.
    const again = await e.call('ingest:start', { path: join(SAMPLE, 'docs'), summarize: false });
    expect(again.root).toBe(held.root);
    expect(again.changed).toBe(0);
    recent = (await e.call('ingest:recent', {})).items;
    expect(recent[0]).toMatchObject({ root: held.root, state: 'summarized', files: held.files });
    expect(recent).toHaveLength(2);
  });

  it('keeps a hold across a restart: the next background run still leaves the held tree alone', async () => {
    const held = await engine!.call('ingest:start', { path: join(SAMPLE, 'docs'), summarize: false });
    await engine!.dispose();
    engine = await createEngine({ workspace, parser: inProcessParseRunner(), logger: silentLogger, autoSummarize: true, clock });
    const e = engine;
    const otherDone = backgroundIdle(e, 'ctx://resources/notes/');
    await e.call('ingest:start', { path: join(SAMPLE, 'notes') });
    await otherDone;
    expect((await e.call('fs:stat', { uri: held.root })).meta?.summary_status).not.toBe('done');
    expect((await e.call('ingest:recent', {})).items.find((r) => r.root === held.root)?.state).toBe('queued');

    // Released by a run that names it.
    await e.call('summarize:run', { uri: held.root });
    expect((await e.call('fs:stat', { uri: held.root })).meta?.summary_status).toBe('done');
  });

  it('lists nothing for a fresh workspace and validates the new options', async () => {
    expect((await engine!.call('ingest:recent', {})).items).toEqual([]);
    expect(() => parseRequest('ingest:start', { path: '/x', summarize: 'no' })).toThrow(/summarize/);
    expect(() => parseRequest('ingest:recent', { limit: 0 })).toThrow(/limit/);
  });
});
