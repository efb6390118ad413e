/**
 * A 2-D map of the items for the UI's cluster view: the first two principal components of the
 * vectors, found by power iteration on the centred data without forming the covariance matrix
 * (each step costs O(non-zeros)). The start vector is fixed, so the map is deterministic; each axis
 * is scaled so that its largest |coordinate| is 1.
 */
import type { SparseVector } from './vectors.js';

const ITERATIONS = 60;

export function pcaLayout(vectors: SparseVector[], dims: number): [number, number][] {
  const n = vectors.length;
  const mean = new Float64Array(dims);
  for (const v of vectors) {
    for (let k = 0; k < v.index.length; k += 1) {
      const j = v.index[k] as number;
      mean[j] = (mean[j] as number) + (v.weight[k] as number) / Math.max(1, n);
    }
  }
  const project = (axis: Float64Array): Float64Array => {
    let meanDot = 0;
    for (let j = 0; j < dims; j += 1) meanDot += (mean[j] as number) * (axis[j] as number);
    const out = new Float64Array(n);
    vectors.forEach((v, i) => {
      let s = 0;
      for (let k = 0; k < v.index.length; k += 1) s += (v.weight[k] as number) * (axis[v.index[k] as number] as number);
      out[i] = s - meanDot;
    });
    return out;
  };
  const normalize = (x: Float64Array): boolean => {
    let s = 0;
    for (const value of x) s += value * value;
    if (s === 0) return false;
    const inv = 1 / Math.sqrt(s);
    for (let j = 0; j < x.length; j += 1) x[j] = (x[j] as number) * inv;
    return true;
  };
  const orthogonalize = (x: Float64Array, against: Float64Array[]) => {
    for (const axis of against) {
      let s = 0;
      for (let j = 0; j < dims; j += 1) s += (x[j] as number) * (axis[j] as number);
      for (let j = 0; j < dims; j += 1) x[j] = (x[j] as number) - s * (axis[j] as number);
    }
  };
  const axes: Float64Array[] = [];
  for (let c = 0; c < 2; c += 1) {
    // A fixed, irregular start vector (not a constant, which the mean-centring would cancel).
    let axis = Float64Array.from({ length: dims }, (_, j) => Math.sin(j * 12.9898 + c * 78.233));
    orthogonalize(axis, axes);
    if (!normalize(axis)) break;
    for (let it = 0; it < ITERATIONS; it += 1) {
      const u = project(axis);
      let uSum = 0;
      for (const value of u) uSum += value;
      const next = new Float64Array(dims);
      vectors.forEach((v, i) => {
        for (let k = 0; k < v.index.length; k += 1) {
          const j = v.index[k] as number;
          next[j] = (next[j] as number) + (v.weight[k] as number) * (u[i] as number);
        }
      });
      for (let j = 0; j < dims; j += 1) next[j] = (next[j] as number) - (mean[j] as number) * uSum;
      orthogonalize(next, axes);
      if (!normalize(next)) break;
      axis = next;
    }
    axes.push(axis);
  }
  const coords = axes.map(project);
  for (const values of coords) {
    let max = 0;
    for (const value of values) max = Math.max(max, Math.abs(value));
    if (max > 0) for (let i = 0; i < values.length; i += 1) values[i] = Math.round(((values[i] as number) / max) * 1e4) / 1e4;
  }
  return Array.from({ length: n }, (_, i) => [coords[0]?.[i] ?? 0, coords[1]?.[i] ?? 0] as [number, number]);
}
