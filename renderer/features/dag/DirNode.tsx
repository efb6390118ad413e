/**
 * One directory of the live DAG. The node array handed to React Flow changes only when the tree's
 * shape does; this component selects its own progress entry from the store, so a pending-count
 * tick re-renders this node and nothing else.
 */
import { Handle, Position, type Node, type NodeProps } from '@xyflow/react';
import { memo } from 'react';
import { dirProgress, type DirProgress } from '../../stores/dag-store';
import { useDag } from '../../stores/stores-context';
import { useT } from '../../use-t';

export type DirNodeData = { uri: string; hidden: number; direction: 'LR' | 'TB' };
export type DirFlowNode = Node<DirNodeData, 'dir'>;

export function ProgressRing({ value, size = 30 }: { value: number; size?: number }) {
  const stroke = 4;
  const radius = (size - stroke) / 2;
  const circumference = 2 * Math.PI * radius;
  return (
    <svg className="ring" width={size} height={size} viewBox={`0 0 ${size} ${size}`} role="img" aria-label={`${Math.round(value * 100)}%`}>
      <circle className="ring-track" cx={size / 2} cy={size / 2} r={radius} strokeWidth={stroke} fill="none" />
      <circle
        className="ring-value"
        cx={size / 2}
        cy={size / 2}
        r={radius}
        strokeWidth={stroke}
        fill="none"
        strokeDasharray={`${circumference * value} ${circumference}`}
        transform={`rotate(-90 ${size / 2} ${size / 2})`}
      />
    </svg>
  );
}

function DirNodeView({ data }: NodeProps<DirFlowNode>) {
  const t = useT();
  const dir = useDag((s) => s.dirs[data.uri]) as DirProgress | undefined;
  const selected = useDag((s) => s.selected === data.uri);
  const collapsed = useDag((s) => Boolean(s.collapsed[data.uri]));
  if (!dir) return null;
  const source = data.direction === 'LR' ? Position.Right : Position.Bottom;
  const target = data.direction === 'LR' ? Position.Left : Position.Top;
  return (
    <div
      className={`dir-node state-${dir.state}${selected ? ' selected' : ''}`}
      data-testid="dag-node"
      data-uri={dir.uri}
      data-state={dir.state}
      data-pending={dir.pending}
      title={dir.reason ?? dir.abstract ?? dir.uri}
    >
      <Handle type="target" position={target} isConnectable={false} />
      <ProgressRing value={dirProgress(dir)} />
      <div className="dir-node-text">
        <div className="dir-node-name">{dir.name}</div>
        <div className="dir-node-sub">
          <span className="state-label">{t(`dag.node.${dir.state}`)}</span>
          {(dir.state === 'waiting' || dir.state === 'dispatched') && <span> · {t('dag.pending', { count: dir.pending })}</span>}
          {collapsed && data.hidden > 0 && <span className="hidden-count"> · {t('dag.hidden', { count: data.hidden })}</span>}
        </div>
      </div>
      <Handle type="source" position={source} isConnectable={false} />
    </div>
  );
}

export const DirNode = memo(DirNodeView);
