import { describe, expect, it } from 'vitest';
import { miniMapFrame } from './DagMiniMap';

const graph = (points: [number, number][]) => ({
  ids: points.map((_, i) => `n${i}`),
  positions: new Map(points.map(([x, y], i) => [`n${i}`, { x, y }])),
  nodeWidth: 10,
  nodeHeight: 10,
});

describe('the minimap frame', () => {
  it('keeps the proportions of a compact graph and centres it', () => {
    // 110 × 60 graph units into a 200 × 150 box with 4 px padding: the width decides.
    const frame = miniMapFrame(graph([[0, 0], [100, 50]]), 200, 150);
    expect(frame.scaleX).toBeCloseTo(192 / 110);
    expect(frame.scaleY).toBe(frame.scaleX);
    expect(frame.offsetX).toBeCloseTo(0);
    expect(frame.offsetY).toBeCloseTo((142 - 60 * frame.scaleY) / 2);
  });

  it('lets a very long graph fill the box rather than shrink to a line', () => {
    const frame = miniMapFrame(graph([[0, 0], [90, 99_990]]), 200, 150);
    expect(frame.scaleY).toBeCloseTo(142 / 100_000);
    expect(frame.scaleX).toBeCloseTo(192 / 100);
    expect(frame).toMatchObject({ offsetX: 0, offsetY: 0 });
  });

  it('copes with an empty graph', () => {
    expect(miniMapFrame(graph([]))).toMatchObject({ scaleX: 1, scaleY: 1 });
  });
});
