/**
 * Causes in the page's language, from their structure and the i18n tables' texts: an LLM
 * failure's (shared/llm-cause.ts, `cause.*`), a memory change's (shared/memory-change-cause.ts,
 * `change.*`), an import's kept item (shared/import-kept-cause.ts, `kept.*`) and a message's
 * bucket (shared/bucket-reason.ts, `bucketWhy.*`). What the server,
 * the model or the person said stays as they said it; a cause stored before causes were
 * structured is shown as it came.
 */
import type { StoredCause } from '../../shared/llm-cause';
import { describeCause } from '../../shared/llm-cause';
import { describeBucketWhy, type BucketWhy } from '../../shared/bucket-reason';
import { describeKept, type KeptCause } from '../../shared/import-kept-cause';
import { describeChange } from '../../shared/memory-change-cause';
import { formatWhen } from '../../shared/format';
import type { MemoryChange } from '../../shared/types/memory';
import type { MessageKey } from './en';
import { labelOf, translate, type Locale } from './index';

export function localizeCause(cause: StoredCause, locale: Locale): string {
  return describeCause(cause, (key, params) => translate(locale, key, params));
}

/** Why a memory changed, in the page's language (a history line written before causes were structured: its English reason). */
export function localizeChange(change: Pick<MemoryChange, 'reason' | 'cause'>, locale: Locale): string {
  return change.cause ? describeChange(change.cause, (key, params) => translate(locale, key, params)) : change.reason;
}

/** Why an import kept this workspace's item or left one out, in the page's language (a result without a cause: its English reason). */
export function localizeKept(item: { reason: string; cause?: KeptCause | undefined }, locale: Locale): string {
  return item.cause
    ? describeKept(
        item.cause,
        (key, params) => translate(locale, key, params),
        (iso) => formatWhen(iso, locale),
      )
    : item.reason;
}

/** Why a message went to its bucket, in the page's language, the bucket and role by their labels (an analysis stored before reasons were structured: its English reason). */
export function localizeBucketWhy(item: { reason?: string | undefined; why?: BucketWhy | undefined }, locale: Locale): string {
  if (!item.why) return item.reason ?? '';
  const label = (key: MessageKey) => translate(locale, key);
  return describeBucketWhy(
    item.why,
    (key, params) => translate(locale, key, params),
    (key, params) => translate(locale, key, params),
    { bucket: (b) => labelOf(label, 'bucket', b), role: (r) => labelOf(label, 'messageRole', r) },
  );
}
