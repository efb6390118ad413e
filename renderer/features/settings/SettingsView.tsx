/**
 * Settings: the LLM that writes summaries (on/off, server, model, limits) and its API key. The
 * key field is write-only: the engine never sends a key back, only whether one is set.
 */
import { useEffect, type ReactNode } from 'react';
import { LLM_LIMITS } from '../../../shared/contracts/llm-limits';
import type { FormField } from '../../stores/settings-store';
import { useApp, useSettings } from '../../stores/stores-context';
import { useT } from '../../use-t';
import { MemoryTracksField } from './MemoryTracksField';
import './settings.css';

/** The bounds each numeric field's hint and error name ({min}, {max}): the contract's, never restated. */
const FIELD_LIMITS: Partial<Record<FormField, { min: number; max?: number }>> = {
  maxConcurrent: LLM_LIMITS.maxConcurrent,
  tokenBudget: { min: LLM_LIMITS.tokenBudget.min },
  timeoutMs: LLM_LIMITS.timeoutMs,
};

export function SettingsView() {
  const t = useT();
  const s = useSettings((state) => state);
  const setView = useApp((state) => state.setView);
  const load = s.load;

  useEffect(() => {
    void load();
  }, [load]);

  const key = s.view?.apiKey;
  const field = (name: FormField, label: string, input: ReactNode, hint?: string) => (
    <label className="field">
      <span>{label}</span>
      {input}
      {hint && !s.errors[name] && <span className="muted small">{hint}</span>}
      {s.errors[name] && (
        <span className="field-error" id={`settings-${name}-error`} role="alert" data-testid={`settings-error-${name}`}>
          {t(s.errors[name]!, FIELD_LIMITS[name])}
        </span>
      )}
    </label>
  );
  const text = (name: Exclude<FormField, 'enabled'>, props: { placeholder?: string; inputMode?: 'numeric' } = {}) => (
    <input
      value={s.form[name]}
      onChange={(e) => s.setField(name, e.target.value)}
      aria-invalid={s.errors[name] ? true : undefined}
      aria-describedby={s.errors[name] ? `settings-${name}-error` : undefined}
      spellCheck={false}
      data-testid={`settings-${name}`}
      {...props}
    />
  );

  return (
    <section className="view settings-view" aria-labelledby="settings-title" data-phase={s.phase}>
      <header className="view-header">
        <h1 id="settings-title">{t('settings.title')}</h1>
        <p className="lead">{t('settings.lead')}</p>
      </header>
      {s.view && (
        <p className="muted" data-testid="settings-summarizer" data-summarizer={s.view.summarizer}>
          {s.view.summarizer === 'llm' ? t('settings.usingLlm', { model: s.view.llm.model }) : t('settings.usingExtractive')}
        </p>
      )}
      <form
        className="panel settings-form"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void s.save();
        }}
      >
        <label className="check-row">
          <input type="checkbox" checked={s.form.enabled} onChange={(e) => s.setField('enabled', e.target.checked)} data-testid="settings-enabled" />
          <span>{t('settings.enabled')}</span>
        </label>
        <div className="settings-grid">
          {field('baseUrl', t('settings.baseUrl'), text('baseUrl', { placeholder: 'http://127.0.0.1:11434/v1' }), t('settings.baseUrlHint'))}
          {field('model', t('settings.model'), text('model', { placeholder: 'gpt-4o-mini' }))}
          {field('maxConcurrent', t('settings.maxConcurrent'), text('maxConcurrent', { inputMode: 'numeric' }), t('settings.maxConcurrentHint', FIELD_LIMITS.maxConcurrent))}
          {field('tokenBudget', t('settings.tokenBudget'), text('tokenBudget', { inputMode: 'numeric', placeholder: t('settings.noLimit') }), t('settings.tokenBudgetHint'))}
          {field('timeoutMs', t('settings.timeout'), text('timeoutMs', { inputMode: 'numeric' }))}
          <label className="field">
            <span>{t('settings.apiKey')}</span>
            <input
              type="password"
              autoComplete="off"
              value={s.apiKeyInput}
              onChange={(e) => s.setApiKeyInput(e.target.value)}
              placeholder={key?.set ? t('settings.keySet', { last4: key.last4 ? `…${key.last4}` : '' }) : t('settings.keyNone')}
              data-testid="settings-apiKey"
            />
            <span className="muted small" data-testid="settings-key-state" data-set={key?.set ? 'true' : 'false'}>
              {key?.set ? t(key.storage === 'encrypted' ? 'settings.keyEncrypted' : 'settings.keyMemory') : t('settings.keyHint')}
            </span>
          </label>
        </div>
        <div className="form-actions">
          <button type="submit" className="primary" disabled={s.saving} data-testid="settings-save">
            {s.saving ? t('settings.saving') : t('settings.save')}
          </button>
          <button type="button" disabled={s.testing} onClick={() => void s.testConnection()} data-testid="settings-test">
            {s.testing ? t('settings.testing') : t('settings.test')}
          </button>
          {key?.set && (
            <button type="button" onClick={() => void s.clearKey()} data-testid="settings-clear-key">
              {t('settings.clearKey')}
            </button>
          )}
          <button type="button" onClick={() => setView('monitor')}>
            {t('settings.openMonitor')}
          </button>
        </div>
        <div role="status" aria-live="polite" className="settings-outcomes">
          {s.saveResult && (
            <p className={s.saveResult.ok ? 'note-ok' : 'field-error'} data-testid="settings-save-result" data-ok={s.saveResult.ok ? 'true' : 'false'}>
              {s.saveResult.ok ? t(s.saveResult.message === 'cleared' ? 'settings.keyCleared' : 'settings.saved') : s.saveResult.message}
            </p>
          )}
          {s.testResult && (
            <p className={s.testResult.ok ? 'note-ok' : 'field-error'} data-testid="settings-test-result" data-ok={s.testResult.ok ? 'true' : 'false'}>
              {s.testResult.ok ? t('settings.testOk', { ms: s.testResult.ms }) : t('settings.testFailed')} {s.testResult.message}
            </p>
          )}
        </div>
      </form>
      <MemoryTracksField />
    </section>
  );
}
