import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CairnError } from '../../shared/errors.js';
import { configureGrammars, extractSkeleton, summarizeCode } from '../../main/engine/parse/skeleton/index.js';

// configureGrammars points loading at a folder of .wasm files instead of the installed packages:
// one with the runtime and some grammars. Vitest runs each test file in its own process, so the
// configuration made here does not reach other files.
const require = createRequire(import.meta.url);
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cairn-grammars-'));
  await copyFile(require.resolve('web-tree-sitter/web-tree-sitter.wasm'), join(dir, 'web-tree-sitter.wasm'));
  await copyFile(require.resolve('tree-sitter-python/tree-sitter-python.wasm'), join(dir, 'tree-sitter-python.wasm'));
  configureGrammars({ dir });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('configureGrammars', () => {
  it('loads the runtime and grammars from the configured folder', async () => {
    const { skeleton } = await extractSkeleton('a.py', 'def f(x):\n    return x\n', 'python');
    expect(skeleton.functions.map((f) => f.name)).toEqual(['f']);
  });

  it('fails with NOT_FOUND for a grammar the folder lacks', async () => {
    const error = await extractSkeleton('a.go', 'package a\n', 'go').catch((e: unknown) => e);
    expect(CairnError.is(error, 'NOT_FOUND')).toBe(true);
    expect((error as CairnError).message).toContain(join(dir, 'tree-sitter-go.wasm'));
  });

  it('never throws out of summarizeCode: a missing grammar becomes the reason', async () => {
    const text = 'package a\n\nfunc F() {}\n'.repeat(40);
    const result = await summarizeCode({ relPath: 'a.go', text, mode: 'ast' });
    expect(result).toMatchObject({ language: 'go', fallback: 'parse-error' });
    expect(result.summaryOwed).toMatch(/^parse error: cannot read grammar file .*tree-sitter-go\.wasm/);
  });

  it('finds a grammar added to the folder later (a failed load is not cached)', async () => {
    await copyFile(require.resolve('tree-sitter-go/tree-sitter-go.wasm'), join(dir, 'tree-sitter-go.wasm'));
    const { skeleton } = await extractSkeleton('a.go', 'package a\n\nfunc F() {}\n', 'go');
    expect(skeleton.functions.map((f) => f.name)).toEqual(['F']);
  });
});
