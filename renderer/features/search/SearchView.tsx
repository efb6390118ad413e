/**
 * Search over everything the workspace holds: a query box (search as you type, Enter at once),
 * the mode, scope and level filters, and one list of results by relevance (one per document,
 * its other sections under it, a message's neighbours it brought in shown under it as its
 * context, weak matches collapsed at the end; see main/engine/index/rank.ts).
 *
 * Keyboard: `/` anywhere focuses the box (App.tsx); in the box or the list, ↑ ↓ move through the
 * results and Enter opens the chosen one's best hit in the explorer. The box is a combobox whose
 * `aria-activedescendant` names that hit, so a screen reader follows it without moving the focus.
 */
import { memo, useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import type { RankedHit, RankedResult, SearchMode } from '../../../shared/contracts/api';
import { formatCount } from '../../../shared/format';
import { LEVELS, SEARCH_MODES, SEARCH_SCOPES, shownCount, strongCount, type LevelFilter, type ScopeFilter } from '../../stores/search-store';
import { useApp, useSearch, useStores } from '../../stores/stores-context';
import { useT } from '../../use-t';
import { highlightParts } from './highlight';
import './search.css';
import './search-results.css';

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
  const hitCount = useSearch(shownCount);
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

  const open = (uri: string, index: number) => {
    stores.search.getState().setActive(index);
    openInExplorer(uri);
  };
  const openActive = (index: number) => {
    const best = stores.search.getState().results[index]?.hits[0];
    if (best) open(best.uri, index);
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
        state.setActive(event.key === 'Home' ? 0 : shownCount(state) - 1);
        return;
      case 'Enter': {
        event.preventDefault();
        const fresh = state.status === 'done' && state.searched?.query === state.query.trim();
        if (!fresh) void state.search(true);
        else if (state.active >= 0) openActive(state.active);
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
  const count = useSearch((s) => s.results.length);
  // The weak matches are counted apart, on the line that shows them.
  const strong = useSearch((s) => strongCount(s.results));
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
          : strong === 0
            ? t('search.onlyWeak', { ms: ms ?? '…' })
            : t('search.count', { count: formatCount(strong, locale), ms: ms ?? '…' });
  return (
    <p className="muted search-status" role="status" aria-live="polite" data-testid="search-status" data-status={status} data-query={searched?.query ?? ''}>
      {text}
      {status === 'searching' && searched ? ` · ${t('search.searching')}` : ''}
    </p>
  );
}

function Results({ onOpen, onKeyDown }: { onOpen: (uri: string, index: number) => void; onKeyDown: (event: KeyboardEvent) => void }) {
  const t = useT();
  const results = useSearch((s) => s.results);
  const showWeak = useSearch((s) => s.showWeak);
  const weakBelow = useSearch((s) => s.weakBelow);
  const setShowWeak = useSearch((s) => s.setShowWeak);
  const strong = strongCount(results);
  const weak = results.length - strong;
  if (results.length === 0) return null;
  const item = (result: RankedResult, index: number) => <ResultItem key={result.uri + (result.hits[0]?.provenance.message_ids[0] ?? '')} result={result} index={index} onOpen={onOpen} />;
  return (
    <>
      {/* The list is ordered by relevance only: level and scope are badges here and filters above. */}
      <div id={LIST_ID} className="search-results" role="listbox" aria-label={t('search.results')} tabIndex={-1} onKeyDown={onKeyDown} data-testid="search-results">
        <ul className="hit-list" role="presentation">
          {results.slice(0, strong).map((result, i) => item(result, i))}
        </ul>
        {weak > 0 && showWeak && (
          <ul className="hit-list weak-list" role="group" aria-label={t('search.weak.hide')} data-testid="search-weak-list">
            {/* Said where the weak ones start: the note and its toggle sit below the whole list. */}
            <li role="presentation" className="weak-heading muted" data-testid="search-weak-heading">
              {t('search.weak.heading', { count: weak, floor: weakBelow ?? '' })}
            </li>
            {results.slice(strong).map((result, i) => item(result, strong + i))}
          </ul>
        )}
      </div>
      {weak > 0 && (
        <p className="weak-note muted" data-testid="search-weak">
          <span>{t('search.weak', { count: weak, floor: weakBelow ?? '' })}</span>
          <button type="button" className="link-button" aria-expanded={showWeak} aria-controls={LIST_ID} onClick={() => setShowWeak(!showWeak)} data-testid="search-weak-toggle">
            {showWeak ? t('search.weak.hide') : t('search.weak.show')}
          </button>
        </p>
      )}
    </>
  );
}

function Snippet({ hit }: { hit: RankedHit }) {
  const parts = useMemo(() => highlightParts(hit.snippet, hit.highlights), [hit.snippet, hit.highlights]);
  return (
    <p className="hit-snippet" data-testid="hit-snippet">
      {parts.map((part, i) => (part.match ? <mark key={i}>{part.text}</mark> : <span key={i}>{part.text}</span>))}
    </p>
  );
}

const ResultItem = memo(function ResultItem({ result, index, onOpen }: { result: RankedResult; index: number; onOpen: (uri: string, index: number) => void }) {
  const t = useT();
  const active = useSearch((s) => s.active === index);
  const [expanded, setExpanded] = useState(false);
  const [best, ...rest] = result.hits as [RankedHit, ...RankedHit[]];
  // A message's neighbours it brought in are its context, always shown under it; not "more sections".
  const more = rest.filter((hit) => !hit.neighbour_of);
  const context = rest.filter((hit) => hit.neighbour_of);
  const { source, lines, message_ids: messageIds } = best.provenance;
  // What the best hit is within its document: its section's heading, or which level of the document.
  const section = best.uri !== result.uri && best.heading !== result.title ? best.heading : null;
  // A memory's or a file's other hits are its own abstract or overview, not sections.
  const moreLabel = more.every((hit) => hit.uri === best.uri) ? 'search.moreLevels' : 'search.more';
  return (
    <li
      id={hitId(index)}
      className={`hit${active ? ' active' : ''}${result.weak ? ' weak' : ''}`}
      role="option"
      aria-selected={active}
      aria-label={t('search.open', { uri: best.uri })}
      onClick={() => onOpen(best.uri, index)}
      data-testid="search-hit"
      data-uri={result.uri}
      data-open-uri={best.uri}
      data-level={best.level}
      data-weak={result.weak}
    >
      <div className="hit-head">
        <span className="hit-name" data-testid="hit-title">
          {result.title}
        </span>
        <code className="uri hit-uri">{result.uri}</code>
        <span className="hit-badges">
          <span className="badge" title={t('search.score', { score: result.score.toFixed(3) })} data-testid="hit-score">
            {result.score.toFixed(2)}
          </span>
          <span className="badge" title={t(`search.level.${best.level}`)} data-testid="hit-level">
            L{best.level}
          </span>
          <span className="badge" data-testid="hit-scope">
            {result.scope}
          </span>
          {best.category && <span className="badge">{best.category}</span>}
        </span>
      </div>
      {section && (
        <p className="hit-section" data-testid="hit-section">
          {section}
        </p>
      )}
      <Snippet hit={best} />
      {context.length > 0 && (
        <ul className="hit-context" data-testid="hit-context">
          {context.map((hit) => (
            <li
              key={hit.provenance.message_ids.join(',')}
              className="hit-sub"
              onClick={(event) => {
                event.stopPropagation();
                onOpen(hit.uri, index);
              }}
              data-testid="search-context-hit"
              data-message-id={hit.provenance.message_ids[0] ?? ''}
              data-neighbour-of={hit.neighbour_of}
            >
              <span className="hit-context-label muted">{t('search.inContext')}</span>
              <Snippet hit={hit} />
            </li>
          ))}
        </ul>
      )}
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
      {result.also_at.length > 0 && (
        <p className="hit-also-at" data-testid="hit-also-at">
          {t('search.alsoAt')}:{' '}
          {result.also_at.map((uri) => (
            <code key={uri} className="uri">
              {uri}
            </code>
          ))}
        </p>
      )}
      {more.length > 0 && (
        <button
          type="button"
          className="link-button hit-more"
          aria-expanded={expanded}
          onClick={(event) => {
            event.stopPropagation();
            setExpanded(!expanded);
          }}
          data-testid="hit-more"
        >
          {expanded ? t('search.less') : t(moreLabel, { count: more.length })}
        </button>
      )}
      {expanded && (
        <ul className="hit-sections" data-testid="hit-sections">
          {more.map((hit) => (
            <li
              key={`${hit.uri}|${hit.level}`}
              className="hit-sub"
              onClick={(event) => {
                event.stopPropagation();
                onOpen(hit.uri, index);
              }}
              data-testid="search-sub-hit"
              data-uri={hit.uri}
              data-level={hit.level}
            >
              <span className="hit-sub-head">
                <span className="hit-section">{(hit.uri !== result.uri && hit.heading) || t(`search.section.${hit.level}`)}</span>
                <span className="badge">{hit.score.toFixed(2)}</span>
                <span className="badge">L{hit.level}</span>
              </span>
              <Snippet hit={hit} />
            </li>
          ))}
        </ul>
      )}
    </li>
  );
});
