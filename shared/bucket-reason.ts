/**
 * Why a message went to its semantic bucket, as a structure: the rules' cues (the phrases
 * matched, as the cue tables name them, and their summed weight), the rules' default for the
 * message's role when no cue matched, or the model's own words; and, when the LLM was asked but
 * the rules stand, why it fell back. The engine makes it (main/engine/memory/buckets/); the item
 * carries it beside the English `reason` the CLI prints, and the Buckets tab says it in its own
 * language through `describeBucketWhy` (i18n keys `bucketWhy.*`), the bucket by its label.
 *
 * @example
 * describeBucketWhy({ by: 'cues', bucket: 'DECISION_CONTEXT', cues: ["let's go with"], score: 1 }, englishBucketWhy)
 * // "rules: DECISION_CONTEXT by let's go with (1.00)"
 */
import { z } from 'zod';
import { sayFrom, type Say } from './format.js';
import { LlmCause, describeCause, englishCause, type SayCause } from './llm-cause.js';
import type { Locale } from './locale.js';

export const BucketWhy = z.object({
  by: z.enum(['cues', 'role_default', 'llm']),
  bucket: z.string(),
  /** cues: the cues that decided it ("need to / have to", "报错/失败", "failure ×2"). */
  cues: z.array(z.string()).optional(),
  /** cues: their summed weight. */
  score: z.number().optional(),
  /** role_default: the message's role. */
  role: z.string().optional(),
  /** llm: the model's reason as it wrote it. */
  detail: z.string().optional(),
  /** The LLM was asked and the rules stand: its failure, or 'no_answer' when its answer left the message out. */
  fallback: z.union([LlmCause, z.literal('no_answer')]).optional(),
});
export type BucketWhy = z.infer<typeof BucketWhy>;

/** The texts a bucket's reason is said with, per language; `{name}` placeholders. */
export const BUCKET_WHY_MESSAGES = {
  en: {
    'bucketWhy.cues': 'rules: {bucket} by {cues} ({score})',
    'bucketWhy.roleDefault': 'rules: no cue matched; {bucket} is the default for {role} messages',
    'bucketWhy.llm': '{detail}',
    'bucketWhy.fallback': '{why} (LLM fallback: {cause})',
    'bucketWhy.noAnswer': 'no answer for this message',
  },
  zh: {
    'bucketWhy.cues': '规则：{cues} → {bucket}（{score}）',
    'bucketWhy.roleDefault': '规则：没有匹配的提示词；{role}消息默认归入{bucket}',
    'bucketWhy.llm': '{detail}',
    'bucketWhy.fallback': '{why}（LLM 回退：{cause}）',
    'bucketWhy.noAnswer': '回答中没有这条消息',
  },
} as const satisfies Record<Locale, Record<string, string>>;

export type BucketWhyKey = keyof (typeof BUCKET_WHY_MESSAGES)['en'];
export type SayBucketWhy = Say<BucketWhyKey>;

/** How a view names buckets and roles (its labels); the CLI keeps the codes. */
export interface BucketWhyNames {
  bucket: (bucket: string) => string;
  role: (role: string) => string;
}

const CODES: BucketWhyNames = { bucket: (b) => b, role: (r) => r };

/** The CLI's wording: English, buckets by their codes. */
export const englishBucketWhy: SayBucketWhy = sayFrom(BUCKET_WHY_MESSAGES.en);

/** A bucket's reason in the words `say` gives (`sayCause` for an LLM fallback's cause). */
export function describeBucketWhy(why: BucketWhy, say: SayBucketWhy, sayCause: SayCause = englishCause, names: BucketWhyNames = CODES): string {
  const bucket = names.bucket(why.bucket);
  const head =
    why.by === 'cues'
      ? say('bucketWhy.cues', { bucket, cues: (why.cues ?? []).join(', '), score: (why.score ?? 0).toFixed(2) })
      : why.by === 'role_default'
        ? say('bucketWhy.roleDefault', { bucket, role: names.role(why.role ?? '') })
        : say('bucketWhy.llm', { detail: why.detail || bucket });
  if (!why.fallback) return head;
  const cause = why.fallback === 'no_answer' ? say('bucketWhy.noAnswer') : describeCause(why.fallback, sayCause);
  return say('bucketWhy.fallback', { why: head, cause });
}

/** An item's `reason` (English, for the CLI) and its `why`, set together. */
export function bucketReason(why: BucketWhy): { reason: string; why: BucketWhy } {
  return { reason: describeBucketWhy(why, englishBucketWhy), why };
}
