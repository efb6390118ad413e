/** Why a tree was added (`cairn ingest --reason`, a skill's --reason, MCP's add_resource), on its root's details. */
import type { Translate } from '../../use-t';
import './skill-list.css';

export function AddedReason({ reason, t }: { reason: string; t: Translate }) {
  return (
    <section className="panel added-reason" aria-labelledby="added-reason-title" data-testid="node-added-reason">
      <h3 id="added-reason-title">{t('explorer.addedReason')}</h3>
      <p>{reason}</p>
    </section>
  );
}
