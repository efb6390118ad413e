/**
 * The chain graph's layout, so each chain reads whole: the chains grouped by type (in the seed's
 * order, docs/SPEC.md#track-b-chains), each group under its own header; inside a group every chain
 * is a vertical stack of its steps (a head with its confidence, then the steps top to bottom), the
 * stacks side by side and wrapped into rows of `columns`; a row is as tall as its longest chain, and
 * small groups share a shelf side by side.
 * With `links`, the topic clusters a chain is linked to (fusion) sit in a band above the groups,
 * each link an edge from the cluster to the chain's head. A pure transform into React Flow nodes
 * and edges, tested without React; `width` and `height` let the view size its frame before fitting.
 */
import type { Edge, Node } from '@xyflow/react';
import type { BucketChainLink, ChainType, ExtractedChain, TopicCluster } from '../../../shared/types/memory';

export const CHAIN_TYPES = ['CAUSAL', 'LOGIC', 'OPERATION', 'NARRATIVE', 'TIME'] as const satisfies readonly ChainType[];

/** Sizes in graph units; sessions.css gives the nodes the same sizes. */
export const STEP_WIDTH = 200;
export const STEP_HEIGHT = 84;
export const STEP_GAP = 22;
export const HEAD_HEIGHT = 30;
export const COLUMN_GAP = 36;
export const ROW_GAP = 34;
export const GROUP_HEADER = 40;
export const GROUP_GAP = 30;
export const CLUSTER_HEIGHT = 44;
export const COLUMNS = 6;

export type StepData = { key: string; chainId: string; chainType: ChainType; role: string; text: string; index: number; confidence: number };
export type HeadData = { chainId: string; chainType: ChainType; steps: number; confidence: number; summary: string };
export type GroupData = { chainType: ChainType; chains: number; width: number };
export type ClusterData = { clusterId: string; label: string; links: number };
export type StepNode = Node<StepData, 'step'>;
export type HeadNode = Node<HeadData, 'head'>;
export type TypeGroupNode = Node<GroupData, 'typeGroup'>;
export type ClusterNode = Node<ClusterData, 'cluster'>;
export type ChainFlowNode = StepNode | HeadNode | TypeGroupNode | ClusterNode;

export interface ChainLayout {
  nodes: ChainFlowNode[];
  edges: Edge[];
  /** The chain types shown, in order. */
  groups: ChainType[];
  steps: number;
  /** The fusion links drawn (both ends on show). */
  links: number;
  width: number;
  height: number;
}

export interface ChainLayoutOptions {
  columns?: number;
  /** Fusion links to draw, with the clusters they name; omitted or empty draws none. */
  links?: readonly BucketChainLink[];
  clusters?: readonly TopicCluster[];
}

export const stepKey = (chainId: string, nodeId: string) => `${chainId}/${nodeId}`;
export const headKey = (chainId: string) => `head:${chainId}`;
const chainHeight = (chain: ExtractedChain) => HEAD_HEIGHT + STEP_GAP + chain.nodes.length * STEP_HEIGHT + (chain.nodes.length - 1) * STEP_GAP;

export function layoutChains(chains: readonly ExtractedChain[], options: ChainLayoutOptions = {}): ChainLayout {
  const columns = Math.max(1, options.columns ?? COLUMNS);
  const nodes: ChainFlowNode[] = [];
  const edges: Edge[] = [];
  const groups = CHAIN_TYPES.filter((type) => chains.some((c) => c.chain_type === type));
  
  const chainIds = new Set(chains.map((c) => c.chain_id));
  const clusterById = new Map((options.clusters ?? []).map((c) => [c.cluster_id, c]));
  const links = (options.links ?? []).filter((l) => chainIds.has(l.chain_id) && clusterById.has(l.cluster_id));
  // Clusters in the order the links first name them, wrapped like the chains.
  const linked = [...new Set(links.map((l) => l.cluster_id))];
  let y = 0;
  linked.forEach((clusterId, i) => {
    const column = i % columns;
    const row = Math.floor(i / columns);
    nodes.push({
      id: `cluster:${clusterId}`,
      type: 'cluster',
      position: { x: column * (STEP_WIDTH + COLUMN_GAP), y: row * (CLUSTER_HEIGHT + ROW_GAP) },
      data: { clusterId, label: clusterById.get(clusterId)!.topic_label, links: links.filter((l) => l.cluster_id === clusterId).length },
      selectable: false,
    });
  });
  if (linked.length > 0) y = Math.ceil(linked.length / columns) * (CLUSTER_HEIGHT + ROW_GAP) + GROUP_GAP;

  // Groups fill shelves left to right: a group that fits beside the ones before it joins their
  // shelf, a wider one starts a new shelf (and one wider than `columns` wraps into rows there).
  const columnWidth = STEP_WIDTH + COLUMN_GAP;
  let used = 0;
  let shelfHeight = 0;
  for (const type of groups) {
    const ofType = chains.filter((c) => c.chain_type === type);
    const span = Math.min(columns, ofType.length);
    if (used > 0 && used + span > columns) {
      y += shelfHeight + GROUP_GAP;
      used = 0;
      shelfHeight = 0;
    }
    const left = used * columnWidth;
    nodes.push({ id: `group:${type}`, type: 'typeGroup', position: { x: left, y }, data: { chainType: type, chains: ofType.length, width: span * columnWidth - COLUMN_GAP }, selectable: false });
    let top = y + GROUP_HEADER;
    for (let start = 0; start < ofType.length; start += columns) {
      const row = ofType.slice(start, start + columns);
      row.forEach((chain, column) => {
        const x = left + column * columnWidth;
        nodes.push({
          id: headKey(chain.chain_id),
          type: 'head',
          position: { x, y: top },
          data: { chainId: chain.chain_id, chainType: type, steps: chain.nodes.length, confidence: chain.extraction_confidence, summary: chain.summary },
          selectable: false,
        });
        chain.nodes.forEach((node, index) => {
          const key = stepKey(chain.chain_id, node.id);
          nodes.push({
            id: key,
            type: 'step',
            position: { x, y: top + HEAD_HEIGHT + STEP_GAP + index * (STEP_HEIGHT + STEP_GAP) },
            data: { key, chainId: chain.chain_id, chainType: type, role: node.role, text: node.text, index, confidence: chain.extraction_confidence },
          });
          const previous = chain.nodes[index - 1];
          const from = previous ? stepKey(chain.chain_id, previous.id) : headKey(chain.chain_id);
          edges.push({ id: `${from}->${key}`, source: from, target: key });
        });
      });
      top += Math.max(...row.map(chainHeight)) + ROW_GAP;
    }
    shelfHeight = Math.max(shelfHeight, top - ROW_GAP - y);
    used += span;
  }
  if (groups.length > 0) y += shelfHeight;
  for (const link of links) {
    edges.push({
      id: `link:${link.cluster_id}->${link.chain_id}`,
      source: `cluster:${link.cluster_id}`,
      target: headKey(link.chain_id),
      className: 'fusion-link',
      data: { strength: link.strength, linkType: link.link_type },
    });
  }
  const steps = chains.reduce((n, c) => n + c.nodes.length, 0);
  return { nodes, edges, groups, steps, links: links.length, width: Math.max(...nodes.map((n) => n.position.x + STEP_WIDTH), 0), height: y };
}
