// The dual-track processor (issue 6, P2) on a 1,000-message conversation, offline (rules, no
// model): per-message time of track A, track B and the whole processor (tracks, fusion,
// validation, summary, trigger, schema check), sequential in this thread and with the tracks in
// parallel worker threads; then the cache hit rate when the session is replayed. The engine's
// TypeScript and the track worker are bundled with esbuild first, as the other benches do.
// Run alone (`node bench/processor.bench.mjs`) or from bench/run.mjs.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { importTs } from './lib/bundle.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CACHE = join(ROOT, 'node_modules/.cache/cairn-bench');
const WORKER = join(CACHE, 'track.worker.mjs');
const FIXTURES = ['deploy-staging-failing', 'choosing-a-database', 'yunnan-trip', 'linear-algebra-review'];

/** 1,000 messages made by cycling the four fixture conversations (English and Chinese) with fresh ids and times. */
function conversationOf(count) {
  const pool = FIXTURES.flatMap((name) => JSON.parse(readFileSync(join(ROOT, 'test/fixtures/conversations', `${name}.json`), 'utf8')).sessions.flatMap((s) => s.messages));
  const start = Date.UTC(2024, 4, 1);
  const messages = Array.from({ length: count }, (_, i) => {
    const m = pool[i % pool.length];
    return { ...m, id: `s1:${i + 1}`, timestamp: new Date(start + i * 60_000).toISOString() };
  });
  return { id: 'bench', sessions: [{ id: 's1', messages }] };
}

async function bundle() {
  // The track worker is an entry point of its own: the pool starts it from WORKER.
  await build({ entryPoints: [join(ROOT, 'main/workers/track.worker.ts')], outfile: WORKER, bundle: true, platform: 'node', target: 'node20', format: 'esm', packages: 'external', logLevel: 'warning' });
  return importTs('processor', [
    { from: './main/engine/memory/processor/dual-track-processor.ts', names: ['DualTrackProcessor'] },
    { from: './main/engine/memory/buckets/track-a.ts', names: ['runTrackARules'] },
    { from: './main/engine/memory/chains/track-b.ts', names: ['extractChainsWithRules'] },
    { from: './main/workers/track-workers.ts', names: ['createTrackWorkers'] },
  ]);
}

async function median(runs, work) {
  await work(); // warm-up (regex compilation, JIT, worker start)
  const times = [];
  for (let r = 0; r < runs; r += 1) {
    const t = performance.now();
    await work();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(runs / 2)], min: times[0] };
}

export default async function run() {
  const { DualTrackProcessor, runTrackARules, extractChainsWithRules, createTrackWorkers } = await bundle();
  const count = 1000;
  const conversation = conversationOf(count);
  const now = () => new Date('2024-06-01T00:00:00Z');
  const rows = [];
  const row = (stage, t, extra = {}) => rows.push({ stage, medianMs: +t.median.toFixed(1), minMs: +t.min.toFixed(1), msPerMessage: +(t.median / count).toFixed(3), ...extra });

  row('track A (rules)', await median(5, () => runTrackARules(conversation)));
  row('track B (rules)', await median(5, () => extractChainsWithRules(conversation, { now })));
  const sequential = new DualTrackProcessor({ clock: { now } });
  let last;
  row('processor, sequential in-thread', await median(5, async () => (last = await sequential.process(conversation, { mode: 'sequential', refresh: true }))), { chains: last.analysis.chains.length, clusters: last.analysis.clusters.length });
  const runner = createTrackWorkers({ workerUrl: pathToFileURL(WORKER) });
  const parallel = new DualTrackProcessor({ runner, clock: { now } });
  row('processor, tracks in 2 worker threads', await median(5, async () => (last = await parallel.process(conversation, { mode: 'parallel', refresh: true }))), { trigger: last.analysis.trigger.action });
  const fusion = last.analysis.timings_ms;
  rows.push({ stage: 'of which fusion+validation+summary+trigger', medianMs: +(fusion.fusion + fusion.validation + fusion.summary + fusion.trigger).toFixed(1), minMs: null, msPerMessage: +((fusion.fusion + fusion.validation + fusion.summary + fusion.trigger) / count).toFixed(3) });

  // Replay: the same session analyzed 10 times (as a UI reopening it would), plus a changed copy.
  const replay = new DualTrackProcessor({ clock: { now } });
  const hitTimes = [];
  for (let i = 0; i < 10; i += 1) {
    const t = performance.now();
    const r = await replay.process(structuredClone(conversation), { mode: 'sequential' });
    if (r.cached) hitTimes.push(performance.now() - t);
  }
  const edited = structuredClone(conversation);
  edited.sessions[0].messages[0].text += ' (edited)';
  await replay.process(edited, { mode: 'sequential' });
  const stats = replay.cache.stats();
  hitTimes.sort((a, b) => a - b);
  rows.push({ stage: `replay ×10 + 1 edited: hit rate ${stats.hit_rate} (${stats.hits} hits, ${stats.misses} misses)`, medianMs: +hitTimes[Math.floor(hitTimes.length / 2)].toFixed(1), minMs: +hitTimes[0].toFixed(1), msPerMessage: +(hitTimes[Math.floor(hitTimes.length / 2)] / count).toFixed(3) });
  await runner.dispose();
  return { name: 'processor', rows, note: `${count} messages cycled from the four fixture conversations (English and Chinese); rules path; median and min of 5 runs after one warm-up; replay rows time a cache hit (hashing the messages)` };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await run();
  console.log(result.note);
  console.table(result.rows);
}
