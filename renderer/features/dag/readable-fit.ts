/**
 * Where the canvas looks when it follows a run on its own: the whole graph when it fits at a size
 * a person can read, else the root at a readable size (git's docs fitted whole drew 75 directories
 * at 0.15×, labels 2 px high). The minimap shows the rest, Fit shows everything. Pure, so it is
 * tested without React Flow.
 */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}
export interface Viewport {
  x: number;
  y: number;
  zoom: number;
}

/** Below this the names on the nodes are too small to read (14 px labels → 9 px). */
export const MIN_READABLE_ZOOM = 0.65;
/** The margin kept around the graph, in screen pixels. */
const MARGIN = 24;

/** The bounds of nodes of one size at these positions. */
export function boundsOf(positions: Iterable<{ x: number; y: number }>, node: { width: number; height: number }): Rect | null {
  let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const p of positions) {
    [x0, y0, x1, y1] = [Math.min(x0, p.x), Math.min(y0, p.y), Math.max(x1, p.x + node.width), Math.max(y1, p.y + node.height)];
  }
  return x0 === Infinity ? null : { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}

/**
 * null when the whole graph fits the canvas at a readable zoom (fit it whole); else the viewport
 * that shows it at that zoom from its left edge (the root, in a left-to-right tree), centred on
 * the root's row without showing empty space past the graph's top or bottom.
 */
export function readableViewport(bounds: Rect, canvas: { width: number; height: number }, root: Rect, minZoom = MIN_READABLE_ZOOM): Viewport | null {
  const room = { width: canvas.width - 2 * MARGIN, height: canvas.height - 2 * MARGIN };
  if (room.width <= 0 || room.height <= 0) return null;
  const whole = Math.min(room.width / bounds.width, room.height / bounds.height);
  if (whole >= minZoom) return null;
  const zoom = minZoom;
  const x = bounds.width * zoom <= room.width ? (canvas.width - bounds.width * zoom) / 2 - bounds.x * zoom : MARGIN - bounds.x * zoom;
  let y = canvas.height / 2 - (root.y + root.height / 2) * zoom;
  if (bounds.height * zoom <= room.height) y = (canvas.height - bounds.height * zoom) / 2 - bounds.y * zoom;
  else y = Math.min(MARGIN - bounds.y * zoom, Math.max(canvas.height - MARGIN - (bounds.y + bounds.height) * zoom, y));
  return { x, y, zoom };
}

/** Per-side padding for a whole fit, in screen pixels (React Flow's `fitView` padding). */
export interface FitPadding {
  top: `${number}px`;
  right: `${number}px`;
  bottom: `${number}px`;
  left: `${number}px`;
}

/**
 * The padding that fits the graph whole clear of the minimap in the canvas's bottom-right corner
 * (it hid the last nodes of git's docs): the minimap's height kept free below the graph, or its
 * width to the right, whichever leaves the graph larger. A wide graph loses nothing (it has room
 * to spare above and below), a tall one gives up a strip at its side.
 */
export function clearOfMiniMap(bounds: Pick<Rect, 'width' | 'height'>, canvas: { width: number; height: number }, miniMap: { width: number; height: number }): FitPadding {
  const zoom = (right: number, bottom: number) => Math.min((canvas.width - MARGIN - right) / bounds.width, (canvas.height - MARGIN - bottom) / bounds.height);
  const below = zoom(MARGIN, miniMap.height);
  const beside = zoom(miniMap.width, MARGIN);
  const px = (n: number) => `${n}px` as const;
  return below >= beside ? { top: px(MARGIN), right: px(MARGIN), bottom: px(miniMap.height), left: px(MARGIN) } : { top: px(MARGIN), right: px(miniMap.width), bottom: px(MARGIN), left: px(MARGIN) };
}
