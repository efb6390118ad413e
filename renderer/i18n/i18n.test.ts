import { describe, expect, it } from 'vitest';
import { en, type MessageKey } from './en';
import { zh } from './zh';
import { isMessageKey, labelOf, preferredLocale, translate } from './index';
import { SkipReason } from '../../shared/types/ingest';
import { keptItem } from '../../shared/import-kept-cause';
import { because } from '../../shared/memory-change-cause';
import { bucketReason } from '../../shared/bucket-reason';
import { localizeBucketWhy, localizeChange, localizeKept } from './causes';

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
/**
 * The values a text shows: its placeholders, and a plural's count when a form shows it (`#`).
 * Chinese has no plural forms, so it may leave out a count English needs only to choose one.
 */
const shown = (text: string) =>
  placeholders(text.replace(/\{(\w+), plural,((?:\s*[=\w]+ \{[^{}]*\})+)\s*\}/g, (_, name: string, forms: string) => (forms.includes('#') ? `{${name}}` : '')));

describe('the language tables', () => {
  it('give every Chinese text the placeholders of its English one, and no text is empty', () => {
    for (const key of Object.keys(en) as MessageKey[]) {
      expect(shown(zh[key]), key).toEqual(shown(en[key]));
      expect(zh[key].trim(), key).not.toBe('');
    }
  });

  it('says every reason a file is skipped for in words, in both languages', () => {
    for (const reason of SkipReason.options) {
      expect(isMessageKey(`skipReason.${reason}`), reason).toBe(true);
      expect(labelOf((key) => translate('zh', key), 'skipReason', reason), reason).not.toMatch(/^[a-z-]+$/);
    }
  });

  it('leaves no "(s)" plural in English', () => {
    for (const key of Object.keys(en) as MessageKey[]) expect(en[key], key).not.toMatch(/\w\((s|es)\)/);
  });

  it('says a count of one in the singular ("1 session · 42 messages", "1 of 1 file")', () => {
    // A count followed by a plural noun without a plural form reads "1 sessions" (token counts are never one).
    for (const key of Object.keys(en) as MessageKey[]) expect(en[key], key).not.toMatch(/\{(?:count|files|dirs|directories|sections|nodes|sessions|messages|total|calls|fallbacks|reused)\} (?:LLM )?(?!tokens\b)[a-z]+s\b/);
    expect(translate('en', 'sessions.counts', { sessions: 1, messages: 42 })).toBe('1 session · 42 messages');
    expect(translate('en', 'upload.files', { done: 1, total: 1 })).toBe('1 of 1 file');
    expect(translate('en', 'home.estimate.done', { dirs: 1, files: '1,204', calls: 0, fallbacks: 1 })).toBe('Summarized 1 directory and 1,204 files (0 LLM calls, 1 fallback).');
    expect(translate('zh', 'sessions.counts', { sessions: 1, messages: 42 })).toBe('1 个会话 · 42 条消息');
  });
});

describe('causes in the page language', () => {
  it("say why an import kept this workspace's item, its moments as the page writes them", () => {
    const item = keptItem('mem_1', { code: 'newer_here', ours: '2026-12-02T10:00:00.000Z', theirs: '2026-12-01T09:00:00.000Z' });
    expect(item.reason).toBe("this workspace's version is newer (2026-12-02T10:00:00.000Z > 2026-12-01T09:00:00.000Z)");
    const zhText = localizeKept(item, 'zh');
    expect(zhText).toMatch(/^本工作区的版本更新（2026年12月\d+日.* > 2026年12月\d+日.*）$/);
    expect(localizeKept(item, 'en')).toMatch(/^this workspace's version is newer \(Dec \d, 2026, .* > Dec \d, 2026, .*\)$/);
    // A result from an engine before causes were structured: its English reason as it came.
    expect(localizeKept({ reason: 'kept for a reason' }, 'zh')).toBe('kept for a reason');
    for (const code of ['forgotten_here', 'analysis_orphan', 'node_from_records', 'not_regular_file'] as const) {
      expect(localizeKept(keptItem('x', { code, ours: '2026-12-02T10:00:00.000Z' }), 'zh'), code).toMatch(/[\u4e00-\u9fff]/);
    }
  });

  it('say why a message went to its bucket, the bucket and role by their labels, a fallback by its cause', () => {
    const cues = bucketReason({ by: 'cues', bucket: 'DECISION_CONTEXT', cues: ["let's go with", 'because'], score: 1.4 });
    expect(cues.reason).toBe("rules: DECISION_CONTEXT by let's go with, because (1.40)");
    expect(localizeBucketWhy(cues, 'zh')).toBe("规则：let's go with, because → 决策上下文（1.40）");
    expect(localizeBucketWhy(cues, 'en')).toBe("rules: Decision context by let's go with, because (1.40)");
    const fallback = bucketReason({ by: 'role_default', bucket: 'TASK_CONTEXT', role: 'user', fallback: { code: 'http_status', status: 500, message: 'injected fault' } });
    expect(fallback.reason).toBe("rules: no cue matched; TASK_CONTEXT is the default for user messages (LLM fallback: HTTP 500 'injected fault')");
    expect(localizeBucketWhy(fallback, 'zh')).toMatch(/^规则：没有匹配的提示词；用户消息默认归入任务上下文（LLM 回退：.*500.*injected fault.*）$/);
    expect(localizeBucketWhy(bucketReason({ by: 'llm', bucket: 'USER_INTENT', detail: 'states a preference' }), 'zh')).toBe('states a preference');
    // An analysis stored before reasons were structured: its English reason as it came.
    expect(localizeBucketWhy({ reason: 'rules: USER_INTENT by I want (1.00)' }, 'zh')).toBe('rules: USER_INTENT by I want (1.00)');
  });

  it('say why a proposed candidate joins an earlier one, naming it by title', () => {
    const change = because({ code: 'with_candidate', memory: { id: 'semantic_ab12', title: 'Pool size is 50' } });
    expect(change.reason).toBe('new memory; merged with the candidate "Pool size is 50" when both are accepted');
    expect(localizeChange(change, 'zh')).toBe('新记忆；两者都接受时与候选「Pool size is 50」合并');
  });
});

describe('translate', () => {
  it('reads the chosen language and fills the placeholders it is given', () => {
    expect(translate('en', 'home.doneOf', { done: 3, total: 10 })).toBe('3 of 10');
    expect(translate('zh', 'error.code', { code: 'E_IO' })).toBe('错误 E_IO');
    expect(translate('en', 'nav.home')).toBe('Home');
    expect(translate('zh', 'nav.home')).toBe('首页');
  });

  it('chooses plural forms by the count, formatted or not, and Chinese has one form', () => {
    expect(translate('en', 'search.count', { count: 1, ms: 4 })).toBe('1 hit in 4 ms');
    expect(translate('en', 'search.count', { count: 0, ms: 4 })).toBe('0 hits in 4 ms');
    expect(translate('en', 'search.count', { count: '1,234', ms: 4 })).toBe('1,234 hits in 4 ms');
    expect(translate('en', 'sessions.stats.buffer', { chains: 1, conversations: 3 })).toBe('Chain buffer: 1 chain waiting in 3 conversations');
    expect(translate('en', 'upload.failedFiles', { count: 1 })).toBe('1 file was not uploaded');
    expect(translate('en', 'compress.messages', { count: 2, ids: 'm6, m7' })).toBe('messages m6, m7');
    expect(translate('zh', 'sessions.chainSteps', { count: 1 })).toBe(translate('zh', 'sessions.chainSteps', { count: 2 }).replace('2', '1'));
  });

  it('leaves a placeholder it has no value for as written', () => {
    expect(translate('en', 'home.doneOf', { done: 3 })).toBe('3 of {total}');
  });
});

describe('preferredLocale', () => {
  it('takes the first language the browser prefers that the interface speaks, else English', () => {
    expect(preferredLocale(['fr-FR', 'zh-CN', 'en'])).toBe('zh');
    expect(preferredLocale(['EN-gb'])).toBe('en');
    expect(preferredLocale(['de', 'ja'])).toBe('en');
    expect(preferredLocale([])).toBe('en');
  });
});

describe('labelOf', () => {
  it('translates a value the engine names, and shows one it has no text for as is', () => {
    expect(isMessageKey('nav.home')).toBe(true);
    expect(isMessageKey('toString')).toBe(false);
    const t = (key: MessageKey) => translate('zh', key);
    expect(labelOf(t, 'nav', 'home')).toBe('首页');
    expect(labelOf(t, 'chainRole', 'hypothesis-from-an-llm')).toBe('hypothesis-from-an-llm');
  });
});
