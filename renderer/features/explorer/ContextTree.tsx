/**
 * The `ctx://` tree as an ARIA tree with a roving focus: Up and Down move, Right opens a
 * directory or enters it, Left closes it or goes to the parent, Home and End jump, Enter and
 * Space select. Directories are listed when first opened. A right click (or the context-menu
 * key, Shift+F10) opens a node's menu: remove or rename it (NodeMenu.tsx).
 */
import { memo, useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { scopeRootUri } from '../../../shared/uri';
import type { Listing } from '../../stores/explorer-store';
import { useExplorer } from '../../stores/stores-context';
import { useT } from '../../use-t';
import { NodeMenu, type NodeMenuTarget } from './NodeMenu';

export interface TreeRow {
  uri: string;
  name: string;
  kind: 'file' | 'dir';
  depth: number;
  parent: string | null;
  expanded: boolean;
  loading: boolean;
  /** The document's title, when it says more than the file name (a release note named `2.21.0.txt`). */
  title?: string;
  abstract?: string;
  status?: string;
}

/** The rows on show: every entry of the root listing, and of each open directory below it. */
export function visibleRows(root: string, listings: Record<string, Listing>, expanded: Record<string, boolean>): TreeRow[] {
  const rows: TreeRow[] = [];
  const walk = (uri: string, depth: number) => {
    for (const entry of listings[uri]?.entries ?? []) {
      const open = entry.kind === 'dir' && Boolean(expanded[entry.uri]);
      rows.push({
        uri: entry.uri,
        name: entry.name,
        kind: entry.kind,
        depth,
        parent: uri === root ? null : uri,
        expanded: open,
        loading: open && listings[entry.uri]?.status === 'loading',
        ...(entry.title && saysMoreThanName(entry.title, entry.name) ? { title: entry.title } : {}),
        abstract: entry.abstract,
        status: entry.summary_status,
      });
      if (open) walk(entry.uri, depth + 1);
    }
  };
  walk(root, 1);
  return rows;
}

export function ContextTree() {
  const t = useT();
  const scope = useExplorer((s) => s.scope);
  const listings = useExplorer((s) => s.listings);
  const expanded = useExplorer((s) => s.expanded);
  const selected = useExplorer((s) => s.selected);
  const toggle = useExplorer((s) => s.toggle);
  const select = useExplorer((s) => s.select);
  const root = scopeRootUri(scope);
  const rows = useMemo(() => visibleRows(root, listings, expanded), [root, listings, expanded]);
  const [focused, setFocused] = useState<string | null>(null);
  const listRef = useRef<HTMLUListElement>(null);
  const moveFocus = useRef(false);
  const [menu, setMenu] = useState<NodeMenuTarget | null>(null);

  const active = focused !== null && rows.some((row) => row.uri === focused) ? focused : (selected ?? rows[0]?.uri ?? null);

  useEffect(() => {
    if (!moveFocus.current || active === null) return;
    moveFocus.current = false;
    listRef.current?.querySelector<HTMLElement>(`[data-uri="${CSS.escape(active)}"]`)?.focus();
  }, [active, rows]);

  const focusRow = (uri: string | undefined) => {
    if (!uri) return;
    moveFocus.current = true;
    setFocused(uri);
  };

  const onKeyDown = (event: KeyboardEvent) => {
    const index = rows.findIndex((row) => row.uri === active);
    const row = rows[index];
    if (!row) return;
    let handled = true;
    switch (event.key) {
      case 'ArrowDown':
        focusRow(rows[Math.min(rows.length - 1, index + 1)]?.uri);
        break;
      case 'ArrowUp':
        focusRow(rows[Math.max(0, index - 1)]?.uri);
        break;
      case 'Home':
        focusRow(rows[0]?.uri);
        break;
      case 'End':
        focusRow(rows.at(-1)?.uri);
        break;
      case 'ArrowRight':
        if (row.kind === 'dir' && !row.expanded) void toggle(row.uri, true);
        else if (row.kind === 'dir' && rows[index + 1]?.parent === row.uri) focusRow(rows[index + 1]?.uri);
        break;
      case 'ArrowLeft':
        if (row.kind === 'dir' && row.expanded) void toggle(row.uri, false);
        else if (row.parent) focusRow(row.parent);
        break;
      case 'Enter':
      case ' ':
        void select(row.uri);
        break;
      case 'ContextMenu':
      case 'F10': {
        if (event.key === 'F10' && !event.shiftKey) {
          handled = false;
          break;
        }
        const box = listRef.current?.querySelector<HTMLElement>(`[data-uri="${CSS.escape(row.uri)}"]`)?.getBoundingClientRect();
        setMenu({ uri: row.uri, name: row.name, x: box ? box.left + 24 : 0, y: box ? box.bottom : 0 });
        break;
      }
      default:
        handled = false;
    }
    if (handled) event.preventDefault();
  };

  const rootListing = listings[root];
  if (!rootListing || (rootListing.status === 'loading' && rows.length === 0)) return <p className="muted pad">{t('explorer.loading')}</p>;
  if (rootListing.status === 'failed') return <p className="banner banner-error">{rootListing.error}</p>;
  if (rows.length === 0) return <p className="muted pad">{t('explorer.empty')}</p>;

  return (
    <>
      <ul
        className="tree"
        role="tree"
        aria-label={t('explorer.tree')}
        ref={listRef}
        onKeyDown={onKeyDown}
        onContextMenu={(event) => {
          const item = (event.target as HTMLElement).closest<HTMLElement>('[data-uri]');
          const row = rows.find((r) => r.uri === item?.dataset.uri);
          if (!row) return;
          event.preventDefault();
          setMenu({ uri: row.uri, name: row.name, x: event.clientX, y: event.clientY });
        }}
        data-testid="context-tree"
      >
        {rows.map((row) => (
          <TreeItem
            key={row.uri}
            row={row}
            selected={row.uri === selected}
            tabbable={row.uri === active}
            onSelect={(uri) => {
              setFocused(uri);
              void select(uri);
            }}
            onToggle={(uri) => void toggle(uri)}
          />
        ))}
      </ul>
      {menu && (
        <NodeMenu
          key={menu.uri}
          target={menu}
          onClose={() => {
            setMenu(null);
            listRef.current?.querySelector<HTMLElement>('[tabindex="0"]')?.focus();
          }}
        />
      )}
    </>
  );
}

const TreeItem = memo(function TreeItem({
  row,
  selected,
  tabbable,
  onSelect,
  onToggle,
}: {
  row: TreeRow;
  selected: boolean;
  tabbable: boolean;
  onSelect(uri: string): void;
  onToggle(uri: string): void;
}) {
  return (
    <li
      role="treeitem"
      aria-level={row.depth}
      aria-expanded={row.kind === 'dir' ? row.expanded : undefined}
      aria-selected={selected}
      aria-busy={row.loading || undefined}
      tabIndex={tabbable ? 0 : -1}
      data-uri={row.uri}
      data-kind={row.kind}
      className={`tree-item${selected ? ' selected' : ''}`}
      style={{ paddingInlineStart: `${(row.depth - 1) * 16 + 4}px` }}
      title={row.abstract ?? row.uri}
      onClick={() => {
        onSelect(row.uri);
        if (row.kind === 'dir' && !row.expanded) onToggle(row.uri);
      }}
    >
      <span
        className="twisty"
        aria-hidden="true"
        onClick={(event) => {
          if (row.kind !== 'dir') return;
          event.stopPropagation();
          onToggle(row.uri);
        }}
      >
        {row.kind === 'dir' ? (row.expanded ? '▾' : '▸') : ''}
      </span>
      <span className={`icon icon-${row.kind}`} aria-hidden="true">
        {row.kind === 'dir' ? '▣' : '▤'}
      </span>
      <span className="name">{row.name}</span>
      {row.title && (
        <span className="entry-title" data-testid="tree-entry-title">
          {row.title}
        </span>
      )}
      {row.status && row.status !== 'none' && <span className={`status-dot status-${row.status}`} aria-hidden="true" />}
    </li>
  );
});

/**
 * Whether a title names the node better than its file name does: not when it only restates it
 * ("README" for README.md, "03 configuration" for 03-configuration.md).
 */
export function saysMoreThanName(title: string, name: string): boolean {
  const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu)?.join(' ') ?? '';
  const [t, n] = [words(title), words(name.replace(/\.[A-Za-z0-9]{1,5}$/u, ''))];
  return t.length > 0 && t !== n && !n.endsWith(t);
}
