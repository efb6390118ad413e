/**
 * The cluster map's geometry: each clustered item at its 2-D `layout` position (the engine's
 * projection, x and y in -1..1), scaled to fill the drawing, with its cluster and bucket. A pure
 * transform, tested without React.
 */
import type { BucketType, TopicCluster } from '../../../shared/types/memory';

export const BUCKETS = ['TASK_CONTEXT', 'USER_INTENT', 'DECISION_CONTEXT', 'KNOWLEDGE_GAP', 'EMOTIONAL_TRACE'] as const satisfies readonly BucketType[];

export interface MapPoint {
  itemId: string;
  cluster: number;
  clusterId: string;
  bucket: BucketType;
  x: number;
  y: number;
  text: string;
  speaker?: string;
  messageIds: string[];
}

/**
 * Points of every item that has a layout position, scaled into `width` × `height` minus `pad` on
 * each side; y grows upwards as in the projection. Each axis is stretched to fill the drawing: the
 * projection's axes have no meaning of their own, and on real conversations one of them often
 * spans a fraction of the other, which left the points in a thin column.
 */
export function mapPoints(clusters: readonly TopicCluster[], width: number, height: number, pad = 24): MapPoint[] {
  const raw: (Omit<MapPoint, 'x' | 'y'> & { px: number; py: number })[] = [];
  clusters.forEach((cluster, index) => {
    for (const item of cluster.items) {
      const at = cluster.layout?.[item.id];
      if (!at) continue;
      raw.push({ itemId: item.id, cluster: index, clusterId: cluster.cluster_id, bucket: item.bucket, text: item.text, speaker: item.speaker, messageIds: item.message_ids, px: at[0], py: at[1] });
    }
  });
  if (raw.length === 0) return [];
  const xs = raw.map((p) => p.px);
  const ys = raw.map((p) => p.py);
  // A zero span (one point, or all on a line) is widened around the points so they sit centred.
  const range = (values: number[]): [number, number] => {
    const [lo, hi] = [Math.min(...values), Math.max(...values)];
    return hi > lo ? [lo, hi] : [lo - 0.5, hi + 0.5];
  };
  const [minX, maxX] = range(xs);
  const [minY, maxY] = range(ys);
  const spanX = maxX - minX;
  const spanY = maxY - minY;
  const innerW = Math.max(1, width - 2 * pad);
  const innerH = Math.max(1, height - 2 * pad);
  return raw.map(({ px, py, ...rest }) => ({ ...rest, x: pad + ((px - minX) / spanX) * innerW, y: pad + ((maxY - py) / spanY) * innerH }));
}

/** The SVG path of a bucket's marker, centred on (0, 0) with radius r: circle, square, triangle, diamond, star-ish cross. */
export function markerPath(bucket: BucketType, r: number): string {
  switch (bucket) {
    case 'TASK_CONTEXT':
      return `M ${-r} 0 a ${r} ${r} 0 1 0 ${2 * r} 0 a ${r} ${r} 0 1 0 ${-2 * r} 0 Z`;
    case 'USER_INTENT':
      return `M ${-r} ${-r} H ${r} V ${r} H ${-r} Z`;
    case 'DECISION_CONTEXT':
      return `M 0 ${-r * 1.15} L ${r * 1.1} ${r * 0.85} L ${-r * 1.1} ${r * 0.85} Z`;
    case 'KNOWLEDGE_GAP':
      return `M 0 ${-r * 1.25} L ${r * 1.25} 0 L 0 ${r * 1.25} L ${-r * 1.25} 0 Z`;
    case 'EMOTIONAL_TRACE': {
      const a = r * 0.4;
      return `M ${-a} ${-r} H ${a} V ${-a} H ${r} V ${a} H ${a} V ${r} H ${-a} V ${a} H ${-r} V ${-a} H ${-a} Z`;
    }
  }
}

/** Cluster colours, distinct in both themes; cluster i takes colour i mod n. */
export const CLUSTER_COLOURS = ['#2f6fde', '#d9822b', '#2e9d5b', '#c2417a', '#8e5cd9', '#1f9fa8', '#b8a21e', '#d64545'];
export const clusterColour = (index: number) => CLUSTER_COLOURS[index % CLUSTER_COLOURS.length]!;
