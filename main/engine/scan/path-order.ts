/**
 * The one order of relative POSIX paths used across a scan's output: segment by segment, each
 * segment in Unicode code-point order. Comparing whole strings would put `a-b` (0x2d) before
 * `a/b` (0x2f) and split a folder's contents apart; ranking `/` below every character keeps a
 * folder's contents together and right after the folder itself.
 *
 * JavaScript's `<` compares UTF-16 code units, which puts U+E000..U+FFFF after astral characters
 * (their surrogates are 0xD800..0xDFFF); `rank` shifts the two ranges so the order is by code
 * point, the same order as comparing the UTF-8 bytes, on every platform and in every locale.
 *
 * @example
 * ['a-b', 'a/b', 'a'].sort(comparePaths); // ['a', 'a/b', 'a-b']
 */
export function comparePaths(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return rank(x) - rank(y);
  }
  return a.length - b.length;
}

function rank(unit: number): number {
  if (unit === 0x2f) return -1;
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  if (unit >= 0xe000) return unit - 0x800;
  return unit;
}
