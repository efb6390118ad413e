import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HeldRoots } from './held-roots.js';
import type { Logger } from '../ports/logger.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cairn-held-'));
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, debug() {}, info() {}, warn: (message: string) => void warnings.push(message), error() {} };
}

describe('HeldRoots', () => {
  it('keeps what was added and not yet released across reopening', async () => {
    const file = join(dir, 'held-roots.json');
    const held = await HeldRoots.open(file, recordingLogger());
    await held.add('ctx://resources/docs/');
    await held.add('ctx://resources/notes/');
    await held.delete('ctx://resources/notes/');
    const again = await HeldRoots.open(file, recordingLogger());
    expect(again.has('ctx://resources/docs/')).toBe(true);
    expect(again.has('ctx://resources/notes/')).toBe(false);
    expect(again.size).toBe(1);
    await again.clear();
    expect((await HeldRoots.open(file, recordingLogger())).size).toBe(0);
  });

  it('holds nothing, and says why, when its file is unreadable', async () => {
    const file = join(dir, 'held-roots.json');
    await writeFile(file, '{ not json');
    const logger = recordingLogger();
    const held = await HeldRoots.open(file, logger);
    expect(held.size).toBe(0);
    expect(logger.warnings.join('\n')).toMatch(/held-roots\.json/);
    // The next change rewrites it whole.
    await held.add('ctx://resources/docs/');
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ version: 1, roots: ['ctx://resources/docs/'] });
  });
});
