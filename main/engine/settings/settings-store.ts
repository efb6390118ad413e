/**
 * The app's LLM settings: `<workspace>/.cairn/settings.json` for everything but the API key,
 * which lives in this object's memory only. The host hands the key in (Electron decrypts it with
 * the OS keychain; `cairn serve` takes it from --llm-api-key or OPENAI_API_KEY) and the Settings
 * view may replace or forget it; no file, log line or `view()` ever carries it.
 *
 * @example
 * const store = await openSettingsStore({ stateDir, apiKey: process.env.OPENAI_API_KEY, logger });
 * await store.update({ enabled: true, baseUrl: 'http://127.0.0.1:11434/v1' }, 'sk-...');
 * store.view('llm'); // { llm: {...}, apiKey: { set: true, last4: '…', storage: 'memory' }, summarizer: 'llm' }
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_LLM_SETTINGS, DEFAULT_MEMORY_SETTINGS, LlmSettings, MemorySettings, type SettingsView } from '../../../shared/contracts/api.js';
import { CairnError, errorMessage } from '../../../shared/errors.js';
import type { Logger } from '../ports/logger.js';
import { writeFileAtomic } from '../util/atomic-write.js';

export const SETTINGS_FILE = 'settings.json';

export type KeyStorage = SettingsView['apiKey']['storage'];

export interface SettingsStoreOptions {
  /** The workspace's `.cairn` folder. */
  stateDir: string;
  /** The key the host starts with (memory only). */
  apiKey?: string | undefined;
  /** Where the host keeps the key: 'encrypted' in Electron, 'memory' otherwise. */
  keyStorage?: KeyStorage;
  /** Settings given at start (`cairn serve --llm-*`): laid over the file's for this process, written only on the next update. */
  overrides?: Partial<LlmSettings> | undefined;
  /**
   * false: the file's LLM settings are neither read nor written; they are the defaults with
   * `overrides` on top, and updates stay in memory (`cairn ingest`, `cairn watch`, `cairn sessions
   * analyze|commit`, whose flags and environment say everything; see docs/llm-runtime.md). Its
   * memory tracks are still read (they spend no tokens), never written. Default true.
   */
  workspaceSettings?: boolean | undefined;
  logger: Logger;
}

export interface SettingsStore {
  readonly file: string;
  current(): LlmSettings;
  apiKey(): string | null;
  view(summarizer: SettingsView['summarizer']): SettingsView;
  /** Validates the merged settings, writes them (atomically) and sets or forgets the key (`null`). */
  update(patch: Partial<LlmSettings>, apiKey?: string | null): Promise<void>;
  /** The memory tracks the app's analyses run (the file's `memory`). */
  memory(): MemorySettings;
  updateMemory(patch: Partial<MemorySettings>): Promise<void>;
}

/** The file's `memory` settings, each invalid or missing field at its default. */
async function loadMemory(file: string): Promise<MemorySettings> {
  const raw = await readFile(file, 'utf8').then(
    (text) => (JSON.parse(text) as { memory?: unknown } | null)?.memory,
    () => undefined,
  );
  const settings = { ...DEFAULT_MEMORY_SETTINGS };
  if (raw && typeof raw === 'object') {
    for (const name of ['trackA', 'trackB'] as const) {
      const value = (raw as Record<string, unknown>)[name];
      if (typeof value === 'boolean') settings[name] = value;
    }
  }
  return settings;
}

/** The settings file's settings, or the defaults (with a warning) when it is missing or unreadable. */
async function load(file: string, logger: Logger): Promise<LlmSettings> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') logger.warn(`Could not read ${file}: ${errorMessage(error)}; using the default settings`);
    return { ...DEFAULT_LLM_SETTINGS };
  }
  try {
    const raw = (JSON.parse(text) as { llm?: unknown } | null)?.llm ?? {};
    // Each valid field is kept and each invalid one falls back alone, so one bad value loses no other.
    const settings: Record<string, unknown> = { ...DEFAULT_LLM_SETTINGS };
    for (const [name, schema] of Object.entries(LlmSettings.shape)) {
      const value = (raw as Record<string, unknown>)[name];
      if (value === undefined) continue;
      const parsed = schema.safeParse(value);
      if (parsed.success) settings[name] = parsed.data;
      else logger.warn(`Ignored llm.${name} in ${file}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    }
    return settings as LlmSettings;
  } catch (error) {
    logger.warn(`${file} is not valid JSON (${errorMessage(error)}); using the default settings`);
    return { ...DEFAULT_LLM_SETTINGS };
  }
}

export async function openSettingsStore(options: SettingsStoreOptions): Promise<SettingsStore> {
  const file = join(options.stateDir, SETTINGS_FILE);
  const saved = options.workspaceSettings !== false;
  let settings: LlmSettings = { ...(saved ? await load(file, options.logger) : DEFAULT_LLM_SETTINGS), ...(options.overrides ?? {}) };
  // A broken file was already reported by load(); the memory settings then fall back quietly.
  // The memory tracks spend no tokens: a one-shot command (`cairn sessions analyze --llm-*`) still
  // runs the ones the workspace chose; it only never writes them.
  let memory: MemorySettings = await loadMemory(file).catch(() => ({ ...DEFAULT_MEMORY_SETTINGS }));
  let apiKey: string | null = options.apiKey?.trim() ? options.apiKey.trim() : null;
  let writes: Promise<unknown> = Promise.resolve();
  // Serialized, so two quick saves land in order; the file never holds the key.
  const persist = async (llm: LlmSettings, mem: MemorySettings) => {
    const write = writes.then(() => (saved ? writeFileAtomic(file, `${JSON.stringify({ version: 1, llm, memory: mem }, null, 2)}\n`) : undefined));
    writes = write.catch(() => {});
    await write;
  };

  return {
    file,
    current: () => ({ ...settings }),
    apiKey: () => apiKey,
    view: (summarizer) => ({
      llm: { ...settings },
      memory: { ...memory },
      // Short keys show nothing of themselves: 4 characters of an 8-character key would be half of it.
      apiKey: { set: apiKey !== null, last4: apiKey !== null && apiKey.length >= 16 ? apiKey.slice(-4) : null, storage: options.keyStorage ?? 'memory' },
      summarizer,
    }),
    async update(patch, newKey) {
      const merged = LlmSettings.safeParse({ ...settings, ...patch });
      if (!merged.success) {
        const problems = merged.error.issues.map((issue) => `${issue.path.join('.') || '(settings)'}: ${issue.message}`);
        throw new CairnError('INVALID_INPUT', `Invalid settings: ${problems.join('; ')}`, { details: { problems } });
      }
      const next = merged.data;
      await persist(next, memory);
      settings = next;
      if (newKey !== undefined) apiKey = newKey === null ? null : newKey.trim() || null;
    },
    memory: () => ({ ...memory }),
    async updateMemory(patch) {
      const next = MemorySettings.parse({ ...memory, ...patch });
      await persist(settings, next);
      memory = next;
    },
  };
}
