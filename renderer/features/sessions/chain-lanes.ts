/**
 * The chain graph's layout: one horizontal lane per chain type (in the seed's order,
 * docs/SPEC.md#track-b-chains), the chains of a type one after another along their lane, each node
 * after the one before it, and an edge between consecutive nodes. A pure transform into React Flow
 * nodes and edges, tested without React.
 */
import type { Edge, Node } from '@xyflow/react';
import type { ChainType, ExtractedChain } from '../../../shared/types/memory';

export const CHAIN_TYPES = ['CAUSAL', 'LOGIC', 'OPERATION', 'NARRATIVE', 'TIME'] as const satisfies readonly ChainType[];

export const STEP_WIDTH = 190;
export const STEP_GAP = 50;
export const CHAIN_GAP = 90;
export const LANE_HEIGHT = 130;
export const LABEL_WIDTH = 120;

export type StepData = { key: string; chainId: string; chainType: ChainType; role: string; text: string; index: number; confidence: number };
export type LaneData = { chainType: ChainType; chains: number };
export type StepNode = Node<StepData, 'step'>;
export type LaneNode = Node<LaneData, 'lane'>;
export type ChainFlowNode = StepNode | LaneNode;

export const stepKey = (chainId: string, nodeId: string) => `${chainId}/${nodeId}`;

export function layoutChains(chains: readonly ExtractedChain[]): { nodes: ChainFlowNode[]; edges: Edge[]; lanes: ChainType[] } {
  const nodes: ChainFlowNode[] = [];
  const edges: Edge[] = [];
  const lanes = CHAIN_TYPES.filter((type) => chains.some((c) => c.chain_type === type));
  lanes.forEach((type, lane) => {
    const y = lane * LANE_HEIGHT;
    const ofType = chains.filter((c) => c.chain_type === type);
    nodes.push({ id: `lane:${type}`, type: 'lane', position: { x: 0, y }, data: { chainType: type, chains: ofType.length }, draggable: false, selectable: false });
    let x = LABEL_WIDTH + STEP_GAP;
    for (const chain of ofType) {
      chain.nodes.forEach((node, index) => {
        const key = stepKey(chain.chain_id, node.id);
        nodes.push({
          id: key,
          type: 'step',
          position: { x, y },
          data: { key, chainId: chain.chain_id, chainType: type, role: node.role, text: node.text, index, confidence: chain.extraction_confidence },
        });
        const previous = chain.nodes[index - 1];
        if (previous) {
          const from = stepKey(chain.chain_id, previous.id);
          edges.push({ id: `${from}->${key}`, source: from, target: key });
        }
        x += STEP_WIDTH + STEP_GAP;
      });
      x += CHAIN_GAP - STEP_GAP;
    }
  });
  return { nodes, edges, lanes };
}
