import { describe, expect, it } from 'vitest';
import type { SummaryStatus, TreeNode } from '../../../shared/types/node';
import { createDagStore } from '../../stores/dag-store';
import { layoutDag } from './layout';
import { groupCounts, groupId, VIEW_DEFAULTS, viewGraph } from './view-graph';

const ROOT = 'ctx://resources/RelNotes/';

/** git's RelNotes as Cairn holds it: 485 files, 85 of them split documents (folders of sections). */
function relNotes(pendingDocuments: number[] = []): TreeNode {
  const children: TreeNode[] = [];
  for (let i = 0; i < 485; i += 1) {
    const name = `1.${Math.floor(i / 10)}.${i % 10}.txt`;
    if (i % 5 === 0 && children.filter((c) => c.kind === 'dir').length < 85) {
      const doc = children.filter((c) => c.kind === 'dir').length;
      const status: SummaryStatus = pendingDocuments.includes(doc) ? 'owed' : 'done';
      children.push({
        uri: `${ROOT}${name}/`,
        name,
        kind: 'dir',
        document: true,
        summary_status: status,
        children: [1, 2, 3].map((n) => ({ uri: `${ROOT}${name}/0${n}-part.txt`, name: `0${n}-part.txt`, kind: 'file', summary_status: 'done' })),
      });
    } else children.push({ uri: `${ROOT}${name}`, name, kind: 'file', summary_status: 'done' });
  }
  return { uri: ROOT, name: 'RelNotes', kind: 'dir', summary_status: 'done', children };
}

/** A tree `levels` deep where every directory has `fanout` sub-directories. */
function deepTree(levels: number, fanout: number): TreeNode {
  const build = (uri: string, name: string, level: number): TreeNode => ({
    uri,
    name,
    kind: 'dir',
    summary_status: 'done',
    children: level === levels ? [] : Array.from({ length: fanout }, (_, i) => build(`${uri}d${i}/`, `d${i}`, level + 1)),
  });
  return build('ctx://resources/src/', 'src', 0);
}

const storeWith = (root: string, tree: TreeNode) => {
  const store = createDagStore();
  store.getState().applyTree(root, tree);
  return store;
};

describe('viewGraph', () => {
  it('groups a wide folder: the first children, then one node with what the rest hold', () => {
    const store = storeWith(ROOT, relNotes([30, 40, 84]));
    const state = store.getState();
    const view = viewGraph(state, ROOT, state.openGroups);
    const dirs = view.nodes.filter((node) => node.kind === 'dir');
    const groups = view.nodes.filter((node) => node.kind === 'group');
    // The root and its first 24 documents in natural order; the other 61 in one group.
    expect(dirs).toHaveLength(1 + VIEW_DEFAULTS.groupAfter);
    expect(groups).toHaveLength(1);
    const group = groups[0]!;
    if (group.kind !== 'group') throw new Error('not a group');
    expect(group.id).toBe(groupId(ROOT));
    expect(group.members).toHaveLength(61);
    expect(groupCounts(group.members, state.dirs)).toMatchObject({ files: 61, directories: 0, done: 58, waiting: 3 });
    expect(view.edges).toContainEqual({ source: ROOT, target: groupId(ROOT) });
    // Every edge joins two nodes on show.
    const ids = new Set(view.nodes.map((node) => node.id));
    for (const edge of view.edges) expect(ids.has(edge.source) && ids.has(edge.target)).toBe(true);
    // The group comes after the children shown: it is laid out last in its column.
    const { positions } = layoutDag(view.nodes, view.edges, { direction: 'LR' });
    const shownKids = dirs.slice(1).map((node) => positions.get(node.id)!.y);
    expect(positions.get(groupId(ROOT))!.y).toBeGreaterThan(Math.max(...shownKids));
  });

  it('shows every child once the group is opened, and groups them again when it is closed', () => {
    const store = storeWith(ROOT, relNotes());
    store.getState().openGroup(ROOT);
    let view = viewGraph(store.getState(), ROOT, store.getState().openGroups);
    expect(view.nodes.filter((node) => node.kind === 'dir')).toHaveLength(86);
    expect(view.nodes.some((node) => node.kind === 'group')).toBe(false);
    store.getState().openGroup(ROOT, false);
    view = viewGraph(store.getState(), ROOT, store.getState().openGroups);
    expect(view.nodes.filter((node) => node.kind === 'group')).toHaveLength(1);
  });

  it('opens the groups on the way to a directory a person finds', () => {
    const store = storeWith(ROOT, relNotes());
    const last = `${ROOT}1.42.0.txt/`;
    expect(store.getState().dirs[last]).toBeDefined();
    expect(viewGraph(store.getState(), ROOT, store.getState().openGroups).nodes.map((node) => node.id)).not.toContain(last);
    store.getState().reveal(last);
    expect(viewGraph(store.getState(), ROOT, store.getState().openGroups).nodes.map((node) => node.id)).toContain(last);
  });

  it('leaves a small folder as it is', () => {
    const store = storeWith('ctx://resources/src/', deepTree(2, 3));
    const view = viewGraph(store.getState(), 'ctx://resources/src/', {});
    expect(view.nodes).toHaveLength(13);
    expect(view.collapsed.size).toBe(0);
  });

  it('starts a big tree with its deeper directories collapsed, and keeps what a person expands', () => {
    // 1 + 6 + 36 + 216 + 1,296 = 1,555 directories, like Go's src: too many to draw at once.
    const root = 'ctx://resources/src/';
    const store = storeWith(root, deepTree(4, 6));
    let view = viewGraph(store.getState(), root, {});
    // The root, its 6 children and their 36: the 36 start collapsed, each hiding 6 + 36.
    expect(view.nodes).toHaveLength(43);
    expect(view.collapsed.size).toBe(36);
    expect(view.hidden[`${root}d0/d0/`]).toBe(42);

    store.getState().toggleCollapsed(`${root}d0/d0/`, false);
    view = viewGraph(store.getState(), root, {});
    // Its 6 children show, themselves collapsed by default.
    expect(view.nodes).toHaveLength(49);
    expect(view.collapsed.has(`${root}d0/d0/d0/`)).toBe(true);

    store.getState().expandAll();
    view = viewGraph(store.getState(), root, store.getState().openGroups);
    expect(view.collapsed.size).toBe(0);
    store.getState().collapseAll();
    view = viewGraph(store.getState(), root, store.getState().openGroups);
    expect(view.nodes).toHaveLength(7);
  });

  it('opens a big tree with a wide top level on that level only, as Go\'s src', () => {
    // 48 top-level directories with 16 each (817): showing two levels would draw 817.
    const root = 'ctx://resources/go/';
    const tree: TreeNode = {
      uri: root,
      name: 'go',
      kind: 'dir',
      summary_status: 'done',
      children: Array.from({ length: 48 }, (_, i) => ({
        uri: `${root}p${i}/`,
        name: `p${i}`,
        kind: 'dir' as const,
        summary_status: 'done' as const,
        children: Array.from({ length: 16 }, (_, j) => ({ uri: `${root}p${i}/q${j}/`, name: `q${j}`, kind: 'dir' as const, summary_status: 'done' as const })),
      })),
    };
    const view = viewGraph(storeWith(root, tree).getState(), root, {});
    // The root, its first 24 children (each collapsed, hiding 16) and a group of the other 24.
    expect(view.nodes.filter((node) => node.kind === 'dir')).toHaveLength(25);
    expect(view.nodes.filter((node) => node.kind === 'group')).toHaveLength(1);
    expect(view.hidden[`${root}p0/`]).toBe(16);
  });

  it('lays out only what is on show: 43 of 9,331 directories, well within a frame budget on a quiet machine', () => {
    const root = 'ctx://resources/src/';
    const store = storeWith(root, deepTree(5, 6));
    expect(Object.keys(store.getState().dirs)).toHaveLength(9331);
    const started = performance.now();
    const view = viewGraph(store.getState(), root, {});
    const { positions } = layoutDag(view.nodes, view.edges, { direction: 'LR' });
    // Generous: the suite runs on a loaded 2-core machine; the node count below is the real check.
    expect(performance.now() - started).toBeLessThan(2000);
    expect(positions.size).toBe(43);
  });
});
