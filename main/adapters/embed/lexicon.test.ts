import { describe, expect, it } from 'vitest';
import { loadLexicon, parseLexicon } from './lexicon.js';

const ids = (links: readonly { id: number }[]) => new Set(links.map((link) => link.id));
const shared = (a: string, b: string) => [...ids(loadLexicon().lookup(a))].filter((id) => ids(loadLexicon().lookup(b)).has(id)).length;

describe('WordNet lexicon of the local embedder', () => {
  it('links synonyms, a word to its general word, and derivational relatives', () => {
    expect(shared('car', 'automobile')).toBeGreaterThan(0);
    expect(shared('repair', 'fix')).toBeGreaterThan(0);
    // guitar and banjo: both below "stringed instrument", an ancestor of their first sense.
    const stringed = loadLexicon().lookup('guitar').filter((link) => link.kind === 'hypernym');
    expect(stringed.some((link) => loadLexicon().lookup('banjo').some((other) => other.kind === 'hypernym' && other.id === link.id))).toBe(true);
    expect(shared('decide', 'decision')).toBeGreaterThan(0);
    expect(shared('car', 'banana')).toBe(0);
  });

  it('finds the base form of inflected and irregular words, as morphy does', () => {
    const lexicon = loadLexicon();
    const covers = (inflected: string, base: string) => [...ids(lexicon.lookup(base))].every((id) => ids(lexicon.lookup(inflected)).has(id));
    expect(ids(lexicon.lookup('automobiles'))).toEqual(ids(lexicon.lookup('automobile')));
    expect(ids(lexicon.lookup('went'))).toEqual(ids(lexicon.lookup('go')));
    expect(ids(lexicon.lookup('geese'))).toEqual(ids(lexicon.lookup('goose')));
    // Both a lemma (the adjective "stopped", "decided") and an inflection: the links of both.
    expect(covers('stopped', 'stop')).toBe(true);
    expect(covers('decided', 'decide')).toBe(true);
    expect(lexicon.lookup('decided').length).toBeGreaterThan(lexicon.lookup('decide').length);
    expect(lexicon.lookup('qwzxv')).toEqual([]);
  });

  it('rates common words as less informative than rare ones and unknown words as the most', () => {
    const lexicon = loadLexicon();
    expect(lexicon.informativeness('the')).toBeLessThan(0.15);
    expect(lexicon.informativeness('work')).toBeLessThan(lexicon.informativeness('guitar'));
    // A plural counts with its singular: not rarer than the word itself.
    expect(lexicon.informativeness('guitars')).toBeLessThanOrEqual(lexicon.informativeness('guitar'));
    expect(lexicon.informativeness('qwzxv')).toBe(1);
  });

  it('reads the derived format: senses ranked, carets for ancestor levels, = for irregular forms', () => {
    const lexicon = parseLexicon(['# header', 'geese\t=goose', 'goose\t1 2 ^3 ^^4 +5', 'swan\t1'].join('\n'), '#documents\t100\ngoose\t9\n');
    expect(lexicon.lookup('goose')).toEqual([
      { id: 1, kind: 'sense', rank: 0 },
      { id: 2, kind: 'sense', rank: 1 },
      { id: 3, kind: 'hypernym', rank: 0 },
      { id: 4, kind: 'hypernym', rank: 1 },
      { id: 5, kind: 'derivation', rank: 0 },
    ]);
    expect(lexicon.lookup('geese')).toEqual(lexicon.lookup('goose'));
    expect(lexicon.lookup('swans')).toEqual([{ id: 1, kind: 'sense', rank: 0 }]);
    expect(lexicon.informativeness('goose')).toBeCloseTo(Math.log(101 / 10) / Math.log(101), 9);
  });
});
