import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BucketType, MemoryItem, TopicCluster, type Conversation } from '../../shared/types/memory.js';
import { importConversations } from '../../main/engine/memory/sessions/index.js';
import { runTrackA, segmentMessage } from '../../main/engine/memory/buckets/index.js';
import { averageLinkageMerges } from '../../main/engine/memory/buckets/hac.js';

const DIR = join(import.meta.dirname, '../fixtures/conversations');
const NAMES = ['deploy-staging-failing', 'choosing-a-database', 'yunnan-trip', 'linear-algebra-review'];

async function load(name: string): Promise<Conversation> {
  const [conversation] = await importConversations(join(DIR, `${name}.json`));
  return conversation!;
}

function labels(name: string): Record<string, BucketType> {
  return JSON.parse(readFileSync(join(DIR, `${name}.labels.json`), 'utf8')) as Record<string, BucketType>;
}

/** A message's predicted bucket: that of its longest item (a split message has several). */
function predictions(items: MemoryItem[]): Map<string, BucketType> {
  const longest = new Map<string, MemoryItem>();
  for (const item of items) {
    const id = item.message_ids[0]!;
    const prev = longest.get(id);
    if (!prev || item.text.length > prev.text.length) longest.set(id, item);
  }
  return new Map([...longest].map(([id, item]) => [id, item.bucket]));
}

describe('track A: buckets', () => {
  it('classifies the labelled fixtures with per-bucket precision and recall above measured floors', async () => {
    const tally = Object.fromEntries(BucketType.options.map((b) => [b, { tp: 0, fp: 0, fn: 0 }])) as Record<BucketType, { tp: number; fp: number; fn: number }>;
    for (const name of NAMES) {
      const result = await runTrackA(await load(name));
      const predicted = predictions(result.items);
      for (const [id, gold] of Object.entries(labels(name))) {
        const guess = predicted.get(id);
        expect(guess, id).toBeDefined();
        if (guess === gold) tally[gold].tp += 1;
        else {
          tally[gold].fn += 1;
          tally[guess!].fp += 1;
        }
      }
    }
    const rows = BucketType.options.map((bucket) => {
      const { tp, fp, fn } = tally[bucket];
      const precision = tp / Math.max(1, tp + fp);
      const recall = tp / Math.max(1, tp + fn);
      const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
      return { bucket, support: tp + fn, precision: +precision.toFixed(2), recall: +recall.toFixed(2), f1: +f1.toFixed(2) };
    });
    const macroF1 = rows.reduce((s, r) => s + r.f1, 0) / rows.length;
    console.table(rows);
    console.log(`macro F1 ${macroF1.toFixed(3)} over ${rows.reduce((s, r) => s + r.support, 0)} messages`);
    // Measured 0.92 macro F1 (every bucket F1 ≥ 0.84, precision and recall ≥ 0.8); the floors leave room for cue-table edits, not for regressions.
    expect(macroF1).toBeGreaterThanOrEqual(0.8);
    for (const row of rows) {
      expect(row.precision, row.bucket).toBeGreaterThanOrEqual(0.7);
      expect(row.recall, row.bucket).toBeGreaterThanOrEqual(0.7);
    }
  });

  it('gives every item bucket scores, a reason, keywords and a relevance, and files it in its bucket', async () => {
    const result = await runTrackA(await load('yunnan-trip'));
    expect(result.items).toHaveLength(32);
    for (const item of result.items) {
      expect(MemoryItem.parse(item)).toEqual(item);
      expect(Object.keys(item.bucket_scores!).sort()).toEqual([...BucketType.options].sort());
      expect(item.reason).toMatch(/^rules: /);
      expect(item.relevance).toBeGreaterThanOrEqual(0);
      expect(item.relevance).toBeLessThanOrEqual(1);
      expect(result.buckets[item.bucket]).toContain(item);
    }
    expect(Object.values(result.buckets).flat()).toHaveLength(result.items.length);
    const intent = result.items.find((i) => i.id === 's1:2')!;
    expect(intent.bucket).toBe('USER_INTENT');
    expect(intent.reason).toContain('希望');
    expect(result.items.some((i) => i.keywords.includes('大理'))).toBe(true);
  });

  it('splits a long message only where its sentences clearly belong to different buckets', () => {
    const mixed = "Honestly I'm so frustrated and worried about this release. Let's go with PostgreSQL because the data is relational and we need transactions.";
    expect(segmentMessage(mixed, 'user')).toEqual(["Honestly I'm so frustrated and worried about this release.", "Let's go with PostgreSQL because the data is relational and we need transactions."]);
    const oneTopic = 'The deploy fails at the docker build step with exit code 137. The log ends with the word Killed, and nothing else is printed after it.';
    expect(segmentMessage(oneTopic, 'user')).toEqual([oneTopic]);
    expect(segmentMessage('我好担心。那就用 Postgres。', 'user')).toHaveLength(1); // too short to split
  });

  it('gives split parts their own ids and buckets', async () => {
    const conversation: Conversation = {
      id: 'mixed',
      sessions: [{ id: 's1', messages: [{ id: 'm1', role: 'user', text: '这周一直在加班，真的好烦，压力特别大，晚上都睡不好觉。我们决定用 PostgreSQL，因为数据是关系型的，而且订单需要事务保证一致性。' }] }],
    };
    const { items } = await runTrackA(conversation);
    expect(items.map((i) => [i.id, i.bucket, i.message_ids])).toEqual([
      ['m1#1', 'EMOTIONAL_TRACE', ['m1']],
      ['m1#2', 'DECISION_CONTEXT', ['m1']],
    ]);
  });
});

describe('track A: clusters', () => {
  it('fills every TopicCluster field, with a layout for every item in -1..1', async () => {
    const result = await runTrackA(await load('deploy-staging-failing'));
    expect(result.clusters.length).toBeGreaterThan(1);
    const seen = new Set<string>();
    for (const cluster of result.clusters) {
      expect(TopicCluster.parse(cluster)).toEqual(cluster);
      expect(cluster.cluster_id).toMatch(/^tc_[0-9a-f]{16}$/);
      expect(cluster.topic_label.length).toBeGreaterThan(0);
      expect(cluster.keywords.length).toBeGreaterThan(0);
      expect(cluster.related_chains).toEqual([]);
      expect(BucketType.options).toContain(cluster.dominant_bucket);
      for (const value of [cluster.avg_relevance, cluster.coherence, cluster.priority]) {
        expect(value).toBeGreaterThanOrEqual(0);
        expect(value).toBeLessThanOrEqual(1);
      }
      expect(Object.keys(cluster.layout!).sort()).toEqual(cluster.items.map((i) => i.id).sort());
      for (const [x, y] of Object.values(cluster.layout!)) {
        expect(Math.abs(x)).toBeLessThanOrEqual(1);
        expect(Math.abs(y)).toBeLessThanOrEqual(1);
      }
      for (const item of cluster.items) seen.add(item.id);
    }
    expect(seen.size).toBe(result.items.length);
    const priorities = result.clusters.map((c) => c.priority);
    expect(priorities).toEqual([...priorities].sort((a, b) => b - a));
    expect(result.clusters.some((c) => c.extraction_candidate)).toBe(true);
  });

  it('keeps clearly distinct topics apart when two conversations are run as one', async () => {
    for (const [a, b] of [
      ['deploy-staging-failing', 'choosing-a-database'],
      ['yunnan-trip', 'linear-algebra-review'],
    ] as const) {
      const first = await load(a);
      const second = await load(b);
      const joined: Conversation = {
        id: 'joined',
        sessions: [...first.sessions.map((s) => ({ ...s, id: `a-${s.id}` })), ...second.sessions.map((s) => ({ ...s, id: `b-${s.id}` }))].map((s) => ({
          ...s,
          messages: s.messages.map((m) => ({ ...m, id: `${s.id}/${m.id}` })),
        })),
      };
      const { clusters } = await runTrackA(joined);
      for (const cluster of clusters) {
        const origins = new Set(cluster.items.map((i) => i.session_id[0]));
        expect(origins.size, `${a} + ${b}: ${cluster.topic_label}`).toBe(1);
      }
    }
  });

  it('is deterministic: the same conversation gives the same items, clusters, ids and layout', async () => {
    const conversation = await load('linear-algebra-review');
    const one = await runTrackA(conversation);
    const two = await runTrackA(structuredClone(conversation));
    expect(two.items).toEqual(one.items);
    expect(two.clusters).toEqual(one.clusters);
  });

  it('finds the same merge heights as naive O(n³) average linkage', () => {
    const points = Array.from({ length: 40 }, (_, i) => [Math.sin(i * 2.1) * 5 + (i % 4), Math.cos(i * 1.7) * 3]);
    const dist = (i: number, j: number) => Math.hypot(points[i]![0]! - points[j]![0]!, points[i]![1]! - points[j]![1]!);
    const fast = averageLinkageMerges(points.length, dist)
      .map((m) => m.distance)
      .sort((x, y) => x - y);
    // Naive: merge the closest pair of clusters (mean of point distances) until one is left.
    let clusters = points.map((_, i) => [i]);
    const naive: number[] = [];
    const linkage = (p: number[], q: number[]) => p.reduce((s, i) => s + q.reduce((t, j) => t + dist(i, j), 0), 0) / (p.length * q.length);
    while (clusters.length > 1) {
      let best = [0, 1, Infinity];
      for (let i = 0; i < clusters.length; i += 1) for (let j = i + 1; j < clusters.length; j += 1) {
        const d = linkage(clusters[i]!, clusters[j]!);
        if (d < best[2]!) best = [i, j, d];
      }
      const [i, j, d] = best as [number, number, number];
      naive.push(d);
      clusters = [...clusters.filter((_, k) => k !== i && k !== j), [...clusters[i]!, ...clusters[j]!]];
    }
    naive.sort((x, y) => x - y);
    fast.forEach((d, k) => expect(d).toBeCloseTo(naive[k]!, 9));
  });
});
