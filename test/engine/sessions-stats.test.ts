/**
 * sessions:stats and the memory track settings, through the engine's contract on a real
 * workspace (temp dir, LanceDB index): the monitoring report holds the stages, cache figures and
 * buffered chains of the analyses made, a new engine on the same workspace (the next CLI command)
 * sees the same figures, a commit takes its chains out of the buffer, and the track switches in
 * .cairn/settings.json are what an analysis runs unless its request says otherwise.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine, type Engine } from '../../main/engine/engine.js';
import { inProcessParseRunner } from '../../main/engine/parse/runner.js';
import { lazySearchIndex } from '../../main/host/open-index.js';
import { SessionStats } from '../../shared/contracts/api.js';
import { repoRoot } from '../support/rpc-bundle.js';

const DEPLOY = join(repoRoot, 'test/fixtures/conversations/deploy-staging-failing.json');
const ID = 'deploy-staging-failing';

let workspace: string;
const engines: Engine[] = [];

const open = async () => {
  const engine = await createEngine({ workspace, parser: inProcessParseRunner(), index: lazySearchIndex(workspace, { idleOptimizeMs: 0 }) });
  engines.push(engine);
  return engine;
};

const close = async (engine: Engine) => {
  engines.splice(engines.indexOf(engine), 1);
  await engine.dispose();
};

beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'cairn-sessions-stats-'));
});
afterEach(async () => {
  for (const engine of engines.splice(0)) await engine.dispose();
  await rm(workspace, { recursive: true, force: true });
});

describe('sessions:stats', () => {
  it('starts empty and healthy in a fresh workspace', async () => {
    const engine = await open();
    const stats = SessionStats.parse(await engine.call('sessions:stats', {}));
    expect(stats.stages).toEqual({});
    expect(stats.buffer).toMatchObject({ chains: 0, conversations: [] });
    expect(stats.cache).toMatchObject({ hits: 0, misses: 0, hit_rate: 0 });
    expect(stats.overall).toBe('healthy');
    expect(Object.keys(stats.health).sort()).toEqual(['cache', 'processor', 'workers']);
  }, 60_000);

  it('reports the timings, cache hits and buffered chains of real analyses, across engines, until a commit takes them', async () => {
    const first = await open();
    await first.call('sessions:import', { path: DEPLOY });
    const analysis = await first.call('sessions:analyze', { id: ID });
    expect(analysis.chains.length).toBeGreaterThan(0);
    await first.call('sessions:analyze', { id: ID }); // answered by the stored analysis

    const stats = await first.call('sessions:stats', {});
    for (const stage of ['track_a', 'track_b', 'total']) {
      expect(stats.stages[stage]?.count).toBe(1);
      expect(stats.stages[stage]!.max_ms).toBeGreaterThanOrEqual(stats.stages[stage]!.min_ms);
    }
    expect(stats.stages.total!.mean_ms).toBeGreaterThan(0);
    expect(stats.cache).toMatchObject({ hits: 1, misses: 1, hit_rate: 0.5 });
    expect(stats.counters).toMatchObject({ analyses: 1, cache_hits: 1 });
    expect(stats.buffer.chains).toBe(analysis.chains.length);
    const [buffered] = stats.buffer.conversations;
    expect(buffered).toMatchObject({ conversation_id: ID, chains: analysis.chains.length });
    const types: Record<string, number> = {};
    for (const chain of analysis.chains) types[chain.chain_type] = (types[chain.chain_type] ?? 0) + 1;
    expect(buffered!.by_type).toEqual(types);
    expect(buffered!.summaries).toEqual(analysis.chains.slice(0, 5).map((c) => c.summary));
    expect(Date.parse(buffered!.expires_at)).toBeGreaterThan(Date.now());
    await close(first);

    // The next process (a CLI command) sees what this one measured.
    const second = await open();
    const again = await second.call('sessions:stats', {});
    expect(again.stages).toEqual(stats.stages);
    expect(again.cache).toMatchObject({ hits: 1, misses: 1, hit_rate: 0.5 });
    expect(again.buffer).toEqual(stats.buffer);

    const commit = await second.call('sessions:commit', { id: ID });
    expect(commit.changes.length).toBeGreaterThan(0);
    const after = await second.call('sessions:stats', {});
    expect(after.buffer).toMatchObject({ chains: 0, conversations: [] });
    expect(after.cache.hits).toBe(2); // the commit read the stored analysis
  }, 60_000);
});

describe('the memory track settings', () => {
  it('are kept in .cairn/settings.json and are what an analysis runs unless the request says otherwise', async () => {
    const engine = await open();
    expect((await engine.call('settings:get', {})).memory).toEqual({ trackA: true, trackB: true });
    const view = await engine.call('settings:set', { memory: { trackB: false } });
    expect(view.memory).toEqual({ trackA: true, trackB: false });
    const file = JSON.parse(await readFile(join(workspace, '.cairn/settings.json'), 'utf8'));
    expect(file.memory).toEqual({ trackA: true, trackB: false });
    expect(file.llm).toEqual(view.llm);

    await engine.call('sessions:import', { path: DEPLOY });
    const offB = await engine.call('sessions:analyze', { id: ID });
    expect(offB.tracks).toMatchObject({ a: true, b: false });
    expect(offB.chains).toEqual([]);
    expect(offB.clusters.length).toBeGreaterThan(0);
    // The commit path reads the same setting: a proposal from an analysis without chains.
    const proposal = await engine.call('sessions:propose', { id: ID });
    expect(proposal.candidates.every((c) => (c.candidate.chain_ids ?? []).length === 0)).toBe(true);

    // A request that names a track wins over the setting.
    const withB = await engine.call('sessions:analyze', { id: ID, trackB: true });
    expect(withB.tracks).toMatchObject({ b: true });
    expect(withB.chains.length).toBeGreaterThan(0);
    await close(engine);

    // A new engine (the app restarted) reads the switches back.
    const reopened = await open();
    expect((await reopened.call('settings:get', {})).memory).toEqual({ trackA: true, trackB: false });
    const offA = await reopened.call('settings:set', { memory: { trackA: false, trackB: true } });
    expect(offA.memory).toEqual({ trackA: false, trackB: true });
    const onlyB = await reopened.call('sessions:analyze', { id: ID });
    expect(onlyB.tracks).toMatchObject({ a: false, b: true });
    expect(onlyB.clusters).toEqual([]);
  }, 60_000);
});
