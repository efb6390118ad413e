import { describe, expect, it } from 'vitest';
import type { LlmStatsView, SettingsView } from '../../shared/contracts/api';
import { DEFAULT_LLM_SETTINGS, DEFAULT_MEMORY_SETTINGS } from '../../shared/contracts/api';
import { CairnError } from '../../shared/errors';
import { createMonitorStore } from './monitor-store';
import { createSettingsStore, formOf, parseBudget, validateForm } from './settings-store';
import { pendingClient } from './view-stores.fixtures';

const view = (patch: Partial<SettingsView> = {}): SettingsView => ({ llm: { ...DEFAULT_LLM_SETTINGS }, memory: { ...DEFAULT_MEMORY_SETTINGS }, apiKey: { set: false, last4: null, storage: 'memory' }, summarizer: 'extractive', ...patch });

describe('the settings form', () => {
  it('names each field that does not pass, and builds the settings when all do', () => {
    const form = { ...formOf(DEFAULT_LLM_SETTINGS), baseUrl: 'localhost:11434', model: ' ', maxConcurrent: '65', tokenBudget: '1.5', timeoutMs: '999' };
    expect(validateForm(form)).toEqual({
      settings: null,
      errors: { baseUrl: 'settings.error.url', model: 'settings.error.model', maxConcurrent: 'settings.error.concurrency', tokenBudget: 'settings.error.budget', timeoutMs: 'settings.error.timeout' },
    });
    const ok = validateForm({ ...form, baseUrl: ' http://127.0.0.1:11434/v1 ', model: 'llama3', maxConcurrent: '64', tokenBudget: '', timeoutMs: '1000' });
    expect(ok).toEqual({ settings: { enabled: false, baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3', maxConcurrent: 64, tokenBudget: null, timeoutMs: 1000 }, errors: {} });
  });

  it('saves valid settings with a typed key, then forgets the typed key', async () => {
    const { client, next } = pendingClient();
    const store = createSettingsStore(client);
    const loading = store.getState().load();
    next('settings:get').resolve(view());
    await loading;
    store.getState().setField('maxConcurrent', '0');
    await store.getState().save();
    expect(store.getState().errors).toEqual({ maxConcurrent: 'settings.error.concurrency' });
    store.getState().setField('maxConcurrent', '4');
    expect(store.getState().errors).toEqual({});
    store.getState().setField('enabled', true);
    store.getState().setApiKeyInput(' sk-typed-key ');
    const saving = store.getState().save();
    const call = next('settings:set');
    expect(call.request).toEqual({ llm: { ...DEFAULT_LLM_SETTINGS, enabled: true, maxConcurrent: 4 }, apiKey: 'sk-typed-key' });
    call.resolve(view({ llm: { ...DEFAULT_LLM_SETTINGS, enabled: true, maxConcurrent: 4 }, apiKey: { set: true, last4: null, storage: 'memory' }, summarizer: 'llm' }));
    await saving;
    expect(store.getState()).toMatchObject({ apiKeyInput: '', saveResult: { ok: true, message: 'saved' }, view: { summarizer: 'llm' } });

    const clearing = store.getState().clearKey();
    next('settings:set').resolve(view());
    await clearing;
    expect(store.getState().view?.apiKey.set).toBe(false);
  });

  it('keeps what was typed while the settings were loading', async () => {
    const { client, next } = pendingClient();
    const store = createSettingsStore(client);
    const first = store.getState().load();
    next('settings:get').resolve(view());
    await first;
    const again = store.getState().load();
    store.getState().setField('maxConcurrent', '0');
    next('settings:get').resolve(view({ summarizer: 'llm' }));
    await again;
    expect(store.getState().form.maxConcurrent).toBe('0');
    expect(store.getState().view?.summarizer).toBe('llm');
    // A load with no typing during it shows what the engine has.
    const third = store.getState().load();
    next('settings:get').resolve(view({ llm: { ...DEFAULT_LLM_SETTINGS, maxConcurrent: 7 } }));
    await third;
    expect(store.getState().form.maxConcurrent).toBe('7');
  });

  it('shows the engine refusing a save, and the outcome of a connection test', async () => {
    const { client, next } = pendingClient();
    const store = createSettingsStore(client);
    // Before it is loaded the form names no model, so nothing is sent.
    await store.getState().save();
    expect(store.getState().errors).toEqual({ model: 'settings.error.model' });
    const loading = store.getState().load();
    next('settings:get').resolve(view());
    await loading;
    const saving = store.getState().save();
    next('settings:set').reject(new CairnError('INVALID_INPUT', 'engine: Invalid settings: maxConcurrent: must be at most 64'));
    await saving;
    expect(store.getState().saveResult).toEqual({ ok: false, message: 'engine: Invalid settings: maxConcurrent: must be at most 64' });
    store.getState().setField('baseUrl', 'http://127.0.0.1:9/v1');
    const testing = store.getState().testConnection();
    const call = next('settings:test');
    expect(call.request).toEqual({ llm: { ...DEFAULT_LLM_SETTINGS, baseUrl: 'http://127.0.0.1:9/v1' } });
    call.resolve({ ok: false, ms: 12, model: 'gpt-4o-mini', message: 'LLM_AUTH: Incorrect API key provided' });
    await testing;
    expect(store.getState()).toMatchObject({ testing: false, testResult: { ok: false, ms: 12, message: 'LLM_AUTH: Incorrect API key provided' } });
  });
});

describe('the monitor store', () => {
  it('takes the latest snapshot of each event batch', async () => {
    const { client, next } = pendingClient();
    const store = createMonitorStore(client);
    const stats = (calls: number): LlmStatsView => ({ active: true, model: 'm', baseUrl: null, calls, inFlight: 0, succeeded: calls, failed: 0, retries: 0, fallbacks: 0, fallbackReasons: {}, inputTokens: 0, outputTokens: 0, costUsd: null, breaker: 'closed', budget: null, errors: {}, recent: [] });
    const loading = store.getState().load();
    next('llm:stats').resolve(stats(0));
    await loading;
    expect(store.getState().stats?.calls).toBe(0);
    store.getState().applyEvents([{ type: 'llm/stats-changed', stats: stats(2) }, { type: 'dag/started', root: 'ctx://resources/r/', messageId: 'x' }, { type: 'llm/stats-changed', stats: stats(5) }]);
    expect(store.getState().stats?.calls).toBe(5);
    store.getState().applyEvents([{ type: 'dag/started', root: 'ctx://resources/r/', messageId: 'y' }]);
    expect(store.getState().stats?.calls).toBe(5);
  });
});

describe('the settings the Home view changes', () => {
  it('saves the LLM switch or the budget alone, keeping unsaved edits of the other fields', async () => {
    const { client, next } = pendingClient();
    const store = createSettingsStore(client);
    const loading = store.getState().load();
    next('settings:get').resolve(view());
    await loading;
    store.getState().setField('model', 'llama3');
    const saving = store.getState().quickSet({ tokenBudget: 5000 });
    const call = next('settings:set');
    expect(call.request).toEqual({ llm: { tokenBudget: 5000 } });
    call.resolve(view({ llm: { ...DEFAULT_LLM_SETTINGS, tokenBudget: 5000 } }));
    await saving;
    expect(store.getState().form).toMatchObject({ model: 'llama3', tokenBudget: '5000' });
    expect(store.getState().view?.llm.tokenBudget).toBe(5000);

    const failing = store.getState().quickSet({ enabled: true });
    next('settings:set').reject(new CairnError('INVALID_INPUT', 'bad'));
    await expect(failing).rejects.toThrow('bad');
    expect(store.getState().form.enabled).toBe(false);
  });

  it('reads a budget as typed', () => {
    expect(parseBudget(' ')).toBeNull();
    expect(parseBudget('1200')).toBe(1200);
    expect(parseBudget('0')).toBeUndefined();
    expect(parseBudget('1.5')).toBeUndefined();
  });
});
