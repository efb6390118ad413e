/**
 * Scoring extracted chains against hand-written labels (test/fixtures/chains/*.labels.json).
 *
 * A predicted chain matches a label when the types agree and their message-id sets overlap
 * enough both ways: at least half of the label's distinct messages are in the prediction, and
 * at least half of the prediction's distinct messages are in the label. Matching is one-to-one,
 * best overlap (Jaccard) first, so one long chain cannot claim two labels.
 */
import { readFileSync } from 'node:fs';
import type { ChainType, Conversation, ExtractedChain } from '../../shared/types/memory.js';

export interface LabelFile {
  conversation_id: string;
  chains: { type: ChainType; message_ids: string[]; note?: string }[];
}

export const FIXTURES = new URL('../fixtures/chains/', import.meta.url);
export const FIXTURE_NAMES = ['en-memory-leak', 'en-architecture-argument', 'zh-braised-pork', 'zh-kansai-trip'] as const;

export function loadFixture(name: string): { conversation: Conversation; labels: LabelFile } {
  const conversation = JSON.parse(readFileSync(new URL(`${name}.json`, FIXTURES), 'utf8')) as Conversation;
  const labels = JSON.parse(readFileSync(new URL(`${name}.labels.json`, FIXTURES), 'utf8')) as LabelFile;
  return { conversation, labels };
}

export const MIN_SHARE = 0.5;

function overlaps(predicted: Set<string>, label: Set<string>): { ok: boolean; jaccard: number } {
  let shared = 0;
  for (const id of predicted) if (label.has(id)) shared += 1;
  const ok = shared > 0 && shared / label.size >= MIN_SHARE && shared / predicted.size >= MIN_SHARE;
  return { ok, jaccard: shared / (predicted.size + label.size - shared) };
}

export interface TypeScore {
  predicted: number;
  labels: number;
  matched: number;
}

/** Per-type counts of predictions, labels and one-to-one matches. */
export function scoreChains(predicted: ExtractedChain[], labels: LabelFile): Record<ChainType, TypeScore> {
  const out = {} as Record<ChainType, TypeScore>;
  for (const type of ['CAUSAL', 'LOGIC', 'OPERATION', 'NARRATIVE', 'TIME'] as ChainType[]) {
    const preds = predicted.filter((c) => c.chain_type === type).map((c) => new Set(c.nodes.flatMap((n) => n.message_ids)));
    const golds = labels.chains.filter((l) => l.type === type).map((l) => new Set(l.message_ids));
    const pairs: { p: number; g: number; jaccard: number }[] = [];
    preds.forEach((p, pi) =>
      golds.forEach((g, gi) => {
        const o = overlaps(p, g);
        if (o.ok) pairs.push({ p: pi, g: gi, jaccard: o.jaccard });
      }),
    );
    pairs.sort((a, b) => b.jaccard - a.jaccard || a.p - b.p || a.g - b.g);
    const usedP = new Set<number>();
    const usedG = new Set<number>();
    for (const pair of pairs) {
      if (usedP.has(pair.p) || usedG.has(pair.g)) continue;
      usedP.add(pair.p);
      usedG.add(pair.g);
    }
    out[type] = { predicted: preds.length, labels: golds.length, matched: usedP.size };
  }
  return out;
}
