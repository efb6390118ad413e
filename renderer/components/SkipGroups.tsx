import type { Skip } from '../../shared/types/ingest';
import { groupSkips } from '../features/home/drop';
import { labelOf } from '../i18n';
import { useT } from '../use-t';
import './skip-groups.css';

/** Skipped files grouped by reason (in words; the engine's code in the tooltip), each with its path and the sentence that explains it. */
export function SkipGroups({ skips, open }: { skips: readonly Skip[]; open?: boolean }) {
  const t = useT();
  return (
    <>
      {groupSkips(skips).map((group) => (
        <details key={group.reason} className="skip-group" open={open}>
          <summary>
            <span className="skip-reason" title={group.reason} data-reason={group.reason}>
              {labelOf(t, 'skipReason', group.reason)}
            </span> <span className="badge">{group.skips.length}</span>
          </summary>
          <ul>
            {group.skips.map((skip) => (
              <li key={skip.path}>
                <code>{skip.path}</code>
                {skip.detail && <span className="muted"> — {skip.detail}</span>}
              </li>
            ))}
          </ul>
        </details>
      ))}
    </>
  );
}
