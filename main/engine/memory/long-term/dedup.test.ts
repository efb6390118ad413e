import { describe, expect, it } from 'vitest';
import type { LongTermMemory, MemoryCategory } from '../../../../shared/types/memory.js';
import { MERGE_SIMILARITY, decide, merge, similarity } from './dedup.js';
import { cosine, coverage, isNegated, sentenceContradiction, sentenceKey, splitSentences, termVector } from './similarity.js';
import type { MemoryCandidate } from './types.js';

function memory(category: MemoryCategory, title: string, content: string, keywords: string[] = []): LongTermMemory {
  return { id: 'mem_0000000000000001', category, title, content, keywords, message_ids: ['s1:1'], confidence: 0.8, created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' };
}

function candidate(category: MemoryCategory, title: string, content: string, keywords: string[] = []): MemoryCandidate {
  return { category, title, content, keywords, message_ids: ['s2:3'], conversation_id: 'c2', confidence: 0.7 };
}

describe('contradictions', () => {
  it('sees antonyms, negation and change cues, in English and Chinese', () => {
    expect(sentenceContradiction('Ana prefers the dark theme.', 'Ana prefers the light theme.', 'preference')).toMatchObject({ kind: 'antonym', detail: 'dark → light' });
    expect(sentenceContradiction('Ana likes coffee.', "Ana doesn't like coffee.", 'preference')).toMatchObject({ kind: 'negation' });
    expect(sentenceContradiction('Ana never works on Fridays.', 'Ana works on Fridays.', 'event')).toMatchObject({ kind: 'negation' });
    expect(sentenceContradiction('Ana uses vim.', 'Ana now uses emacs.', 'preference')).toMatchObject({ kind: 'change' });
    expect(sentenceContradiction('用户喜欢深色主题。', '用户现在喜欢浅色主题。', 'preference')).toMatchObject({ kind: 'antonym' });
    expect(sentenceContradiction('用户喜欢喝咖啡。', '用户不喜欢喝咖啡。', 'preference')).toMatchObject({ kind: 'negation' });
  });

  it('does not call two compatible values a contradiction', () => {
    expect(sentenceContradiction('Ana likes tea.', 'Ana likes coffee.', 'preference')).toBeNull();
    expect(sentenceContradiction('Ana uses vim.', 'Ana now uses emacs.', 'event')).toBeNull(); // change cues count only for single-valued categories
    expect(sentenceContradiction('Ana prefers the dark theme.', 'Bo lights the candles at dinner.', 'preference')).toBeNull();
    expect(isNegated('这个不错')).toBe(false);
    expect(isNegated('I cannot come')).toBe(true);
  });
});

describe('contradictions are real disagreements only (issue 17, item 5)', () => {
  it('counts a denial of the same statement, a different date and a different number', () => {
    expect(sentenceContradiction('Ana works on Fridays.', 'Ana does not work on Fridays.', 'profile')).toMatchObject({ kind: 'negation' });
    expect(sentenceContradiction('The release goes out on 2024-05-09.', 'The release goes out on 2024-05-10.', 'event')).toMatchObject({ kind: 'value', detail: '2024-05-09 → 2024-05-10' });
    expect(sentenceContradiction('The standup starts at 09:30.', 'The standup starts at 10:00.', 'event')).toMatchObject({ kind: 'value' });
    expect(sentenceContradiction('Keep the pool max at 20 connections.', 'Keep the pool max at 30 connections.', 'semantic')).toMatchObject({ kind: 'value', detail: '20 → 30' });
    expect(sentenceContradiction('年会定在12月20日。', '年会定在12月21日。', 'event')).toMatchObject({ kind: 'value' });
  });

  it('does not count a negation of something else, the same values, other subjects or list numbers', () => {
    // The person's own wording (issue 17): the "not" denies "a paid one", which the other never says.
    expect(sentenceContradiction('The build must fit on the free runner, not a paid one.', 'Ideally the build fits on the free runner.', 'preference')).toBeNull();
    expect(sentenceContradiction('Ana uses VS Code without the Vim keymap plugin.', 'Ana uses VS Code.', 'preference')).toBeNull();
    expect(sentenceContradiction('Keep the pool max at 20.', 'Keep the pool max at 20 in staging.', 'semantic')).toBeNull();
    expect(sentenceContradiction('Keep the pool max at 20 in staging.', 'Set the request timeout to 30 seconds in production.', 'semantic')).toBeNull();
    expect(sentenceContradiction('1. Run the build locally.', '2. Run the build locally.', 'procedural')).toBeNull();
    expect(sentenceContradiction('Next.js was bumped from 13 to 14.', 'Next.js 14 builds are heavier.', 'semantic')).toBeNull();
  });

  it('reports a contradiction with both sources', () => {
    const existing = { ...memory('event', 'Release', 'The release goes out on 2024-05-09.'), conversation_id: 'c1' };
    const d = decide(candidate('event', 'Release', 'The release goes out on 2024-05-10.'), [existing]);
    expect(d.op).toBe('update');
    if (d.op !== 'update') return;
    expect(d.cause).toMatchObject({ code: 'contradiction', memory: { id: existing.id, title: 'Release' } });
    expect(d.cause.detail).toContain('value: 2024-05-09 → 2024-05-10');
    expect(d.cause.detail).toContain('sources: messages s1:1 of c1 vs messages s2:3 of c2');
  });
});

describe('decide', () => {
  it('adds a fact that matches nothing', () => {
    const d = decide(candidate('preference', 'Drink', 'Ana drinks green tea every morning.', ['tea']), [memory('preference', 'Editor', 'Ana uses VS Code.', ['editor'])]);
    expect(d.op).toBe('add');
  });

  it('only compares memories of the same category', () => {
    const d = decide(candidate('event', 'Standup', 'Standup at 9 every day.'), [memory('preference', 'Standup', 'Standup at 9 every day.')]);
    expect(d.op).toBe('add');
  });

  it("drops a candidate only when it adds no term and no term pair ('none')", () => {
    const existing = memory('event', 'Weekly meeting', 'The team meets every Monday at 10.', ['meeting']);
    expect(decide(candidate('event', 'Weekly meeting', 'The team meets every Monday at 10.', ['meeting']), [existing]).op).toBe('none');
    // One new word ("remote") is a new detail: merged, not dropped.
    const detail = decide(candidate('event', 'Weekly meeting', 'The team meets every Monday at 10, remote.', ['meeting']), [existing]);
    expect(detail.op).toBe('update');
    // Same words, another order, another fact.
    expect(coverage('moved from Paris to Berlin', 'moved from Berlin to Paris')).toBeLessThan(1);
  });

  it('merges a similar compatible statement, keeping both', () => {
    const existing = memory('preference', 'Editor', 'Ana uses VS Code.', ['vs code', 'editor']);
    const c = candidate('preference', 'Editor', 'Ana uses VS Code with the Vim keymap.', ['vs code', 'vim']);
    expect(similarity(c, existing)).toBeGreaterThanOrEqual(MERGE_SIMILARITY);
    const d = decide(c, [existing]);
    expect(d.op).toBe('update');
    if (d.op !== 'update') return;
    expect(d.patch.content).toContain('Ana uses VS Code.');
    expect(d.patch.content).toContain('Ana uses VS Code with the Vim keymap.');
    expect(d.patch.keywords).toEqual(['vs code', 'editor', 'vim']);
  });

  it('replaces only the contradicted sentence and keeps the others', () => {
    const existing = memory('preference', 'Workspace setup', 'Ana prefers the dark theme. Ana uses VS Code.', ['theme', 'dark']);
    const d = decide(candidate('preference', 'Theme', 'Ana prefers the light theme.', ['theme', 'light']), [existing]);
    expect(d.op).toBe('update');
    if (d.op !== 'update') return;
    expect(d.cause.detail).toMatch(/antonym: dark → light/);
    expect(d.patch.content).toBe('Ana uses VS Code.\n\nAna prefers the light theme.');
    expect(d.patch.keywords).toEqual(['theme', 'light']);
  });

  it('takes the new title when the title itself was contradicted', () => {
    const existing = memory('preference', 'Prefers the dark theme', 'Ana prefers the dark theme.');
    const d = decide(candidate('preference', 'Prefers the light theme', 'Ana prefers the light theme.'), [existing]);
    expect(d.op === 'update' && d.patch.title).toBe('Prefers the light theme');
  });

  it('merge never repeats a sentence it already has', () => {
    const existing = memory('semantic', 'Lance', 'LanceDB stores vectors. It runs embedded.');
    const patch = merge(existing, candidate('semantic', 'Lance', 'It runs embedded. It supports full-text search.'));
    expect(splitSentences(patch.content).map(sentenceKey)).toEqual(['lancedb stores vectors', 'it runs embedded', 'it supports full text search']);
  });
});

describe('Chinese memories are compared by words (issue 17, item 3)', () => {
  it('takes the words of a text, not its character pairs, and leaves stop words out', () => {
    const terms = [...termVector('我们的数据库连接池满了').keys()];
    expect(terms).toEqual(expect.arrayContaining(['数据库', '连接池']));
    for (const gram of ['我们', '的', '数据', '据库', '池满']) expect(terms).not.toContain(gram);
  });

  it('sees the same words in another order as the same statement', () => {
    // Character pairs across a word boundary ("欢早", "上喜") made these two look 0.8 alike.
    expect(cosine(termVector('用户喜欢早上跑步'), termVector('用户早上喜欢跑步'))).toBeCloseTo(1, 6);
  });
});
