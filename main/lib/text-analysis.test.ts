import { describe, expect, it } from 'vitest';
import { ftsDocument, ftsQuery, scanRuns, searchTerms, splitCompound, stem } from './text-analysis.js';

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
