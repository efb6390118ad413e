/**
 * Hierarchical agglomerative clustering with average linkage, by the nearest-neighbour chain
 * algorithm: O(n²) time and a condensed n(n-1)/2 distance matrix, instead of the O(n³) of
 * re-scanning every pair after every merge. Average linkage is reducible, so the chain finds the
 * same dendrogram as the naive method; and it is monotone (a merged cluster is never closer to
 * anything than its parts were to each other), so cutting at a threshold is the same as applying
 * every merge whose distance is at most the threshold.
 *
 * Deterministic: ties go to the previous chain element, then to the lowest index.
 */

export interface Merge {
  a: number;
  b: number;
  distance: number;
}

/** Index of the pair (i, j) in the condensed upper-triangle matrix (no allocation: this runs O(n²) times). */
function slot(n: number, i: number, j: number): number {
  const lo = i < j ? i : j;
  const hi = i < j ? j : i;
  return lo * n - (lo * (lo + 1)) / 2 + (hi - lo - 1);
}

/** All n - 1 merges for `n` points whose pairwise distance is `distance(i, j)`. Merged clusters keep the slot of `a`. */
export function averageLinkageMerges(n: number, distance: (i: number, j: number) => number): Merge[] {
  const d = new Float64Array((n * (n - 1)) / 2);
  let p = 0;
  for (let i = 0; i < n; i += 1) for (let j = i + 1; j < n; j += 1) d[p++] = distance(i, j);
  const size = new Int32Array(n).fill(1);
  const active = new Uint8Array(n).fill(1);
  const merges: Merge[] = [];
  const chain: number[] = [];
  let remaining = n;
  while (remaining > 1) {
    if (chain.length === 0) chain.push(active.indexOf(1));
    for (;;) {
      const top = chain[chain.length - 1] as number;
      const prev = chain.length > 1 ? (chain[chain.length - 2] as number) : -1;
      let best = prev;
      let bestD = prev >= 0 ? (d[slot(n, top, prev)] as number) : Infinity;
      for (let k = 0; k < n; k += 1) {
        if (!active[k] || k === top) continue;
        const dk = d[slot(n, top, k)] as number;
        if (dk < bestD) {
          bestD = dk;
          best = k;
        }
      }
      if (best === prev) break;
      chain.push(best);
    }
    const b = chain.pop() as number;
    const a = chain.pop() as number;
    const [keep, drop] = a < b ? [a, b] : [b, a];
    const dist = d[slot(n, a, b)] as number;
    merges.push({ a: keep, b: drop, distance: dist });
    // Lance–Williams update for average linkage.
    const sk = size[keep] as number;
    const sd = size[drop] as number;
    for (let k = 0; k < n; k += 1) {
      if (!active[k] || k === keep || k === drop) continue;
      d[slot(n, keep, k)] = (sk * (d[slot(n, keep, k)] as number) + sd * (d[slot(n, drop, k)] as number)) / (sk + sd);
    }
    size[keep] = sk + sd;
    active[drop] = 0;
    remaining -= 1;
  }
  return merges;
}

/** Flat clusters: every merge at distance ≤ threshold applied. Returns a label per point (0..k-1, in order of first point). */
export function cutAt(n: number, merges: Merge[], threshold: number): number[] {
  const parent = Array.from({ length: n }, (_, i) => i);
  const find = (x: number): number => {
    while (parent[x] !== x) {
      parent[x] = parent[parent[x] as number] as number;
      x = parent[x] as number;
    }
    return x;
  };
  for (const merge of merges) if (merge.distance <= threshold) parent[find(merge.b)] = find(merge.a);
  const labels: number[] = [];
  const names = new Map<number, number>();
  for (let i = 0; i < n; i += 1) {
    const root = find(i);
    if (!names.has(root)) names.set(root, names.size);
    labels.push(names.get(root) as number);
  }
  return labels;
}
