/**
 * Loads the tree-sitter runtime and grammars lazily, once per thread. Each worker thread has its
 * own module instance, hence its own wasm heap: the caches below are per thread by construction.
 *
 * Bytes are read from disk and handed over (`wasmBinary`, `Language.load(bytes)`) rather than
 * letting emscripten locate files, which is what works inside bundles, asar archives and workers.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Language, Parser, type Tree } from 'web-tree-sitter';
import { CairnError, errorMessage } from '../../../../shared/errors.js';
import { packageFile } from '../../../lib/runtime-files.js';
import { LANGUAGES } from './detect.js';
import type { SkeletonLanguage } from './skeleton.js';

const RUNTIME_FILE = 'web-tree-sitter.wasm';

let grammarDir: string | undefined;
let runtime: Promise<void> | undefined;
let parser: Parser | undefined;
const languages = new Map<string, Promise<Language>>();

export interface GrammarOptions {
  /**
   * A folder holding `web-tree-sitter.wasm` and `tree-sitter-<grammar>.wasm` files, instead of the
   * installed packages. Unset (the CLI, the app): the files of the npm packages, which are runtime
   * dependencies (main/lib/runtime-files.ts finds them in every layout, a packaged app included).
   */
  dir?: string;
}

/**
 * Points grammar loading at a folder of `.wasm` files. Call it before the first extraction in
 * each thread; grammars loaded afterwards come from the new folder. The runtime itself can only
 * be initialised once per thread, so it stays the one already loaded.
 *
 * @example
 * configureGrammars({ dir: '/opt/grammars' });
 */
export function configureGrammars(options: GrammarOptions): void {
  if (options.dir !== grammarDir) languages.clear();
  grammarDir = options.dir;
}

function resolveFile(packageName: string, file: string): string {
  return grammarDir !== undefined ? join(grammarDir, file) : packageFile(`${packageName}/${file}`);
}

async function readWasm(packageName: string, file: string): Promise<Uint8Array> {
  const path = resolveFile(packageName, file);
  try {
    return await readFile(path);
  } catch (cause) {
    throw new CairnError('NOT_FOUND', `cannot read grammar file ${path}: ${errorMessage(cause)}`, { cause, details: { path } });
  }
}

function initRuntime(): Promise<void> {
  runtime ??= (async () => {
    const bytes = await readWasm('web-tree-sitter', RUNTIME_FILE);
    // emscripten types `wasmBinary` as an ArrayBuffer; hand it exactly the file's bytes.
    const wasmBinary = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    await Parser.init({ wasmBinary });
  })().catch((error: unknown) => {
    runtime = undefined; // let a later call retry, e.g. after configureGrammars fixed the folder
    throw error;
  });
  return runtime;
}

/** The grammar of a language, loaded on first use and kept for the life of the thread. */
export function loadGrammar(language: SkeletonLanguage): Promise<Language> {
  const info = LANGUAGES[language];
  let pending = languages.get(info.grammar);
  if (!pending) {
    pending = (async () => {
      await initRuntime();
      const bytes = await readWasm(info.packageName, `tree-sitter-${info.grammar}.wasm`);
      try {
        return await Language.load(bytes);
      } catch (cause) {
        throw new CairnError('PARSE_FAILED', `cannot load the ${info.display} grammar: ${errorMessage(cause)}`, { cause });
      }
    })();
    pending.catch(() => languages.delete(info.grammar));
    languages.set(info.grammar, pending);
  }
  return pending;
}

/**
 * Parses `text` with a loaded grammar. Synchronous on purpose: one parser serves every language
 * of the thread, and nothing can switch its language between `setLanguage` and `parse`.
 * The caller owns the tree and must `delete()` it: wasm memory is not garbage-collected.
 */
export function parseWith(grammar: Language, text: string): Tree {
  parser ??= new Parser();
  parser.setLanguage(grammar);
  const tree = parser.parse(text);
  if (!tree) throw new CairnError('PARSE_FAILED', 'tree-sitter returned no tree');
  return tree;
}
