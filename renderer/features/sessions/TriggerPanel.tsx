/**
 * The coordinated trigger's decision: the four factors as bars with their weights, the lines that
 * explain the arithmetic, the Commit button (what the trigger commits by itself) with the memory
 * changes it made, and the review of every proposed memory (CandidateReview).
 */
import { TRIGGER_WEIGHTS, type TriggerDecision, type TriggerFactors } from '../../../shared/types/memory';
import { useApp, useSessions } from '../../stores/stores-context';
import { localizeChange } from '../../i18n/causes';
import { labelOf } from '../../i18n';
import { useT } from '../../use-t';
import { CandidateReview } from './CandidateReview';
import { Bar } from './parts';

export function TriggerPanel() {
  const t = useT();
  const locale = useApp((s) => s.locale);
  const trigger = useSessions((s) => s.analysis?.trigger);
  const commitStatus = useSessions((s) => s.commitStatus);
  const commit = useSessions((s) => s.commit);
  const error = useSessions((s) => s.error);
  const commitOpen = useSessions((s) => s.commitOpen);
  const openId = useSessions((s) => s.openId);
  if (!trigger) return <p className="muted">{t('sessions.analyzing')}</p>;
  const go = trigger.action === 'COORDINATED_EXTRACTION';
  return (
    <div className="trigger" data-testid="session-trigger">
      <section className="panel">
        <h3>
          {t('sessions.trigger')}{' '}
          <span className={`status-pill ${go ? 'status-done' : 'status-pending'}`} data-testid="trigger-action">
            {go ? t('sessions.extract') : t('sessions.wait')}
          </span>
        </h3>
        <dl className="factor-list">
          {FACTORS.map((key) => (
            <div key={key} className="factor" data-testid="trigger-factor">
              <dt>{t(`trigger.${key}`)}</dt>
              <dd>
                <Bar value={trigger.factors[key]} weight={TRIGGER_WEIGHTS[key]} />
              </dd>
            </div>
          ))}
          <div className="factor total">
            <dt>{t('sessions.score')}</dt>
            <dd>
              <Bar value={trigger.confidence} /> <span className="muted small">{t('sessions.threshold', { threshold: trigger.threshold })}</span>
            </dd>
          </div>
        </dl>
        <ul className="explanation" data-testid="trigger-explanation">
          {explain(trigger, t).map((line) => (
            <li key={line.key}>
              <code>{line.sum}</code>
              {line.why && <span className="muted small"> · {line.why}</span>}
            </li>
          ))}
        </ul>
        <button type="button" className="primary" onClick={() => void commitOpen()} disabled={commitStatus === 'loading'} data-testid="session-commit">
          {commitStatus === 'loading' ? t('sessions.committing') : t('sessions.commit')}
        </button>
        {commitStatus === 'failed' && (
          <p className="field-error" role="alert">
            {error}
          </p>
        )}
      </section>
      {commit && (
        <section className="panel" data-testid="commit-result">
          <h3>
            {t('sessions.changes')} <span className="badge">{commit.changes.length}</span>
          </h3>
          <p className="muted">{t('sessions.commitSummary', { candidates: commit.candidates, action: labelOf(t, 'triggerAction', commit.action) })}</p>
          <ul className="plain-list change-list">
            {commit.changes.map((c) => (
              <li key={`${c.memory_id}|${c.at}`} data-testid="commit-change" data-op={c.op}>
                <span className={`op op-${c.op}`}>{labelOf(t, 'memoryOp', c.op)}</span> <strong>{(c.after ?? c.before)?.title ?? c.memory_id}</strong>
                <span className="muted small" data-testid="commit-change-reason"> · {localizeChange(c, locale)}</span>
              </li>
            ))}
          </ul>
        </section>
      )}
      {/* Mounted again after a commit, so the review proposes from the memories as they are now. */}
      {go && openId && <CandidateReview key={`${openId}:${commitStatus}`} conversationId={openId} />}
    </div>
  );
}

const FACTORS = Object.keys(TRIGGER_WEIGHTS) as (keyof TriggerFactors)[];

/**
 * The arithmetic, a line per factor and one for the score, each with its reason in the page's
 * language from the counts the engine sent (an analysis stored before it sent them keeps its
 * English lines).
 */
function explain(trigger: TriggerDecision, t: ReturnType<typeof useT>): { key: string; sum: string; why?: string }[] {
  const e = trigger.evidence;
  if (!e) return trigger.explanation.map((line) => ({ key: line, sum: line }));
  const n = (value: number) => value.toFixed(2);
  const why: Record<keyof TriggerFactors, string> = {
    bucket_ready: t('trigger.why.bucket_ready', { ready: e.ready_items, items: e.items }),
    chain_ready: t('trigger.why.chain_ready', { mean: n(e.mean_chain_confidence), chains: e.chains, needed: e.chains_needed }),
    complementarity: t('trigger.why.complementarity', { linkedClusters: e.linked_clusters, clusters: e.clusters, linkedChains: e.linked_chains, chains: e.chains }),
    quality: e.validation === null ? t('trigger.why.qualityUnvalidated', { coherence: n(e.coherence) }) : t('trigger.why.quality', { coherence: n(e.coherence), validation: n(e.validation) }),
  };
  const go = trigger.action === 'COORDINATED_EXTRACTION';
  return [
    ...FACTORS.map((key) => ({ key, sum: `${t(`trigger.${key}`)} ${n(trigger.factors[key])} × ${TRIGGER_WEIGHTS[key]} = ${(trigger.factors[key] * TRIGGER_WEIGHTS[key]).toFixed(3)}`, why: why[key] })),
    { key: 'score', sum: `${t('sessions.score')} ${trigger.confidence.toFixed(3)} ${go ? '>' : '≤'} ${trigger.threshold}`, why: go ? t('sessions.extract') : t('sessions.wait') },
  ];
}
