/**
 * Chains across blocks: which blocks carry each chain id, which chains hang together because
 * they share a block, and whether each chain came through a compression intact.
 */
import type { ChainReport, ChainStatus, ContextBlock } from '../../../shared/types/compress.js';

/** Chain id → indices of the blocks that carry it, in input order; ids in order of first appearance. */
export function chainMembers(blocks: readonly ContextBlock[]): Map<string, number[]> {
  const members = new Map<string, number[]>();
  blocks.forEach((block, i) => {
    for (const id of block.chain_links) {
      const list = members.get(id);
      if (!list) members.set(id, [i]);
      // A block listing the same chain twice is still one member.
      else if (list[list.length - 1] !== i) list.push(i);
    }
  });
  return members;
}

export interface ChainUnit {
  /** Block indices in input order. */
  blocks: number[];
  /** Chain ids in order of first appearance; empty for a block outside every chain. */
  chainIds: string[];
}

/**
 * Groups blocks that must be kept or dropped together: the connected components of "shares a
 * chain id". A block in two chains joins them, since keeping one chain whole and dropping the
 * other would cut the second. Blocks outside every chain are units of their own.
 */
export function chainUnits(blocks: readonly ContextBlock[], members: Map<string, number[]>): ChainUnit[] {
  const parent = blocks.map((_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) {
      parent[i] = parent[parent[i] as number] as number;
      i = parent[i] as number;
    }
    return i;
  };
  for (const list of members.values()) {
    let root = find(list[0] as number);
    for (const i of list) {
      const other = find(i);
      if (other === root) continue;
      // The smaller index becomes the root, so a unit is named by its first block.
      parent[Math.max(root, other)] = Math.min(root, other);
      root = Math.min(root, other);
    }
  }
  // Indexed by root; a root is the unit's first block, so walking roots in order keeps units in input order.
  const byRoot: Array<ChainUnit | undefined> = new Array(blocks.length);
  const units: ChainUnit[] = [];
  for (let i = 0; i < blocks.length; i += 1) {
    const root = find(i);
    let unit = byRoot[root];
    if (!unit) {
      unit = { blocks: [], chainIds: [] };
      byRoot[root] = unit;
      units.push(unit);
    }
    unit.blocks.push(i);
  }
  for (const [id, list] of members) byRoot[find(list[0] as number)]?.chainIds.push(id);
  return units;
}

/**
 * How each block ended up: kept whole, kept shortened, inside a chain summary, left out but named
 * by reference (a step of a chain that holds a reserved block and did not fit whole), or dropped.
 */
export type BlockFate = 'whole' | 'shortened' | 'replaced' | 'referenced' | 'dropped';

export function chainReports(blocks: readonly ContextBlock[], members: Map<string, number[]>, fates: readonly BlockFate[]): ChainReport[] {
  return [...members].map(([id, list]) => ({ id, block_ids: list.map((i) => (blocks[i] as ContextBlock).id), status: chainStatus(list.map((i) => fates[i] as BlockFate)) }));
}

function chainStatus(fates: BlockFate[]): ChainStatus {
  const dropped = fates.filter((f) => f === 'dropped').length;
  if (dropped === fates.length) return 'dropped';
  if (dropped > 0) return 'partial';
  if (fates.includes('referenced')) return 'referenced';
  if (fates.includes('replaced')) return 'summarized';
  return fates.includes('shortened') ? 'shortened' : 'whole';
}

export function isIntact(status: ChainStatus): boolean {
  return status === 'whole' || status === 'shortened' || status === 'summarized' || status === 'referenced';
}
