import { describe, expect, it } from 'vitest';
import { highlightParts, queryTerms } from './highlight';

const marked = (text: string, query: string) =>
  highlightParts(text, queryTerms(query))
    .map((part) => (part.match ? `[${part.text}]` : part.text))
    .join('');

describe('query highlighting', () => {
  it('marks every English term, whatever its case, and skips one-letter words', () => {
    expect(queryTerms('Storm a WIND')).toEqual(['storm a wind', 'storm', 'wind']);
    expect(marked('The storm bent the masts; Wind gusts and storms.', 'storm a wind')).toBe('The [storm] bent the masts; [Wind] gusts and [storm]s.');
    // At the start of a word only: a term inside another word is not marked.
    expect(marked('rewind the 2024-05-08-storm-review', 'wind storm')).toBe('rewind the 2024-05-08-[storm]-review');
  });

  it('finds the words of a Chinese query written without spaces', () => {
    const terms = queryTerms('查看观测数据');
    expect(terms[0]).toBe('查看观测数据');
    expect(terms.length).toBeGreaterThan(1);
    expect(marked('打开面板，查看观测数据。观测站每十分钟上报数据。', '查看观测数据')).toBe('打开面板，[查看观测数据]。[观测]站每十分钟上报[数据]。');
  });

  it('prefers the longest term, treats regex characters as text, and keeps text without matches whole', () => {
    expect(marked('a.b and ab', 'a.b')).toBe('[a.b] and ab');
    expect(highlightParts('nothing here', queryTerms('storm'))).toEqual([{ text: 'nothing here', match: false }]);
    expect(highlightParts('', ['x'])).toEqual([]);
    expect(queryTerms('   ')).toEqual([]);
  });
});
