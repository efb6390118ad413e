import { describe, expect, it } from 'vitest';
import type { BucketChainLink, ExtractedChain, TopicCluster } from '../../../shared/types/memory';
import { CLUSTER_HEIGHT, COLUMN_GAP, headKey, layoutChains, STEP_GAP, STEP_HEIGHT, STEP_WIDTH } from './chain-layout';

const chain = (id: string, type: ExtractedChain['chain_type'], roles: string[], confidence = 0.9) =>
  ({
    chain_id: id,
    chain_type: type,
    content: '',
    nodes: roles.map((role, i) => ({ id: `n${i}`, role, text: `${role} ${i}`, message_ids: [`s1:${i}`] })),
    extraction_confidence: confidence,
    created_at: '',
    source_message_ids: ['s1:0'],
    summary: roles.join(' → '),
    metadata: {},
  }) as ExtractedChain;

const cluster = (id: string) =>
  ({ cluster_id: id, topic_label: `topic ${id}`, dominant_bucket: 'TASK_CONTEXT', keywords: [], items: [], avg_relevance: 0, coherence: 0, priority: 0, related_chains: [], extraction_candidate: true }) as TopicCluster;
const link = (clusterId: string, chainId: string) => ({ cluster_id: clusterId, chain_id: chainId, link_type: 'content_match', strength: 0.6, evidence: [] }) as BucketChainLink;

type Box = { x: number; y: number; w: number; h: number };
const boxes = (layout: ReturnType<typeof layoutChains>) =>
  layout.nodes.map((n) => ({ id: n.id, type: n.type, x: n.position.x, y: n.position.y, w: n.type === 'typeGroup' ? n.data.width : STEP_WIDTH, h: n.type === 'step' ? STEP_HEIGHT : n.type === 'cluster' ? CLUSTER_HEIGHT : 30 }));
const overlap = (a: Box, b: Box) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

describe('the chain layout', () => {
  it('stacks each chain top to bottom in one column, under a head that carries its confidence', () => {
    const layout = layoutChains([chain('c1', 'CAUSAL', ['problem', 'cause', 'solution', 'effect', 'effect', 'effect', 'effect', 'effect', 'effect'], 0.6)]);
    const steps = layout.nodes.filter((n) => n.type === 'step');
    expect(steps.map((n) => n.id)).toEqual(Array.from({ length: 9 }, (_, i) => `c1/n${i}`));
    // However long the chain, it never runs off sideways: every step in the head's column, one below the other.
    const head = layout.nodes.find((n) => n.id === headKey('c1'))!;
    expect(new Set(steps.map((n) => n.position.x))).toEqual(new Set([head.position.x]));
    for (let i = 1; i < steps.length; i++) expect(steps[i]!.position.y - steps[i - 1]!.position.y).toBe(STEP_HEIGHT + STEP_GAP);
    expect(head.data).toMatchObject({ chainType: 'CAUSAL', steps: 9, confidence: 0.6 });
    expect(steps.every((n) => n.type === 'step' && n.data.confidence === 0.6)).toBe(true);
    expect(steps.map((n) => n.type === 'step' && n.data.role).slice(0, 3)).toEqual(['problem', 'cause', 'solution']);
    expect(layout.edges.map((e) => `${e.source}>${e.target}`).slice(0, 3)).toEqual(['head:c1>c1/n0', 'c1/n0>c1/n1', 'c1/n1>c1/n2']);
    expect(layout.width).toBe(STEP_WIDTH);
    expect(layout.height).toBeGreaterThanOrEqual(steps.at(-1)!.position.y + STEP_HEIGHT);
  });

  it('groups chains by type in the seed order and wraps a group into rows of `columns` without overlaps', () => {
    const chains = [
      chain('t1', 'TIME', ['moment', 'moment']),
      ...Array.from({ length: 7 }, (_, i) => chain(`c${i}`, 'CAUSAL', i === 1 ? ['problem', 'cause', 'solution', 'effect'] : ['problem', 'solution'])),
    ];
    const layout = layoutChains(chains, { columns: 3 });
    expect(layout.groups).toEqual(['CAUSAL', 'TIME']);
    expect(layout.steps).toBe(18);
    const at = (id: string) => layout.nodes.find((n) => n.id === id)!.position;
    // Row one: c0 c1 c2 side by side; row two starts under the longest chain of row one (c1).
    expect([at(headKey('c0')).x, at(headKey('c1')).x, at(headKey('c2')).x]).toEqual([0, STEP_WIDTH + COLUMN_GAP, 2 * (STEP_WIDTH + COLUMN_GAP)]);
    expect(at(headKey('c3'))).toEqual({ x: 0, y: expect.any(Number) });
    expect(at(headKey('c3')).y).toBeGreaterThan(at('c1/n3').y + STEP_HEIGHT);
    expect(at(headKey('c6')).x).toBe(0);
    // The TIME group comes after every CAUSAL row.
    expect(at('group:TIME').y).toBeGreaterThan(at('c6/n1').y + STEP_HEIGHT);
    expect(at(headKey('t1')).y).toBeGreaterThan(at('group:TIME').y);
    expect(layout.width).toBe(3 * STEP_WIDTH + 2 * COLUMN_GAP);
    const all = boxes(layout);
    for (const [i, a] of all.entries()) for (const b of all.slice(i + 1)) expect(overlap(a, b), `${a.id} overlaps ${b.id}`).toBe(false);
    for (const b of all) expect(b.x + b.w <= layout.width && b.y + b.h <= layout.height).toBe(true);
  });

  it('puts small groups side by side on one shelf and starts a new shelf for a group that does not fit', () => {
    const chains = [
      chain('c1', 'CAUSAL', ['problem', 'solution']),
      chain('l1', 'LOGIC', ['premise', 'conclusion']),
      chain('l2', 'LOGIC', ['premise', 'inference', 'conclusion']),
      chain('o1', 'OPERATION', ['action', 'result']),
      chain('o2', 'OPERATION', ['action', 'result']),
    ];
    const layout = layoutChains(chains, { columns: 4 });
    const at = (id: string) => layout.nodes.find((n) => n.id === id)!.position;
    expect(at('group:CAUSAL')).toEqual({ x: 0, y: 0 });
    expect(at('group:LOGIC')).toEqual({ x: STEP_WIDTH + COLUMN_GAP, y: 0 });
    // OPERATION (2 chains) does not fit in the one column left: the next shelf, below LOGIC's longest chain.
    expect(at('group:OPERATION').x).toBe(0);
    expect(at('group:OPERATION').y).toBeGreaterThan(at('l2/n2').y + STEP_HEIGHT);
    expect(at(headKey('o2')).x).toBe(STEP_WIDTH + COLUMN_GAP);
    const all = boxes(layout);
    for (const [i, a] of all.entries()) for (const b of all.slice(i + 1)) expect(overlap(a, b), `${a.id} overlaps ${b.id}`).toBe(false);
  });

  it('draws fusion links only when asked, from a band of the linked clusters above the chains to each chain head', () => {
    const chains = [chain('c1', 'CAUSAL', ['problem', 'solution']), chain('l1', 'LOGIC', ['premise', 'conclusion'])];
    expect(layoutChains(chains).nodes.some((n) => n.type === 'cluster')).toBe(false);
    const layout = layoutChains(chains, { clusters: [cluster('a'), cluster('b'), cluster('unlinked')], links: [link('a', 'c1'), link('a', 'l1'), link('b', 'l1'), link('a', 'gone-chain')] });
    const clusters = layout.nodes.filter((n) => n.type === 'cluster');
    expect(clusters.map((n) => n.data)).toEqual([
      { clusterId: 'a', label: 'topic a', links: 2 },
      { clusterId: 'b', label: 'topic b', links: 1 },
    ]);
    expect(layout.links).toBe(3);
    expect(layout.edges.filter((e) => e.id.startsWith('link:')).map((e) => `${e.source}>${e.target}`)).toEqual(['cluster:a>head:c1', 'cluster:a>head:l1', 'cluster:b>head:l1']);
    const firstGroup = layout.nodes.find((n) => n.id === 'group:CAUSAL')!;
    expect(Math.max(...clusters.map((n) => n.position.y))).toBeLessThan(firstGroup.position.y);
  });
});
