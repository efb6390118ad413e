/** Sparse vectors (sorted term ids and weights) and the few operations track A needs on them. */

export interface SparseVector {
  index: Int32Array;
  weight: Float64Array;
}

export const EMPTY: SparseVector = { index: new Int32Array(0), weight: new Float64Array(0) };

/** Dot product by merging the sorted index arrays; for unit vectors this is the cosine similarity. */
export function dot(a: SparseVector, b: SparseVector): number {
  let i = 0;
  let j = 0;
  let sum = 0;
  while (i < a.index.length && j < b.index.length) {
    const x = a.index[i] as number;
    const y = b.index[j] as number;
    if (x === y) {
      sum += (a.weight[i] as number) * (b.weight[j] as number);
      i += 1;
      j += 1;
    } else if (x < y) i += 1;
    else j += 1;
  }
  return sum;
}

export function norm(v: SparseVector): number {
  let s = 0;
  for (const w of v.weight) s += w * w;
  return Math.sqrt(s);
}

/** Cosine similarity; 0 when either vector is empty. */
export function cosine(a: SparseVector, b: SparseVector): number {
  const na = norm(a);
  const nb = norm(b);
  return na === 0 || nb === 0 ? 0 : dot(a, b) / (na * nb);
}

/** Σ scale_k · v_k, L2-normalized (empty stays empty). */
export function weightedSum(parts: { vector: SparseVector; scale: number }[], normalize = true): SparseVector {
  const acc = new Map<number, number>();
  for (const { vector, scale } of parts) {
    for (let k = 0; k < vector.index.length; k += 1) {
      const id = vector.index[k] as number;
      acc.set(id, (acc.get(id) ?? 0) + scale * (vector.weight[k] as number));
    }
  }
  const entries = [...acc.entries()].filter(([, w]) => w !== 0).sort((a, b) => a[0] - b[0]);
  const out: SparseVector = { index: Int32Array.from(entries, (e) => e[0]), weight: Float64Array.from(entries, (e) => e[1]) };
  if (!normalize) return out;
  const n = norm(out);
  if (n > 0) for (let k = 0; k < out.weight.length; k += 1) out.weight[k] = (out.weight[k] as number) / n;
  return out;
}
