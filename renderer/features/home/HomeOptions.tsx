/**
 * The Home view's ingest options bound to the LLM settings (on/off and the per-run token budget,
 * the same settings the Settings view edits), the "estimate first" panel shown after such an
 * ingest, and the list of folders recently ingested into the workspace.
 */
import { useEffect, useState, type KeyboardEvent } from 'react';
import type { RecentIngest } from '../../../shared/contracts/api';
import { formatCount, formatUsd, formatWhen } from '../../../shared/format';
import { LLM_LIMITS } from '../../../shared/contracts/llm-limits';
import { parseBudget } from '../../stores/settings-store';
import { useApp, useIngest, useSettings } from '../../stores/stores-context';
import { useT } from '../../use-t';
import { SummaryBadge } from './SummaryBadge';

/** LLM on/off, the token budget and "estimate first", inside the ingest form. */
export function IngestOptionsFields() {
  const t = useT();
  const estimateFirst = useIngest((s) => s.form.estimateFirst);
  const setForm = useIngest((s) => s.setForm);
  const running = useIngest((s) => s.status === 'running');
  const view = useSettings((s) => s.view);
  const [pendingEnabled, setPendingEnabled] = useState<boolean | null>(null);
  const phase = useSettings((s) => s.phase);
  const load = useSettings((s) => s.load);
  const quickSet = useSettings((s) => s.quickSet);
  const setView = useApp((s) => s.setView);
  const locale = useApp((s) => s.locale);
  /** The budget as being typed; null shows the saved one. */
  const [budgetText, setBudgetText] = useState<string | null>(null);
  const [budgetInvalid, setBudgetInvalid] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  useEffect(() => {
    if (phase === 'idle') void load();
  }, [phase, load]);

  const saved = view?.llm.tokenBudget ?? null;
  const save = async (patch: Parameters<typeof quickSet>[0]) => {
    setProblem(null);
    try {
      await quickSet(patch);
      return true;
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
      return false;
    }
  };
  const commitBudget = async () => {
    if (budgetText === null) return;
    const budget = parseBudget(budgetText);
    if (budget === undefined) {
      setBudgetInvalid(true);
      return;
    }
    setBudgetInvalid(false);
    if (budget === saved || (await save({ tokenBudget: budget }))) setBudgetText(null);
  };
  const onBudgetKey = (event: KeyboardEvent<HTMLInputElement>) => {
    // Enter saves the budget here; it must not submit the ingest form around it.
    if (event.key === 'Enter') {
      event.preventDefault();
      void commitBudget();
    } else if (event.key === 'Escape') {
      setBudgetText(null);
      setBudgetInvalid(false);
    }
  };

  // The switch moves at once; the saved setting follows when settings:set answers (or it moves back).
  const enabled = pendingEnabled ?? view?.llm.enabled ?? false;
  // Without a server or a key there is no LLM to switch on: the switch waits for Settings.
  const configured = view !== null && (view.llm.baseUrl !== '' || view.apiKey.set);
  const toggleLlm = (checked: boolean) => {
    setPendingEnabled(checked);
    void save({ enabled: checked }).finally(() => setPendingEnabled(null));
  };
  const llmState = !view ? null : !configured ? 'none' : !enabled ? 'off' : view.summarizer === 'llm' ? 'on' : 'unconfigured';
  return (
    <fieldset className="ingest-options" aria-describedby="home-llm-note">
      <legend>{t('home.options')}</legend>
      <div className="ingest-options-row">
        <label className="check-row">
          <input type="checkbox" checked={estimateFirst} onChange={(e) => setForm({ estimateFirst: e.target.checked })} disabled={running} data-testid="ingest-estimate-first" />
          <span>{t('home.estimateFirst')}</span>
        </label>
        <label className="check-row">
          <input type="checkbox" checked={configured && enabled} disabled={!configured} onChange={(e) => toggleLlm(e.target.checked)} data-testid="home-llm-enabled" />
          <span>{t('home.llmEnabled')}</span>
        </label>
        <label className="field budget-field">
          <span>{t('home.budget')}</span>
          <input
            inputMode="numeric"
            value={budgetText ?? (saved === null ? '' : String(saved))}
            placeholder={t('settings.noLimit')}
            disabled={!view}
            onChange={(e) => {
              setBudgetText(e.target.value);
              if (budgetInvalid && parseBudget(e.target.value) !== undefined) setBudgetInvalid(false);
            }}
            onBlur={() => void commitBudget()}
            onKeyDown={onBudgetKey}
            aria-invalid={budgetInvalid || undefined}
            aria-describedby={budgetInvalid ? 'home-budget-error' : 'home-budget-hint'}
            spellCheck={false}
            data-testid="home-budget"
          />
          {budgetInvalid ? (
            <span id="home-budget-error" className="field-error" role="alert" data-testid="home-budget-error">
              {t('settings.error.budget', { min: LLM_LIMITS.tokenBudget.min })}
            </span>
          ) : (
            <span id="home-budget-hint" className="muted small">
              {t('home.budgetHint')}
            </span>
          )}
        </label>
      </div>
      <p id="home-llm-note" className={llmState === 'unconfigured' ? 'note-warn' : 'muted'} data-testid="home-llm-note" data-llm={llmState ?? 'loading'}>
        {llmState === 'off' && t('home.llmOff')}
        {llmState === 'on' && t('home.llmOn', { model: view!.llm.model, budget: saved === null ? t('settings.noLimit') : formatCount(saved, locale) })}
        {(llmState === 'none' || llmState === 'unconfigured') && (
          <>
            {t(llmState === 'none' ? 'home.llmNone' : 'home.llmUnconfigured')}{' '}
            <button type="button" className="link-button" onClick={() => setView('settings')} data-testid="home-open-settings">
              {t('home.openSettings')}
            </button>
          </>
        )}
      </p>
      {problem && (
        <p className="field-error" role="alert" data-testid="home-settings-problem">
          {problem}
        </p>
      )}
    </fieldset>
  );
}

/** After an "estimate first" ingest: what summarizing will take, next to the budget, and the choice to run it now. */
export function EstimatePanel() {
  const t = useT();
  const state = useIngest((s) => s.estimate);
  const summarizeNow = useIngest((s) => s.summarizeNow);
  const dismiss = useIngest((s) => s.dismissEstimate);
  const view = useSettings((s) => s.view);
  const locale = useApp((s) => s.locale);
  const setView = useApp((s) => s.setView);
  if (!state) return null;
  if (state.phase === 'dismissed') {
    return (
      <p className="muted" role="status" data-testid="estimate-dismissed">
        {t('home.estimate.dismissed')}
      </p>
    );
  }
  const e = state.estimate;
  const budget = view?.llm.tokenBudget ?? null;
  const llmOn = view ? view.summarizer === 'llm' : state.llm;
  const model = view?.llm.model ?? state.model ?? '';
  const total = e ? e.input_tokens + e.output_tokens : 0;
  const over = e !== null && budget !== null && total > budget;
  const stats: [string, string, string][] = e
    ? [
        [t('home.estimate.calls'), formatCount(e.calls, locale), 'estimate-calls'],
        [t('home.estimate.input'), formatCount(e.input_tokens, locale), 'estimate-input'],
        [t('home.estimate.output'), formatCount(e.output_tokens, locale), 'estimate-output'],
        [t('home.estimate.cost'), e.cost_usd == null ? t('home.estimate.costUnknown', { model }) : formatUsd(e.cost_usd), 'estimate-cost'],
        [t('home.estimate.budget'), budget === null ? t('settings.noLimit') : formatCount(budget, locale), 'estimate-budget'],
      ]
    : [];
  return (
    <section className="panel estimate-panel" aria-labelledby="estimate-title" data-testid="estimate-panel" data-phase={state.phase}>
      <h2 id="estimate-title">{t('home.estimate.title')}</h2>
      {state.phase === 'loading' && (
        <p className="muted" role="status">
          {t('home.estimate.loading')}
        </p>
      )}
      {e && (
        <>
          <p className="muted">{t('home.estimate.lead', { files: formatCount(e.files, locale), dirs: formatCount(e.directories, locale), reused: formatCount(e.reused_directories, locale) })}</p>
          <dl className="stats">
            {stats.map(([label, value, id]) => (
              <div key={id} className="stat">
                <dt>{label}</dt>
                <dd data-testid={id}>{value}</dd>
              </div>
            ))}
          </dl>
          {over && (
            <p className="banner banner-warn" role="alert" data-testid="estimate-over-budget">
              {t('home.estimate.overBudget', { total: formatCount(total, locale), budget: formatCount(budget, locale) })}
            </p>
          )}
          {!llmOn && (
            <p className="muted" data-testid="estimate-extractive">
              {t('home.estimate.extractive')}
            </p>
          )}
        </>
      )}
      {state.phase === 'ready' && !e && <p className="muted">{t('home.estimate.nothing')}</p>}
      {state.phase === 'running' && (
        <p role="status" aria-busy="true" data-testid="estimate-running">
          {t('home.estimate.running')}{' '}
          <button type="button" className="link-button" onClick={() => setView('dag')}>
            {t('home.openDag')}
          </button>
        </p>
      )}
      {state.phase === 'done' && (
        <p className="note-ok" role="status" data-testid="estimate-done">
          {state.run
            ? t('home.estimate.done', {
                dirs: formatCount(state.run.dirsSummarized, locale),
                files: formatCount(state.run.filesSummarized, locale),
                calls: formatCount(state.run.llm_calls, locale),
                fallbacks: formatCount(state.run.fallbacks, locale),
              })
            : t('home.estimate.doneNothing')}
        </p>
      )}
      {state.phase === 'failed' && (
        <p className="field-error" role="alert" data-testid="estimate-error">
          {state.error}
        </p>
      )}
      {(state.phase === 'ready' || state.phase === 'failed') && (
        <div className="form-actions">
          <button type="button" className="primary" onClick={() => void summarizeNow()} data-testid="estimate-run">
            {t('home.estimate.run')}
          </button>
          <button type="button" onClick={dismiss} data-testid="estimate-dismiss">
            {t('home.estimate.notNow')}
          </button>
        </div>
      )}
    </section>
  );
}

/** The folders recently ingested into this workspace, newest first. */
export function RecentPanel() {
  const t = useT();
  const recent = useIngest((s) => s.recent);
  const load = useIngest((s) => s.loadRecent);
  const reingest = useIngest((s) => s.reingest);
  const running = useIngest((s) => s.status === 'running');
  const locale = useApp((s) => s.locale);
  const openInExplorer = useApp((s) => s.openInExplorer);

  useEffect(() => {
    void load();
  }, [load]);

  return (
    <section className="panel recent-panel" aria-labelledby="recent-title" data-testid="recent-panel" data-phase={recent.phase}>
      <h2 id="recent-title">{t('home.recent.title')}</h2>
      {recent.phase === 'failed' && (
        <p className="field-error" role="alert">
          {recent.error}
        </p>
      )}
      {recent.phase === 'ready' && recent.items.length === 0 && <p className="muted">{t('home.recent.empty')}</p>}
      {recent.items.length > 0 && (
        <ul className="recent-list">
          {recent.items.map((item) => (
            <RecentRow key={item.root} item={item} locale={locale} busy={running} onOpen={() => openInExplorer(item.root)} onAgain={() => void reingest(item)} />
          ))}
        </ul>
      )}
    </section>
  );
}

function RecentRow({ item, locale, busy, onOpen, onAgain }: { item: RecentIngest; locale: string; busy: boolean; onOpen(): void; onAgain(): void }) {
  const t = useT();
  return (
    <li className="recent-item" data-testid="recent-item" data-root={item.root} data-state={item.state}>
      <div className="recent-main">
        <strong className="recent-name">{item.name}</strong>
        <code className="recent-source" title={item.source}>
          {item.source}
        </code>
        <span className="recent-facts muted small">
          <time dateTime={item.at}>{formatWhen(item.at, locale)}</time>
          {' · '}
          {item.files === null ? t('home.recent.filesUnknown') : t('home.recent.files', { count: formatCount(item.files, locale) })}
          {' · '}
          <span className="scope">{item.scope}</span>
        </span>
      </div>
      <SummaryBadge root={item.root} current={item.state === 'summarized'} noted={item.summary}>
        <span className={`badge recent-state state-${item.state}`} data-testid="recent-state">
          {t(`home.recent.state.${item.state}`)}
        </span>
      </SummaryBadge>
      <div className="form-actions">
        <button type="button" onClick={onOpen} aria-label={t('home.recent.openLabel', { name: item.name })} data-testid="recent-open">
          {t('home.openExplorer')}
        </button>
        <button type="button" onClick={onAgain} disabled={busy} aria-label={t('home.recent.againLabel', { name: item.name })} data-testid="recent-again">
          {t('home.recent.again')}
        </button>
      </div>
    </li>
  );
}
