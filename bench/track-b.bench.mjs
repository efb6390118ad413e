// Track B (rule path) and fusion + trigger on a 1,000-message synthetic conversation, in ms per
// message. The conversation repeats the four labelled fixtures (test/fixtures/chains) with fresh
// ids and timestamps, so the text is realistic (English and Chinese) rather than lorem ipsum.
// Track A is not run: its clusters are made here, one per 25 messages, so the figure is fusion's own.
//
// Run alone (`node bench/track-b.bench.mjs`) or from bench/run.mjs (default export).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { importTs } from './lib/bundle.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MESSAGES = 1000;
const RUNS = 5;
const FIXTURES = ['en-memory-leak', 'en-architecture-argument', 'zh-braised-pork', 'zh-kansai-trip'];

function bundle() {
  return importTs('track-b', [
    { from: './main/engine/memory/chains/track-b.ts', names: ['extractChainsWithRules'] },
    { from: './main/engine/memory/fusion/bucket-chain-indexer.ts', names: ['BucketChainIndexer'] },
    { from: './main/engine/memory/fusion/cross-validator.ts', names: ['CrossValidator'] },
    { from: './main/engine/memory/fusion/multi-dimension-summary.ts', names: ['buildMultiDimensionSummary'] },
    { from: './main/engine/memory/fusion/signals.ts', names: ['messageOrder'] },
    { from: './main/engine/memory/trigger/coordinated-trigger.ts', names: ['CoordinatedExtractionTrigger'] },
  ]);
}

function syntheticConversation() {
  const source = FIXTURES.flatMap((name) => JSON.parse(readFileSync(join(ROOT, 'test/fixtures/chains', `${name}.json`), 'utf8')).sessions.flatMap((s) => s.messages));
  const t0 = Date.parse('2024-01-01T08:00:00Z');
  const messages = Array.from({ length: MESSAGES }, (_, i) => {
    const m = source[i % source.length];
    return { ...m, id: `s1:${i + 1}`, timestamp: new Date(t0 + i * 60_000).toISOString() };
  });
  return { id: 'bench', sessions: [{ id: 's1', messages }] };
}

function syntheticClusters(conversation) {
  const messages = conversation.sessions[0].messages;
  const clusters = [];
  for (let start = 0; start < messages.length; start += 25) {
    const slice = messages.slice(start, start + 25);
    clusters.push({
      cluster_id: `k${clusters.length + 1}`,
      topic_label: `topic ${clusters.length + 1}`,
      dominant_bucket: 'TASK_CONTEXT',
      keywords: ['memory', 'deploy', '红烧肉', '航班', 'billing'].slice(0, 1 + (clusters.length % 5)),
      items: slice.map((m) => ({ id: `i-${m.id}`, session_id: 's1', message_ids: [m.id], role: m.role, text: m.text, timestamp: m.timestamp, bucket: 'TASK_CONTEXT', relevance: 0.7, keywords: [] })),
      avg_relevance: 0.7,
      coherence: 0.6,
      priority: 0.5,
      related_chains: [],
      extraction_candidate: clusters.length % 2 === 0,
    });
  }
  return clusters;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

export default async function run() {
  const lib = await bundle();
  const conversation = syntheticConversation();
  const clusters = syntheticClusters(conversation);
  const trackB = [];
  const fusion = [];
  let chains = [];
  let summary;
  let decision;
  for (let r = 0; r < RUNS + 1; r += 1) {
    let started = performance.now();
    chains = lib.extractChainsWithRules(conversation);
    const b = performance.now() - started;
    started = performance.now();
    const order = lib.messageOrder(conversation);
    const { links, clusters: linked } = new lib.BucketChainIndexer({ order }).build(clusters, chains);
    const timestamps = new Map(conversation.sessions[0].messages.map((m) => [m.id, m.timestamp]));
    const validator = new lib.CrossValidator({ order, timestamps });
    const strongest = new Map();
    for (const link of links) if (!strongest.has(link.chain_id)) strongest.set(link.chain_id, linked.find((c) => c.cluster_id === link.cluster_id));
    const validations = chains.map((chain) => validator.validate(chain, strongest.get(chain.chain_id)));
    summary = lib.buildMultiDimensionSummary({ clusters: linked, chains, links, validations });
    decision = new lib.CoordinatedExtractionTrigger().evaluate({ clusters: linked, chains, links, validations });
    const f = performance.now() - started;
    if (r > 0) {
      // the first run warms up the JIT and is not counted
      trackB.push(b);
      fusion.push(f);
    }
  }
  const row = (stage, times, note) => ({ stage, 'median ms': +median(times).toFixed(1), 'ms/message': +(median(times) / MESSAGES).toFixed(4), note });
  return {
    name: `Track B and fusion on ${MESSAGES} messages (median of ${RUNS} runs)`,
    note: `${chains.length} chains, ${clusters.length} clusters, ${summary.bucket_chain_relations.length} links; trigger ${decision.action} at ${decision.confidence.toFixed(3)}`,
    rows: [row('track B rules (5 types)', trackB, 'extractChainsWithRules'), row('fusion + trigger', fusion, 'index, validate, summary, trigger')],
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await run();
  console.log(`## ${result.name}\n${result.note}`);
  console.table(result.rows);
}
