/**
 * The memory processor's monitoring report (`sessions:stats`): health of each component, the
 * analysis cache's hit rate, timings per stage and the chains waiting in the chain buffer. It
 * reloads when an analysis or a commit finishes, and on Refresh.
 */
import { useCallback, useEffect, useState } from 'react';
import type { SessionStats } from '../../../shared/contracts/api';
import { errorMessage } from '../../../shared/errors';
import { formatWhen } from '../../../shared/format';
import { useSessions, useStores } from '../../stores/stores-context';
import { useT } from '../../use-t';
import { chainTypes, hitRate, stageRows } from './stats-panel';

export function StatsPanel() {
  const t = useT();
  const { client } = useStores();
  const analysis = useSessions((s) => s.analysis);
  const commitStatus = useSessions((s) => s.commitStatus);
  const [stats, setStats] = useState<SessionStats | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(async () => {
    try {
      setStats(await client.call('sessions:stats', {}));
      setError(null);
    } catch (e) {
      setError(errorMessage(e));
    }
  }, [client]);
  useEffect(() => {
    void load();
  }, [load, analysis, commitStatus]);

  if (error) return <p className="field-error">{error}</p>;
  if (!stats) return <p className="muted">{t('sessions.stats.loading')}</p>;
  const rows = stageRows(stats.stages);
  const cache = hitRate(stats.cache);
  return (
    <section className="panel session-stats" data-testid="session-stats" aria-label={t('sessions.stats.title')}>
      <h3>
        {t('sessions.stats.title')}{' '}
        <span className={`status-pill ${stats.overall === 'healthy' ? 'status-done' : 'status-failed'}`} data-testid="stats-overall">
          {t(`sessions.stats.health.${stats.overall}`)}
        </span>{' '}
        <button type="button" onClick={() => void load()}>
          {t('sessions.stats.refresh')}
        </button>
      </h3>
      <p className="muted small">{t(stats.mode === 'parallel' ? 'sessions.stats.parallel' : 'sessions.stats.sequential', { runner: stats.runner })}</p>
      <dl className="stats-health">
        {Object.entries(stats.health).map(([name, h]) => (
          <div key={name}>
            <dt>{name}</dt>
            <dd>
              {t(`sessions.stats.health.${h.status}`)} <span className="muted small">{h.detail}</span>
            </dd>
          </div>
        ))}
      </dl>
      <p data-testid="stats-cache">{t('sessions.stats.cache', { rate: cache.rate, hits: cache.hits, lookups: cache.lookups })}</p>
      {rows.length === 0 ? (
        <p className="muted">{t('sessions.stats.noStages')}</p>
      ) : (
        <table className="stats-stages">
          <thead>
            <tr>
              <th>{t('sessions.stats.stage')}</th>
              <th>{t('sessions.stats.count')}</th>
              <th>{t('sessions.stats.mean')}</th>
              <th>{t('sessions.stats.min')}</th>
              <th>{t('sessions.stats.max')}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.name}>
                <td>{r.name}</td>
                <td>{r.count}</td>
                <td>{r.mean}</td>
                <td>{r.min}</td>
                <td>{r.max}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h4>{t('sessions.stats.buffer', { chains: stats.buffer.chains, conversations: stats.buffer.conversations.length })}</h4>
      <ul className="stats-buffer" data-testid="stats-buffer">
        {stats.buffer.conversations.map((c) => (
          <li key={c.conversation_id}>
            <strong>{c.conversation_id}</strong> {chainTypes(c.by_type)} <span className="muted small">{t('sessions.stats.until', { when: formatWhen(c.expires_at) })}</span>
            <ul>
              {c.summaries.map((summary, i) => (
                <li key={i} className="small">
                  {summary}
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
    </section>
  );
}
