/**
 * The LLM monitor: calls, tokens and cost, the circuit breaker, the run's token budget, recent
 * call latencies as bars (plain SVG) and the recent calls. Live from `llm/stats-changed` events.
 */
import { useEffect } from 'react';
import type { LlmCallRecord } from '../../../shared/contracts/api';
import { formatMs } from '../../../shared/format';
import { useApp, useMonitor } from '../../stores/stores-context';
import { localizeCause } from '../../i18n/causes';
import { useT } from '../../use-t';
import './monitor.css';

export function MonitorView() {
  const t = useT();
  const stats = useMonitor((state) => state.stats);
  const error = useMonitor((state) => state.error);
  const load = useMonitor((state) => state.load);
  const setView = useApp((state) => state.setView);
  const locale = useApp((state) => state.locale);

  useEffect(() => {
    void load();
  }, [load]);

  const cost = stats?.costUsd == null ? t('monitor.costUnknown') : `$${stats.costUsd.toFixed(stats.costUsd < 1 ? 4 : 2)}`;
  return (
    <section className="view monitor-view" aria-labelledby="monitor-title">
      <header className="view-header">
        <h1 id="monitor-title">{t('monitor.title')}</h1>
        <p className="lead">{t('monitor.lead')}</p>
      </header>
      {error && (
        <div className="banner banner-error" role="alert">
          {error}
        </div>
      )}
      {stats && !stats.active && (
        <div className="banner banner-warn" data-testid="monitor-inactive">
          <span>{t('monitor.inactive')}</span>
          <button type="button" onClick={() => setView('settings')}>
            {t('monitor.openSettings')}
          </button>
        </div>
      )}
      {stats && (
        <>
          <section className="panel" aria-label={t('monitor.calls')}>
            <p className="muted">
              {stats.model ? t('monitor.model', { model: stats.model }) : t('monitor.noModel')}
              <span className={`badge breaker-${stats.breaker ?? 'none'}`} data-testid="monitor-breaker" title={t('monitor.breakerHint')}>
                {t('monitor.breaker')}: {stats.breaker ? t(`monitor.breaker.${stats.breaker}`) : '—'}
              </span>
            </p>
            <dl className="stats">
              {(
                [
                  ['monitor.calls', stats.calls, 'monitor-calls'],
                  ['monitor.inFlight', stats.inFlight, 'monitor-in-flight'],
                  ['monitor.succeeded', stats.succeeded, 'monitor-succeeded'],
                  ['monitor.failed', stats.failed, 'monitor-failed'],
                  ['monitor.retries', stats.retries, 'monitor-retries'],
                  ['monitor.fallbacks', stats.fallbacks, 'monitor-fallbacks'],
                  ['monitor.inputTokens', stats.inputTokens, 'monitor-input-tokens'],
                  ['monitor.outputTokens', stats.outputTokens, 'monitor-output-tokens'],
                  ['monitor.cost', cost, 'monitor-cost'],
                ] as const
              ).map(([label, value, id]) => (
                <div className="stat" key={label}>
                  <dt>{t(label)}</dt>
                  <dd data-testid={id}>{value}</dd>
                </div>
              ))}
            </dl>
            {stats.budget && (
              <p data-testid="monitor-budget">
                {t('monitor.budget', { used: stats.budget.used, max: stats.budget.maxTokens, left: stats.budget.left })}
                <meter className="budget-meter" min={0} max={stats.budget.maxTokens} value={stats.budget.used} aria-label={t('monitor.budgetLabel')} />
              </p>
            )}
            {Object.keys(stats.errors).length > 0 && (
              <p className="muted small">
                {t('monitor.errors')}:{' '}
                {Object.entries(stats.errors)
                  .map(([code, n]) => `${code} × ${n}`)
                  .join(', ')}
              </p>
            )}
          </section>
          <section className="panel" aria-labelledby="monitor-latency-title">
            <h2 id="monitor-latency-title">{t('monitor.latency')}</h2>
            {stats.recent.length === 0 ? <p className="muted">{t('monitor.noCalls')}</p> : <LatencyBars calls={stats.recent} label={t('monitor.latencyLabel')} />}
          </section>
          <section className="panel" aria-labelledby="monitor-recent-title">
            <h2 id="monitor-recent-title">{t('monitor.recent')}</h2>
            {stats.recent.length === 0 ? (
              <p className="muted" data-testid="monitor-recent-empty">
                {t('monitor.noCalls')}
              </p>
            ) : (
              <table className="data-table" data-testid="monitor-recent">
                <thead>
                  <tr>
                    <th>{t('monitor.col.time')}</th>
                    <th>{t('monitor.col.ms')}</th>
                    <th>{t('monitor.col.tokens')}</th>
                    <th>{t('monitor.col.outcome')}</th>
                    <th>{t('monitor.col.cause')}</th>
                  </tr>
                </thead>
                <tbody>
                  {stats.recent.slice(0, 20).map((call, i) => (
                    <tr key={`${call.at}-${i}`} data-testid="monitor-call" data-outcome={call.outcome}>
                      <td>{new Date(call.at).toLocaleTimeString()}</td>
                      <td>{formatMs(call.ms)}</td>
                      <td>
                        {call.inputTokens} → {call.outputTokens}
                      </td>
                      <td className={call.outcome === 'ok' ? 'note-ok' : 'field-error'}>{call.outcome === 'ok' ? t('monitor.ok') : call.outcome}</td>
                      {/* Why it failed: the HTTP status and the server's message, a timeout, how a malformed answer began. */}
                      <td className="call-cause" data-testid="monitor-call-cause">
                        {call.cause ? localizeCause(call.cause, locale) : ''}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
        </>
      )}
    </section>
  );
}

/** One bar per recent call, oldest on the left, height by latency; failures in the danger colour. */
function LatencyBars({ calls, label }: { calls: readonly LlmCallRecord[]; label: string }) {
  const locale = useApp((state) => state.locale);
  const width = 600;
  const height = 80;
  const ordered = [...calls].reverse();
  const max = Math.max(1, ...ordered.map((c) => c.ms));
  const slot = width / Math.max(ordered.length, 1);
  return (
    <svg className="latency-bars" viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`${label}: ${formatMs(max)}`} data-testid="monitor-latency" data-bars={ordered.length}>
      <line x1={0} y1={height - 0.5} x2={width} y2={height - 0.5} className="axis" />
      {ordered.map((call, i) => {
        const h = Math.max(2, (call.ms / max) * (height - 4));
        return (
          <rect key={i} x={i * slot + 1} y={height - h} width={Math.max(1, slot - 2)} height={h} className={call.outcome === 'ok' ? 'bar-ok' : 'bar-failed'}>
            <title>{`${formatMs(call.ms)} · ${call.outcome}${call.cause ? ` · ${localizeCause(call.cause, locale)}` : ''}`}</title>
          </rect>
        );
      })}
    </svg>
  );
}
