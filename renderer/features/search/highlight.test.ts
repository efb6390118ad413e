import { describe, expect, it } from 'vitest';
import { highlightParts } from './highlight';

const marked = (text: string, ranges: [number, number][]) =>
  highlightParts(text, ranges)
    .map((part) => (part.match ? `[${part.text}]` : part.text))
    .join('');

describe('snippet highlighting', () => {
  it('marks exactly the ranges the engine sent (UTF-16 offsets), Chinese included', () => {
    expect(
      marked('Documentation: how to undo the last commit', [
        [22, 26],
        [36, 42],
      ]),
    ).toBe('Documentation: how to [undo] the last [commit]');
    expect(marked('数据库连接池的大小', [[3, 6]])).toBe('数据库[连接池]的大小');
  });

  it('keeps text whole without ranges, and skips ranges that do not fit the text', () => {
    expect(highlightParts('nothing here', [])).toEqual([{ text: 'nothing here', match: false }]);
    expect(highlightParts('', [])).toEqual([]);
    expect(highlightParts('abcdef', [
      [1, 2],
      [1, 3],
      [4, 99],
      [4, 5],
    ])).toEqual([
      { text: 'a', match: false },
      { text: 'b', match: true },
      { text: 'cd', match: false },
      { text: 'e', match: true },
      { text: 'f', match: false },
    ]);
  });
});
