/**
 * The dual-track processor (docs/SPEC.md#processor): both tracks in real worker threads give the analysis
 * the in-thread sequential path gives; each track can be switched off; the LRU/TTL cache, the
 * chain buffer, the monitoring export; and the integration adapter's degraded mode under a
 * worker that crashes and a health check that fails.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { SessionAnalysis, type Conversation, type ExtractedChain } from '../../shared/types/memory.js';
import { ChainBuffer } from '../../main/engine/memory/processor/chain-buffer.js';
import { ChainCacheManager } from '../../main/engine/memory/processor/chain-cache.js';
import { analysisCacheKey, DualTrackProcessor } from '../../main/engine/memory/processor/dual-track-processor.js';
import { DualTrackIntegrationAdapter } from '../../main/engine/memory/processor/integration-adapter.js';
import { deriveMemoryCandidates, preferenceStrength, proposeMemoryCandidates } from '../../main/engine/memory/processor/candidates.js';
import { inThreadTrackRunner, type TrackRunner } from '../../main/engine/memory/processor/track-runner.js';
import { createTrackWorkers } from '../../main/workers/track-workers.js';
import { bundleForTest, repoRoot, type TestBundle } from '../support/rpc-bundle.js';

const FIXTURES = join(repoRoot, 'test/fixtures/conversations');
const load = (name: string) => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8')) as Conversation;
const deploy = load('deploy-staging-failing.json');
const yunnan = load('yunnan-trip.json');
const clock = { now: () => new Date('2024-06-01T00:00:00Z') };

/** The analysis without what legitimately differs between runs (timings, the degraded flag). */
function content(analysis: SessionAnalysis) {
  const { timings_ms: _t, tracks, ...rest } = analysis;
  return { ...rest, tracks: { a: tracks?.a, b: tracks?.b } };
}

let worker: TestBundle;
let crash: TestBundle;
const runners: TrackRunner[] = [];
const workers = (url: URL) => {
  const runner = createTrackWorkers({ workerUrl: url });
  runners.push(runner);
  return runner;
};

beforeAll(async () => {
  worker = await bundleForTest('main/workers/track.worker.ts');
  crash = await bundleForTest('test/support/track-crash.worker.ts');
}, 60_000);
afterAll(async () => {
  await Promise.all(runners.map((r) => r.dispose()));
  await worker?.dispose();
  await crash?.dispose();
});

describe('DualTrackProcessor', () => {
  it('gives the same analysis with both tracks in parallel worker threads as sequentially in this thread', async () => {
    const parallel = new DualTrackProcessor({ runner: workers(worker.url), clock });
    const sequential = new DualTrackProcessor({ clock });
    const a = await parallel.process(deploy, { mode: 'parallel' });
    const b = await sequential.process(deploy, { mode: 'sequential' });
    expect(a.mode).toBe('parallel');
    expect(parallel.parallelCapable).toBe(true);
    expect(content(a.analysis)).toEqual(content(b.analysis));
    expect(a.analysis.chains.length).toBeGreaterThan(3);
    expect(a.analysis.clusters.length).toBeGreaterThan(1);
    // Fusion filled related_chains from the links.
    const linked = a.analysis.clusters.filter((c) => c.related_chains.length > 0);
    expect(linked.length).toBeGreaterThan(0);
    for (const c of linked) for (const id of c.related_chains) expect(a.analysis.links.some((l) => l.cluster_id === c.cluster_id && l.chain_id === id)).toBe(true);
    expect(a.analysis.validations).toHaveLength(a.analysis.chains.length);
    expect(SessionAnalysis.safeParse(a.analysis).success).toBe(true);
    for (const stage of ['track_a', 'track_b', 'tracks', 'fusion', 'validation', 'summary', 'trigger', 'total']) expect(a.analysis.timings_ms?.[stage]).toBeGreaterThanOrEqual(0);
  }, 60_000);

  it('the sync interface gives the same analysis as the async one', async () => {
    const p = new DualTrackProcessor({ clock });
    const sync = p.processSync(yunnan, { refresh: true });
    const async = await p.process(yunnan, { mode: 'sequential', refresh: true });
    expect(content(sync.analysis)).toEqual(content(async.analysis));
  });

  it('switches each track off on its own', async () => {
    const p = new DualTrackProcessor({ runner: workers(worker.url), clock });
    const noA = await p.process(deploy, { mode: 'parallel', trackA: false });
    expect(noA.analysis.tracks).toEqual({ a: false, b: true, degraded: false });
    expect(noA.analysis.clusters).toEqual([]);
    expect(Object.values(noA.analysis.buckets).every((items) => items.length === 0)).toBe(true);
    expect(noA.analysis.chains.length).toBeGreaterThan(0);
    expect(noA.analysis.links).toEqual([]);
    expect(noA.analysis.timings_ms?.track_a).toBeUndefined();
    expect(noA.analysis.trigger.factors.bucket_ready).toBe(0);

    const noB = await p.process(deploy, { mode: 'parallel', trackB: false });
    expect(noB.analysis.tracks).toEqual({ a: true, b: false, degraded: false });
    expect(noB.analysis.chains).toEqual([]);
    expect(noB.analysis.clusters.length).toBeGreaterThan(0);
    expect(noB.analysis.trigger.factors.chain_ready).toBe(0);
    expect(noB.analysis.trigger.action).toBe('WAIT');
  }, 60_000);

  it('answers a replayed session from the cache and counts the hit rate', async () => {
    const p = new DualTrackProcessor({ clock });
    const first = await p.process(deploy, { mode: 'sequential' });
    const again = await p.process(structuredClone(deploy), { mode: 'sequential' });
    expect(first.cached).toBe(false);
    expect(again.cached).toBe(true);
    expect(again.analysis).toBe(first.analysis);
    expect(p.cache.stats()).toMatchObject({ hits: 1, misses: 1, hit_rate: 0.5, size: 1 });
    // Options and messages are part of the key; the title is not.
    expect(analysisCacheKey({ ...deploy, title: 'renamed' })).toBe(analysisCacheKey(deploy));
    expect(analysisCacheKey(deploy, { trackA: false })).not.toBe(analysisCacheKey(deploy));
    const edited = structuredClone(deploy);
    edited.sessions[0]!.messages[0]!.text += '!';
    expect(analysisCacheKey(edited)).not.toBe(analysisCacheKey(deploy));
    const third = await p.process(edited, { mode: 'sequential' });
    expect(third.cached).toBe(false);
    expect(p.cache.stats().hit_rate).toBeCloseTo(1 / 3, 3);
    // The chain buffer holds the chains per conversation.
    expect(p.buffer.get(deploy.id)).toEqual(third.analysis.chains);
    expect(p.cache.keysOfType('CAUSAL').length).toBe(2); // both versions of the conversation hold causal chains
  });
});

describe('ChainCacheManager', () => {
  it('evicts the least recently used entry and expires entries after their TTL (injected clock)', () => {
    let now = 1_000;
    const cache = new ChainCacheManager<string>({ maxEntries: 2, ttlMs: 100, now: () => now });
    cache.set('a', 'A', ['CAUSAL']);
    cache.set('b', 'B', ['TIME']);
    expect(cache.get('a')).toBe('A'); // a is now the most recently used
    cache.set('c', 'C', ['CAUSAL', 'LOGIC']);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.stats()).toMatchObject({ size: 2, evictions: 1, hits: 1, misses: 1, by_type: { CAUSAL: 2, LOGIC: 1 } });
    expect(cache.keysOfType('CAUSAL').sort()).toEqual(['a', 'c']);
    expect(cache.keysOfType('TIME')).toEqual([]);

    now += 100; // a and c were written at 1000 with a TTL of 100: both expire now
    expect(cache.get('a')).toBeUndefined();
    expect(cache.sweep()).toBe(1);
    expect(cache.stats()).toMatchObject({ size: 0, expirations: 2, evictions: 1, hits: 1, misses: 2, hit_rate: 0.3333 });
    expect(cache.keysOfType('CAUSAL')).toEqual([]);

    cache.set('d', 'D', ['NARRATIVE']);
    expect(cache.invalidateType('NARRATIVE')).toBe(1);
    expect(cache.peek('d')).toBeUndefined();
  });

  it('expires a processor entry so a replay after the TTL runs the tracks again', async () => {
    let now = 0;
    const p = new DualTrackProcessor({ clock, cache: new ChainCacheManager<SessionAnalysis>({ ttlMs: 60_000, now: () => now }) });
    await p.process(yunnan, { mode: 'sequential' });
    now = 59_999;
    expect((await p.process(yunnan, { mode: 'sequential' })).cached).toBe(true);
    now = 60_001; // 60 s after the write
    expect((await p.process(yunnan, { mode: 'sequential' })).cached).toBe(false);
    expect(p.cache.stats()).toMatchObject({ hits: 1, misses: 2, expirations: 1 });
  });
});

describe('ChainBuffer', () => {
  it('keeps chains per conversation until their TTL', () => {
    let now = 0;
    const buffer = new ChainBuffer({ ttlMs: 10, now: () => now });
    const chain = { chain_id: 'x', chain_type: 'TIME' } as ExtractedChain;
    buffer.put('c1', [chain]);
    expect(buffer.ofType('TIME')).toEqual([chain]);
    expect(buffer.ofType('CAUSAL')).toEqual([]);
    now = 10;
    expect(buffer.get('c1')).toBeUndefined();
    expect(buffer.size).toBe(0);
  });
});

describe('DualTrackIntegrationAdapter', () => {
  it('degrades to sequential in-thread processing when a worker crashes, and reports it', async () => {
    const adapter = new DualTrackIntegrationAdapter({ runner: workers(crash.url), clock, recheckMs: 60_000 });
    expect(adapter.mode).toBe('parallel');
    expect((await adapter.healthCheck()).healthy).toBe(true); // the crash worker answers pings
    const result = await adapter.analyze(deploy);
    expect(result.mode).toBe('sequential');
    expect(result.analysis.tracks?.degraded).toBe(true);
    expect(adapter.degraded).toBe(true);
    const reference = new DualTrackProcessor({ clock }).processSync(deploy);
    expect(content(result.analysis)).toEqual(content(reference.analysis));
    const status = adapter.status();
    expect(status.health.workers?.status).toBe('failed');
    expect(status.health.workers?.detail).toMatch(/parallel run failed: .*worker stopped \(exit code 3\)/);
    expect(status.overall).toBe('failed');
    expect(status.counters.fallbacks).toBe(1);
    // Still degraded (no re-check within recheckMs): the next run goes straight to the sequential path.
    const next = await adapter.analyze(yunnan);
    expect(next.analysis.tracks?.degraded).toBe(true);
    expect(adapter.status().counters.fallbacks).toBe(1);
  }, 60_000);

  it('degrades when a health check fails and recovers when one passes', async () => {
    const missing = workers(pathToFileURL(join(repoRoot, 'test-output/no-such-track.worker.mjs')));
    const real = workers(worker.url);
    let broken = true;
    const flaky: TrackRunner = {
      kind: 'worker-threads',
      runA: (job, signal) => (broken ? missing : real).runA(job, signal),
      runB: (job, signal) => (broken ? missing : real).runB(job, signal),
      health: () => (broken ? missing : real).health(),
      dispose: async () => {},
    };
    let now = 0;
    const adapter = new DualTrackIntegrationAdapter({ runner: flaky, clock, recheckMs: 1_000, now: () => now });
    const report = await adapter.healthCheck();
    expect(report).toMatchObject({ healthy: false, degraded: true });
    expect(report.components.workers?.detail).toMatch(/health check failed/);
    const degraded = await adapter.analyze(yunnan);
    expect(degraded).toMatchObject({ mode: 'sequential' });
    expect(degraded.analysis.tracks?.degraded).toBe(true);

    broken = false;
    now = 1_000; // recheckMs passed: the next analysis checks health first
    const back = await adapter.analyze(deploy, { refresh: true });
    expect(back.mode).toBe('parallel');
    expect(back.analysis.tracks?.degraded).toBe(false);
    expect(adapter.status().health.workers?.status).toBe('healthy');
  }, 60_000);

  it('exports its monitoring as JSON: stage timings, cache hit rate, component health', async () => {
    const adapter = new DualTrackIntegrationAdapter({ runner: workers(worker.url), clock });
    await adapter.analyze(yunnan);
    await adapter.analyze(yunnan);
    expect(adapter.analyzeSync(yunnan).cached).toBe(true);
    const exported = JSON.parse(adapter.exportJson());
    expect(exported.mode).toBe('parallel');
    expect(exported.runner).toBe('worker-threads');
    expect(exported.stages.track_a.count).toBe(1);
    expect(exported.stages.track_b.count).toBe(1);
    expect(exported.stages.total.mean_ms).toBeGreaterThan(0);
    expect(exported.stages.fusion.max_ms).toBeGreaterThanOrEqual(exported.stages.fusion.min_ms);
    expect(exported.cache).toMatchObject({ hits: 2, misses: 1, hit_rate: 0.6667 });
    expect(exported.health.workers.status).toBe('healthy');
    expect(exported.health.cache.status).toBe('healthy');
    expect(exported.overall).toBe('healthy');
    expect(exported.counters).toMatchObject({ analyses: 1, cache_hits: 2 });
  }, 60_000);

  it('runs everything in this thread when no worker runner is given', async () => {
    const adapter = new DualTrackIntegrationAdapter({ runner: undefined, clock });
    expect(adapter.mode).toBe('sequential');
    const { analysis } = await adapter.analyze(yunnan);
    expect(analysis.tracks).toEqual({ a: true, b: true, degraded: false });
    expect(inThreadTrackRunner().kind).toBe('in-thread');
  });
});

describe('memory candidates', () => {
  const p = new DualTrackProcessor({ clock });
  const analysis = p.processSync(deploy).analysis;

  it('proposes nothing unless the trigger says COORDINATED_EXTRACTION', () => {
    expect(deriveMemoryCandidates({ ...analysis, trigger: { ...analysis.trigger, action: 'WAIT' } })).toEqual([]);
  });

  it('derives narrative, semantic, event and preference memories with their messages, and procedural ones from a procedure', () => {
    expect(analysis.trigger.action).toBe('COORDINATED_EXTRACTION');
    // Every candidate the rules propose; the commit stores only those it may store without review.
    const proposed = proposeMemoryCandidates(analysis);
    const candidates = proposed.map((p) => p.candidate);
    expect(deriveMemoryCandidates(analysis)).toEqual(proposed.filter((p) => p.autoCommit).map((p) => p.candidate));
    const categories = new Set(candidates.map((c) => c.category));
    for (const category of ['semantic', 'preference']) expect(categories).toContain(category);
    const messageIds = new Set(deploy.sessions.flatMap((s) => s.messages.map((m) => m.id)));
    for (const c of candidates) {
      expect(c.conversation_id).toBe(deploy.id);
      expect(c.message_ids.length).toBeGreaterThan(0);
      for (const id of c.message_ids) expect(messageIds.has(id)).toBe(true);
      expect(c.confidence).toBeGreaterThan(0);
      expect(c.confidence).toBeLessThanOrEqual(1);
    }
    // This conversation gives no procedure and no timeline (its instructions are single steps and
    // "next build" is a command; "yesterday someone bumped Next.js" is a report, "the release is
    // supposed to go out Thursday" a plan after it). The memory-leak one has a numbered
    // regression test, a story and timelines.
    const leak = p.processSync(JSON.parse(readFileSync(join(repoRoot, 'test/fixtures/chains/en-memory-leak.json'), 'utf8')) as Conversation).analysis;
    const leakCandidates = proposeMemoryCandidates(leak).map((x) => x.candidate);
    for (const category of ['procedural', 'narrative', 'event']) expect(new Set(leakCandidates.map((c) => c.category))).toContain(category);
    const operation = leak.chains.find((c) => c.chain_type === 'OPERATION')!;
    const procedural = leakCandidates.find((c) => c.category === 'procedural' && c.chain_ids?.includes(operation.chain_id))!;
    expect(procedural.message_ids).toEqual(operation.source_message_ids);
    expect(procedural.content.split('\n')[0]).toMatch(/^1\. /);
    // Its regression test is written "1. Start the server…": the memory numbers it once, not "1. 1. Start…".
    const numbered = leakCandidates.filter((c) => c.category === 'procedural').flatMap((c) => c.content.split('\n'));
    expect(numbered).toContain('1. Start the server in the test.');
    for (const line of numbered) expect(line).not.toMatch(/^\d+\. \d{1,2}[.)] /);
    const preference = proposed.find((p) => p.candidate.category === 'preference' && /prefer not to pay/.test(p.candidate.content));
    expect(preference?.score).toBe(0.7);
    for (const event of [...candidates, ...leakCandidates].filter((c) => c.category === 'event')) expect(event.title).toMatch(/^\d{4}-\d{2}-\d{2}/);
  });

  it('reads preference cues in English and Chinese', () => {
    expect(preferenceStrength("I'd rather not be woken up at night")).toBe(0.7);
    expect(preferenceStrength('我爸喜欢拍照')).toBe(0.7);
    expect(preferenceStrength('我希望行程别太赶')).toBe(0.55);
    expect(preferenceStrength('The build fails at step 3.')).toBe(0);
  });

  it('finds profile and entity statements of the user', () => {
    const item = (id: string, text: string) => ({ id, session_id: 's', message_ids: [id], role: 'user' as const, text, bucket: 'TASK_CONTEXT' as const, relevance: 0.5, keywords: [] });
    const buckets = { ...analysis.buckets, TASK_CONTEXT: [item('p1', 'I work as a data analyst in Lisbon.'), item('p2', 'My cat Mimi hates the new food.'), item('p3', '我家的猫叫咪咪。')] };
    // Proposed for review: whether one is committed by itself is its calibrated confidence's say
    // (profile and entity have no table of their own: the set's all-kinds one, under 0.6 since session 11).
    const candidates = proposeMemoryCandidates({ ...analysis, buckets }).map((p) => p.candidate);
    expect(candidates.find((c) => c.category === 'profile')?.message_ids).toEqual(['p1']);
    expect(candidates.filter((c) => c.category === 'entity').map((c) => c.title)).toEqual(['cat: Mimi', '猫: 咪咪']);
  });
});
