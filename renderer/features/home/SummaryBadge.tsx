/**
 * Home's badge for a tree's latest summary run: "summarized" in green when it had no fallback,
 * "summarized with 29 fallbacks" in the warning colour when it had some, with their causes
 * grouped ("27 × HTTP 500 'injected fault', 2 × invalid JSON") in its tooltip and in a line that
 * opens under it. Without a run seen by this view or noted in the workspace, or while `current` is false (a newer run is
 * queued or going), it shows `children` (the state as listed).
 */
import type { ReactNode } from 'react';
import type { DagRunResult } from '../../../shared/contracts/api';
import { groupedCauses } from '../../../shared/fallback-causes';
import { causeKey } from '../../../shared/llm-cause';
import { localizeCause } from '../../i18n/causes';
import { formatCount } from '../../../shared/format';
import { useApp, useIngest } from '../../stores/stores-context';
import { useT } from '../../use-t';

export function SummaryBadge({
  root,
  current = true,
  noted,
  children = null,
}: {
  root: string;
  current?: boolean;
  /** The last run as the workspace noted it (RecentIngest.summary), for a run this page did not see. */
  noted?: Pick<DagRunResult, 'fallbacks' | 'fallback_causes'> | undefined;
  children?: ReactNode;
}) {
  const t = useT();
  const locale = useApp((s) => s.locale);
  const run = useIngest((s) => s.lastRuns[root]) ?? noted;
  if (!run || !current) return <>{children}</>;
  if (run.fallbacks === 0) {
    return (
      <span className="badge summary-badge state-summarized" data-testid="summary-badge" data-fallbacks={0}>
        {t('home.summary.done')}
      </span>
    );
  }
  const grouped = groupedCauses(run.fallback_causes).map(({ cause, count }) => ({ key: causeKey(cause), cause: localizeCause(cause, locale), count }));
  const causes = grouped.map(({ cause, count }) => `${formatCount(count, locale)} × ${cause}`).join(', ');
  return (
    <details className="summary-fallbacks" data-testid="summary-badge" data-fallbacks={run.fallbacks}>
      <summary className="badge summary-badge state-fallbacks" title={causes}>
        {t('home.summary.fallbacks', { count: formatCount(run.fallbacks, locale) })}
      </summary>
      {causes && (
        <ul className="summary-causes small" aria-label={t('home.summary.causes')} data-testid="summary-causes">
          {grouped.map(({ key, cause, count }) => (
            <li key={key}>
              {formatCount(count, locale)} × {cause}
            </li>
          ))}
        </ul>
      )}
    </details>
  );
}
