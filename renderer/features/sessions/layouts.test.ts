import { describe, expect, it } from 'vitest';
import type { TopicCluster } from '../../../shared/types/memory';
import { mapPoints, markerPath, BUCKETS } from './cluster-map';

const item = (id: string, bucket: TopicCluster['items'][number]['bucket']) =>
  ({ id, session_id: 's1', message_ids: [id], role: 'user', text: `text ${id}`, bucket, relevance: 0.5, keywords: [] }) as TopicCluster['items'][number];

const cluster = (id: string, items: TopicCluster['items'], layout: TopicCluster['layout']) =>
  ({ cluster_id: id, topic_label: id, dominant_bucket: 'TASK_CONTEXT', keywords: [], items, avg_relevance: 0, coherence: 0, priority: 0, related_chains: [], extraction_candidate: true, layout }) as TopicCluster;

describe('the cluster map', () => {
  it('stretches the layout to fill the drawing on both axes and flips y upwards', () => {
    const clusters = [
      cluster('a', [item('i1', 'TASK_CONTEXT'), item('i2', 'USER_INTENT')], { i1: [-1, -1], i2: [1, 1] }),
      cluster('b', [item('i3', 'KNOWLEDGE_GAP'), item('no-layout', 'TASK_CONTEXT')], { i3: [1, -1] }),
    ];
    const points = mapPoints(clusters, 220, 120, 10);
    expect(points.map((p) => [p.itemId, p.cluster, p.bucket])).toEqual([
      ['i1', 0, 'TASK_CONTEXT'],
      ['i2', 0, 'USER_INTENT'],
      ['i3', 1, 'KNOWLEDGE_GAP'],
    ]);
    expect(points.map((p) => [p.x, p.y])).toEqual([
      [10, 110],
      [210, 10],
      [210, 110],
    ]);
    expect(mapPoints([], 100, 100)).toEqual([]);
    // A single point lands in the middle of the drawing instead of dividing by zero.
    const [only] = mapPoints([cluster('c', [item('x', 'TASK_CONTEXT')], { x: [0.3, 0.3] })], 100, 100, 0);
    expect([only!.x, only!.y]).toEqual([50, 50]);
  });

  it('gives each bucket a different marker', () => {
    expect(new Set(BUCKETS.map((b) => markerPath(b, 5))).size).toBe(BUCKETS.length);
  });
});
