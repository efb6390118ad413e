/**
 * "Upgrade summaries" on a directory's detail panel and on Home's result (issue 18), the app's
 * `cairn summarize URI --upgrade`: it first counts what the upgrade redoes (summarize:estimate,
 * no call made), then, once confirmed, re-summarizes bottom-up what a weaker summarizer wrote
 * under the directory (offline or code skeleton → the configured LLM, an older prompt version).
 * Without an LLM it says there is nothing stronger, in one line.
 */
import { useState } from 'react';
import type { PricedEstimate } from '../../../shared/contracts/api';
import { formatCount } from '../../../shared/format';
import type { SummarizerProvenance } from '../../../shared/types/node';
import { useApp, useStores } from '../../stores/stores-context';
import { useT } from '../../use-t';

type Step =
  | { kind: 'idle' }
  | { kind: 'estimating' }
  | { kind: 'offline' }
  | { kind: 'ready'; estimate: PricedEstimate }
  | { kind: 'running' }
  | { kind: 'done'; dirs: number; files: number; reused: number }
  | { kind: 'failed'; error: string };

export function UpgradeSummaries({ uri }: { uri: string }) {
  const t = useT();
  const locale = useApp((s) => s.locale);
  const { client, explorer } = useStores();
  const [step, setStep] = useState<Step>({ kind: 'idle' });
  const fail = (error: unknown) => setStep({ kind: 'failed', error: error instanceof Error ? error.message : String(error) });

  const estimate = async () => {
    setStep({ kind: 'estimating' });
    try {
      const answer = await client.call('summarize:estimate', { uri, redo: 'upgrade' });
      const first = answer.estimates[0];
      // The estimate answers for the one tree asked about; without an LLM an upgrade has nothing to do.
      setStep(answer.llm === true && first ? { kind: 'ready', estimate: first } : { kind: 'offline' });
    } catch (error) {
      fail(error);
    }
  };

  const upgrade = async () => {
    setStep({ kind: 'running' });
    try {
      const { runs, nothingStronger } = await client.call('summarize:run', { uri, redo: 'upgrade' });
      if (nothingStronger) return setStep({ kind: 'offline' });
      const run = runs[0];
      setStep({ kind: 'done', dirs: run?.dirsSummarized ?? 0, files: run?.filesSummarized ?? 0, reused: run?.dirsReused ?? 0 });
      await explorer.getState().refresh();
    } catch (error) {
      fail(error);
    }
  };

  const busy = step.kind === 'estimating' || step.kind === 'running';
  return (
    <div className="upgrade-summaries" data-testid="upgrade-summaries" data-step={step.kind}>
      {step.kind !== 'ready' && step.kind !== 'running' && (
        <button type="button" onClick={() => void estimate()} disabled={busy} title={t('explorer.upgrade.hint')} data-testid="upgrade-summaries-start">
          {t('explorer.upgrade.action')}
        </button>
      )}
      {step.kind === 'estimating' && <span className="muted small">{t('explorer.upgrade.estimating')}</span>}
      {step.kind === 'running' && <span className="muted small">{t('explorer.upgrade.running')}</span>}
      {step.kind === 'offline' && <span className="note-warn small">{t('explorer.upgrade.offline')}</span>}
      {step.kind === 'failed' && (
        <span className="field-error small" role="alert">
          {step.error}
        </span>
      )}
      {step.kind === 'done' && (
        <span className="note-ok small" role="status">
          {t('explorer.upgrade.done', { dirs: formatCount(step.dirs, locale), files: formatCount(step.files, locale), reused: formatCount(step.reused, locale) })}
        </span>
      )}
      {step.kind === 'ready' &&
        (step.estimate.calls === 0 ? (
          <span className="muted small" role="status">
            {t('explorer.upgrade.nothing')}
          </span>
        ) : (
          <>
            <span className="small" data-testid="upgrade-estimate">
              {t('explorer.upgrade.estimate', {
                calls: formatCount(step.estimate.calls, locale),
                files: formatCount(step.estimate.files, locale),
                directories: formatCount(step.estimate.directories, locale),
                tokens: formatCount(step.estimate.input_tokens + step.estimate.output_tokens, locale),
              })}
            </span>
            <button type="button" className="primary" onClick={() => void upgrade()} data-testid="upgrade-summaries-confirm">
              {t('explorer.upgrade.confirm')}
            </button>
            <button type="button" onClick={() => setStep({ kind: 'idle' })}>
              {t('explorer.upgrade.cancel')}
            </button>
          </>
        ))}
    </div>
  );
}

/** "llm gpt-4o-mini (prompt v1)", "extractive", "ast-skeleton": who wrote a node's summary. */
export function summarizerLabel(summarizer: SummarizerProvenance | undefined): string | undefined {
  if (!summarizer) return undefined;
  if (summarizer.kind !== 'llm') return summarizer.kind;
  return `llm ${summarizer.model ?? ''}${summarizer.prompt_version !== undefined ? ` (prompt v${summarizer.prompt_version})` : ''}`.trim();
}
