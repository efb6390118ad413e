/**
 * The LLM API key in the desktop app: encrypted with Electron's `safeStorage` (the OS keychain)
 * into one file in the app's data folder, decrypted at start and handed to the engine worker in
 * `workerData.llm` (main/host/llm-worker-data.ts). When the OS offers no encryption the key is
 * kept in memory only, until the app quits (an engine worker restarted after a crash gets it
 * again): a failed encryption never falls back to writing it in plain text.
 *
 * `withKeyVault` sits between the IPC handlers and the engine: a `settings:set` that the engine
 * accepted with a new key (or `apiKey: null`) is saved (or forgotten) here too.
 *
 * @example
 * const vault = createKeyVault({ safeStorage, file: join(app.getPath('userData'), 'llm-key.bin'), logger });
 * const host = await EngineHost.start({ ..., workerData: { workspace, llm: await vault.workerData() } });
 * registerIpcHandlers(withKeyVault(connectionOf(host), vault), logger);
 */
import { readFile, rm } from 'node:fs/promises';
import type { SafeStorage } from 'electron';
import { errorMessage } from '../../shared/errors.js';
import type { EngineConnection } from '../host/engine-connection.js';
import type { WorkerLlmData } from '../host/llm-worker-data.js';
import { writeFileAtomic } from '../engine/util/atomic-write.js';
import type { Logger } from '../engine/ports/logger.js';

export type SafeStorageLike = Pick<SafeStorage, 'isEncryptionAvailable' | 'encryptString' | 'decryptString'>;

export interface KeyVault {
  /** Whether keys can be kept encrypted across restarts. */
  readonly encrypted: boolean;
  /** The saved key, or undefined (none, or it can no longer be decrypted). */
  read(): Promise<string | undefined>;
  save(key: string): Promise<void>;
  clear(): Promise<void>;
  /** The key and where it is kept, for the engine worker. */
  workerData(): Promise<WorkerLlmData>;
}

export function createKeyVault(options: { safeStorage: SafeStorageLike; file: string; logger: Logger }): KeyVault {
  const { safeStorage, file, logger } = options;
  const encrypted = () => safeStorage.isEncryptionAvailable();
  let inMemory: string | undefined;
  const vault: KeyVault = {
    get encrypted() {
      return encrypted();
    },
    async read() {
      if (!encrypted()) return inMemory;
      let bytes: Buffer;
      try {
        bytes = await readFile(file);
      } catch {
        return undefined;
      }
      try {
        return safeStorage.decryptString(bytes) || undefined;
      } catch (error) {
        logger.warn(`The saved LLM API key could not be decrypted (${errorMessage(error)}); set it again in Settings`);
        return undefined;
      }
    },
    async save(key) {
      if (!encrypted()) {
        logger.warn('The OS offers no encryption here: the LLM API key is kept in memory until the app quits');
        inMemory = key;
        return;
      }
      await writeFileAtomic(file, safeStorage.encryptString(key));
    },
    async clear() {
      inMemory = undefined;
      await rm(file, { force: true });
    },
    async workerData() {
      const apiKey = await vault.read();
      return { ...(apiKey !== undefined ? { apiKey } : {}), keyStorage: encrypted() ? 'encrypted' : 'memory' };
    },
  };
  return vault;
}

/** The engine, with keys that settings:set accepted saved to (or removed from) the vault. */
export function withKeyVault(engine: EngineConnection, vault: KeyVault, logger: Logger): EngineConnection {
  return {
    subscribe: (listener) => engine.subscribe(listener),
    async call(command, request, options) {
      const result = await engine.call(command, request, options);
      if (command === 'settings:set') {
        const apiKey = (request as { apiKey?: string | null }).apiKey;
        try {
          if (typeof apiKey === 'string') await vault.save(apiKey.trim());
          else if (apiKey === null) await vault.clear();
        } catch (error) {
          // The engine has the key for this session; only keeping it across restarts failed.
          logger.warn(`Could not keep the LLM API key: ${errorMessage(error)}`);
        }
      }
      return result;
    },
  };
}
