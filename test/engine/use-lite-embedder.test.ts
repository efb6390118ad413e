// The USE lite packages are not dependencies (tried, not adopted: bench/RESULTS.md), so these
// tests cover what runs without them: which texts go to the lexicon embedder, and the one-line
// error when the packages are not where the caller said.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CairnError } from '../../shared/errors.js';
import { createLocalEmbedder } from '../../main/adapters/embed/local.js';
import { cjkShare, createUseLiteEmbedder } from '../../bench/lib/use-lite-embedder.js';

const empty = mkdtempSync(join(tmpdir(), 'cairn-use-lite-'));
afterAll(() => rmSync(empty, { recursive: true, force: true }));

describe('USE lite embedder', () => {
  it('measures how much of a text is CJK', () => {
    expect(cjkShare('storm review on Friday')).toBe(0);
    expect(cjkShare('暴风雨复盘')).toBe(1);
    expect(cjkShare('周五 storm review 复盘')).toBeGreaterThan(0.2);
    expect(cjkShare('  ... ')).toBe(0);
  });

  it('embeds Chinese texts with the lexicon embedder, without loading the English model', async () => {
    // The packages folder is empty: any English text would fail to load the model.
    const embedder = createUseLiteEmbedder({ packagesDir: empty });
    const texts = ['暴风雨复盘定在周五', '我上个月把银行的工作辞了。'];
    const { vectors } = await embedder.embed({ texts });
    const { vectors: lexicon } = await createLocalEmbedder({ dimensions: 512 }).embed({ texts });
    expect(vectors.map((v) => Array.from(v))).toEqual(lexicon.map((v) => Array.from(v)));
    expect(embedder.dimensions).toBe(512);
    // The fallback's version is in the id: a lexicon change makes the Chinese vectors stale.
    expect(embedder.modelId).toBe('use-lite-en-0.2.0+cairn-local-hash-v2.1-512');
  });

  it('fails in one line naming the folder when the packages are missing', async () => {
    const embedder = createUseLiteEmbedder({ packagesDir: empty });
    const error = await embedder.embed({ texts: ['storm review'] }).catch((e: unknown) => e);
    expect(CairnError.is(error) && error.code).toBe('EMBED_FAILED');
    expect((error as Error).message).toContain(`Cannot load USE lite from ${empty}`);
    expect((error as Error).message).not.toContain('\n');
  });
});
