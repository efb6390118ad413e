/**
 * One directory of the live DAG. The node array handed to React Flow changes only when the tree's
 * shape does; this component selects its own progress entry from the store, so a pending-count
 * tick re-renders this node and nothing else.
 */
import { Handle, Position, type Node, type NodeProps } from '@xyflow/react';
import { memo } from 'react';
import { formatCount } from '../../../shared/format';
import { DIR_STATES, dirProgress, type DirProgress } from '../../stores/dag-store';
import { useApp, useDag, useDagShallow } from '../../stores/stores-context';
import { useT } from '../../use-t';
import { groupCounts } from './view-graph';

export type DirNodeData = { uri: string; hidden: number; collapsed: boolean; direction: 'LR' | 'TB' };
export type DirFlowNode = Node<DirNodeData, 'dir'>;
export type GroupNodeData = { parent: string; members: readonly string[]; direction: 'LR' | 'TB' };
export type GroupFlowNode = Node<GroupNodeData, 'dirGroup'>;
export type DagFlowNode = DirFlowNode | GroupFlowNode;

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
      data-document={dir.document}
      title={dir.reason ?? dir.abstract ?? dir.uri}
    >
      <Handle type="target" position={target} isConnectable={false} />
      <ProgressRing value={dirProgress(dir)} />
      <div className="dir-node-text">
        <div className="dir-node-name">{dir.name}</div>
        <div className="dir-node-sub">
          <span className="state-label">{t(`dag.node.${dir.state}`)}</span>
          {(dir.state === 'waiting' || dir.state === 'dispatched') && <span> · {t('dag.pending', { count: dir.pending })}</span>}
          {data.collapsed && data.hidden > 0 && <span className="hidden-count"> · {t('dag.hidden', { count: data.hidden })}</span>}
        </div>
      </div>
      <Handle type="source" position={source} isConnectable={false} />
    </div>
  );
}

export const DirNode = memo(DirNodeView);

/**
 * The children of a wide folder beyond the first few, as one node: how many, of which kind, and
 * where they stand (selected from the store, so a state change re-renders this node only).
 * A click shows them all.
 */
function GroupNodeView({ data }: NodeProps<GroupFlowNode>) {
  const t = useT();
  const locale = useApp((s) => s.locale);
  const counts = useDagShallow((s) => groupCounts(data.members, s.dirs));
  const members = data.members.length;
  const count = formatCount(members, locale);
  const title =
    counts.files === 0
      ? t('dag.group.dirs', { count })
      : counts.directories === 0
        ? t('dag.group.files', { count })
        : t('dag.group.mixed', { count, dirs: formatCount(counts.directories, locale), files: formatCount(counts.files, locale) });
  const states = DIR_STATES.filter((state) => counts[state] > 0).map((state) => `${formatCount(counts[state], locale)} ${t(`dag.node.${state}`)}`);
  const finished = counts.done + counts.fallback + counts.failed;
  const source = data.direction === 'LR' ? Position.Right : Position.Bottom;
  const target = data.direction === 'LR' ? Position.Left : Position.Top;
  return (
    <div
      className={`dir-node group-node${finished === members ? ' group-finished' : ''}`}
      data-testid="dag-group"
      data-parent={data.parent}
      data-members={members}
      data-done={counts.done + counts.fallback}
      title={t('dag.group.open')}
      role="button"
    >
      <Handle type="target" position={target} isConnectable={false} />
      <ProgressRing value={members === 0 ? 0 : finished / members} />
      <div className="dir-node-text">
        <div className="dir-node-name">{title}</div>
        <div className="dir-node-sub">{states.join(', ')}</div>
      </div>
      <Handle type="source" position={source} isConnectable={false} />
    </div>
  );
}

export const GroupNode = memo(GroupNodeView);
