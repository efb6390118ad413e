import { describe, expect, it } from 'vitest';
import { CHANGE_MESSAGES, because, describeChange, englishChange, type SayChange } from './memory-change-cause';
import { sayFrom } from './format';

const chinese: SayChange = sayFrom(CHANGE_MESSAGES.zh);
const pool = { id: 'mem_0123456789abcdef', title: 'Pool size is 20' };

describe('a memory change said from its cause', () => {
  it('names the other memory by its title, not its id, in English and Chinese', () => {
    const cause = { code: 'new', memory: pool, score: 0.084 } as const;
    expect(describeChange(cause, englishChange)).toBe('new fact (closest memory: "Pool size is 20", 0.08)');
    expect(describeChange(cause, chinese)).toBe('新事实（最接近的记忆：「Pool size is 20」，0.08）');
    expect(describeChange({ code: 'new' }, chinese)).toBe('新事实');
  });

  it('says a held or a replacing decision inside its own line, and what became of the messages', () => {
    const held = { code: 'pinned', memory: pool, decision: { code: 'merged', memory: pool, score: 0.71 } } as const;
    expect(describeChange(held, englishChange)).toBe('"Pool size is 20" is pinned (edited by you): update held for your review; merged with the similar memory "Pool size is 20" (0.71)');
    expect(describeChange({ code: 'identical', memory: pool, score: 0.93, messages: 'added' }, chinese)).toBe('与「Pool size is 20」几乎相同（相似度 0.93）：没有新内容；已补上消息 id');
    expect(describeChange({ code: 'replaces', memory: pool, decision: { code: 'llm', model: 'gpt-4o-mini', detail: 'obsolete' } }, englishChange)).toBe('replaces "Pool size is 20", deleted: llm gpt-4o-mini: obsolete');
  });

  it('keeps what the person wrote as they wrote it', () => {
    expect(describeChange({ code: 'forgotten', detail: 'changed my mind' }, chinese)).toBe('由用户遗忘：changed my mind');
    expect(because({ code: 'forgotten', detail: 'changed my mind' })).toEqual({ reason: 'forgotten by user: changed my mind', cause: { code: 'forgotten', detail: 'changed my mind' } });
  });

  it('has every text in both languages', () => {
    expect(Object.keys(CHANGE_MESSAGES.zh).sort()).toEqual(Object.keys(CHANGE_MESSAGES.en).sort());
  });
});
