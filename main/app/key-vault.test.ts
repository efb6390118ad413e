/**
 * The desktop app's API key: encrypted by the OS (safeStorage, here a stand-in that really
 * transforms the bytes) into one file, read back at start for the engine worker, saved or
 * forgotten when settings:set succeeds, and never written in plain text.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CairnError } from '../../shared/errors.js';
import type { EngineConnection } from '../host/engine-connection.js';
import { silentLogger } from '../engine/ports/logger.js';
import { createKeyVault, withKeyVault, type SafeStorageLike } from './key-vault.js';

const KEY = 'sk-vault-test-a1b2c3d4e5f6';
let dir: string;

/** XOR with a fixed pad and a marker: not plain text, and reversible only through this object. */
function fakeSafeStorage(available = true): SafeStorageLike {
  const pad = (bytes: Buffer) => Buffer.from(bytes.map((b, i) => b ^ (0x5a + (i % 7))));
  return {
    isEncryptionAvailable: () => available,
    encryptString: (text) => Buffer.concat([Buffer.from('ENC1'), pad(Buffer.from(text, 'utf8'))]),
    decryptString: (bytes) => {
      if (bytes.subarray(0, 4).toString() !== 'ENC1') throw new Error('not encrypted by this machine');
      return pad(bytes.subarray(4)).toString('utf8');
    },
  };
}

function fakeEngine(fail = false): EngineConnection & { calls: unknown[] } {
  const calls: unknown[] = [];
  return {
    calls,
    subscribe: () => () => {},
    call: vi.fn(async (command: string, request: unknown) => {
      calls.push({ command, request });
      if (fail) throw new CairnError('INVALID_INPUT', 'Invalid settings');
      return { llm: {}, apiKey: { set: true, last4: null, storage: 'encrypted' }, summarizer: 'llm' };
    }) as unknown as EngineConnection['call'],
  };
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cairn-vault-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the key vault', () => {
  it('keeps the key encrypted across restarts and hands it to the worker', async () => {
    const file = join(dir, 'llm-key.bin');
    const vault = createKeyVault({ safeStorage: fakeSafeStorage(), file, logger: silentLogger });
    expect(await vault.workerData()).toEqual({ keyStorage: 'encrypted' });
    await vault.save(KEY);
    const bytes = await readFile(file);
    expect(bytes.toString('latin1')).not.toContain(KEY);
    expect(bytes.toString('latin1')).not.toContain('sk-');
    const restarted = createKeyVault({ safeStorage: fakeSafeStorage(), file, logger: silentLogger });
    expect(await restarted.workerData()).toEqual({ apiKey: KEY, keyStorage: 'encrypted' });
    await restarted.clear();
    await expect(stat(file)).rejects.toThrow(/ENOENT/);
  });

  it('writes nothing when the OS cannot encrypt, and keeps the key in memory for a restarted engine', async () => {
    const file = join(dir, 'llm-key.bin');
    const vault = createKeyVault({ safeStorage: fakeSafeStorage(false), file, logger: silentLogger });
    expect(await vault.workerData()).toEqual({ keyStorage: 'memory' });
    await vault.save(KEY);
    await expect(stat(file)).rejects.toThrow(/ENOENT/);
    // An engine worker started again after a crash gets the key the first one was given.
    expect(await vault.workerData()).toEqual({ apiKey: KEY, keyStorage: 'memory' });
    await vault.clear();
    expect(await vault.workerData()).toEqual({ keyStorage: 'memory' });
  });

  it('saves a key only once the engine accepted settings:set, and forgets it on apiKey: null', async () => {
    const file = join(dir, 'llm-key.bin');
    const vault = createKeyVault({ safeStorage: fakeSafeStorage(), file, logger: silentLogger });
    const refused = withKeyVault(fakeEngine(true), vault, silentLogger);
    await expect(refused.call('settings:set', { llm: { maxConcurrent: 99 }, apiKey: KEY })).rejects.toThrow(/Invalid settings/);
    await expect(stat(file)).rejects.toThrow(/ENOENT/);

    const engine = fakeEngine();
    const wrapped = withKeyVault(engine, vault, silentLogger);
    await wrapped.call('settings:set', { apiKey: KEY });
    expect(await vault.read()).toBe(KEY);
    // The engine got the key too: it is the one that uses it.
    expect(engine.calls).toEqual([{ command: 'settings:set', request: { apiKey: KEY } }]);
    await wrapped.call('settings:set', { llm: { model: 'x' } });
    expect(await vault.read()).toBe(KEY);
    await wrapped.call('settings:set', { apiKey: null });
    expect(await vault.read()).toBeUndefined();
  });
});
