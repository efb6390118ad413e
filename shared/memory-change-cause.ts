/**
 * Why a memory changed (or did not), as a structure: a code, the other memory it was weighed
 * against (by id and title), a similarity and the free text that came with it (the LLM's reason,
 * the person's reason to forget, the contradiction found, an import's source). The engine makes
 * it (main/engine/memory/long-term/); the history keeps it beside the English `reason` the CLI
 * prints, and the page says it in its own language through `describeChange` over the texts below
 * (its i18n keys `change.*`, renderer/i18n/en.ts and zh.ts), naming the other memory by its title
 * rather than its raw id. What the LLM or the person wrote stays as they wrote it.
 *
 * A history line written before causes were structured has only its `reason`: it is shown as it is.
 *
 * @example
 * describeChange({ code: 'new', memory: { id: 'mem_1', title: 'Pool size' }, score: 0.08 }, englishChange) // "new fact (closest memory: "Pool size", 0.08)"
 */
import { z } from 'zod';
import { sayFrom, type Say } from './format.js';
import type { Locale } from './locale.js';

export const CHANGE_CODES = [
  'new',
  'identical',
  'merged',
  'contradiction',
  'llm',
  'replaces',
  'edited',
  'edit_unchanged',
  'forgotten',
  'not_readded',
  'pinned',
  'imported',
  'import_stays',
  'with_candidate',
] as const;
export type ChangeCode = (typeof CHANGE_CODES)[number];

export interface ChangeCause {
  code: ChangeCode;
  /** The other memory: the closest (new), the one it repeats, merges with, contradicts, replaces or is held for (pinned); with_candidate: the earlier candidate it joins (its proposal id and title). */
  memory?: { id: string; title: string } | undefined;
  /** The similarity it was weighed at. */
  score?: number | undefined;
  /** Free text kept as written: the contradiction (contradiction), the LLM's reason (llm), the person's reason (forgotten), the source (imported). */
  detail?: string | undefined;
  /** llm: the model that decided. */
  model?: string | undefined;
  /** What became of the candidate's messages when it said nothing new: already recorded, or added to the memory's provenance. */
  messages?: 'recorded' | 'added' | undefined;
  /** pinned and replaces: the decision held for the person's review, or that made the replacement. */
  decision?: ChangeCause | undefined;
}

export const ChangeCause: z.ZodType<ChangeCause> = z.lazy(() =>
  z.object({
    code: z.enum(CHANGE_CODES),
    memory: z.object({ id: z.string(), title: z.string() }).optional(),
    score: z.number().optional(),
    detail: z.string().optional(),
    model: z.string().optional(),
    messages: z.enum(['recorded', 'added']).optional(),
    decision: ChangeCause.optional(),
  }),
);

/** The texts a change's cause is said with, per language; `{name}` placeholders. */
export const CHANGE_MESSAGES = {
  en: {
    'change.new': 'new fact',
    'change.newClosest': 'new fact (closest memory: "{title}", {score})',
    'change.identical': 'near-identical to "{title}" (similarity {score}): it adds no new term',
    'change.merged': 'merged with the similar memory "{title}" ({score})',
    'change.contradiction': 'replaces a contradicted statement of "{title}" ({detail}); the earlier text is kept in history',
    'change.llm': 'llm {model}: {detail}',
    'change.replaces': 'replaces "{title}", deleted: {decision}',
    'change.edited': 'edited by user',
    'change.editUnchanged': 'edit changes nothing',
    'change.forgotten': 'forgotten by user',
    'change.forgottenBecause': 'forgotten by user: {detail}',
    'change.notReadded': 'forgotten by user earlier; not added again',
    'change.pinned': '"{title}" is pinned (edited by you): update held for your review; {decision}',
    'change.imported': 'imported from {detail}',
    'change.importStays': 'import: the memory stays as it is in this workspace',
    'change.withCandidate': 'new memory; merged with the candidate "{title}" when both are accepted',
    'change.messagesRecorded': '{decision}; its messages are already recorded',
    'change.messagesAdded': '{decision}; message ids added',
  },
  zh: {
    'change.new': '新事实',
    'change.newClosest': '新事实（最接近的记忆：「{title}」，{score}）',
    'change.identical': '与「{title}」几乎相同（相似度 {score}）：没有新内容',
    'change.merged': '与相似的记忆「{title}」合并（{score}）',
    'change.contradiction': '取代「{title}」中相互矛盾的说法（{detail}）；原文保留在历史中',
    'change.llm': 'LLM（{model}）：{detail}',
    'change.replaces': '取代「{title}」并将其删除：{decision}',
    'change.edited': '由用户编辑',
    'change.editUnchanged': '编辑没有改动任何内容',
    'change.forgotten': '由用户遗忘',
    'change.forgottenBecause': '由用户遗忘：{detail}',
    'change.notReadded': '用户之前已遗忘，不再添加',
    'change.pinned': '「{title}」已固定（你编辑过）：更新等你审阅；{decision}',
    'change.imported': '从 {detail} 导入',
    'change.importStays': '导入：记忆保持本工作区中的样子',
    'change.withCandidate': '新记忆；两者都接受时与候选「{title}」合并',
    'change.messagesRecorded': '{decision}；其消息已记录',
    'change.messagesAdded': '{decision}；已补上消息 id',
  },
} as const satisfies Record<Locale, Record<string, string>>;

export type ChangeMessageKey = keyof (typeof CHANGE_MESSAGES)['en'];
export type SayChange = Say<ChangeMessageKey>;

/** The CLI's and the history file's wording: English. */
export const englishChange: SayChange = sayFrom(CHANGE_MESSAGES.en);

/** A change's cause in the words `say` gives. */
export function describeChange(cause: ChangeCause, say: SayChange): string {
  const title = cause.memory?.title ?? cause.memory?.id ?? '';
  const score = cause.score?.toFixed(2) ?? '';
  const decision = cause.decision ? describeChange(cause.decision, say) : '';
  const head = ((): string => {
    switch (cause.code) {
      case 'new':
        return cause.memory ? say('change.newClosest', { title, score }) : say('change.new');
      case 'identical':
        return say('change.identical', { title, score });
      case 'merged':
        return say('change.merged', { title, score });
      case 'contradiction':
        return say('change.contradiction', { title, detail: cause.detail ?? '' });
      case 'llm':
        return say('change.llm', { model: cause.model ?? '', detail: cause.detail ?? '' });
      case 'replaces':
        return say('change.replaces', { title, decision });
      case 'edited':
        return say('change.edited');
      case 'edit_unchanged':
        return say('change.editUnchanged');
      case 'forgotten':
        return cause.detail ? say('change.forgottenBecause', { detail: cause.detail }) : say('change.forgotten');
      case 'not_readded':
        return say('change.notReadded');
      case 'pinned':
        return say('change.pinned', { title, decision });
      case 'imported':
        return say('change.imported', { detail: cause.detail ?? '' });
      case 'import_stays':
        return say('change.importStays');
      case 'with_candidate':
        return say('change.withCandidate', { title });
    }
  })();
  if (cause.messages === 'recorded') return say('change.messagesRecorded', { decision: head });
  if (cause.messages === 'added') return say('change.messagesAdded', { decision: head });
  return head;
}

/** A change's `reason` (English, for the CLI and the history file) and its `cause`, set together. */
export function because(cause: ChangeCause): { reason: string; cause: ChangeCause } {
  return { reason: describeChange(cause, englishChange), cause };
}
