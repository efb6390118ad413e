/**
 * The rule-based bucket classifier: sums the weights of the cues a text matches per bucket
 * (plus a small prior by role), picks the largest, and says which cues decided it.
 * Scores are 1 - e^(-sum), so one clear cue gives about 0.63 and two give about 0.86.
 */
import { bucketReason, type BucketWhy } from '../../../../shared/bucket-reason.js';
import type { BucketType, Role } from '../../../../shared/types/memory.js';
import { BUCKET_ORDER, CUES, ROLE_PRIOR } from './cues.js';

export interface Classification {
  bucket: BucketType;
  /** 1 - e^(-raw) per bucket, rounded to 3 decimals. */
  bucket_scores: Record<BucketType, number>;
  /** Raw cue sums, for deciding whether a sentence "clearly" belongs to a bucket. */
  raw: Record<BucketType, number>;
  /** Why, in English (the CLI's words) and as a structure (the view's). */
  reason: string;
  why: BucketWhy;
}

function countMatches(pattern: RegExp, text: string, max: number): number {
  if (!pattern.global) return pattern.test(text) ? 1 : 0;
  pattern.lastIndex = 0;
  let n = 0;
  while (n < max && pattern.exec(text)) n += 1;
  return n;
}

export function classifyText(text: string, role: Role): Classification {
  const lower = text.toLowerCase();
  const raw = {} as Record<BucketType, number>;
  const hits = {} as Record<BucketType, string[]>;
  const prior = ROLE_PRIOR[role] ?? {};
  // A question asks for a choice ("Should we go with Postgres?"); it does not make one.
  const question = /[?？]\s*$/.test(text.trim());
  for (const bucket of BUCKET_ORDER) {
    raw[bucket] = prior[bucket] ?? 0;
    hits[bucket] = [];
    if (question && bucket === 'DECISION_CONTEXT') continue;
    for (const cue of CUES[bucket]) {
      if (cue.role && cue.role !== role) continue;
      const n = countMatches(cue.pattern, lower, cue.max ?? 1);
      if (n > 0) {
        raw[bucket] += cue.weight * n;
        hits[bucket].push(n > 1 ? `${cue.name} ×${n}` : cue.name);
      }
    }
  }
  let best: BucketType = BUCKET_ORDER[0] as BucketType;
  for (const bucket of BUCKET_ORDER) if (raw[bucket] > raw[best]) best = bucket;
  const bucket_scores = {} as Record<BucketType, number>;
  for (const bucket of BUCKET_ORDER) bucket_scores[bucket] = Math.round((1 - Math.exp(-raw[bucket])) * 1000) / 1000;
  const bestHits = hits[best];
  const why: BucketWhy = bestHits.length > 0 ? { by: 'cues', bucket: best, cues: bestHits, score: raw[best] } : { by: 'role_default', bucket: best, role };
  return { bucket: best, bucket_scores, raw, ...bucketReason(why) };
}
