import { describe, expect, it } from 'vitest';
import type { ExtractedChain, TopicCluster } from '../../../shared/types/memory';
import { layoutChains, LANE_HEIGHT, STEP_GAP, STEP_WIDTH } from './chain-lanes';
import { mapPoints, markerPath, BUCKETS } from './cluster-map';

const item = (id: string, bucket: TopicCluster['items'][number]['bucket']) =>
  ({ id, session_id: 's1', message_ids: [id], role: 'user', text: `text ${id}`, bucket, relevance: 0.5, keywords: [] }) as TopicCluster['items'][number];

const cluster = (id: string, items: TopicCluster['items'], layout: TopicCluster['layout']) =>
  ({ cluster_id: id, topic_label: id, dominant_bucket: 'TASK_CONTEXT', keywords: [], items, avg_relevance: 0, coherence: 0, priority: 0, related_chains: [], extraction_candidate: true, layout }) as TopicCluster;

const chain = (id: string, type: ExtractedChain['chain_type'], roles: string[]) =>
  ({
    chain_id: id,
    chain_type: type,
    content: '',
    nodes: roles.map((role, i) => ({ id: `n${i}`, role, text: `${role} ${i}`, message_ids: [`s1:${i}`] })),
    extraction_confidence: 0.9,
    created_at: '',
    source_message_ids: ['s1:0'],
    summary: '',
    metadata: {},
  }) as ExtractedChain;

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

describe('the chain lanes', () => {
  it('puts one lane per chain type in the seed order, nodes in order, edges between consecutive nodes', () => {
    const { nodes, edges, lanes } = layoutChains([chain('t1', 'TIME', ['moment', 'moment']), chain('c1', 'CAUSAL', ['problem', 'cause', 'solution']), chain('c2', 'CAUSAL', ['problem', 'effect'])]);
    expect(lanes).toEqual(['CAUSAL', 'TIME']);
    const steps = nodes.filter((n) => n.type === 'step');
    expect(steps.map((n) => n.id)).toEqual(['c1/n0', 'c1/n1', 'c1/n2', 'c2/n0', 'c2/n1', 't1/n0', 't1/n1']);
    const at = (id: string) => nodes.find((n) => n.id === id)!.position;
    expect(at('c1/n0').y).toBe(0);
    expect(at('t1/n0').y).toBe(LANE_HEIGHT);
    expect(at('c1/n1').x - at('c1/n0').x).toBe(STEP_WIDTH + STEP_GAP);
    // The second chain of a lane starts after the first, with a wider gap.
    expect(at('c2/n0').x - at('c1/n2').x).toBeGreaterThan(STEP_WIDTH + STEP_GAP);
    expect(edges.map((e) => `${e.source}>${e.target}`)).toEqual(['c1/n0>c1/n1', 'c1/n1>c1/n2', 'c2/n0>c2/n1', 't1/n0>t1/n1']);
    expect(nodes.filter((n) => n.type === 'lane').map((n) => n.data)).toEqual([
      { chainType: 'CAUSAL', chains: 2 },
      { chainType: 'TIME', chains: 1 },
    ]);
  });
});
