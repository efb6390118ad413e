/**
 * IEEE 754 half-precision (16-bit) floats, as the index stores its vectors: half the bytes of
 * 32-bit floats for a relative error under 2^-11 per component, which moves a cosine by far less
 * than the gaps between search results (bench/RESULTS.md, "Index size on disk"). Node 20 has no
 * Float16Array, so the conversion is done here on the bits (Arrow hands them out as a Uint16Array).
 */

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** The half-precision bits of `x`, rounded to nearest, ties to even (as a cast in C or Rust does). */
export function float16Bits(x: number): number {
  f32[0] = x;
  const bits = u32[0] as number;
  const sign = (bits >>> 16) & 0x8000;
  const abs = bits & 0x7fffffff;
  if (abs > 0x7f800000) return sign | 0x7e00; // NaN
  if (abs >= 0x477ff000) return sign | 0x7c00; // 65520 and up round to infinity
  if (abs < 0x38800000) {
    // Under 2^-14: a subnormal half, a multiple of 2^-24 (exact in a double, rounded to even).
    const scaled = Math.abs(f32[0] as number) * 2 ** 24;
    const floor = Math.floor(scaled);
    const rest = scaled - floor;
    return sign | (rest > 0.5 || (rest === 0.5 && floor % 2 === 1) ? floor + 1 : floor);
  }
  // Rebias the exponent (127 → 15) and round the 23-bit mantissa to 10 bits; a carry moves into the exponent.
  const rebased = abs - 0x38000000;
  return sign | ((rebased + 0x0fff + ((rebased >>> 13) & 1)) >>> 13);
}

let decodeTable: Float32Array | null = null;

/** Every half-precision value by its bits (256 KB, made on first use). */
function table(): Float32Array {
  if (decodeTable) return decodeTable;
  decodeTable = new Float32Array(65536);
  for (let h = 0; h < 65536; h += 1) {
    const exponent = (h >>> 10) & 0x1f;
    const fraction = h & 0x3ff;
    const magnitude = exponent === 0 ? fraction * 2 ** -24 : exponent === 31 ? (fraction ? NaN : Infinity) : (1 + fraction / 1024) * 2 ** (exponent - 15);
    decodeTable[h] = h & 0x8000 ? -magnitude : magnitude;
  }
  return decodeTable;
}

/** The half-precision bits of each component of `values`, into `out` from `offset`. */
export function encodeFloat16(values: ArrayLike<number>, out: Uint16Array, offset = 0): void {
  for (let i = 0; i < values.length; i += 1) out[offset + i] = float16Bits(values[i] as number);
}

/** The 32-bit floats of half-precision bits (exact: every half is a float). */
export function decodeFloat16(bits: ArrayLike<number>): Float32Array {
  const values = table();
  const out = new Float32Array(bits.length);
  for (let i = 0; i < bits.length; i += 1) out[i] = values[bits[i] as number] as number;
  return out;
}

/** `values` as the index gives them back from a half-precision column. */
export function roundToFloat16(values: ArrayLike<number>): Float32Array {
  const bits = new Uint16Array(values.length);
  encodeFloat16(values, bits);
  return decodeFloat16(bits);
}
