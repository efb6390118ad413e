import { describe, expect, it } from 'vitest';
import { prng } from '../support/prng.js';
import { decodeFloat16, float16Bits, roundToFloat16 } from '../../main/adapters/store/lancedb/float16.js';

describe('16-bit floats', () => {
  it('encodes the values IEEE 754 fixes, rounding ties to even', () => {
    expect(float16Bits(0)).toBe(0x0000);
    expect(float16Bits(-0)).toBe(0x8000);
    expect(float16Bits(1)).toBe(0x3c00);
    expect(float16Bits(-2)).toBe(0xc000);
    expect(float16Bits(0.1)).toBe(0x2e66);
    expect(float16Bits(65504)).toBe(0x7bff); // the largest half
    expect(float16Bits(65520)).toBe(0x7c00); // rounds up to infinity
    expect(float16Bits(2 ** -14)).toBe(0x0400); // the smallest normal
    expect(float16Bits(2 ** -24)).toBe(0x0001); // the smallest subnormal
    expect(float16Bits(2 ** -25)).toBe(0x0000); // a tie, to the even neighbour 0
    expect(float16Bits(3 * 2 ** -25)).toBe(0x0002); // a tie, to the even neighbour 2
    expect(float16Bits(1 + 2 ** -11)).toBe(0x3c00); // halfway between 1 and its successor: even
    expect(float16Bits(1 + 3 * 2 ** -11)).toBe(0x3c02);
    expect(float16Bits(Number.NaN) & 0x7c00).toBe(0x7c00);
  });

  it('decodes every half exactly, and encoding its value gives its bits back', () => {
    const all = Uint16Array.from({ length: 0x7c00 }, (_, i) => i); // every finite positive half
    const values = decodeFloat16(all);
    expect(values[0x3c00]).toBe(1);
    expect(values[0x0001]).toBe(2 ** -24);
    expect(values[0x7bff]).toBe(65504);
    expect(Uint16Array.from(values, float16Bits)).toEqual(all);
    expect(decodeFloat16([0xbc00])[0]).toBe(-1);
  });

  it('rounds a vector to the nearest half of each component', () => {
    const random = prng(20);
    const vector = Float32Array.from({ length: 4096 }, () => (random() * 2 - 1) * 2 ** -Math.floor(random() * 20));
    const rounded = roundToFloat16(vector);
    for (let i = 0; i < vector.length; i += 1) {
      const x = vector[i] as number;
      const r = rounded[i] as number;
      // The nearest: no half lies closer to x than r does (its neighbours are one bit away).
      const bits = float16Bits(x);
      const [below, above] = decodeFloat16([Math.max(0, (bits & 0x7fff) - 1) | (bits & 0x8000), ((bits & 0x7fff) + 1) | (bits & 0x8000)]);
      expect(Math.abs(r - x)).toBeLessThanOrEqual(Math.abs((below as number) - x));
      expect(Math.abs(r - x)).toBeLessThanOrEqual(Math.abs((above as number) - x));
      expect(Math.abs(r - x)).toBeLessThanOrEqual(Math.max(Math.abs(x) * 2 ** -11, 2 ** -25));
    }
  });
});
