/**
 * The three signals that tie a topic cluster to a chain (the spec's content match, time window and
 * semantic similarity, docs/SPEC.md#fusion), each in 0..1 with a line of evidence a person can
 * check. Terms are words (`wordTerms`: stemmed English, Chinese words by Intl.Segmenter, no stop
 * words), as the topics' keywords are, so a keyword is matched as a word, not by character pairs.
 */
import type { Conversation, ExtractedChain, TopicCluster } from '../../../../shared/types/memory.js';
import { wordTerms } from '../../../lib/text-analysis.js';

/** Message id → position in the conversation (across sessions). */
export type MessageOrder = ReadonlyMap<string, number>;

export function messageOrder(conversation: Conversation): MessageOrder {
  const order = new Map<string, number>();
  for (const session of conversation.sessions) for (const message of session.messages) order.set(message.id, order.size);
  return order;
}

export interface Signal {
  value: number;
  evidence: string;
}

/** How many of the cluster's keywords (its first CONTENT_KEYWORDS, strongest first) count. */
export const CONTENT_KEYWORDS = 5;

/** Term frequencies of a text. */
export function termCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const term of wordTerms(text)) counts.set(term, (counts.get(term) ?? 0) + 1);
  return counts;
}

export function norm(v: ReadonlyMap<string, number>): number {
  let sum = 0;
  for (const x of v.values()) sum += x * x;
  return Math.sqrt(sum);
}

/** Cosine of two term vectors; pass their norms when known (fusion scores every cluster-chain pair). */
export function cosine(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>, normA = norm(a), normB = norm(b)): number {
  if (normA === 0 || normB === 0) return 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let dot = 0;
  for (const [term, x] of small) {
    const y = large.get(term);
    if (y !== undefined) dot += x * y;
  }
  return dot / (normA * normB);
}

/** What the signals need of a cluster, computed once per cluster. */
export interface ClusterProfile {
  keywords: { keyword: string; terms: string[] }[];
  terms: Map<string, number>;
  norm: number;
  span?: [number, number];
}

/** What the signals need of a chain, computed once per chain. */
export interface ChainProfile {
  terms: Map<string, number>;
  norm: number;
  span?: [number, number];
}

export function clusterProfile(cluster: TopicCluster, order: MessageOrder): ClusterProfile {
  const terms = termCounts(cluster.items.map((item) => item.text).join('\n'));
  return {
    keywords: cluster.keywords.slice(0, CONTENT_KEYWORDS).map((keyword) => ({ keyword, terms: wordTerms(keyword) })),
    terms,
    norm: norm(terms),
    span: span(cluster.items.flatMap((i) => i.message_ids), order),
  };
}

export function chainProfile(chain: ExtractedChain, order: MessageOrder): ChainProfile {
  const terms = termCounts(chain.content);
  return { terms, norm: norm(terms), span: span(chain.nodes.flatMap((n) => n.message_ids), order) };
}

/**
 * Content match: the share of the cluster's first CONTENT_KEYWORDS keywords whose terms all
 * occur in the chain.
 */
export function contentMatch(cluster: ClusterProfile, chain: ChainProfile): Signal {
  const keywords = cluster.keywords;
  if (keywords.length === 0) return { value: 0, evidence: 'content: the cluster has no keywords' };
  const shared = keywords.filter(({ terms }) => terms.length > 0 && terms.every((t) => chain.terms.has(t))).map((k) => k.keyword);
  const value = shared.length / keywords.length;
  return { value, evidence: shared.length > 0 ? `content: shares ${shared.length} of ${keywords.length} keywords (${shared.join(', ')})` : `content: none of ${keywords.length} keywords` };
}

/** [first, last] message positions of a set of ids; undefined when none is known. */
export function span(ids: Iterable<string>, order: MessageOrder): [number, number] | undefined {
  let lo = Infinity;
  let hi = -Infinity;
  for (const id of ids) {
    const p = order.get(id);
    if (p === undefined) continue;
    lo = Math.min(lo, p);
    hi = Math.max(hi, p);
  }
  return lo === Infinity ? undefined : [lo, hi];
}

/**
 * Time window: how much of the shorter of the two message spans (cluster items, chain nodes)
 * lies inside the other, counted in messages. 1 when one contains the other, 0 when they are apart.
 */
export function timeWindow(cluster: ClusterProfile, chain: ChainProfile): Signal {
  const a = cluster.span;
  const b = chain.span;
  if (!a || !b) return { value: 0, evidence: 'time: message positions unknown' };
  const inter = Math.max(0, Math.min(a[1], b[1]) - Math.max(a[0], b[0]) + 1);
  const shorter = Math.min(a[1] - a[0], b[1] - b[0]) + 1;
  const value = inter / shorter;
  return { value, evidence: `time: cluster messages #${a[0] + 1}–#${a[1] + 1}, chain #${b[0] + 1}–#${b[1] + 1} (${inter} of ${shorter} overlap)` };
}

export function semantic(cluster: ClusterProfile, chain: ChainProfile): Signal {
  const value = cosine(cluster.terms, chain.terms, cluster.norm, chain.norm);
  return { value, evidence: `semantic: cosine ${value.toFixed(2)}` };
}
