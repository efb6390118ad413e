/**
 * What the DAG view draws, as a pure function of the store (no React, no DOM), so real shapes
 * stay readable and the view lays out only what is visible:
 *
 * - a wide folder shows its first `groupAfter` children; the rest become one group node that says
 *   how many it holds and where they stand ("61 more files: 58 done, 3 waiting"), until expanded;
 * - in a big tree (more than `autoCollapseAbove` directories) the directories from the shallowest
 *   depth that would take the view past `visibleBudget` directories start collapsed, unless a
 *   person expanded them (`collapsed[uri] === false`): Go's src (798 directories, 48 at the top)
 *   opens on its top level, a tree 4 wide opens 3 levels deep.
 *
 * @example
 * const view = viewGraph(store.getState(), root, store.getState().openGroups);
 * view.nodes; // [{ id: root, kind: 'dir' }, …, { id: 'group:ctx://…/', kind: 'group', … }]
 */
import { DIR_STATES, visibleGraph, type DagState, type DirProgress, type DirState } from '../../stores/dag-store';

/** What a group holds: folders of the source, split documents (files), and how many are in each state. */
export type GroupCounts = { directories: number; files: number } & Record<DirState, number>;

export type ViewNode = { id: string; kind: 'dir' } | { id: string; kind: 'group'; parent: string; members: string[] };

export interface ViewGraph {
  nodes: ViewNode[];
  edges: { source: string; target: string }[];
  /** For each collapsed directory on show, how many directories it hides. */
  hidden: Record<string, number>;
  /** Directories on show that are collapsed (by a person or by default). */
  collapsed: ReadonlySet<string>;
}

export interface ViewOptions {
  groupAfter: number;
  autoCollapseAbove: number;
  visibleBudget: number;
}

export const VIEW_DEFAULTS: ViewOptions = { groupAfter: 24, autoCollapseAbove: 300, visibleBudget: 80 };

const GROUP_PREFIX = 'group:';
export const groupId = (parent: string) => `${GROUP_PREFIX}${parent}`;
export const isGroupId = (id: string) => id.startsWith(GROUP_PREFIX);

/** The collapse state every directory of the shown tree has: a person's choice, else the default for its depth. */
export function effectiveCollapsed(
  state: Pick<DagState, 'dirs' | 'children' | 'collapsed'>,
  start: string,
  options: Pick<ViewOptions, 'autoCollapseAbove' | 'visibleBudget'> = VIEW_DEFAULTS,
): Record<string, boolean> {
  const result: Record<string, boolean> = {};
  const depths: [string, number][] = [[start, 0]];
  const order: [string, number][] = [];
  while (depths.length > 0) {
    const [uri, depth] = depths.pop()!;
    order.push([uri, depth]);
    for (const kid of state.children[uri] ?? []) if (state.dirs[kid]) depths.push([kid, depth + 1]);
  }
  // The depth from which a big tree starts collapsed: the directories above it fit the budget.
  let fromDepth = Number.POSITIVE_INFINITY;
  if (order.length > options.autoCollapseAbove) {
    const perDepth: number[] = [];
    for (const [, depth] of order) perDepth[depth] = (perDepth[depth] ?? 0) + 1;
    let shown = 0;
    for (let depth = 0; depth < perDepth.length; depth += 1) {
      shown += perDepth[depth] ?? 0;
      if (shown > options.visibleBudget) {
        fromDepth = Math.max(1, depth - 1);
        break;
      }
    }
  }
  for (const [uri, depth] of order) {
    const chosen = state.collapsed[uri];
    const hasKids = (state.children[uri]?.length ?? 0) > 0;
    if (!hasKids) continue;
    if (chosen === true || (chosen === undefined && depth >= fromDepth)) result[uri] = true;
  }
  return result;
}

/** Flat, so a node can select it with a shallow compare and re-render only when a count moves. */
export function groupCounts(members: readonly string[], dirs: Readonly<Record<string, DirProgress>>): GroupCounts {
  const counts = { directories: 0, files: 0, ...Object.fromEntries(DIR_STATES.map((state) => [state, 0])) } as GroupCounts;
  for (const uri of members) {
    const dir = dirs[uri];
    if (!dir) continue;
    counts[dir.state] += 1;
    if (dir.document) counts.files += 1;
    else counts.directories += 1;
  }
  return counts;
}

export function viewGraph(
  state: Pick<DagState, 'dirs' | 'children' | 'collapsed' | 'focus'>,
  root: string | null,
  /** Directories whose children are all shown (DagState.openGroups). */
  openGroups: Readonly<Record<string, boolean>>,
  options: ViewOptions = VIEW_DEFAULTS,
): ViewGraph {
  const start = state.focus !== null && state.dirs[state.focus] ? state.focus : root;
  if (start === null || !state.dirs[start]) return { nodes: [], edges: [], hidden: {}, collapsed: new Set() };
  const collapsed = effectiveCollapsed(state, start, options);
  const visible = visibleGraph({ ...state, collapsed }, root);

  const kidsOf = new Map<string, string[]>();
  for (const edge of visible.edges) {
    const list = kidsOf.get(edge.source);
    if (list) list.push(edge.target);
    else kidsOf.set(edge.source, [edge.target]);
  }
  // Children beyond the limit (and all they show below them) go into their parent's group.
  const grouped = new Map<string, string[]>();
  const dropped = new Set<string>();
  for (const [parent, kids] of kidsOf) {
    if (kids.length <= options.groupAfter || openGroups[parent]) continue;
    const members = kids.slice(options.groupAfter);
    grouped.set(parent, members);
    const stack = [...members];
    while (stack.length > 0) {
      const uri = stack.pop()!;
      dropped.add(uri);
      stack.push(...(kidsOf.get(uri) ?? []));
    }
  }

  const nodes: ViewNode[] = [];
  const edges: ViewGraph['edges'] = [];
  for (const id of visible.nodes) if (!dropped.has(id)) nodes.push({ id, kind: 'dir' });
  // Group edges come last, so the layout puts each group after the children its parent shows.
  for (const [parent, members] of grouped) nodes.push({ id: groupId(parent), kind: 'group', parent, members });
  for (const edge of visible.edges) {
    if (!dropped.has(edge.target)) edges.push(edge);
  }
  for (const parent of grouped.keys()) edges.push({ source: parent, target: groupId(parent) });

  const hidden: Record<string, number> = {};
  const shownCollapsed = new Set<string>();
  for (const node of nodes) {
    if (node.kind !== 'dir') continue;
    if (visible.hidden[node.id] !== undefined) {
      hidden[node.id] = visible.hidden[node.id]!;
      shownCollapsed.add(node.id);
    }
  }
  return { nodes, edges, hidden, collapsed: shownCollapsed };
}
