/**
 * Messages into classified MemoryItems. Most messages become one item. A long message is split
 * only when its sentences clearly belong to different buckets ("I'm worried about the deadline.
 * Let's go with Postgres because..."): a sentence is clear when its strongest bucket has a cue sum
 * of at least CLEAR (one strong cue) and at least 1.5 times the runner-up, not counting the role
 * prior (a default is not evidence). Sentences without a clear
 * bucket stay with the segment before them, so a split never leaves a fragment without a signal.
 * Split items get ids `{message_id}#1`, `#2`, ...; unsplit items keep the message id.
 */
import type { BucketType, Conversation, MemoryItem } from '../../../../shared/types/memory.js';
import { calibrateBucket } from '../fusion/calibration.js';
import { ROLE_PRIOR } from './cues.js';
import { classifyText, type Classification } from './rules.js';
import { splitSentences } from './sentences.js';

const CLEAR = 0.9;
/** Messages shorter than this are never split: a short message has one purpose (60 characters is about a dozen English words or a long Chinese sentence). */
const MIN_SPLIT_CHARS = 60;

/** A MemoryItem before keywords and relevance are known, with its rule classification. */
export type DraftItem = Omit<MemoryItem, 'keywords' | 'relevance'> & { rules: Classification };

function clearBucket(c: Classification, role: MemoryItem['role']): BucketType | null {
  const prior = ROLE_PRIOR[role] ?? {};
  const evidence = (Object.entries(c.raw) as [BucketType, number][]).map(([b, raw]) => [b, raw - (prior[b] ?? 0)] as const).sort((x, y) => y[1] - x[1]);
  const [top, second] = evidence;
  return top && top[1] >= CLEAR && top[1] >= 1.5 * (second?.[1] ?? 0) ? top[0] : null;
}

/** The message's text as segments whose sentences clearly belong to different buckets (one segment when not). */
export function segmentMessage(text: string, role: MemoryItem['role']): string[] {
  if (text.length < MIN_SPLIT_CHARS) return [text];
  const sentences = splitSentences(text);
  if (sentences.length < 2) return [text];
  const segments: { bucket: BucketType | null; parts: string[] }[] = [];
  for (const sentence of sentences) {
    const bucket = clearBucket(classifyText(sentence, role), role);
    const last = segments.at(-1);
    if (last && (bucket === null || bucket === last.bucket || last.bucket === null)) {
      last.parts.push(sentence);
      last.bucket ??= bucket;
    } else segments.push({ bucket, parts: [sentence] });
  }
  return segments.length < 2 ? [text] : segments.map((s) => s.parts.join(' '));
}

export function draftItems(conversation: Conversation): DraftItem[] {
  const items: DraftItem[] = [];
  for (const session of conversation.sessions) {
    for (const message of session.messages) {
      if (message.text.trim().length === 0) continue;
      const segments = segmentMessage(message.text, message.role);
      segments.forEach((text, k) => {
        const rules = classifyText(text, message.role);
        items.push({
          id: segments.length > 1 ? `${message.id}#${k + 1}` : message.id,
          session_id: session.id,
          message_ids: [message.id],
          role: message.role,
          ...(message.speaker ? { speaker: message.speaker } : {}),
          text,
          ...(message.timestamp ? { timestamp: message.timestamp } : {}),
          bucket: rules.bucket,
          // Calibrated (fusion/calibration.ts): the chosen bucket's score is how often such an assignment was right.
          bucket_scores: Object.fromEntries(Object.entries(rules.bucket_scores).map(([b, score]) => [b, calibrateBucket(score)])),
          reason: rules.reason,
          why: rules.why,
          rules,
        });
      });
    }
  }
  return items;
}
