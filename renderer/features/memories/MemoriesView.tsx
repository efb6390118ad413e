/**
 * Long-term memories: counts per category (a filter), the list, and the one open with its content,
 * keywords and the messages it came from; editing its title, content and category, forgetting it
 * after a confirmation, and the history of its changes with what each one changed.
 */
import { useEffect } from 'react';
import { formatWhen } from '../../../shared/format';
import { MemoryCategory as MemoryCategories, type LongTermMemory, type MemoryChange } from '../../../shared/types/memory';
import { countByCategory, visibleMemories, type CategoryFilter } from '../../stores/memories-store';
import { useApp, useMemories, useStores } from '../../stores/stores-context';
import { localizeChange } from '../../i18n/causes';
import { labelOf } from '../../i18n';
import { useT } from '../../use-t';
import './memories.css';

const CATEGORIES = MemoryCategories.options;

export function MemoriesView() {
  const t = useT();
  const stores = useStores();
  const memories = useMemories((s) => s.memories);
  const status = useMemories((s) => s.status);
  const category = useMemories((s) => s.category);
  const setCategory = useMemories((s) => s.setCategory);
  const openId = useMemories((s) => s.openId);
  const open = useMemories((s) => s.open);

  useEffect(() => {
    void stores.memories.getState().refresh();
  }, [stores]);

  const counts = countByCategory(memories);
  const shown = visibleMemories(memories, category);
  return (
    <section className="view memories-view" aria-labelledby="memories-title">
      <header className="view-header">
        <h1 id="memories-title">{t('memories.title')}</h1>
        <p className="lead">{t('memories.lead')}</p>
      </header>
      <div className="chips" role="group" aria-label={t('memories.categories')} data-testid="memory-categories">
        <Chip value="all" label={t('memories.all')} count={memories.length} active={category === 'all'} onPick={setCategory} />
        {counts.map((c) => (
          <Chip key={c.category} value={c.category} label={t(`category.${c.category}`)} count={c.count} active={category === c.category} onPick={setCategory} />
        ))}
      </div>
      <div className="sessions-body">
        <nav className="panel sessions-list" aria-label={t('memories.list')}>
          {status === 'done' && shown.length === 0 && <p className="muted">{t('memories.none')}</p>}
          <ul className="plain-list">
            {shown.map((m) => (
              <li key={m.id}>
                <button type="button" className="list-button" aria-current={m.id === openId ? 'true' : undefined} onClick={() => void open(m.id)} data-testid="memory-item" data-id={m.id}>
                  <span className="list-title">{m.title}</span>
                  <span className="muted small">
                    {t(`category.${m.category}`)} · {t('memories.fromMessages', { count: m.message_ids.length })}
                  </span>
                </button>
              </li>
            ))}
          </ul>
        </nav>
        <div className="sessions-detail">{openId ? <OpenMemory /> : <p className="muted pad">{t('memories.pick')}</p>}</div>
      </div>
    </section>
  );
}

function Chip({ value, label, count, active, onPick }: { value: CategoryFilter; label: string; count: number; active: boolean; onPick: (v: CategoryFilter) => void }) {
  return (
    <button type="button" className="chip" aria-pressed={active} onClick={() => onPick(value)} data-testid="memory-category" data-category={value}>
      {label} <span className="badge">{count}</span>
    </button>
  );
}

function OpenMemory() {
  const t = useT();
  const locale = useApp((s) => s.locale);
  const openId = useMemories((s) => s.openId);
  const memory = useMemories((s) => s.memories.find((m) => m.id === s.openId));
  const draft = useMemories((s) => s.draft);
  const confirmForget = useMemories((s) => s.confirmForget);
  const saving = useMemories((s) => s.saving);
  const error = useMemories((s) => s.error);
  const { startEdit, setDraft, cancelEdit, save, askForget, cancelForget, forget } = useMemories((s) => s);
  return (
    <div className="open-memory" data-testid="memory-open" data-id={openId}>
      {!memory && (
        <p className="banner banner-warn" data-testid="memory-forgotten">
          {t('memories.forgotten')}
        </p>
      )}
      {memory && !draft && (
        <article className="panel memory-card">
          <header className="row">
            <h2 data-testid="memory-title">{memory.title}</h2>
            <span className="badge">{t(`category.${memory.category}`)}</span>
            {memory.pinned && (
              <span className="badge" data-testid="memory-pinned">
                {t('memories.pinned')}
              </span>
            )}
          </header>
          <p className="memory-content" data-testid="memory-content">
            {memory.content}
          </p>
          <dl className="meta-table">
            <div className="meta-row">
              <dt>{t('memories.keywords')}</dt>
              <dd>
                {memory.keywords.map((k) => (
                  <span key={k} className="badge">
                    {k}
                  </span>
                ))}
              </dd>
            </div>
            <div className="meta-row">
              <dt>{t('memories.messages')}</dt>
              <dd data-testid="memory-message-ids">
                {memory.message_ids.map((id) => (
                  <code key={id} className="message-id">
                    {id}
                  </code>
                ))}
              </dd>
            </div>
            {memory.conversation_id && (
              <div className="meta-row">
                <dt>{t('memories.conversation')}</dt>
                <dd>
                  <code>{memory.conversation_id}</code>
                </dd>
              </div>
            )}
            {(memory.chain_ids?.length ?? 0) > 0 && (
              <div className="meta-row">
                <dt>{t('memories.chains')}</dt>
                <dd>
                  <code>{memory.chain_ids!.join(', ')}</code>
                </dd>
              </div>
            )}
            <div className="meta-row">
              <dt>{t('memories.confidence')}</dt>
              <dd>{memory.confidence.toFixed(2)}</dd>
            </div>
            <div className="meta-row">
              <dt>{t('memories.updated')}</dt>
              <dd>
                <time dateTime={memory.updated_at}>{formatWhen(memory.updated_at, locale)}</time>
              </dd>
            </div>
          </dl>
          {confirmForget === memory.id ? (
            <div className="banner banner-warn" role="alertdialog" aria-label={t('memories.confirmForget')} data-testid="forget-confirm">
              <span>{t('memories.confirmForget')}</span>
              <span className="form-actions">
                <button type="button" className="danger" onClick={() => void forget()} disabled={saving} data-testid="forget-yes">
                  {t('memories.forget')}
                </button>
                <button type="button" onClick={cancelForget}>
                  {t('memories.cancel')}
                </button>
              </span>
            </div>
          ) : (
            <div className="form-actions">
              <button type="button" onClick={startEdit} data-testid="memory-edit">
                {t('memories.edit')}
              </button>
              <button type="button" className="danger" onClick={askForget} data-testid="memory-forget">
                {t('memories.forget')}
              </button>
            </div>
          )}
        </article>
      )}
      {memory && draft && (
        <form
          className="panel memory-form"
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
          onKeyDown={(e) => {
            if (e.key === 'Escape') cancelEdit();
          }}
          data-testid="memory-form"
        >
          <label className="field">
            <span>{t('memories.titleField')}</span>
            <input value={draft.title} onChange={(e) => setDraft({ title: e.target.value })} data-testid="memory-title-input" autoFocus />
          </label>
          <label className="field">
            <span>{t('memories.category')}</span>
            <select value={draft.category} onChange={(e) => setDraft({ category: e.target.value as LongTermMemory['category'] })} data-testid="memory-category-input">
              {CATEGORIES.map((c) => (
                <option key={c} value={c}>
                  {t(`category.${c}`)}
                </option>
              ))}
            </select>
          </label>
          <label className="field">
            <span>{t('memories.content')}</span>
            <textarea value={draft.content} rows={8} onChange={(e) => setDraft({ content: e.target.value })} data-testid="memory-content-input" />
          </label>
          <div className="form-actions">
            <button type="submit" className="primary" disabled={saving} data-testid="memory-save">
              {t('memories.save')}
            </button>
            <button type="button" onClick={cancelEdit}>
              {t('memories.cancel')}
            </button>
          </div>
        </form>
      )}
      {error && (
        <p className="field-error" role="alert">
          {error === 'empty' ? t('memories.empty') : error}
        </p>
      )}
      <History />
    </div>
  );
}

const FIELDS = ['title', 'category', 'content', 'keywords'] as const;

function History() {
  const t = useT();
  const locale = useApp((s) => s.locale);
  const history = useMemories((s) => s.history);
  return (
    <section className="panel" data-testid="memory-history">
      <h3>
        {t('memories.history')} <span className="badge">{history.length}</span>
      </h3>
      <ol className="plain-list history">
        {history.map((c, i) => (
          <li key={i} className="history-item" data-testid="history-item" data-op={c.op}>
            <div>
              <span className={`op op-${c.op}`}>{labelOf(t, 'memoryOp', c.op)}</span> <time className="muted small" dateTime={c.at}>
                {formatWhen(c.at, locale)}
              </time> · <span data-testid="history-reason">{localizeChange(c, locale)}</span>
            </div>
            <ChangeFields change={c} />
          </li>
        ))}
      </ol>
    </section>
  );
}

function ChangeFields({ change }: { change: MemoryChange }) {
  const show = (m: LongTermMemory | undefined, field: (typeof FIELDS)[number]) => (m ? (Array.isArray(m[field]) ? (m[field] as string[]).join(', ') : String(m[field])) : '');
  const fields = change.op === 'update' ? FIELDS.filter((f) => show(change.before, f) !== show(change.after, f)) : (['title'] as const);
  return (
    <dl className="change-fields">
      {fields.map((f) => (
        <div key={f} className="change-field">
          <dt>{f}</dt>
          <dd>
            {change.before && <del>{show(change.before, f)}</del>}
            {change.before && change.after && ' → '}
            {change.after && <ins>{show(change.after, f)}</ins>}
          </dd>
        </div>
      ))}
    </dl>
  );
}
