import { describe, expect, it } from 'vitest';
import { ftsDocument, ftsQuery, highlightRanges, scanRuns, searchTerms, splitCompound, stem } from './text-analysis.js';

describe('stem', () => {
  it('gives one stem to the forms of a word', () => {
    const groups = [
      ['parse', 'parser', 'parsers', 'parsing', 'parsed'],
      ['configure', 'configured', 'configuring', 'configuration'],
      ['run', 'runs', 'running', 'runner'],
      ['embed', 'embedding', 'embeddings', 'embedded'],
      ['database', 'databases'],
      ['query', 'queries'],
      ['index', 'indexes', 'indexing', 'indexed'],
      ['box', 'boxes'],
      ['need', 'needs', 'needed'],
      ['speed', 'speeds'],
    ];
    for (const group of groups) expect(new Set(group.map(stem)), group.join(', ')).toHaveProperty('size', 1);
  });

  it('leaves short words, words without a vowel in the stem, and non-ASCII words alone', () => {
    expect(stem('bus')).toBe('bus');
    expect(stem('class')).toBe('class');
    expect(stem('status')).toBe('status');
    expect(stem('string')).toBe('string');
    expect(stem('añadido')).toBe('añadido');
    expect(stem('add')).toBe('add');
  });
});

describe('terms', () => {
  it('splits camelCase and acronyms but keeps digits attached', () => {
    expect(splitCompound('parseCtxUri')).toEqual(['parse', 'ctx', 'uri']);
    expect(splitCompound('HTTPServer')).toEqual(['http', 'server']);
    expect(splitCompound('utf8')).toBeNull();
    expect(splitCompound('gpt4o')).toBeNull();
  });

  it('emits stems for words and unigrams plus bigrams for CJK, without stop words', () => {
    expect(searchTerms('The parsers of 快速入门')).toEqual(['pars', '快速', '快', '速入', '速', '入门', '入', '门']);
    // 我们 is a stop bigram and 们的 is two stop characters; 的数 crosses a word boundary but is kept (see docs/embeddings.md).
    expect(searchTerms('我们的数据')).toEqual(['的数', '数据', '数', '据']);
    expect(searchTerms('parseCtxUri')).toEqual(['parsectxuri', 'pars', 'ctx', 'uri']);
  });

  it('gives a word the same terms every time it is seen (analysed once, then looked up)', () => {
    const expected = ['parsectxuri', 'pars', 'ctx', 'uri', 'httpserv', 'http', 'serv', 'pars'];
    expect(searchTerms('parseCtxUri the HTTPServer parsers')).toEqual(expected);
    const first = searchTerms('parseCtxUri the HTTPServer parsers');
    first.push('changed by a caller');
    expect(searchTerms('parseCtxUri, the HTTPServer; parsers!')).toEqual(expected);
    expect(ftsDocument('HTTPServer parsers')).toBe('httpserv http serv pars');
  });

  it('folds full-width forms and case', () => {
    expect(searchTerms('ＬａｎｃｅＤＢ ２０２４')).toEqual(searchTerms('LanceDB 2024'));
  });

  it('separates runs by script and punctuation, with offsets into the text', () => {
    const runs: string[] = [];
    const text = 'snake_case, v2.3 用LanceDB存储😀 𠀀𠀁';
    scanRuns(text, (kind, start, end) => runs.push(`${kind}:${text.slice(start, end)}`));
    expect(runs).toEqual(['word:snake', 'word:case', 'word:v2', 'word:3', 'cjk:用', 'word:LanceDB', 'cjk:存储', 'cjk:𠀀𠀁']);
  });

  it('builds the full-text column and query from the same terms', () => {
    expect(ftsDocument('Parsing 文档, parsing docs')).toBe('pars 文档 文 档 pars doc');
    expect(ftsQuery('Parsing 文档, parsing docs')).toBe('pars 文档 文 档 doc');
    expect(ftsQuery('the of and')).toBe('');
  });
});

describe('highlightRanges', () => {
  const marked = (text: string, query: string) => highlightRanges(text, query).map(([start, end]) => text.slice(start, end));

  it('marks whole words only, never a query word inside a longer word', () => {
    expect(marked('Documentation: do not undo the commit in their branch', 'how do I undo the last commit')).toEqual(['undo', 'commit']);
    expect(marked('Docs and documentation', 'Do')).toEqual([]);
  });

  it('never marks stop words, even when they are all the query has', () => {
    expect(marked('the one of them is there', 'the of is')).toEqual([]);
  });

  it('marks inflections and camelCase parts by their stems, each as the whole word', () => {
    expect(marked('Parsing parsers with parseCtxUri and a ctx', 'parser ctx')).toEqual(['Parsing', 'parsers', 'parseCtxUri', 'ctx']);
  });

  it('marks Chinese by words, not by single shared characters', () => {
    expect(marked('数据库连接池的大小决定了并发', '连接池')).toEqual(['连接池']);
    // 池 alone (池塘, a pond) and 连 alone share characters with the query but are other words.
    expect(marked('池塘边的连队', '连接池')).toEqual([]);
    expect(marked('如何撤销最后一次提交', '怎么撤销提交')).toEqual(['撤销', '提交']);
  });

  it('gives ranges in order, without overlaps, as UTF-16 offsets', () => {
    const text = '😀 undo 撤销 undo';
    const ranges = highlightRanges(text, 'undo 撤销');
    expect(ranges).toEqual([
      [3, 7],
      [8, 10],
      [11, 15],
    ]);
  });
});
