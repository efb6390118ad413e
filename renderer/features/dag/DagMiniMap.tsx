/**
 * The DAG's minimap, drawn on one canvas. React Flow's MiniMap keeps an SVG rect (and a store
 * subscription) per node: at 5,000 directories every state change re-rendered and repainted all
 * of them, which alone held the live view under 10 fps (bench/dag-view.bench.mjs). Here a state
 * change schedules one redraw (at most every REDRAW_MS), and panning moves only the viewport frame.
 *
 * A tree thousands of rows tall fills the box rather than shrinking to a line (miniMapFrame).
 * Click or drag in it to move the view there.
 */
import { Panel, useReactFlow, useStore as useFlowStore } from '@xyflow/react';
import { useEffect, useMemo, useRef, type PointerEvent } from 'react';
import { DIR_STATES, type DirState } from '../../stores/dag-store';
import { useDag, useStores } from '../../stores/stores-context';
import { useT } from '../../use-t';

const WIDTH = 200;
const HEIGHT = 150;
const PAD = 4;
/** The corner the minimap takes on the canvas: its box, border and margin (dag.css), and a gap before the graph. */
export const MINIMAP_FOOTPRINT = { width: WIDTH + 2 + 10 + 12, height: HEIGHT + 2 + 10 + 12 } as const;
const REDRAW_MS = 300;

export interface MiniMapGraph {
  ids: readonly string[];
  positions: ReadonlyMap<string, { x: number; y: number }>;
  nodeWidth: number;
  nodeHeight: number;
}

/** Beyond this ratio between the axes' fits, a graph fills the box instead of keeping its proportions. */
const MAX_ASPECT = 6;

interface Frame {
  /** Minimap pixels = PAD + offset + (graph coordinate - min) × scale, per axis. */
  minX: number;
  minY: number;
  scaleX: number;
  scaleY: number;
  offsetX: number;
  offsetY: number;
}

/**
 * Graph coordinates to minimap pixels: one scale for both axes, centred, unless the graph is so
 * long (a tree thousands of rows tall) that it would shrink to a line; then each axis fills the box.
 */
export function miniMapFrame(graph: MiniMapGraph, width = WIDTH, height = HEIGHT): Frame {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const id of graph.ids) {
    const p = graph.positions.get(id);
    if (!p) continue;
    minX = Math.min(minX, p.x);
    minY = Math.min(minY, p.y);
    maxX = Math.max(maxX, p.x + graph.nodeWidth);
    maxY = Math.max(maxY, p.y + graph.nodeHeight);
  }
  if (minX === Infinity) return { minX: 0, minY: 0, scaleX: 1, scaleY: 1, offsetX: 0, offsetY: 0 };
  const fitX = (width - 2 * PAD) / Math.max(1, maxX - minX);
  const fitY = (height - 2 * PAD) / Math.max(1, maxY - minY);
  const uniform = Math.min(fitX, fitY);
  const fill = Math.max(fitX, fitY) / uniform > MAX_ASPECT;
  const scaleX = fill ? fitX : uniform;
  const scaleY = fill ? fitY : uniform;
  return {
    minX,
    minY,
    scaleX,
    scaleY,
    offsetX: (width - 2 * PAD - (maxX - minX) * scaleX) / 2,
    offsetY: (height - 2 * PAD - (maxY - minY) * scaleY) / 2,
  };
}

function stateColours(element: Element): Record<DirState, string> {
  const style = getComputedStyle(element);
  return Object.fromEntries(DIR_STATES.map((state) => [state, style.getPropertyValue(`--state-${state}`).trim() || '#888'])) as Record<DirState, string>;
}

export function DagMiniMap({ graph, theme }: { graph: MiniMapGraph; theme: string }) {
  const t = useT();
  const stores = useStores();
  const version = useDag((s) => s.stateVersion);
  const canvas = useRef<HTMLCanvasElement>(null);
  const frame = useMemo(() => miniMapFrame(graph), [graph]);
  const flow = useReactFlow();
  const [tx, ty, zoom] = useFlowStore((s) => s.transform);
  const paneWidth = useFlowStore((s) => s.width);
  const paneHeight = useFlowStore((s) => s.height);
  const lastDraw = useRef(0);

  useEffect(() => {
    const draw = () => {
      const element = canvas.current;
      const context = element?.getContext('2d');
      if (!element || !context) return;
      lastDraw.current = performance.now();
      const ratio = window.devicePixelRatio || 1;
      if (element.width !== WIDTH * ratio) {
        element.width = WIDTH * ratio;
        element.height = HEIGHT * ratio;
      }
      context.setTransform(ratio, 0, 0, ratio, 0, 0);
      context.clearRect(0, 0, WIDTH, HEIGHT);
      const colours = stateColours(element);
      const dirs = stores.dag.getState().dirs;
      const w = Math.max(1, graph.nodeWidth * frame.scaleX);
      const h = Math.max(1, graph.nodeHeight * frame.scaleY);
      // One fill colour at a time: a few thousand rects draw in a millisecond or two.
      const byState = new Map<DirState, string[]>();
      for (const id of graph.ids) {
        const state = dirs[id]?.state ?? 'waiting';
        const list = byState.get(state);
        if (list) list.push(id);
        else byState.set(state, [id]);
      }
      for (const [state, ids] of byState) {
        context.fillStyle = colours[state];
        for (const id of ids) {
          const p = graph.positions.get(id);
          if (p) context.fillRect(PAD + frame.offsetX + (p.x - frame.minX) * frame.scaleX, PAD + frame.offsetY + (p.y - frame.minY) * frame.scaleY, w, h);
        }
      }
    };
    const wait = Math.max(0, lastDraw.current + REDRAW_MS - performance.now());
    const timer = setTimeout(draw, wait);
    return () => clearTimeout(timer);
  }, [graph, frame, version, theme, stores]);

  // The part of the graph the canvas shows, in minimap pixels.
  const view = {
    left: PAD + frame.offsetX + (-tx / zoom - frame.minX) * frame.scaleX,
    top: PAD + frame.offsetY + (-ty / zoom - frame.minY) * frame.scaleY,
    width: (paneWidth / zoom) * frame.scaleX,
    height: (paneHeight / zoom) * frame.scaleY,
  };

  const moveTo = (event: PointerEvent<HTMLDivElement>) => {
    const box = event.currentTarget.getBoundingClientRect();
    const x = (event.clientX - box.left - PAD - frame.offsetX) / frame.scaleX + frame.minX;
    const y = (event.clientY - box.top - PAD - frame.offsetY) / frame.scaleY + frame.minY;
    void flow.setCenter(x, y, { zoom });
  };

  return (
    <Panel position="bottom-right" className="dag-minimap" aria-label={t('dag.minimap')} data-testid="dag-minimap">
      <div
        className="dag-minimap-box"
        // The canvas plus the box's 1 px border on each side.
        style={{ width: WIDTH + 2, height: HEIGHT + 2 }}
        onPointerDown={(event) => {
          event.currentTarget.setPointerCapture(event.pointerId);
          moveTo(event);
        }}
        onPointerMove={(event) => {
          if (event.buttons === 1) moveTo(event);
        }}
      >
        <canvas ref={canvas} style={{ width: WIDTH, height: HEIGHT }} />
        <div
          className="dag-minimap-view"
          style={{
            left: Math.max(0, view.left),
            top: Math.max(0, view.top),
            width: Math.max(4, Math.min(WIDTH, view.left + view.width) - Math.max(0, view.left)),
            height: Math.max(4, Math.min(HEIGHT, view.top + view.height) - Math.max(0, view.top)),
          }}
        />
      </div>
    </Panel>
  );
}
