/**
 * The one resolver of run-time files: from the sources it finds the lexicon in assets/ and the
 * grammars in node_modules/; inside a packaged app it reads the unpacked copy of a file that
 * electron-builder kept out of app.asar. (The whole packaged layout is proven by
 * test/package/package-check.test.ts.)
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CairnError } from '../../shared/errors.js';
import { assetFile, packageFile, readablePath } from './runtime-files.js';

const resources = join(mkdtempSync(join(tmpdir(), 'cairn-runtime-files-')), 'resources');
afterAll(() => rmSync(join(resources, '..'), { recursive: true, force: true }));

describe('runtime files', () => {
  it('finds the lexicon and a grammar from the sources', () => {
    expect(assetFile('lexicon/wordnet-en.txt', 'The lexicon')).toBe(join(import.meta.dirname, '../../assets/lexicon/wordnet-en.txt'));
    expect(packageFile('tree-sitter-python/tree-sitter-python.wasm')).toBe(join(import.meta.dirname, '../../node_modules/tree-sitter-python/tree-sitter-python.wasm'));
  });

  it('names what is missing and where it looked', () => {
    const missing = (() => {
      try {
        return assetFile('lexicon/nope.txt', 'The lexicon');
      } catch (error) {
        return error;
      }
    })();
    expect(CairnError.is(missing, 'NOT_FOUND')).toBe(true);
    expect((missing as CairnError).message).toMatch(/^The lexicon \(lexicon\/nope\.txt\) is missing from this installation; looked in .*assets\/lexicon\/nope\.txt/);
    // Each place once, and advice for an incomplete installation (cli/errors.ts shows it).
    const candidates = (missing as CairnError).details?.candidates as string[];
    expect(new Set(candidates).size).toBe(candidates.length);
    expect((missing as CairnError).details?.advice).toMatch(/^Reinstall Cairn/);
    expect(() => packageFile('tree-sitter-cobol/tree-sitter-cobol.wasm')).toThrow('tree-sitter-cobol/tree-sitter-cobol.wasm is not installed');
  });

  it('reads the unpacked copy of a file inside app.asar, and the archive for the rest', () => {
    mkdirSync(join(resources, 'app.asar.unpacked/node_modules/tree-sitter-go'), { recursive: true });
    writeFileSync(join(resources, 'app.asar.unpacked/node_modules/tree-sitter-go/tree-sitter-go.wasm'), 'wasm');
    expect(readablePath(join(resources, 'app.asar/node_modules/tree-sitter-go/tree-sitter-go.wasm'))).toBe(join(resources, 'app.asar.unpacked/node_modules/tree-sitter-go/tree-sitter-go.wasm'));
    expect(readablePath(join(resources, 'app.asar/dist-main/lexicon/wordnet-en.txt'))).toBe(join(resources, 'app.asar/dist-main/lexicon/wordnet-en.txt'));
    expect(readablePath('/home/me/cairn/node_modules/x.wasm')).toBe('/home/me/cairn/node_modules/x.wasm');
  });
});
