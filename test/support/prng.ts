/**
 * The tests' and benches' seeded random numbers (mulberry32): the same seed gives the same
 * sequence on every machine, so a failing case can be replayed from its seed.
 *
 * @example
 * const random = prng(42);
 * random(); // a number in [0, 1), the same one on every run
 */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
