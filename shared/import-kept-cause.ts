/**
 * Why an import kept this workspace's item over the imported one (or left an item out), as a
 * structure: a code and the moments it was weighed at. The engine makes it
 * (main/engine/portability/merge.ts, main/engine/memory/long-term/store.ts); the import result
 * carries it beside the English `reason` the CLI prints, and the Export view says it in its own
 * language through `describeKept` over the texts below (i18n keys `kept.*`).
 *
 * @example
 * describeKept({ code: 'newer_here', ours: '2026-12-02T10:00:00Z', theirs: '2026-12-01T09:00:00Z' }, englishKept)
 * // "this workspace's version is newer (2026-12-02T10:00:00Z > 2026-12-01T09:00:00Z)"
 */
import { z } from 'zod';
import { sayFrom, type Say } from './format.js';
import type { Locale } from './locale.js';

export const KeptCause = z.object({
  code: z.enum(['newer_here', 'forgotten_here', 'analysis_orphan', 'node_from_records', 'not_regular_file']),
  /** newer_here: this workspace's version's time. forgotten_here: when the person forgot it here. */
  ours: z.string().optional(),
  /** newer_here, forgotten_here: the imported version's time. */
  theirs: z.string().optional(),
});
export type KeptCause = z.infer<typeof KeptCause>;

/** The texts a kept item's cause is said with, per language; `{name}` placeholders. */
export const KEPT_MESSAGES = {
  en: {
    'kept.newerHere': "this workspace's version is newer ({ours} > {theirs})",
    'kept.forgottenHere': 'forgotten by user here on {ours}, after the imported version',
    'kept.analysisOrphan': 'analysis left out: its conversation is neither in this workspace nor in the export',
    'kept.nodeFromRecords': 'memory pages and conversations are imported from their own records, not as nodes',
    'kept.notRegularFile': 'not a regular file (links are never imported)',
  },
  zh: {
    'kept.newerHere': '本工作区的版本更新（{ours} > {theirs}）',
    'kept.forgottenHere': '用户已于 {ours} 在本工作区遗忘它，晚于导入的版本',
    'kept.analysisOrphan': '未导入分析：它的对话既不在本工作区，也不在导出中',
    'kept.nodeFromRecords': '记忆页面和对话从各自的记录导入，不作为节点导入',
    'kept.notRegularFile': '不是普通文件（链接从不导入）',
  },
} as const satisfies Record<Locale, Record<string, string>>;

export type KeptMessageKey = keyof (typeof KEPT_MESSAGES)['en'];
export type SayKept = Say<KeptMessageKey>;

/** The CLI's wording: English. */
export const englishKept: SayKept = sayFrom(KEPT_MESSAGES.en);

const KEYS: Record<KeptCause['code'], KeptMessageKey> = {
  newer_here: 'kept.newerHere',
  forgotten_here: 'kept.forgottenHere',
  analysis_orphan: 'kept.analysisOrphan',
  node_from_records: 'kept.nodeFromRecords',
  not_regular_file: 'kept.notRegularFile',
};

/** A kept item's cause in the words `say` gives, its moments as `when` writes them (the CLI: ISO, as stored). */
export function describeKept(cause: KeptCause, say: SayKept, when: (iso: string) => string = (iso) => iso): string {
  return say(KEYS[cause.code], { ours: cause.ours ? when(cause.ours) : '', theirs: cause.theirs ? when(cause.theirs) : '' });
}

/** An item an import kept or left out: its id, why in English (the CLI's words), and why as a structure. */
export interface KeptItem {
  id: string;
  reason: string;
  cause: KeptCause;
}

/** A kept item, its `reason` and `cause` set together. */
export function keptItem(id: string, cause: KeptCause): KeptItem {
  return { id, reason: describeKept(cause, englishKept), cause };
}
