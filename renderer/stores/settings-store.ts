/**
 * The Settings view: the LLM settings as a form of strings, checked here before they are sent
 * (the engine checks again, against the same limits: shared/contracts/llm-limits.ts), the API
 * key as a write-only field, and "test connection".
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { LlmSettings, SettingsView } from '../../shared/contracts/api';
import { LLM_LIMITS } from '../../shared/contracts/llm-limits';
import type { CairnClient } from '../api/client';
import type { MessageKey } from '../i18n';

export interface SettingsForm {
  enabled: boolean;
  baseUrl: string;
  model: string;
  maxConcurrent: string;
  /** '' for no limit. */
  tokenBudget: string;
  timeoutMs: string;
}
export type FormField = keyof SettingsForm;
/** A message key per field that does not pass. */
export type FormErrors = Partial<Record<FormField, MessageKey>>;

type Phase = 'idle' | 'loading' | 'ready' | 'failed';

export interface SettingsState {
  phase: Phase;
  view: SettingsView | null;
  form: SettingsForm;
  errors: FormErrors;
  /** Typed, never shown back: cleared once saved. */
  apiKeyInput: string;
  saving: boolean;
  /** The last save's outcome: 'saved', or the engine's message. */
  saveResult: { ok: boolean; message: string } | null;
  testing: boolean;
  testResult: { ok: boolean; message: string; ms: number } | null;
  load(): Promise<void>;
  setField<F extends FormField>(field: F, value: SettingsForm[F]): void;
  setApiKeyInput(value: string): void;
  save(): Promise<void>;
  clearKey(): Promise<void>;
  testConnection(): Promise<void>;
  /**
   * Saves the LLM switch or the token budget at once (the Home view's ingest options), leaving
   * the other settings and any unsaved edits of the Settings form as they are.
   */
  quickSet(patch: QuickPatch): Promise<void>;
}

export type QuickPatch = Partial<Pick<LlmSettings, 'enabled' | 'tokenBudget'>>;

/** A budget as typed ('' for no limit): the number of tokens, null for no limit, or undefined when it does not pass. */
export function parseBudget(text: string): number | null | undefined {
  if (text.trim() === '') return null;
  const n = wholeIn(text, LLM_LIMITS.tokenBudget);
  return n === null ? undefined : n;
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

export function formOf(settings: LlmSettings): SettingsForm {
  return {
    enabled: settings.enabled,
    baseUrl: settings.baseUrl,
    model: settings.model,
    maxConcurrent: String(settings.maxConcurrent),
    tokenBudget: settings.tokenBudget === null ? '' : String(settings.tokenBudget),
    timeoutMs: String(settings.timeoutMs),
  };
}

const wholeIn = (text: string, limit: { min: number; max: number }): number | null => {
  const trimmed = text.trim();
  if (!/^\d+$/.test(trimmed)) return null;
  const n = Number(trimmed);
  return n >= limit.min && n <= limit.max ? n : null;
};

/** The settings the form describes, or the fields that do not pass (as message keys). */
export function validateForm(form: SettingsForm): { settings: LlmSettings | null; errors: FormErrors } {
  const errors: FormErrors = {};
  const baseUrl = form.baseUrl.trim();
  if (baseUrl !== '' && !/^https?:\/\/[^\s/?#]+(?:[/?#]\S*)?$/i.test(baseUrl)) errors.baseUrl = 'settings.error.url';
  const model = form.model.trim();
  if (model === '') errors.model = 'settings.error.model';
  const maxConcurrent = wholeIn(form.maxConcurrent, LLM_LIMITS.maxConcurrent);
  if (maxConcurrent === null) errors.maxConcurrent = 'settings.error.concurrency';
  const tokenBudget = parseBudget(form.tokenBudget);
  if (tokenBudget === undefined) errors.tokenBudget = 'settings.error.budget';
  const timeoutMs = wholeIn(form.timeoutMs, LLM_LIMITS.timeoutMs);
  if (timeoutMs === null) errors.timeoutMs = 'settings.error.timeout';
  if (Object.keys(errors).length > 0) return { settings: null, errors };
  return { settings: { enabled: form.enabled, baseUrl, model, maxConcurrent: maxConcurrent!, tokenBudget: tokenBudget ?? null, timeoutMs: timeoutMs! }, errors };
}

const EMPTY_FORM: SettingsForm = {
  enabled: false,
  baseUrl: '',
  model: '',
  maxConcurrent: String(LLM_LIMITS.maxConcurrent.default),
  tokenBudget: '',
  timeoutMs: String(LLM_LIMITS.timeoutMs.default),
};

export function createSettingsStore(client: Pick<CairnClient, 'call'>): StoreApi<SettingsState> {
  return createStore<SettingsState>()((set, get) => ({
    phase: 'idle',
    view: null,
    form: EMPTY_FORM,
    errors: {},
    apiKeyInput: '',
    saving: false,
    saveResult: null,
    testing: false,
    testResult: null,

    async load() {
      set({ phase: 'loading' });
      const form = get().form;
      try {
        const view = await client.call('settings:get', {});
        // What the person typed while the settings were on their way is kept: the view opens on
        // settings already loaded (Home reads them too), so typing can start before this answer.
        set(get().form === form ? { phase: 'ready', view, form: formOf(view.llm), errors: {} } : { phase: 'ready', view });
      } catch (error) {
        set({ phase: 'failed', saveResult: { ok: false, message: message(error) } });
      }
    },
    setField(field, value) {
      const form = { ...get().form, [field]: value };
      // Errors clear as the field is fixed; new ones appear on save.
      const errors = { ...get().errors };
      if (errors[field] && !validateForm(form).errors[field]) delete errors[field];
      set({ form, errors, saveResult: null });
    },
    setApiKeyInput: (apiKeyInput) => set({ apiKeyInput, saveResult: null }),

    async save() {
      const { settings, errors } = validateForm(get().form);
      set({ errors });
      if (!settings || get().saving) return;
      const apiKey = get().apiKeyInput.trim();
      set({ saving: true, saveResult: null });
      try {
        const view = await client.call('settings:set', { llm: settings, ...(apiKey ? { apiKey } : {}) });
        set({ view, form: formOf(view.llm), apiKeyInput: '', saveResult: { ok: true, message: 'saved' } });
      } catch (error) {
        set({ saveResult: { ok: false, message: message(error) } });
      } finally {
        set({ saving: false });
      }
    },
    async clearKey() {
      try {
        const view = await client.call('settings:set', { apiKey: null });
        set({ view, apiKeyInput: '', saveResult: { ok: true, message: 'cleared' } });
      } catch (error) {
        set({ saveResult: { ok: false, message: message(error) } });
      }
    },
    async quickSet(patch) {
      try {
        const view = await client.call('settings:set', { llm: patch });
        const saved = formOf(view.llm);
        const form = { ...get().form };
        if (patch.enabled !== undefined) form.enabled = saved.enabled;
        if (patch.tokenBudget !== undefined) form.tokenBudget = saved.tokenBudget;
        const errors = { ...get().errors };
        if (patch.tokenBudget !== undefined) delete errors.tokenBudget;
        set({ phase: 'ready', view, form: get().phase === 'ready' ? form : saved, errors, saveResult: null });
      } catch (error) {
        set({ saveResult: { ok: false, message: message(error) } });
        throw error;
      }
    },
    async testConnection() {
      const { settings, errors } = validateForm(get().form);
      set({ errors });
      if (!settings || get().testing) return;
      const apiKey = get().apiKeyInput.trim();
      set({ testing: true, testResult: null });
      try {
        const result = await client.call('settings:test', { llm: settings, ...(apiKey ? { apiKey } : {}) });
        set({ testResult: { ok: result.ok, message: result.message, ms: result.ms } });
      } catch (error) {
        set({ testResult: { ok: false, message: message(error), ms: 0 } });
      } finally {
        set({ testing: false });
      }
    },
  }));
}
