import type { Skip } from '../../shared/types/ingest';
import { groupSkips } from '../features/home/drop';
import './skip-groups.css';

/** Skipped files grouped by reason, each with its path and the sentence that explains it. */
export function SkipGroups({ skips, open }: { skips: readonly Skip[]; open?: boolean }) {
  return (
    <>
      {groupSkips(skips).map((group) => (
        <details key={group.reason} className="skip-group" open={open}>
          <summary>
            <span className="skip-reason">{group.reason}</span> <span className="badge">{group.skips.length}</span>
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
