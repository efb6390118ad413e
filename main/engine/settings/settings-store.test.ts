/**
 * The settings file: what it keeps across restarts, that the API key never reaches it (nor
 * settings:get), and that bad input is refused with a message naming the field.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_LLM_SETTINGS, DEFAULT_MEMORY_SETTINGS, parseRequest } from '../../../shared/contracts/api.js';
import { CairnError } from '../../../shared/errors.js';
import type { Logger } from '../ports/logger.js';
import { openSettingsStore, SETTINGS_FILE } from './settings-store.js';

const KEY = 'sk-test-0123456789abcdefWXYZ';
let dir: string;
let warnings: string[];
const logger: Logger = { debug() {}, info() {}, warn: (message) => void warnings.push(message), error() {} };

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cairn-settings-'));
  warnings = [];
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the settings store', () => {
  it('starts from the defaults and keeps saved settings across a reopen, never the key', async () => {
    const store = await openSettingsStore({ stateDir: dir, logger });
    expect(store.current()).toEqual(DEFAULT_LLM_SETTINGS);
    expect(store.view('extractive').apiKey).toEqual({ set: false, last4: null, storage: 'memory' });

    await store.update({ enabled: true, baseUrl: 'http://127.0.0.1:9/v1', model: 'local', maxConcurrent: 3, tokenBudget: 5000 }, KEY);
    const text = await readFile(join(dir, SETTINGS_FILE), 'utf8');
    expect(JSON.parse(text)).toEqual({ version: 1, llm: { ...DEFAULT_LLM_SETTINGS, enabled: true, baseUrl: 'http://127.0.0.1:9/v1', model: 'local', maxConcurrent: 3, tokenBudget: 5000 }, memory: DEFAULT_MEMORY_SETTINGS });
    expect(text).not.toContain(KEY);
    expect(text).not.toContain('sk-');
    // The atomic write leaves no temporary file behind.
    expect(await readdir(dir)).toEqual([SETTINGS_FILE]);

    const view = store.view('llm');
    expect(JSON.stringify(view)).not.toContain(KEY.slice(0, -4));
    expect(view.apiKey).toEqual({ set: true, last4: 'WXYZ', storage: 'memory' });
    expect(store.apiKey()).toBe(KEY);

    const reopened = await openSettingsStore({ stateDir: dir, logger });
    expect(reopened.current()).toEqual(store.current());
    expect(reopened.apiKey()).toBeNull();

    // Forgetting the key; a short key shows none of its characters.
    await store.update({}, null);
    expect(store.view('llm').apiKey.set).toBe(false);
    await store.update({}, 'short-key');
    expect(store.view('llm').apiKey).toEqual({ set: true, last4: null, storage: 'memory' });
  });

  it('keeps the memory track switches beside the LLM settings: neither kind of save loses the other', async () => {
    const store = await openSettingsStore({ stateDir: dir, logger });
    expect(store.memory()).toEqual({ trackA: true, trackB: true });
    await store.updateMemory({ trackB: false });
    await store.update({ model: 'local' });
    const reopened = await openSettingsStore({ stateDir: dir, logger });
    expect(reopened.memory()).toEqual({ trackA: true, trackB: false });
    expect(reopened.current().model).toBe('local');
    expect(reopened.view('extractive').memory).toEqual({ trackA: true, trackB: false });
  });

  it('refuses invalid settings with the field and the reason, and keeps the old ones', async () => {
    const store = await openSettingsStore({ stateDir: dir, logger });
    const refused = await store.update({ maxConcurrent: 65 }).catch((error: unknown) => error);
    expect(CairnError.is(refused) && refused.code).toBe('INVALID_INPUT');
    expect((refused as Error).message).toBe('Invalid settings: maxConcurrent: must be at most 64');
    expect(store.current().maxConcurrent).toBe(10);
    await expect(readFile(join(dir, SETTINGS_FILE))).rejects.toThrow(/ENOENT/);

    // The contract refuses the same before the engine sees it, naming each field; unknown fields too.
    const problems = (input: unknown) => {
      try {
        parseRequest('settings:set', input);
        return 'accepted';
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(problems({ llm: { maxConcurrent: 0 } })).toBe('Invalid settings:set request: llm.maxConcurrent: must be at least 1');
    expect(problems({ llm: { baseUrl: 'ftp://example.com' } })).toBe('Invalid settings:set request: llm.baseUrl: must be an http:// or https:// URL');
    expect(problems({ llm: { timeoutMs: 10 } })).toMatch(/llm\.timeoutMs: must be at least 1000 ms/);
    expect(problems({ llm: { model: '  ' } })).toMatch(/llm\.model: must name a model/);
    expect(problems({ llm: { apiKey: KEY } })).toMatch(/Unrecognized key/);
    expect(problems({ apiKey: '' })).toMatch(/apiKey: must not be empty/);
    // The messages never echo the value given.
    expect(problems({ apiKey: 'x'.repeat(1001) })).not.toContain('xxxx');
    expect(problems({ llm: { maxConcurrent: 64, tokenBudget: null }, apiKey: null })).toBe('accepted');
  });

  it('neither reads nor writes the file without workspace settings (cairn ingest, cairn watch)', async () => {
    const saved = `${JSON.stringify({ version: 1, llm: { ...DEFAULT_LLM_SETTINGS, enabled: true, baseUrl: 'http://127.0.0.1:9/v1' } })}\n`;
    await writeFile(join(dir, SETTINGS_FILE), saved);
    const store = await openSettingsStore({ stateDir: dir, logger, workspaceSettings: false, overrides: { model: 'flag-model' } });
    expect(store.current()).toEqual({ ...DEFAULT_LLM_SETTINGS, model: 'flag-model' });
    await store.update({ maxConcurrent: 3 });
    expect(store.current().maxConcurrent).toBe(3);
    expect(await readFile(join(dir, SETTINGS_FILE), 'utf8')).toBe(saved);
  });

  it('reads what it can of a damaged file and lays start-up overrides over it without writing them', async () => {
    await writeFile(join(dir, SETTINGS_FILE), JSON.stringify({ version: 1, llm: { model: 'kept', maxConcurrent: 'many', apiKey: KEY } }));
    const store = await openSettingsStore({ stateDir: dir, logger, overrides: { enabled: true, baseUrl: 'http://127.0.0.1:1/v1' }, apiKey: KEY, keyStorage: 'encrypted' });
    expect(store.current()).toEqual({ ...DEFAULT_LLM_SETTINGS, model: 'kept', enabled: true, baseUrl: 'http://127.0.0.1:1/v1' });
    expect(warnings.join('\n')).toMatch(/Ignored llm\.maxConcurrent/);
    expect(store.view('llm').apiKey.storage).toBe('encrypted');
    // A key someone put in the file is never read as the key.
    expect(store.apiKey()).toBe(KEY);
    const other = await openSettingsStore({ stateDir: dir, logger });
    expect(other.apiKey()).toBeNull();

    await writeFile(join(dir, SETTINGS_FILE), '{ not json');
    expect((await openSettingsStore({ stateDir: dir, logger })).current()).toEqual(DEFAULT_LLM_SETTINGS);
    expect(warnings.join('\n')).toMatch(/not valid JSON/);
  });
});
