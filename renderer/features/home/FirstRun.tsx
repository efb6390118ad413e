/**
 * What Home offers a person on a first run: "Try the sample" while the workspace has no tree yet and
 * nothing is being ingested (it ingests the sample folder Cairn ships, found by the engine with
 * ingest:sample, through the normal ingest: the same progress, result and recent list), and the
 * short help under an option.
 */
import { useState, type ReactNode } from 'react';
import { errorMessage } from '../../../shared/errors';
import { useIngest, useStores } from '../../stores/stores-context';
import { useT } from '../../use-t';

export function TrySample() {
  const t = useT();
  const stores = useStores();
  const empty = useIngest((s) => s.recent.phase === 'ready' && s.recent.items.length === 0);
  const running = useIngest((s) => s.status === 'running');
  const setForm = useIngest((s) => s.setForm);
  const start = useIngest((s) => s.start);
  const [problem, setProblem] = useState<string | null>(null);
  // Gone while an ingest runs (it is the first tree on its way); back if that ingest leaves nothing.
  if (!empty || running) return null;

  const trySample = async () => {
    setProblem(null);
    try {
      const { path } = await stores.client.call('ingest:sample', {});
      setForm({ path });
    } catch (error) {
      setProblem(t('home.sample.failed', { message: errorMessage(error) }));
      return;
    }
    await start();
  };
  return (
    <section className="panel sample-panel" aria-labelledby="sample-title" data-testid="try-sample">
      <div>
        <h2 id="sample-title">{t('home.sample.title')}</h2>
        <p className="muted">{t('home.sample.lead')}</p>
        {problem && (
          <p className="field-error" role="alert" data-testid="try-sample-error">
            {problem}
          </p>
        )}
      </div>
      <button type="button" className="primary" onClick={() => void trySample()} data-testid="try-sample-button">
        {t('home.sample.try')}
      </button>
    </section>
  );
}

/** A line or two under a form field saying what its choices mean; the field names it with aria-describedby. */
export function FieldHelp({ id, children }: { id: string; children: ReactNode }) {
  return (
    <span id={id} className="field-help muted small">
      {children}
    </span>
  );
}
