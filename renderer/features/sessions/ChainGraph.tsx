/**
 * The reasoning chains as a graph: one horizontal lane per chain type, each chain's nodes in order
 * with their role, an edge between consecutive nodes. Clicking a node shows the messages it was
 * read from, below the graph.
 */
import { Background, Controls, Handle, Position, ReactFlow, type NodeMouseHandler, type NodeProps } from '@xyflow/react';
import { memo, useMemo } from 'react';
import { allMessages, findNode } from '../../stores/sessions-store';
import { useSessions } from '../../stores/stores-context';
import { labelOf } from '../../i18n';
import { useT } from '../../use-t';
import { useResolvedTheme } from '../../use-theme';
import { LANE_HEIGHT, layoutChains, type ChainFlowNode, type LaneNode, type StepNode } from './chain-lanes';

/** Readable text on open; the graph is panned sideways (or fitted with the controls) to see long lanes. */
const ZOOM = 0.85;
import { MessageItem } from './parts';

const StepView = memo(function StepView({ data }: NodeProps<StepNode>) {
  const chosen = useSessions((s) => s.chosenNode === data.key);
  const t = useT();
  return (
    <div className={`chain-step chain-${data.chainType}${chosen ? ' chosen' : ''}`} data-testid="chain-node" data-key={data.key} data-role={data.role}>
      <Handle type="target" position={Position.Left} isConnectable={false} />
      <div className="chain-role">
        {data.index + 1}. {labelOf(t, 'chainRole', data.role)}
      </div>
      <div className="chain-text">{data.text}</div>
      <Handle type="source" position={Position.Right} isConnectable={false} />
    </div>
  );
});

const LaneView = memo(function LaneView({ data }: NodeProps<LaneNode>) {
  const t = useT();
  return (
    <div className={`chain-lane chain-${data.chainType}`} data-testid="chain-lane" data-type={data.chainType}>
      <strong>{t(`chain.${data.chainType}`)}</strong>
      <span className="muted small">{t('sessions.chainCount', { count: data.chains })}</span>
    </div>
  );
});

const nodeTypes = { step: StepView, lane: LaneView };

export function ChainGraph() {
  const t = useT();
  const theme = useResolvedTheme();
  const chains = useSessions((s) => s.analysis?.chains);
  const chooseNode = useSessions((s) => s.chooseNode);
  const graph = useMemo(() => layoutChains(chains ?? []), [chains]);
  if (!chains) return <p className="muted">{t('sessions.analyzing')}</p>;
  if (chains.length === 0) return <p className="muted">{t('sessions.noChains')}</p>;
  const onNodeClick: NodeMouseHandler<ChainFlowNode> = (_event, node) => {
    if (node.type === 'step') chooseNode(node.id);
  };
  return (
    <div className="chain-graph-wrap">
      <div
        className="panel chain-graph"
        data-testid="chain-graph"
        data-node-count={graph.nodes.length - graph.lanes.length}
        style={{ height: Math.round(graph.lanes.length * LANE_HEIGHT * ZOOM + 70) }}
      >
        <ReactFlow<ChainFlowNode>
          nodes={graph.nodes}
          edges={graph.edges}
          nodeTypes={nodeTypes}
          onNodeClick={onNodeClick}
          nodesDraggable={false}
          nodesConnectable={false}
          colorMode={theme}
          defaultViewport={{ x: 12, y: 20, zoom: ZOOM }}
          panOnScroll
          minZoom={0.1}
          maxZoom={2}
          proOptions={{ hideAttribution: true }}
        >
          <Background />
          <Controls showInteractive={false} />
        </ReactFlow>
      </div>
      <ChosenNode />
    </div>
  );
}

function ChosenNode() {
  const t = useT();
  const analysis = useSessions((s) => s.analysis);
  const chosen = useSessions((s) => s.chosenNode);
  const conversation = useSessions((s) => s.conversation);
  const found = findNode(analysis, chosen);
  if (!found) return <p className="muted">{t('sessions.clickNode')}</p>;
  const ids = new Set(found.node.message_ids);
  const messages = allMessages(conversation).filter((m) => ids.has(m.id));
  return (
    <section className="panel chosen-node" data-testid="chain-node-messages" aria-live="polite">
      <h3>
        {t(`chain.${found.chain.chain_type}`)} · {labelOf(t, 'chainRole', found.node.role)} <span className="badge">{found.chain.chain_id}</span>
      </h3>
      <p className="muted small">{found.chain.summary}</p>
      <ol className="messages">
        {messages.map((m) => (
          <MessageItem key={m.id} id={m.id} role={m.role} speaker={m.speaker} timestamp={m.timestamp} text={m.text} />
        ))}
      </ol>
    </section>
  );
}
