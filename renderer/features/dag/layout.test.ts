import { describe, expect, it } from 'vitest';
import { layoutDag } from './layout';

const opts = { direction: 'TB', nodeWidth: 100, nodeHeight: 40, rankGap: 20, siblingGap: 10 } as const;
const lr = { ...opts, direction: 'LR' } as const;

describe('layoutDag', () => {
  it('lays out nothing', () => {
    expect(layoutDag([], [])).toEqual({ positions: new Map(), depths: new Map(), bounds: { width: 0, height: 0 } });
  });

  it('puts leaves in consecutive slots and centres parents over their children', () => {
    const nodes = ['r', 'a', 'b', 'a1', 'a2'].map((id) => ({ id }));
    const edges = [
      { source: 'r', target: 'a' },
      { source: 'r', target: 'b' },
      { source: 'a', target: 'a1' },
      { source: 'a', target: 'a2' },
    ];
    const { positions, depths, bounds } = layoutDag(nodes, edges, opts);
    // Slots: a1 0, a2 1, b 2; a centred at 0.5; r over a and b at 1.25. One slot is 110 px.
    expect(positions.get('a1')).toEqual({ x: 0, y: 120 });
    expect(positions.get('a2')).toEqual({ x: 110, y: 120 });
    expect(positions.get('a')).toEqual({ x: 55, y: 60 });
    expect(positions.get('b')).toEqual({ x: 220, y: 60 });
    expect(positions.get('r')).toEqual({ x: 137.5, y: 0 });
    expect(depths.get('a2')).toBe(2);
    expect(bounds).toEqual({ width: 320, height: 160 });
  });

  it('runs ranks left to right in LR mode', () => {
    const { positions } = layoutDag([{ id: 'r' }, { id: 'c' }], [{ source: 'r', target: 'c' }], { ...opts, direction: 'LR' });
    expect(positions.get('r')).toEqual({ x: 0, y: 0 });
    expect(positions.get('c')).toEqual({ x: 120, y: 0 });
  });

  it('keeps the order children are given in, and never overlaps two nodes', () => {
    const nodes = [{ id: 'r' }, ...Array.from({ length: 30 }, (_, i) => ({ id: `c${i}` })), ...Array.from({ length: 30 }, (_, i) => ({ id: `g${i}` }))];
    const edges = [...Array.from({ length: 30 }, (_, i) => ({ source: 'r', target: `c${i}` })), ...Array.from({ length: 30 }, (_, i) => ({ source: `c${i % 5}`, target: `g${i}` }))];
    const { positions } = layoutDag(nodes, edges, opts);
    const seen = new Set<string>();
    for (const { x, y } of positions.values()) {
      const key = `${x},${y}`;
      expect(seen.has(key)).toBe(false);
      seen.add(key);
    }
    expect(positions.get('c1')!.x).toBeGreaterThan(positions.get('c0')!.x);
    expect(positions.get('c29')!.x).toBeGreaterThan(positions.get('c28')!.x);
  });

  it('survives a cycle, a second parent and edges to unknown nodes', () => {
    const nodes = ['a', 'b', 'c'].map((id) => ({ id }));
    const edges = [
      { source: 'a', target: 'b' },
      { source: 'b', target: 'c' },
      { source: 'c', target: 'a' },
      { source: 'a', target: 'c' },
      { source: 'a', target: 'ghost' },
    ];
    const { positions } = layoutDag(nodes, edges, opts);
    expect([...positions.keys()].sort()).toEqual(['a', 'b', 'c']);
  });

  it('lays out 5,000 directories quickly, deep ones included', () => {
    const nodes = Array.from({ length: 5000 }, (_, i) => ({ id: `d${i}` }));
    // A wide tree (each node has up to 8 children), plus a 2,000-deep chain hung under the last node.
    const edges = nodes.slice(1, 3000).map((node, i) => ({ source: `d${Math.floor(i / 8)}`, target: node.id }));
    for (let i = 3000; i < 5000; i += 1) edges.push({ source: `d${i - 1}`, target: `d${i}` });
    const started = performance.now();
    const { positions } = layoutDag(nodes, edges, opts);
    expect(performance.now() - started).toBeLessThan(500);
    expect(positions.size).toBe(5000);
  });

  it('lays many leaf children out in columns, a block about as wide as tall, and centres the parent on it', () => {
    const kids = Array.from({ length: 85 }, (_, i) => ({ id: `k${i}` }));
    const nodes = [{ id: 'r' }, ...kids, { id: 'x' }, { id: 'x1' }];
    const edges = [...kids.map((kid) => ({ source: 'r', target: kid.id })), { source: 'r', target: 'x' }, { source: 'x', target: 'x1' }];
    // x has a child of its own, so r's children are not all leaves: one line, as before.
    expect(new Set([...layoutDag(nodes, edges, { ...lr, wrapLeavesAfter: 12 }).positions.values()].map((p) => p.x)).size).toBe(3);

    const { positions, bounds } = layoutDag([{ id: 'r' }, ...kids], kids.map((kid) => ({ source: 'r', target: kid.id })), { ...lr, wrapLeavesAfter: 12 });
    // 85 leaves of 50 px slots and 120 px ranks: 15 rows (√(85 × 120 / 50) ≈ 14.3), so 6 columns.
    const xs = [...new Set(kids.map((kid) => positions.get(kid.id)!.x))].sort((a, b) => a - b);
    expect(xs).toEqual([120, 240, 360, 480, 600, 720]);
    expect(positions.get('k0')).toEqual({ x: 120, y: 0 });
    expect(positions.get('k14')).toEqual({ x: 120, y: 14 * 50 });
    expect(positions.get('k15')).toEqual({ x: 240, y: 0 });
    expect(positions.get('r')).toEqual({ x: 0, y: 7 * 50 });
    expect(bounds).toEqual({ width: 7 * 120 - 20, height: 15 * 50 - 10 });
    const seen = new Set([...positions.values()].map(({ x, y }) => `${x},${y}`));
    expect(seen.size).toBe(86);
    // A short list stays one column.
    const few = layoutDag([{ id: 'r' }, ...kids.slice(0, 12)], kids.slice(0, 12).map((kid) => ({ source: 'r', target: kid.id })), { ...lr, wrapLeavesAfter: 12 });
    expect(new Set(kids.slice(0, 12).map((kid) => few.positions.get(kid.id)!.x)).size).toBe(1);
  });
});
