import { Background, Controls, Position, ReactFlow, ReactFlowProvider, useReactFlow, useStore as useFlowStore, useStoreApi, type Edge, type NodeHandle, type NodeMouseHandler, type ReactFlowInstance } from '@xyflow/react';
import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { formatCount } from '../../../shared/format';
import { treeCounts, type Tally } from '../../../shared/tree-counts';
import { DIR_STATES, findDirs, shownRoot, type DagState } from '../../stores/dag-store';
import { useApp, useDag, useDagShallow, useStores } from '../../stores/stores-context';
import { useT } from '../../use-t';
import { useResolvedTheme } from '../../use-theme';
import { DagMiniMap, MINIMAP_FOOTPRINT } from './DagMiniMap';
import { DirNode, GroupNode, type DagFlowNode } from './DirNode';
import { DEFAULT_LAYOUT, layoutDag } from './layout';
import { isGroupId, viewGraph } from './view-graph';
import { boundsOf, clearOfMiniMap, readableViewport } from './readable-fit';
import './dag.css';

// Module scope, so React Flow sees the same object on every render.
// Not `group`: React Flow styles a node type of that name as a frame around other nodes.
const nodeTypes = { dir: DirNode, dirGroup: GroupNode };
const DIRECTION = 'LR' as const;
/** An opened folder of 85 documents is a block of 5 columns, not one line 85 nodes long. */
const WRAP_LEAVES_AFTER = 12;
/** Where DirNode's handles sit (React Flow's 6 px handles, centred on the left and right edges). */
const HANDLE_SIZE = 6;
const HANDLES: NodeHandle[] = [
  { type: 'target', position: Position.Left, x: -HANDLE_SIZE / 2, y: DEFAULT_LAYOUT.nodeHeight / 2 - HANDLE_SIZE / 2, width: HANDLE_SIZE, height: HANDLE_SIZE },
  { type: 'source', position: Position.Right, x: DEFAULT_LAYOUT.nodeWidth - HANDLE_SIZE / 2, y: DEFAULT_LAYOUT.nodeHeight / 2 - HANDLE_SIZE / 2, width: HANDLE_SIZE, height: HANDLE_SIZE },
];

/**
 * How the canvas follows the layout, shared by the toolbar and the canvas: it re-fits the whole
 * graph as it changes until a person pans or zooms (`follow` false), and a change a person makes
 * (collapse, expand, a group opened, a focus, Fit) fits it again; `target` is a directory the
 * find asked to show, fitted instead of the whole graph once it is laid out. `whole` says a person
 * asked to see everything (a layout change or Fit): later re-fits of a live run keep it whole
 * rather than jumping back to the root at a readable size.
 */
interface ViewportFollow {
  follow: boolean;
  target: string | null;
  whole: boolean;
}

const FIT = { maxZoom: 1.2 } as const;

/** Fits every node in view, clear of the minimap in the corner. */
function fitWhole(flow: ReactFlowInstance, canvas: { width: number; height: number }, duration: number): void {
  const bounds = flow.getNodesBounds(flow.getNodes());
  void flow.fitView({ ...FIT, padding: clearOfMiniMap(bounds, canvas, MINIMAP_FOOTPRINT), duration });
}
const DEFAULT_LAYOUT_SIZE = { width: DEFAULT_LAYOUT.nodeWidth, height: DEFAULT_LAYOUT.nodeHeight };

export function DagView() {
  const t = useT();
  const viewport = useRef<ViewportFollow>({ follow: true, target: null, whole: false });
  const root = useDag(shownRoot);
  const loadStored = useDag((s) => s.loadStored);
  const storedList = useDag((s) => s.storedList);
  const storedError = useDag((s) => s.storedError);

  // Draw what the workspace already holds (once per page); live events keep it current.
  useEffect(() => {
    void loadStored();
  }, [loadStored]);

  return (
    <section className="view dag-view" aria-labelledby="dag-title">
      <header className="view-header row">
        <h1 id="dag-title">{t('dag.title')}</h1>
        <div className="toolbar">
          <RunPicker />
          <ReloadButton />
        </div>
      </header>
      {storedError && (
        <p className="banner banner-error" role="alert" data-testid="dag-load-error">
          {t('dag.loadFailed')}: {storedError}
        </p>
      )}
      {root === null ? (
        <p className="muted pad" data-testid="dag-empty" data-loading={storedList === 'loading' || storedList === 'idle'}>
          {storedList === 'loading' || storedList === 'idle' ? t('dag.loading') : t('dag.empty')}
        </p>
      ) : (
        <ReactFlowProvider>
          <Totals root={root} />
          <DagToolbar root={root} viewport={viewport.current} />
          <div className="dag-body">
            <DagCanvas root={root} viewport={viewport.current} />
            <SelectedPanel />
          </div>
        </ReactFlowProvider>
      )}
    </section>
  );
}

function RunPicker() {
  const t = useT();
  const runOrder = useDag((s) => s.runOrder);
  const root = useDag(shownRoot);
  const setActiveRoot = useDag((s) => s.setActiveRoot);
  if (runOrder.length < 2) return null;
  return (
    <label className="field compact">
      <span>{t('dag.run')}</span>
      <select value={root ?? ''} onChange={(e) => setActiveRoot(e.target.value)}>
        {[...runOrder].reverse().map((uri) => (
          <option key={uri} value={uri}>
            {uri}
          </option>
        ))}
      </select>
    </label>
  );
}

function ReloadButton() {
  const t = useT();
  const loadStored = useDag((s) => s.loadStored);
  const busy = useDag((s) => s.storedList === 'loading' || Object.values(s.storedTrees).includes('loading'));
  return (
    <button type="button" disabled={busy} onClick={() => void loadStored(true)} data-testid="dag-reload">
      {t('dag.reload')}
    </button>
  );
}

function Totals({ root }: { root: string }) {
  const t = useT();
  const locale = useApp((s) => s.locale);
  const run = useDag((s) => s.runs[root]);
  const loading = useDag((s) => s.storedTrees[root]);
  if (!run) return null;
  const { counts } = run;
  const share = counts.dirs_total === 0 ? 0 : counts.dirs_done / counts.dirs_total;
  // Named as Home and the CLI name them: a split document is one file, its parts are sections.
  const kinds = treeCounts(counts);
  const tally = ({ done, total }: Tally) => `${formatCount(done, locale)} / ${formatCount(total, locale)}`;
  const items: [string, string, string][] = [
    [t('counts.directories'), tally(kinds.directories), t('counts.directoriesTip')],
    [t('counts.files'), tally(kinds.files), t('counts.filesTip')],
    ...(kinds.sections.total > 0 ? [[t('counts.sections'), tally(kinds.sections), t('counts.sectionsTip')] as [string, string, string]] : []),
    [t('dag.llm'), formatCount(counts.llm_calls, locale), t('dag.llm')],
  ];
  return (
    <div className="dag-totals panel" data-testid="dag-totals" data-status={run.status}>
      <span className={`run-status run-${run.status}`}>{t(`dag.state.${run.status}`)}</span>
      <code className="uri">{root}</code>
      <dl className="stats inline">
        {items.map(([label, value, tip]) => (
          <div key={label} className="stat" title={tip}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      <progress max={1} value={run.status === 'finished' ? 1 : share} aria-label={t('counts.directories')} />
      {run.status === 'stored' && (
        <span className="muted stored-note">
          {loading === 'loading' ? t('dag.loading') : t('dag.stored')}
        </span>
      )}
      {run.error && (
        <span className="field-error">
          {run.error.code}: {run.error.message}
        </span>
      )}
    </div>
  );
}

function DagToolbar({ root, viewport }: { root: string; viewport: ViewportFollow }) {
  const t = useT();
  const query = useDag((s) => s.query);
  const setQuery = useDag((s) => s.setQuery);
  const focus = useDag((s) => s.focus);
  const selected = useDag((s) => s.selected);
  const setFocus = useDag((s) => s.setFocus);
  const collapseAll = useDag((s) => s.collapseAll);
  const expandAll = useDag((s) => s.expandAll);
  const reveal = useDag((s) => s.reveal);
  const openInExplorer = useApp((s) => s.openInExplorer);
  const matches = useDagShallow((s) => findDirs(s, root, s.query));
  const [matchIndex, setMatchIndex] = useState(0);
  const flow = useReactFlow();
  const flowStore = useStoreApi();

  const goToMatch = (step: number) => {
    if (matches.length === 0) return;
    const next = (matchIndex + step + matches.length) % matches.length;
    setMatchIndex(next);
    const uri = matches[next]!;
    viewport.target = uri;
    reveal(uri);
    // When revealing changed the layout, the canvas fits the node once it is laid out; else here.
    requestAnimationFrame(() => {
      if (viewport.target !== uri) return;
      viewport.target = null;
      viewport.follow = false;
      void flow.fitView({ ...FIT, nodes: [{ id: uri }], duration: 250 });
    });
  };

  return (
    <div className="toolbar dag-toolbar" role="toolbar" aria-label={t('dag.title')}>
      <label className="field compact find">
        <span>{t('dag.find')}</span>
        <input
          type="search"
          value={query}
          placeholder={t('dag.findPlaceholder')}
          onChange={(e) => {
            setQuery(e.target.value);
            setMatchIndex(-1);
          }}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              goToMatch(e.shiftKey ? -1 : 1);
            }
          }}
          data-testid="dag-find"
        />
      </label>
      {query.trim() && (
        <span className={matches.length ? 'muted' : 'field-error'} data-testid="dag-find-count">
          {matches.length ? t('dag.matches', { count: matches.length }) : t('dag.noMatch')}
        </span>
      )}
      <button type="button" disabled={!selected} onClick={() => selected && setFocus(selected)} data-testid="dag-focus">
        {t('dag.focus')}
      </button>
      <button type="button" disabled={focus === null} onClick={() => setFocus(null)} data-testid="dag-unfocus">
        {t('dag.unfocus')}
      </button>
      <button
        type="button"
        onClick={() => {
          viewport.follow = true;
          viewport.whole = true;
          fitWhole(flow, flowStore.getState(), 200);
        }}
        data-testid="dag-fit"
      >
        {t('dag.fit')}
      </button>
      <button type="button" onClick={collapseAll} data-testid="dag-collapse-all">
        {t('dag.collapseAll')}
      </button>
      <button type="button" onClick={expandAll} data-testid="dag-expand-all">
        {t('dag.expandAll')}
      </button>
      <button type="button" disabled={!selected} onClick={() => selected && openInExplorer(selected)}>
        {t('dag.openExplorer')}
      </button>
      <Legend />
      <span className="sr-only">{t('dag.keys')}</span>
    </div>
  );
}

function Legend() {
  const t = useT();
  return (
    <ul className="legend" aria-label={t('dag.legend')}>
      {DIR_STATES.map((state) => (
        <li key={state} className={`legend-item state-${state}`}>
          <span className="swatch" aria-hidden="true" />
          {t(`dag.node.${state}`)}
        </li>
      ))}
    </ul>
  );
}

/** What the graph's shape depends on; progress ticks leave all of it unchanged. */
const shapeOf = (s: DagState) => ({ topology: s.topology, children: s.children, collapsed: s.collapsed, focus: s.focus, openGroups: s.openGroups });

function DagCanvas({ root, viewport }: { root: string; viewport: ViewportFollow }) {
  const t = useT();
  const stores = useStores();
  const theme = useResolvedTheme();
  const shape = useDagShallow(shapeOf);
  const select = useDag((s) => s.select);
  const toggleCollapsed = useDag((s) => s.toggleCollapsed);
  const selected = useDag((s) => s.selected);
  const setFocus = useDag((s) => s.setFocus);
  const openGroup = useDag((s) => s.openGroup);
  const flow = useReactFlow();

  const graph = useMemo(() => {
    const state = stores.dag.getState();
    // Only what is on show is laid out: collapsed subtrees and grouped children cost nothing.
    const view = viewGraph({ dirs: state.dirs, children: shape.children, collapsed: shape.collapsed, focus: shape.focus }, root, shape.openGroups);
    const layout = layoutDag(view.nodes, view.edges, { direction: DIRECTION, wrapLeavesAfter: WRAP_LEAVES_AFTER });
    const nodes: DagFlowNode[] = view.nodes.map((node) => ({
      id: node.id,
      position: layout.positions.get(node.id) ?? { x: 0, y: 0 },
      ...(node.kind === 'dir'
        ? { type: 'dir' as const, data: { uri: node.id, hidden: view.hidden[node.id] ?? 0, collapsed: view.collapsed.has(node.id), direction: DIRECTION } }
        : { type: 'dirGroup' as const, data: { parent: node.parent, members: node.members, direction: DIRECTION } }),
      width: DEFAULT_LAYOUT.nodeWidth,
      height: DEFAULT_LAYOUT.nodeHeight,
      // Known size and handles: React Flow otherwise mounts every new node once, off screen too,
      // to measure it, which made a 5,000-directory graph take seconds to appear (bench/dag-view).
      measured: { width: DEFAULT_LAYOUT.nodeWidth, height: DEFAULT_LAYOUT.nodeHeight },
      handles: HANDLES,
      draggable: false,
      connectable: false,
    })) as DagFlowNode[];
    const edges: Edge[] = view.edges.map((edge) => ({ id: `${edge.source}->${edge.target}`, source: edge.source, target: edge.target, type: 'smoothstep' }));
    const dirIds = view.nodes.filter((node) => node.kind === 'dir').map((node) => node.id);
    return { nodes, edges, view, dirIds, groups: view.nodes.length - dirIds.length, positions: layout.positions };
  }, [stores, root, shape]);
  const miniGraph = useMemo(
    () => ({ ids: graph.dirIds, positions: graph.positions, nodeWidth: DEFAULT_LAYOUT.nodeWidth, nodeHeight: DEFAULT_LAYOUT.nodeHeight }),
    [graph],
  );

  // Re-fit as the layout changes (a live run adds directories, a person collapses one) unless a
  // person moved the view since; what a person changes is fitted in any case.
  const flowStore = useStoreApi();
  const lastLayout = useRef({ root, focus: shape.focus, collapsed: shape.collapsed, openGroups: shape.openGroups });
  useEffect(() => {
    if (graph.nodes.length === 0) return;
    const last = lastLayout.current;
    const newRoot = last.root !== root;
    const byPerson = last.focus !== shape.focus || last.collapsed !== shape.collapsed || last.openGroups !== shape.openGroups;
    lastLayout.current = { root, focus: shape.focus, collapsed: shape.collapsed, openGroups: shape.openGroups };
    const target = viewport.target;
    if (target !== null) {
      viewport.target = null;
      viewport.follow = false;
      requestAnimationFrame(() => void flow.fitView({ ...FIT, nodes: [{ id: target }], duration: 250 }));
      return;
    }
    // Another run's tree starts readable again; what a person changed is shown whole from then on.
    if (newRoot) [viewport.follow, viewport.whole] = [true, false];
    if (byPerson) [viewport.follow, viewport.whole] = [true, true];
    if (!viewport.follow) return;
    requestAnimationFrame(() => {
      // What a person changed is fitted whole; the view following a run on its own stays readable.
      const size = flowStore.getState();
      const bounds = boundsOf(graph.positions.values(), DEFAULT_LAYOUT_SIZE);
      const rootAt = graph.positions.get(root);
      const readable = !viewport.whole && bounds && rootAt ? readableViewport(bounds, size, { ...rootAt, ...DEFAULT_LAYOUT_SIZE }) : null;
      if (readable) void flow.setViewport(readable);
      else fitWhole(flow, size, byPerson || newRoot ? 200 : 0);
    });
  }, [graph, root, shape.focus, shape.collapsed, shape.openGroups, viewport, flow, flowStore]);

  /** Collapses or expands what the view shows, whether a person or the default collapsed it. */
  const toggle = (uri: string) => toggleCollapsed(uri, !graph.view.collapsed.has(uri));

  const onNodeClick: NodeMouseHandler<DagFlowNode> = (_event, node) => (node.type === 'dirGroup' ? openGroup(node.data.parent) : select(node.id));
  const onNodeDoubleClick: NodeMouseHandler<DagFlowNode> = (_event, node) => {
    if (!isGroupId(node.id)) toggle(node.id);
  };

  const centerOn = (uri: string) => {
    const position = graph.positions.get(uri);
    if (!position) return;
    void flow.setCenter(position.x + DEFAULT_LAYOUT.nodeWidth / 2, position.y + DEFAULT_LAYOUT.nodeHeight / 2, { zoom: Math.max(flow.getZoom(), 0.8), duration: 150 });
  };

  const onKeyDown = (event: KeyboardEvent) => {
    if ((event.target as HTMLElement).closest('input, select, textarea')) return;
    const visible = { nodes: graph.dirIds, edges: graph.view.edges.filter((edge) => !isGroupId(edge.target)) };
    const current = selected && visible.nodes.includes(selected) ? selected : null;
    const parentOf = (uri: string) => visible.edges.find((edge) => edge.target === uri)?.source ?? null;
    const kidsOf = (uri: string) => visible.edges.filter((edge) => edge.source === uri).map((edge) => edge.target);
    let next: string | null;
    switch (event.key) {
      case 'ArrowLeft':
        next = current ? parentOf(current) : (visible.nodes[0] ?? null);
        break;
      case 'ArrowRight':
        next = current ? (kidsOf(current)[0] ?? null) : (visible.nodes[0] ?? null);
        break;
      case 'ArrowUp':
      case 'ArrowDown': {
        if (!current) {
          next = visible.nodes[0] ?? null;
          break;
        }
        const parent = parentOf(current);
        const siblings = parent ? kidsOf(parent) : [current];
        const index = siblings.indexOf(current) + (event.key === 'ArrowDown' ? 1 : -1);
        next = siblings[index] ?? null;
        break;
      }
      case 'Enter':
        if (current) toggle(current);
        event.preventDefault();
        return;
      case 'f':
      case 'F':
        if (current) setFocus(current);
        event.preventDefault();
        return;
      case 'Escape':
        setFocus(null);
        return;
      default:
        return;
    }
    event.preventDefault();
    if (next) {
      select(next);
      centerOn(next);
    }
  };

  return (
    <div
      className="dag-canvas panel"
      tabIndex={0}
      onKeyDown={onKeyDown}
      aria-label={`${t('dag.title')}. ${t('dag.keys')}`}
      data-testid="dag-canvas"
      // React Flow draws only the nodes in view; this is how many directories the graph has.
      data-node-count={graph.dirIds.length}
      data-group-count={graph.groups}
    >
      <ReactFlow<DagFlowNode>
        nodes={graph.nodes}
        edges={graph.edges}
        nodeTypes={nodeTypes}
        onNodeClick={onNodeClick}
        onNodeDoubleClick={onNodeDoubleClick}
        nodesDraggable={false}
        nodesConnectable={false}
        elementsSelectable
        colorMode={theme}
        minZoom={0.05}
        maxZoom={2}
        onlyRenderVisibleElements
        // A gesture (not a fit) stops the view following the layout until Fit or a layout change.
        onMoveStart={(event) => {
          if (event) viewport.follow = false;
        }}
        proOptions={{ hideAttribution: true }}
      >
        <Background />
        <Controls showInteractive={false} />
        <DagMiniMap graph={miniGraph} theme={theme} />
      </ReactFlow>
    </div>
  );
}

function SelectedPanel() {
  const t = useT();
  const selected = useDag((s) => s.selected);
  const dir = useDag((s) => (s.selected ? s.dirs[s.selected] : undefined));
  // Child directories that are split documents count as files, as everywhere else.
  const documents = useDag((s) => (s.selected ? (s.children[s.selected] ?? []).filter((kid) => s.dirs[kid]?.document).length : 0));
  // As the graph shows it: a big tree's deeper directories start collapsed (view-graph.ts).
  const collapsed = useFlowStore((s) => Boolean(selected && (s.nodeLookup.get(selected)?.data as { collapsed?: boolean } | undefined)?.collapsed));
  const toggleCollapsed = useDag((s) => s.toggleCollapsed);
  const openInExplorer = useApp((s) => s.openInExplorer);
  if (!selected || !dir) return null;
  return (
    <aside className="dag-selected panel" aria-labelledby="dag-selected-title" data-testid="dag-selected">
      <h2 id="dag-selected-title">{dir.name}</h2>
      <code className="uri">{dir.uri}</code>
      <dl className="meta-table">
        <div className="meta-row">
          <dt>{t('dag.legend')}</dt>
          <dd>
            <span className={`status-pill state-${dir.state}`}>{t(`dag.node.${dir.state}`)}</span>
          </dd>
        </div>
        {dir.document ? (
          <div className="meta-row" title={t('counts.sectionsTip')}>
            <dt>{t('counts.sections')}</dt>
            <dd>{dir.files}</dd>
          </div>
        ) : (
          <>
            <div className="meta-row" title={t('counts.directoriesTip')}>
              <dt>{t('counts.directories')}</dt>
              <dd>{dir.dirs - documents}</dd>
            </div>
            <div className="meta-row" title={t('counts.filesTip')}>
              <dt>{t('counts.files')}</dt>
              <dd>{dir.files + documents}</dd>
            </div>
          </>
        )}
        <div className="meta-row">
          <dt>{t('dag.pending', { count: '' }).trim()}</dt>
          <dd>
            {dir.pending} / {dir.total}
          </dd>
        </div>
        {dir.reason && (
          <div className="meta-row">
            <dt>{t('dag.reason')}</dt>
            <dd>{dir.reason}</dd>
          </div>
        )}
      </dl>
      {dir.abstract && <p className="abstract">{dir.abstract}</p>}
      <div className="form-actions">
        <button type="button" onClick={() => toggleCollapsed(dir.uri, !collapsed)} data-testid="dag-toggle">
          {collapsed ? t('dag.expand') : t('dag.collapse')}
        </button>
        <button type="button" onClick={() => openInExplorer(dir.uri)}>
          {t('dag.openExplorer')}
        </button>
      </div>
    </aside>
  );
}
