import { describe, expect, it } from 'vitest';
import { boundsOf, clearOfMiniMap, readableViewport } from './readable-fit';

const node = { width: 240, height: 56 };
const canvas = { width: 1100, height: 600 };

describe('readableViewport', () => {
  it('fits a graph whole when it is readable at that size', () => {
    const bounds = boundsOf([{ x: 0, y: 0 }, { x: 300, y: 100 }, { x: 300, y: -100 }], node)!;
    expect(readableViewport(bounds, canvas, { ...bounds, y: 0, height: 56 })).toBeNull();
  });

  it('shows a tall graph from its root at a readable zoom, centred on the root row, never past its ends', () => {
    // A root with 60 children in a column: 60 × 70 = 4,200 units tall, 0.13× to fit whole.
    const kids = Array.from({ length: 60 }, (_, i) => ({ x: 300, y: i * 70 - 2100 }));
    const bounds = boundsOf([{ x: 0, y: 0 }, ...kids], node)!;
    const view = readableViewport(bounds, canvas, { x: 0, y: 0, width: 240, height: 56 })!;
    expect(view.zoom).toBe(0.65);
    // The root is on screen, in the middle row.
    const rootTop = 0 * view.zoom + view.y;
    expect(rootTop).toBeGreaterThan(0);
    expect(rootTop + 56 * view.zoom).toBeLessThan(canvas.height);
    expect(Math.abs(rootTop + 28 * view.zoom - canvas.height / 2)).toBeLessThan(1);
    // The graph is narrow enough at 0.65× to be centred across.
    const left = bounds.x * view.zoom + view.x;
    expect(left).toBeGreaterThan(0);
    expect(left + bounds.width * view.zoom).toBeLessThan(canvas.width);

    // A root at the top of a tall column: the view starts at the graph's top, not above it.
    const top = readableViewport(bounds, canvas, { x: 0, y: -2100, width: 240, height: 56 })!;
    expect(bounds.y * top.zoom + top.y).toBeCloseTo(24);
  });

  it('starts a graph too wide at a readable zoom from its left edge', () => {
    const deep = Array.from({ length: 30 }, (_, i) => ({ x: i * 300, y: (i % 2) * 1200 }));
    const bounds = boundsOf(deep, node)!;
    const view = readableViewport(bounds, canvas, { x: 0, y: 0, width: 240, height: 56 })!;
    expect(bounds.x * view.zoom + view.x).toBeCloseTo(24);
  });
});

describe('clearOfMiniMap', () => {
  const miniMap = { width: 224, height: 174 };

  it('keeps the minimap\'s height free below a wide graph, which has room to spare there', () => {
    // RelNotes-like: one row of groups, far wider than tall.
    expect(clearOfMiniMap({ width: 4000, height: 300 }, canvas, miniMap)).toEqual({ top: '24px', right: '24px', bottom: '174px', left: '24px' });
  });

  it('keeps its width free beside a tall graph, which would shrink more below', () => {
    expect(clearOfMiniMap({ width: 600, height: 4000 }, canvas, miniMap)).toEqual({ top: '24px', right: '224px', bottom: '24px', left: '24px' });
  });
});
