/**
 * A tidy-tree layout for the directory DAG, as a pure function of nodes and edges (no React, no
 * DOM), so it is tested on its own and can move to a Web Worker when graphs grow.
 *
 * Leaves take consecutive slots across the tree; a parent sits centred over its first and last
 * child; depth gives the rank. Directories form a tree, so a node reached twice keeps its first
 * parent, and a cycle cannot loop. It is synchronous: 5,000 directories lay out in a few ms.
 *
 * @example
 * const { positions } = layoutDag([{ id: 'a' }, { id: 'b' }], [{ source: 'a', target: 'b' }], { direction: 'LR' });
 * positions.get('b'); // { x: 260, y: 0 }
 */
export interface LayoutNode {
  id: string;
}

export interface LayoutEdge {
  source: string;
  target: string;
}

export interface LayoutOptions {
  /** LR: ranks run left to right (a file-manager look); TB: top to bottom. */
  direction?: 'LR' | 'TB';
  nodeWidth?: number;
  nodeHeight?: number;
  /** Space between ranks (parent to child). */
  rankGap?: number;
  /** Space between neighbours in the same rank. */
  siblingGap?: number;
  /**
   * More leaf children than this (children with none of their own) are laid out in columns, a
   * block about as wide as it is tall, instead of one line hundreds of nodes long. 0: never.
   */
  wrapLeavesAfter?: number;
}

export interface LayoutResult {
  /** Top-left corner of each node. */
  positions: Map<string, { x: number; y: number }>;
  /** Depth of each node below its root. */
  depths: Map<string, number>;
  bounds: { width: number; height: number };
}

export const DEFAULT_LAYOUT = { direction: 'LR', nodeWidth: 200, nodeHeight: 64, rankGap: 60, siblingGap: 16, wrapLeavesAfter: 0 } as const;

export function layoutDag(nodes: readonly LayoutNode[], edges: readonly LayoutEdge[], options: LayoutOptions = {}): LayoutResult {
  const { direction, nodeWidth, nodeHeight, rankGap, siblingGap, wrapLeavesAfter } = { ...DEFAULT_LAYOUT, ...options };
  const ids = new Set(nodes.map((node) => node.id));
  const children = new Map<string, string[]>();
  const hasParent = new Set<string>();
  for (const edge of edges) {
    if (!ids.has(edge.source) || !ids.has(edge.target) || edge.source === edge.target) continue;
    if (hasParent.has(edge.target)) continue;
    hasParent.add(edge.target);
    const list = children.get(edge.source);
    if (list) list.push(edge.target);
    else children.set(edge.source, [edge.target]);
  }

  // Slot along the breadth axis (in node units) and depth along the rank axis.
  const slot = new Map<string, number>();
  const depths = new Map<string, number>();
  /** Extra ranks of a leaf laid out in a later column of its parent's block. */
  const columns = new Map<string, number>();
  /** First and last slot of a parent's block of wrapped leaves. */
  const blocks = new Map<string, [number, number]>();
  let nextLeaf = 0;
  const breadthStep = (direction === 'LR' ? nodeHeight : nodeWidth) + siblingGap;
  const rankStep = (direction === 'LR' ? nodeWidth : nodeHeight) + rankGap;
  let maxDepth = 0;
  const placed = new Set<string>();

  const roots = nodes.filter((node) => !hasParent.has(node.id)).map((node) => node.id);
  // Nodes only reachable through a cycle have a parent yet no root above them: treat them as roots.
  const ordered = [...roots, ...nodes.map((node) => node.id)];

  for (const start of ordered) {
    if (placed.has(start)) continue;
    // Iterative post-order, so deep trees cannot overflow the stack.
    const stack: { id: string; depth: number; expanded: boolean; kids: string[] }[] = [{ id: start, depth: 0, expanded: false, kids: [] }];
    const onPath = new Set<string>();
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!;
      if (!frame.expanded) {
        frame.expanded = true;
        if (placed.has(frame.id) || onPath.has(frame.id)) {
          stack.pop();
          continue;
        }
        onPath.add(frame.id);
        depths.set(frame.id, frame.depth);
        maxDepth = Math.max(maxDepth, frame.depth);
        frame.kids = (children.get(frame.id) ?? []).filter((kid) => !placed.has(kid) && !onPath.has(kid));
        const leaves = frame.kids.every((kid) => !(children.get(kid)?.length));
        if (wrapLeavesAfter > 0 && leaves && frame.kids.length > wrapLeavesAfter) {
          // Rows so the block's width (columns × rank step) about equals its height (rows × slot).
          const rows = Math.min(frame.kids.length, Math.max(wrapLeavesAfter, Math.ceil(Math.sqrt((frame.kids.length * rankStep) / breadthStep))));
          frame.kids.forEach((kid, i) => {
            slot.set(kid, nextLeaf + (i % rows));
            columns.set(kid, Math.floor(i / rows));
            depths.set(kid, frame.depth + 1);
            maxDepth = Math.max(maxDepth, frame.depth + 1 + Math.floor(i / rows));
            placed.add(kid);
          });
          blocks.set(frame.id, [nextLeaf, nextLeaf + rows - 1]);
          nextLeaf += rows;
          continue;
        }
        for (let i = frame.kids.length - 1; i >= 0; i -= 1) stack.push({ id: frame.kids[i]!, depth: frame.depth + 1, expanded: false, kids: [] });
        continue;
      }
      stack.pop();
      onPath.delete(frame.id);
      const placedKids = frame.kids.filter((kid) => slot.has(kid) && depths.get(kid) === frame.depth + 1);
      const block = blocks.get(frame.id);
      if (block) slot.set(frame.id, (block[0] + block[1]) / 2);
      else if (placedKids.length === 0) {
        slot.set(frame.id, nextLeaf);
        nextLeaf += 1;
      } else {
        const first = slot.get(placedKids[0]!)!;
        const last = slot.get(placedKids[placedKids.length - 1]!)!;
        slot.set(frame.id, (first + last) / 2);
      }
      placed.add(frame.id);
    }
  }

  const positions = new Map<string, { x: number; y: number }>();
  for (const node of nodes) {
    const across = (slot.get(node.id) ?? 0) * breadthStep;
    const along = ((depths.get(node.id) ?? 0) + (columns.get(node.id) ?? 0)) * rankStep;
    positions.set(node.id, direction === 'LR' ? { x: along, y: across } : { x: across, y: along });
  }
  const breadth = nextLeaf === 0 ? 0 : nextLeaf * breadthStep - siblingGap;
  const length = nodes.length === 0 ? 0 : (maxDepth + 1) * rankStep - rankGap;
  return {
    positions,
    depths,
    bounds: direction === 'LR' ? { width: length, height: breadth } : { width: breadth, height: length },
  };
}
