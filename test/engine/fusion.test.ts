/**
 * Fusion and the coordinated trigger: bucket-chain links with evidence, the cross-validator's
 * checks, the multi-dimension summary's scores and the trigger's arithmetic, on hand-made
 * inputs with exact expected numbers and on a real fixture.
 */
import { describe, expect, it } from 'vitest';
import type { BucketChainLink, ChainNode, ChainType, Conversation, ExtractedChain, MemoryItem, TopicCluster, ValidationResult } from '../../shared/types/memory.js';
import { extractChainsWithRules } from '../../main/engine/memory/chains/track-b.js';
import { BucketChainIndexer, LINK_THRESHOLD } from '../../main/engine/memory/fusion/bucket-chain-indexer.js';
import { CrossValidator } from '../../main/engine/memory/fusion/cross-validator.js';
import { buildMultiDimensionSummary } from '../../main/engine/memory/fusion/multi-dimension-summary.js';
import { messageOrder } from '../../main/engine/memory/fusion/signals.js';
import { CoordinatedExtractionTrigger, TRIGGER_THRESHOLD } from '../../main/engine/memory/trigger/coordinated-trigger.js';
import { loadFixture } from '../support/chain-labels.js';

function conversationOf(texts: string[]): Conversation {
  return { id: 'c', sessions: [{ id: 's', messages: texts.map((text, i) => ({ id: `m${i + 1}`, role: i % 2 ? 'assistant' : 'user', text, timestamp: new Date(Date.UTC(2024, 4, 8, 10, i)).toISOString() })) }] };
}

function item(conversation: Conversation, id: string): MemoryItem {
  const message = conversation.sessions.flatMap((s) => s.messages).find((m) => m.id === id);
  if (!message) throw new Error(id);
  return { id: `i-${id}`, session_id: 's1', message_ids: [id], role: message.role, text: message.text, timestamp: message.timestamp, bucket: 'TASK_CONTEXT', relevance: 0.8, keywords: [] };
}

function cluster(id: string, conversation: Conversation, keywords: string[], ids: string[], extra: Partial<TopicCluster> = {}): TopicCluster {
  return { cluster_id: id, topic_label: keywords.slice(0, 2).join(' '), dominant_bucket: 'TASK_CONTEXT', keywords, items: ids.map((m) => item(conversation, m)), avg_relevance: 0.8, coherence: 0.7, priority: 0.5, related_chains: [], extraction_candidate: true, ...extra };
}

function chain(id: string, type: ChainType, nodes: [role: string, messageId: string, text: string, time?: string][], confidence = 0.8): ExtractedChain {
  const built: ChainNode[] = nodes.map(([role, messageId, text, time], i) => ({ id: `n${i + 1}`, role, text, message_ids: [messageId], ...(time ? { time } : {}) }));
  return { chain_id: id, chain_type: type, content: built.map((n) => n.text).join('\n'), nodes: built, extraction_confidence: confidence, created_at: '2024-05-08T10:00:00Z', source_message_ids: [...new Set(built.map((n) => n.message_ids[0] as string))], summary: built.map((n) => n.text).join(' → '), metadata: { method: 'test' } };
}

describe('BucketChainIndexer', () => {
  const conv = conversationOf(['alpha beta', 'alpha beta', 'alpha gamma', 'delta', 'delta']);
  const order = messageOrder(conv);

  it('scores content, time and semantics with the documented weights; 0.5 exactly is not a link', () => {
    const c = cluster('k', conv, ['alpha', 'beta'], ['m1', 'm2']);
    const ch = chain('x', 'CAUSAL', [['problem', 'm2', 'alpha'], ['cause', 'm3', 'gamma']]);
    const indexer = new BucketChainIndexer({ order });
    const link = indexer.score(c, ch);
    // content 1/2 (alpha), time: spans m1–m2 and m2–m3 share 1 of 2 messages, cosine {alpha:2,beta:2}·{alpha:1,gamma:1} = 0.5
    expect(link.strength).toBe(0.5);
    expect(link.evidence[0]).toBe('content: shares 1 of 2 keywords (alpha)');
    expect(link.evidence[1]).toBe('time: cluster messages #1–#2, chain #2–#3 (1 of 2 overlap)');
    expect(link.evidence[2]).toBe('semantic: cosine 0.50');
    expect(LINK_THRESHOLD).toBe(0.5);
    expect(indexer.build([c], [ch]).links).toEqual([]);
  });

  it('links above the threshold, names the strongest signal and fills related_chains', () => {
    const c = cluster('k', conv, ['alpha', 'beta'], ['m1', 'm2']);
    const close = chain('close', 'LOGIC', [['premise', 'm1', 'alpha beta'], ['conclusion', 'm2', 'alpha beta']]);
    const far = chain('far', 'NARRATIVE', [['event', 'm4', 'delta'], ['event', 'm5', 'delta']]);
    const { links, clusters } = new BucketChainIndexer({ order }).build([c], [close, far]);
    expect(links).toHaveLength(1);
    expect(links[0]).toMatchObject({ cluster_id: 'k', chain_id: 'close', link_type: 'content_match', strength: 1 });
    expect(clusters[0]?.related_chains).toEqual(['close']);
    expect(c.related_chains).toEqual([]); // the input is not mutated
  });

  it('links the Kansai trip topic to its narrative and timeline, not to the advice at the end', () => {
    const { conversation } = loadFixture('zh-kansai-trip');
    const trip = cluster('trip', conversation, ['台风', '航班', '京都', '大阪', '酒店'], ['s1:3', 's1:4', 's1:6', 's1:7', 's1:9', 's1:12', 's1:18', 's1:20']);
    const chains = extractChainsWithRules(conversation);
    const { links } = new BucketChainIndexer({ order: messageOrder(conversation) }).build([trip], chains);
    const linkedTypes = links.map((l) => chains.find((c) => c.chain_id === l.chain_id)?.chain_type);
    expect(linkedTypes).toEqual(expect.arrayContaining(['NARRATIVE', 'TIME', 'CAUSAL']));
    expect(linkedTypes).not.toContain('OPERATION');
    for (const link of links) {
      expect(link.strength).toBeGreaterThan(0.5);
      expect(link.evidence).toHaveLength(4);
    }
  });
});

describe('CrossValidator', () => {
  const conv = conversationOf(['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight']);
  const timestamps = new Map(conv.sessions[0]?.messages.map((m) => [m.id, m.timestamp as string]));
  const validator = new CrossValidator({ order: messageOrder(conv), timestamps });

  it('passes a consistent timeline', () => {
    const ok = chain('t', 'TIME', [['moment', 'm1', 'May 2', '2024-05-02'], ['moment', 'm2', 'that night', '2024-05-02T23:00'], ['moment', 'm3', 'Saturday', '2024-05-04']]);
    expect(validator.validate(ok)).toMatchObject({ validation_type: 'time_consistency', passed: true, confidence: 1, issues: [] });
  });

  it('catches an out-of-order time chain', () => {
    const bad = chain('t', 'TIME', [['moment', 'm1', 'May 9', '2024-05-09'], ['moment', 'm2', 'May 7', '2024-05-07'], ['moment', 'm3', 'May 10', '2024-05-10']]);
    const result = validator.validate(bad);
    expect(result.passed).toBe(false);
    expect(result.issues).toEqual(['moment 2 (2024-05-07) is before moment 1 (2024-05-09)']);
    expect(result.confidence).toBe(0.8);
    expect(result.suggestions).toHaveLength(1);
  });

  it('catches a causal chain whose solution precedes its problem', () => {
    const bad = chain('c', 'CAUSAL', [['solution', 'm1', 'restart the pod'], ['problem', 'm3', 'the pod runs out of memory'], ['cause', 'm4', 'a cache never evicts']]);
    const result = validator.validate(bad);
    expect(result.validation_type).toBe('causal_consistency');
    expect(result.passed).toBe(false);
    // Two issues: the solution precedes both the cause and the problem (the messages themselves are in order).
    expect(result.issues).toEqual([
      'the solution ("restart the pod") comes before its cause ("a cache never evicts")',
      'the solution ("restart the pod") comes before the problem ("the pod runs out of memory")',
    ]);
    expect(result.confidence).toBe(0.6);
  });

  it('checks that a causal chain belongs to its linked topic', () => {
    const ok = chain('c', 'CAUSAL', [['problem', 'm1', 'the pod runs out of memory'], ['cause', 'm2', 'a cache never evicts'], ['solution', 'm3', 'bound the cache']]);
    const topic = cluster('k', conv, ['memory', 'cache'], ['m1', 'm2']);
    const elsewhere = cluster('z', conv, ['recipe', 'sugar'], ['m1', 'm2']);
    expect(validator.validate(ok, topic).passed).toBe(true);
    expect(validator.validate(ok, elsewhere).issues).toEqual(['the causal chain shares no keyword with its topic "recipe sugar"']);
  });

  it('checks logic and narrative shape and floors confidence at 0', () => {
    const logic = chain('l', 'LOGIC', [['inference', 'm1', 'so it grows'], ['inference', 'm2', 'which means it dies']]);
    expect(validator.validate(logic).issues).toHaveLength(2);
    const story = chain('n', 'NARRATIVE', [['event', 'm3', 'we left'], ['event', 'm1', 'we arrived']]);
    expect(validator.validate(story).issues[0]).toContain('comes from an earlier message');
    const days = ['2024-05-07', '2024-05-06', '2024-05-05', '2024-05-04', '2024-05-03', '2024-05-02', '2024-05-01'];
    const backwards = chain('b', 'TIME', days.map((d, i) => ['moment', `m${i + 1}`, d, d] as [string, string, string, string]));
    const result = validator.validate(backwards);
    expect(result.issues).toHaveLength(6);
    expect(result.confidence).toBe(0);
  });

  it('finds the flashback in the Kansai timeline (the missed 4 pm train told after the 5 pm landing)', () => {
    const { conversation } = loadFixture('zh-kansai-trip');
    const time = extractChainsWithRules(conversation, { types: ['TIME'] })[0] as ExtractedChain;
    const result = new CrossValidator({ order: messageOrder(conversation) }).validate(time);
    expect(result.issues).toEqual([expect.stringMatching(/\(2024-09-12T16:00\) is before moment \d+ \(2024-09-12T17:00\)/)]);
  });
});

describe('MultiDimensionSummary', () => {
  const conv = conversationOf(['alpha', 'beta', 'gamma']);

  it('computes completeness and consistency by the documented formulas', () => {
    const clusters = [cluster('k1', conv, ['leak', 'heap'], ['m1'], { priority: 0.9 }), cluster('k2', conv, ['deploy', 'heap'], ['m2'], { priority: 0.4 })];
    const chains = [
      chain('a', 'CAUSAL', [['problem', 'm1', 'oom'], ['cause', 'm2', 'cache']], 0.9),
      chain('b', 'CAUSAL', [['problem', 'm1', 'slow'], ['cause', 'm2', 'db']], 0.6),
      chain('c', 'TIME', [['moment', 'm1', 'May 2'], ['moment', 'm3', 'May 4']]),
    ];
    const links: BucketChainLink[] = [{ cluster_id: 'k1', chain_id: 'a', link_type: 'content_match', strength: 0.8, evidence: [] }];
    const validations = [1, 0.8, 0.6].map((confidence) => ({ validation_type: 'x', passed: confidence === 1, confidence, issues: [], suggestions: [] }) as ValidationResult);
    const summary = buildMultiDimensionSummary({ clusters, chains, links, validations });
    // 0.25 + 0.25 + 0.25 × 1/2 + 0.25 × 1/3
    expect(summary.completeness_score).toBe(0.7083);
    expect(summary.consistency_score).toBe(0.8);
    expect(summary.dominant_keywords).toEqual(['heap', 'leak', 'deploy']);
    expect(summary.topic_summary).toBe('leak heap (1 items, TASK_CONTEXT); deploy heap (1 items, TASK_CONTEXT)');
    expect(summary.causal_summary).toBe('oom → cache (+1 more)');
    expect(summary.time_summary).toBe('May 2 → May 4');
    expect(summary.logic_summary).toBe('');
    expect(summary.bucket_chain_relations).toEqual([{ cluster_id: 'k1', chain_id: 'a', chain_type: 'CAUSAL', link_type: 'content_match', strength: 0.8 }]);
  });

  it('scores an empty analysis as incomplete but not inconsistent', () => {
    const summary = buildMultiDimensionSummary({ clusters: [], chains: [], links: [], validations: [] });
    expect(summary.completeness_score).toBe(0);
    expect(summary.consistency_score).toBe(1);
  });
});

describe('CoordinatedExtractionTrigger', () => {
  const trigger = new CoordinatedExtractionTrigger();

  it('weighs the factors 0.3 / 0.3 / 0.25 / 0.15 and explains each', () => {
    const decision = trigger.decide({ bucket_ready: 0.8, chain_ready: 0.6, complementarity: 0.5, quality: 0.9 });
    // 0.24 + 0.18 + 0.125 + 0.135
    expect(decision.confidence).toBe(0.68);
    expect(decision.action).toBe('WAIT');
    expect(decision.explanation).toEqual(['bucket_ready 0.80 × 0.3 = 0.240', 'chain_ready 0.60 × 0.3 = 0.180', 'complementarity 0.50 × 0.25 = 0.125', 'quality 0.90 × 0.15 = 0.135', 'score 0.680 ≤ 0.7: WAIT']);
  });

  it('waits at exactly 0.7 (the seed compares strictly) and extracts just above', () => {
    expect(TRIGGER_THRESHOLD).toBe(0.7);
    const edge = trigger.decide({ bucket_ready: 0.7, chain_ready: 0.7, complementarity: 0.7, quality: 0.7 });
    expect(edge.confidence).toBe(0.7);
    expect(edge.action).toBe('WAIT');
    const above = trigger.decide({ bucket_ready: 1, chain_ready: 0.6, complementarity: 0.6, quality: 0.5 });
    expect(above.confidence).toBe(0.705); // 0.3 + 0.18 + 0.15 + 0.075
    expect(above.action).toBe('COORDINATED_EXTRACTION');
    expect(above.explanation.at(-1)).toBe('score 0.705 > 0.7: COORDINATED_EXTRACTION');
  });

  it('computes the factors from clusters, chains, links and validations', () => {
    const conv = conversationOf(['a', 'b', 'c', 'd']);
    const clusters = [cluster('k1', conv, ['x'], ['m1', 'm2', 'm3'], { coherence: 0.8 }), cluster('k2', conv, ['y'], ['m4'], { extraction_candidate: false, coherence: 0.4 })];
    const chains = [chain('a', 'CAUSAL', [['problem', 'm1', 'p'], ['cause', 'm2', 'c']], 0.9), chain('b', 'TIME', [['moment', 'm3', 't'], ['moment', 'm4', 'u']], 0.6)];
    const links: BucketChainLink[] = [{ cluster_id: 'k1', chain_id: 'a', link_type: 'content_match', strength: 0.7, evidence: [] }];
    const validations: ValidationResult[] = [{ validation_type: 'causal_consistency', passed: true, confidence: 1, issues: [], suggestions: [] }];
    const decision = trigger.evaluate({ clusters, chains, links, validations });
    // bucket 3/4; chain mean 0.75 × 2/3; complementarity ½·½ + ½·½; quality ½·0.6 + ½·1
    expect(decision.factors).toEqual({ bucket_ready: 0.75, chain_ready: 0.5, complementarity: 0.5, quality: 0.8 });
    expect(decision.confidence).toBe(0.62); // 0.225 + 0.15 + 0.125 + 0.12
    expect(decision.action).toBe('WAIT');
    expect(decision.explanation[0]).toBe('bucket_ready 0.75 × 0.3 = 0.225 (3 of 4 items in extraction-candidate clusters)');
    expect(decision.explanation).toHaveLength(5);
    // The counts behind the factors, for a view that explains them in its own language.
    expect(decision.evidence).toEqual({
      ready_items: 3,
      items: 4,
      mean_chain_confidence: 0.75,
      chains: 2,
      chains_needed: 3,
      linked_clusters: 1,
      clusters: 2,
      linked_chains: 1,
      coherence: expect.closeTo(0.6, 9),
      validation: 1,
    });
    const unvalidated = trigger.evaluate({ clusters, chains, links, validations: [] });
    expect(unvalidated.evidence?.validation).toBeNull();
    expect(unvalidated.factors.quality).toBeCloseTo(0.55, 9); // ½·0.6 + ½·0.5 (unknown)
    expect(unvalidated.explanation[3]).toMatch(/validation none \(0\.50\)\)$/);
  });
});
