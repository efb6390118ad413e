/**
 * The reasoning chains as a graph a person can read whole: chains grouped by type, each chain a
 * vertical stack of its steps (role and confidence on each), wrapped into rows (chain-layout.ts),
 * fitted into a frame sized from the layout. Clicking a step shows the messages it was read from
 * beside the graph; a toggle draws the fusion links between topic clusters and chains.
 */
import { Background, Controls, Handle, Position, ReactFlow, type NodeMouseHandler, type NodeProps } from '@xyflow/react';
import { memo, useEffect, useMemo, useRef, useState, type RefObject } from 'react';
import { allMessages, findNode } from '../../stores/sessions-store';
import { useSessions } from '../../stores/stores-context';
import { labelOf } from '../../i18n';
import { useT } from '../../use-t';
import { useResolvedTheme } from '../../use-theme';
import { COLUMN_GAP, COLUMNS as MAX_COLUMNS, STEP_WIDTH, layoutChains, type ChainFlowNode, type ClusterNode, type TypeGroupNode, type HeadNode, type StepNode } from './chain-layout';
import { MadeByBadge, MessageItem } from './parts';

/** The frame takes the layout's shape at the width it has (no larger than life) and the page scrolls. */
const MAX_ZOOM = 1;
/**
 * The margin inside the frame, in pixels. A fixed one: fitView's padding is a share of the graph,
 * which left 560 px empty above and below a 403-message conversation's chains.
 */
const PAD = 16;
/**
 * A very long conversation is fitted smaller rather than given an endless frame, past this height:
 * a 400-message one (~120 steps, two chains side by side) is ~14,000 px tall at full size.
 */
const MAX_FRAME = 24_000;
/** Chains side by side before the frame is measured. */
const COLUMNS = 4;
/**
 * As many chains side by side as fit the frame at full size: four in a frame that holds two made
 * the text of a 400-message conversation 6 px high. The page scrolls instead.
 */
export const columnsFor = (width: number) => (width > 0 ? Math.max(1, Math.min(MAX_COLUMNS, Math.floor((width - 2 * PAD + COLUMN_GAP) / (STEP_WIDTH + COLUMN_GAP)))) : COLUMNS);

/** The element's width, in steps of 40px so a resize does not re-fit at every pixel. */
function useWidth(ref: RefObject<HTMLElement | null>): number {
  const [width, setWidth] = useState(0);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const observer = new ResizeObserver(([entry]) => setWidth(Math.round((entry?.contentRect.width ?? 0) / 40) * 40));
    observer.observe(element);
    return () => observer.disconnect();
  }, [ref]);
  return width;
}
const percent = (value: number) => `${Math.round(value * 100)}%`;

const StepView = memo(function StepView({ data }: NodeProps<StepNode>) {
  const chosen = useSessions((s) => s.chosenNode === data.key);
  const t = useT();
  return (
    <div className={`chain-step chain-${data.chainType}${chosen ? ' chosen' : ''}`} data-testid="chain-node" data-key={data.key} data-role={data.role} title={data.text}>
      <Handle type="target" position={Position.Top} isConnectable={false} />
      <div className="chain-role">
        <span>
          {data.index + 1}. {labelOf(t, 'chainRole', data.role)}
        </span>
        <span className="chain-confidence" data-testid="chain-node-confidence" title={t('sessions.chainConfidence')}>
          {percent(data.confidence)}
        </span>
      </div>
      <div className="chain-text">{data.text}</div>
      <Handle type="source" position={Position.Bottom} isConnectable={false} />
    </div>
  );
});

const HeadView = memo(function HeadView({ data }: NodeProps<HeadNode>) {
  const t = useT();
  return (
    <div className={`chain-head chain-${data.chainType}`} data-testid="chain-head" data-chain={data.chainId} title={data.summary}>
      <Handle type="target" position={Position.Top} isConnectable={false} />
      <span>{t('sessions.chainSteps', { count: data.steps })}</span>
      <span className="chain-confidence">{percent(data.confidence)}</span>
      <Handle type="source" position={Position.Bottom} isConnectable={false} />
    </div>
  );
});

const GroupView = memo(function GroupView({ data }: NodeProps<TypeGroupNode>) {
  const t = useT();
  return (
    <div className={`chain-group chain-${data.chainType}`} style={{ width: data.width }} data-testid="chain-lane" data-type={data.chainType}>
      <strong>{t(`chain.${data.chainType}`)}</strong> <span className="muted small">{t('sessions.chainCount', { count: data.chains })}</span>
    </div>
  );
});

const ClusterView = memo(function ClusterView({ data }: NodeProps<ClusterNode>) {
  const t = useT();
  return (
    <div className="chain-cluster" data-testid="chain-cluster" data-cluster={data.clusterId} title={data.label}>
      <span className="muted small">{t('sessions.cluster')}</span> {data.label}
      <Handle type="source" position={Position.Bottom} isConnectable={false} />
    </div>
  );
});

// Not `group`: React Flow has a built-in node type of that name.
const nodeTypes = { step: StepView, head: HeadView, typeGroup: GroupView, cluster: ClusterView };

export function ChainGraph() {
  const t = useT();
  const theme = useResolvedTheme();
  const analysis = useSessions((s) => s.analysis);
  const chooseNode = useSessions((s) => s.chooseNode);
  const [showLinks, setShowLinks] = useState(false);
  const frame = useRef<HTMLDivElement>(null);
  const width = useWidth(frame);
  const chains = analysis?.chains;
  const graph = useMemo(
    () => layoutChains(chains ?? [], { columns: columnsFor(width), ...(showLinks ? { links: analysis?.links, clusters: analysis?.clusters } : {}) }),
    [chains, showLinks, analysis?.links, analysis?.clusters, width],
  );
  if (!chains) return <p className="muted">{t('sessions.analyzing')}</p>;
  if (chains.length === 0) return <p className="muted">{t('sessions.noChains')}</p>;
  const onNodeClick: NodeMouseHandler<ChainFlowNode> = (_event, node) => {
    if (node.type === 'step') chooseNode(node.id);
  };
  const hasLinks = (analysis?.links.length ?? 0) > 0;
  // The graph at the frame's width, its top at the top: no larger than life, no taller than MAX_FRAME.
  const room = (width || 800) - 2 * PAD;
  const zoom = Math.min(MAX_ZOOM, room / graph.width, (MAX_FRAME - 2 * PAD) / graph.height);
  const height = Math.max(200, Math.round(graph.height * zoom + 2 * PAD));
  const viewport = { x: Math.round(((width || 800) - graph.width * zoom) / 2), y: PAD, zoom };
  return (
    <div className="chain-graph-wrap">
      <div className="chain-graph-main">
        <label className="chain-links-toggle">
          <input type="checkbox" checked={showLinks} disabled={!hasLinks} onChange={(e) => setShowLinks(e.target.checked)} data-testid="chain-links-toggle" />{' '}
          {hasLinks ? t('sessions.showLinks', { count: analysis!.links.length }) : t('sessions.noLinks')}
        </label>
        <div
          className="panel chain-graph"
          data-testid="chain-graph"
          data-node-count={graph.steps}
          data-link-count={graph.links}
          ref={frame}
          style={{ height }}
        >
          {/* Remounted when the layout or the frame changes, so the viewport shows what is on show. */}
          <ReactFlow<ChainFlowNode>
            key={`${showLinks ? 'links' : 'chains'}-${width}-${height}`}
            nodes={graph.nodes}
            edges={graph.edges}
            nodeTypes={nodeTypes}
            onNodeClick={onNodeClick}
            nodesDraggable={false}
            nodesConnectable={false}
            colorMode={theme}
            defaultViewport={viewport}
            fitViewOptions={{ padding: 0.03, maxZoom: MAX_ZOOM }}
            preventScrolling={false}
            minZoom={0.05}
            maxZoom={2}
            proOptions={{ hideAttribution: true }}
          >
            <Background />
            <Controls showInteractive={false} />
          </ReactFlow>
        </div>
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
  if (!found) return <p className="muted chosen-node">{t('sessions.clickNode')}</p>;
  const ids = new Set(found.node.message_ids);
  const messages = allMessages(conversation).filter((m) => ids.has(m.id));
  return (
    <section className="panel chosen-node" data-testid="chain-node-messages" aria-live="polite">
      <h3>
        {t(`chain.${found.chain.chain_type}`)} · {labelOf(t, 'chainRole', found.node.role)} <span className="badge">{found.chain.chain_id}</span> <MadeByBadge extractor={found.chain.extractor} />
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
