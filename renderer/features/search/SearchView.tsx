/**
 * Search over everything the workspace holds: a query box (search as you type, Enter at once),
 * the mode, scope and level filters, and the hits grouped by level, then by scope.
 *
 * Keyboard: `/` anywhere focuses the box (App.tsx); in the box or the list, ↑ ↓ move through the
 * hits and Enter opens the one chosen in the explorer. The box is a combobox whose
 * `aria-activedescendant` names that hit, so a screen reader follows it without moving the focus.
 */
import { memo, useEffect, useMemo, useRef, type KeyboardEvent } from 'react';
import type { SearchHit, SearchMode } from '../../../shared/contracts/api';
import { formatCount } from '../../../shared/format';
import { LEVELS, SEARCH_MODES, SEARCH_SCOPES, groupHits, type LevelFilter, type ScopeFilter } from '../../stores/search-store';
import { useApp, useSearch, useStores } from '../../stores/stores-context';
import { useT } from '../../use-t';
import { highlightParts, queryTerms } from './highlight';
import './search.css';

/** Search-as-you-type waits this long after the last key. */
const DEBOUNCE_MS = 250;
const LIST_ID = 'search-results';
const hitId = (index: number) => `search-hit-${index}`;

export function SearchView() {
  const t = useT();
  const stores = useStores();
  const query = useSearch((s) => s.query);
  const mode = useSearch((s) => s.mode);
  const scope = useSearch((s) => s.scope);
  const level = useSearch((s) => s.level);
  const active = useSearch((s) => s.active);
  const hitCount = useSearch((s) => s.hits.length);
  const focusRequest = useSearch((s) => s.focusRequest);
  const setQuery = useSearch((s) => s.setQuery);
  const setMode = useSearch((s) => s.setMode);
  const setScope = useSearch((s) => s.setScope);
  const setLevel = useSearch((s) => s.setLevel);
  const openInExplorer = useApp((s) => s.openInExplorer);
  const input = useRef<HTMLInputElement>(null);

  // Focus the box when the view opens and whenever `/` asks for it.
  useEffect(() => {
    input.current?.focus();
    input.current?.select();
  }, [focusRequest]);

  // Search as the query or a filter changes, once typing pauses.
  useEffect(() => {
    const timer = setTimeout(() => void stores.search.getState().search(), query.trim() ? DEBOUNCE_MS : 0);
    return () => clearTimeout(timer);
  }, [stores, query, mode, scope, level]);

  const open = (index: number) => {
    const hit = stores.search.getState().hits[index];
    if (!hit) return;
    stores.search.getState().setActive(index);
    openInExplorer(hit.uri);
  };

  const onKeyDown = (event: KeyboardEvent) => {
    const state = stores.search.getState();
    switch (event.key) {
      case 'ArrowDown':
      case 'ArrowUp':
        event.preventDefault();
        state.move(event.key === 'ArrowDown' ? 1 : -1);
        return;
      case 'Home':
      case 'End':
        if (event.target === input.current) return;
        event.preventDefault();
        state.setActive(event.key === 'Home' ? 0 : state.hits.length - 1);
        return;
      case 'Enter': {
        event.preventDefault();
        const fresh = state.status === 'done' && state.searched?.query === state.query.trim();
        if (!fresh) void state.search(true);
        else if (state.active >= 0) open(state.active);
        else state.move(1);
        return;
      }
      case 'Escape':
        if (state.active >= 0) state.setActive(-1);
        return;
      default:
        return;
    }
  };

  // Keep the chosen hit in view as the keyboard moves.
  useEffect(() => {
    if (active >= 0) document.getElementById(hitId(active))?.scrollIntoView({ block: 'nearest' });
  }, [active]);

  return (
    <section className="view search-view" aria-labelledby="search-title">
      <header className="view-header row">
        <h1 id="search-title">{t('search.title')}</h1>
      </header>
      <form
        className="search-form panel"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          void stores.search.getState().search(true);
        }}
      >
        <label className="field grow">
          <span>{t('search.query')}</span>
          <input
            ref={input}
            type="search"
            role="combobox"
            aria-expanded={hitCount > 0}
            aria-controls={LIST_ID}
            aria-autocomplete="list"
            aria-activedescendant={active >= 0 ? hitId(active) : undefined}
            value={query}
            placeholder={t('search.placeholder')}
            onChange={(event) => setQuery(event.target.value)}
            onKeyDown={onKeyDown}
            autoComplete="off"
            spellCheck={false}
            data-testid="search-input"
          />
        </label>
        <label className="field compact">
          <span>{t('search.mode')}</span>
          <select value={mode} onChange={(event) => setMode(event.target.value as SearchMode)} data-testid="search-mode">
            {SEARCH_MODES.map((name) => (
              <option key={name} value={name}>
                {t(`search.mode.${name}`)}
              </option>
            ))}
          </select>
        </label>
        <label className="field compact">
          <span>{t('search.scope')}</span>
          <select value={scope} onChange={(event) => setScope(event.target.value as ScopeFilter)} data-testid="search-scope">
            <option value="all">{t('search.scope.all')}</option>
            {SEARCH_SCOPES.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <label className="field compact">
          <span>{t('search.level')}</span>
          <select
            value={String(level)}
            onChange={(event) => setLevel(event.target.value === 'all' ? 'all' : (Number(event.target.value) as LevelFilter))}
            data-testid="search-level"
          >
            <option value="all">{t('search.level.all')}</option>
            {LEVELS.map((value) => (
              <option key={value} value={value}>
                {t(`search.level.${value}`)}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" className="primary" data-testid="search-go">
          {t('search.go')}
        </button>
      </form>
      <SearchStatus />
      <Results onOpen={open} onKeyDown={onKeyDown} />
    </section>
  );
}

function SearchStatus() {
  const t = useT();
  const locale = useApp((s) => s.locale);
  const status = useSearch((s) => s.status);
  const count = useSearch((s) => s.hits.length);
  const ms = useSearch((s) => s.ms);
  const error = useSearch((s) => s.error);
  const searched = useSearch((s) => s.searched);
  const retry = useSearch((s) => s.search);
  if (status === 'failed') {
    return (
      <div className="banner banner-error" role="alert" data-testid="search-error">
        <span>
          {t('search.failed')}: {error}
        </span>
        <button type="button" onClick={() => void retry(true)}>
          {t('search.retry')}
        </button>
      </div>
    );
  }
  const text =
    status === 'idle'
      ? t('search.hint')
      : status === 'searching' && !searched
        ? t('search.searching')
        : count === 0 && status === 'done'
          ? t('search.none', { query: searched?.query ?? '' })
          : t('search.count', { count: formatCount(count, locale), ms: ms ?? '…' });
  return (
    <p className="muted search-status" role="status" aria-live="polite" data-testid="search-status" data-status={status} data-query={searched?.query ?? ''}>
      {text}
      {status === 'searching' && searched ? ` · ${t('search.searching')}` : ''}
    </p>
  );
}

function Results({ onOpen, onKeyDown }: { onOpen: (index: number) => void; onKeyDown: (event: KeyboardEvent) => void }) {
  const t = useT();
  const hits = useSearch((s) => s.hits);
  const searched = useSearch((s) => s.searched);
  const locale = useApp((s) => s.locale);
  const groups = useMemo(() => groupHits(hits), [hits]);
  const terms = useMemo(() => queryTerms(searched?.query ?? '', locale), [searched, locale]);
  if (hits.length === 0) return null;
  return (
    <div id={LIST_ID} className="search-results" role="listbox" aria-label={t('search.results')} tabIndex={-1} onKeyDown={onKeyDown} data-testid="search-results">
      {groups.map((group) => (
        <section key={group.level} className="hit-level" role="group" aria-labelledby={`hit-level-${group.level}`} data-level={group.level} data-testid="search-level-group">
          <h2 id={`hit-level-${group.level}`} className="hit-level-title">
            {t(`search.level.${group.level}`)} <span className="badge">{group.scopes.reduce((n, s) => n + s.hits.length, 0)}</span>
          </h2>
          {group.scopes.map((scopeGroup) => (
            <div key={scopeGroup.scope} className="hit-scope" role="group" aria-label={`${t(`search.level.${group.level}`)} · ${scopeGroup.scope}`} data-scope={scopeGroup.scope} data-testid="search-scope-group">
              <h3 className="hit-scope-title">{scopeGroup.scope}</h3>
              <ul className="hit-list" role="presentation">
                {scopeGroup.hits.map(({ hit, index }) => (
                  <HitItem key={`${hit.uri}|${hit.level}`} hit={hit} index={index} terms={terms} onOpen={onOpen} />
                ))}
              </ul>
            </div>
          ))}
        </section>
      ))}
    </div>
  );
}

const HitItem = memo(function HitItem({ hit, index, terms, onOpen }: { hit: SearchHit; index: number; terms: string[]; onOpen: (index: number) => void }) {
  const t = useT();
  const active = useSearch((s) => s.active === index);
  const name = hit.uri.replace(/\/$/, '').split('/').pop() || hit.uri;
  const parts = useMemo(() => highlightParts(hit.snippet, terms), [hit.snippet, terms]);
  const { source, lines, message_ids: messageIds } = hit.provenance;
  return (
    <li
      id={hitId(index)}
      className={`hit${active ? ' active' : ''}`}
      role="option"
      aria-selected={active}
      aria-label={t('search.open', { uri: hit.uri })}
      onClick={() => onOpen(index)}
      data-testid="search-hit"
      data-uri={hit.uri}
      data-level={hit.level}
    >
      <div className="hit-head">
        <span className="hit-name">{name}</span>
        <code className="uri hit-uri">{hit.uri}</code>
        <span className="hit-badges">
          <span className="badge" title={t('search.score', { score: hit.score.toFixed(3) })} data-testid="hit-score">
            {hit.score.toFixed(2)}
          </span>
          <span className="badge">{hit.context_type}</span>
          {hit.category && <span className="badge">{hit.category}</span>}
        </span>
      </div>
      <p className="hit-snippet" data-testid="hit-snippet">
        {parts.map((part, i) => (part.match ? <mark key={i}>{part.text}</mark> : <span key={i}>{part.text}</span>))}
      </p>
      {(source || messageIds.length > 0) && (
        <p className="hit-provenance" data-testid="hit-provenance">
          {source && (
            <span>
              {t('search.source')}: <code>{source}</code>
              {lines && <> · {t('search.lines', { from: lines[0], to: lines[1] })}</>}
            </span>
          )}
          {messageIds.length > 0 && (
            <span>
              {t('search.messages')}: <code>{messageIds.join(', ')}</code>
            </span>
          )}
        </p>
      )}
    </li>
  );
});
