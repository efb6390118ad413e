// Compression of 10,000 context blocks per strategy (issue 7; target ≤ 50 ms): median and p95
// over several runs, at half and at a tenth of the original tokens. Token counts are computed before timing, as
// `cairn compress` does while reading the file; the timed part is compressBlocks alone.
//
// Blocks are made from a seeded PRNG: 3–8 sentences each, about 40% in chains of 2–8 nearby
// blocks (as chains from one conversation are), a tenth of those also in the next chain.
// Run: `node bench/run.mjs compress` (bundles the engine module with esbuild first).
import { loadavg } from 'node:os';
import { importTs } from './lib/bundle.mjs';

const BLOCKS = 10_000;
const WARMUP = 5;
const RUNS = 20;

const WORDS = 'the export job index query table timeout retry cache worker queue upgrade migration shard lock alert user asked fixed because then after failed works'.split(' ');
const PRIORITIES = ['CRITICAL', 'HIGH', 'MEDIUM', 'MEDIUM', 'LOW', 'LOW'];
const TYPES = ['causal', 'logic', 'operation', 'narrative', 'time'];

function makeBlocks(random) {
  const pick = (list) => list[Math.floor(random() * list.length)];
  const blocks = [];
  let chain = 0;
  let left = 0;
  for (let i = 0; i < BLOCKS; i += 1) {
    const sentences = Array.from({ length: 3 + Math.floor(random() * 6) }, () => `${Array.from({ length: 5 + Math.floor(random() * 12) }, () => pick(WORDS)).join(' ')}.`);
    const links = [];
    if (left === 0 && random() < 0.12) {
      chain += 1;
      left = 2 + Math.floor(random() * 7);
    }
    if (left > 0) {
      links.push(`chain-${chain}`);
      left -= 1;
      if (random() < 0.1) links.push(`chain-${chain + 1}`);
    }
    blocks.push({
      id: `b${i}`,
      source: pick(['short_term_memory', 'long_term_memory', 'resource']),
      priority: pick(PRIORITIES),
      content: sentences.join(' '),
      chain_links: links,
      chain_types: links.length ? [pick(TYPES)] : [],
      relevance_score: Math.round(random() * 100) / 100,
      freshness_score: Math.round(random() * 100) / 100,
    });
  }
  return { blocks };
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export default async function run() {
  const { compressBlocks, parseCompressInput, prng } = await importTs('compress', ['./main/engine/compress/index.ts', './test/support/prng.ts']);

  const blocks = parseCompressInput(makeBlocks(prng(7)));
  const tokens = blocks.reduce((sum, b) => sum + b.token_count, 0);
  const chained = blocks.filter((b) => b.chain_links.length > 0).length;
  const rows = [];
  for (const ratio of [0.5, 0.1])
  for (const strategy of ['priority', 'chain_aware', 'chain_integrity']) {
    const times = [];
    const cpu = [];
    let result;
    for (let r = 0; r < WARMUP + RUNS; r += 1) {
      const cpuStarted = process.cpuUsage();
      const started = performance.now();
      result = compressBlocks(blocks, { strategy, ratio });
      const ms = performance.now() - started;
      const used = process.cpuUsage(cpuStarted);
      if (r < WARMUP) continue;
      times.push(ms);
      cpu.push((used.user + used.system) / 1000);
    }
    times.sort((a, b) => a - b);
    cpu.sort((a, b) => a - b);
    rows.push({
      strategy,
      ratio,
      // The fastest run: closest to the cost on a quiet machine when others share the cores.
      minMs: +(times[0] ?? 0).toFixed(1),
      medianMs: +percentile(times, 50).toFixed(1),
      p95Ms: +percentile(times, 95).toFixed(1),
      // Process CPU time (GC threads included): steadier than wall time on a shared, loaded machine.
      cpuMedianMs: +percentile(cpu, 50).toFixed(1),
      cpuP95Ms: +percentile(cpu, 95).toFixed(1),
      kept: result.kept.length,
      shortened: result.kept.filter((b) => b.shortened).length,
      summaries: result.replaced.length,
      tokens: `${result.original_tokens} → ${result.compressed_tokens}`,
      intactChains: `${result.intact_chains.length}/${result.chains.length}`,
    });
  }
  return { name: 'compress', tree: `${BLOCKS} blocks, ${tokens} tokens, ${chained} in chains`, rows, note: `${RUNS} timed runs after ${WARMUP} warm-up runs, in-process (compressBlocks only); load average ${loadavg()[0].toFixed(1)}` };
}
