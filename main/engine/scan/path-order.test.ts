import { describe, expect, it } from 'vitest';
import { comparePaths } from './path-order.js';

describe('comparePaths', () => {
  it('keeps a folder and its contents together', () => {
    expect(['a-b', 'a/b/c', 'a.txt', 'a', 'a/b', 'a0'].sort(comparePaths)).toEqual(['a', 'a/b', 'a/b/c', 'a-b', 'a.txt', 'a0']);
  });

  it('orders by code point, astral characters after the whole BMP', () => {
    // U+FF5E (fullwidth tilde) is one unit above the surrogates; by code point it sorts before U+1F600.
    expect(['😀', '\uff5e', 'z', 'É'].sort(comparePaths)).toEqual(['z', 'É', '\uff5e', '😀']);
  });

  it('is a total order consistent with equality', () => {
    expect(comparePaths('x/y', 'x/y')).toBe(0);
    expect(Math.sign(comparePaths('x', 'x/y'))).toBe(-1);
    expect(Math.sign(comparePaths('x/y', 'x'))).toBe(1);
  });
});
