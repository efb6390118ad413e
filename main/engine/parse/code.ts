/**
 * Source code: one node per file, never split (a function cut in half helps no one); the summary
 * comes from the tree-sitter skeleton where the mode and the language allow it.
 */
import { decodeText } from './encoding.js';
import { fileName } from './parsed-document.js';
import { summarizeCode } from './skeleton/index.js';
import { LineIndex } from './split.js';
import { countTokens } from '../../lib/tokens.js';
import type { ParsedFile, Parser } from './types.js';

/** Extensions of source and configuration files. */
export const CODE_EXTENSIONS = [
  // The languages with tree-sitter skeletons (docs/SPEC.md#code-skeletons).
  '.py', '.pyi', '.pyw', '.js', '.jsx', '.mjs', '.cjs', '.ts', '.tsx', '.mts', '.cts', '.rs', '.go', '.java',
  '.c', '.h', '.cc', '.cpp', '.cxx', '.c++', '.hpp', '.hh', '.hxx', '.h++', '.ipp', '.inl',
  // Other languages.
  '.rb', '.php', '.cs', '.fs', '.fsx', '.vb', '.kt', '.kts', '.swift', '.scala', '.sc', '.groovy', '.gradle',
  '.dart', '.lua', '.pl', '.pm', '.r', '.jl', '.m', '.mm', '.ex', '.exs', '.erl', '.hrl', '.hs', '.elm',
  '.clj', '.cljs', '.cljc', '.edn', '.ml', '.mli', '.nim', '.zig', '.v', '.sv', '.vhd', '.vhdl', '.asm', '.s',
  '.f90', '.f95', '.for', '.pas', '.ada', '.adb', '.ads', '.cob', '.lisp', '.el', '.scm', '.rkt', '.tcl',
  '.sol', '.move', '.cairo', '.wat', '.vue', '.svelte', '.astro',
  // Shells and build files.
  '.sh', '.bash', '.zsh', '.fish', '.ksh', '.ps1', '.psm1', '.bat', '.cmd', '.mk', '.cmake', '.dockerfile', '.nix', '.bzl',
  // Data, configuration, markup and styles.
  '.sql', '.graphql', '.gql', '.proto', '.thrift', '.json', '.jsonc', '.json5', '.jsonl', '.ndjson', '.yaml', '.yml',
  '.toml', '.ini', '.cfg', '.conf', '.properties', '.env', '.xml', '.xsd', '.xsl', '.svg', '.plist', '.tf', '.hcl',
  '.css', '.scss', '.sass', '.less', '.styl', '.ipynb',
] as const;

/** File names without an extension that are code. */
export const CODE_FILE_NAMES = new Set([
  'makefile', 'gnumakefile', 'dockerfile', 'containerfile', 'rakefile', 'gemfile', 'podfile', 'vagrantfile', 'jenkinsfile',
  'justfile', 'procfile', 'brewfile', 'cmakelists.txt', 'build', 'workspace', 'meson.build',
]);

/**
 * @example
 * const parsed = await codeParser.parse({ path, relPath: 'src/station.py', bytes, split, codeSummaryMode: 'ast' });
 * parsed.language // 'python'; parsed.summary holds the skeleton for files of 100 lines or more
 */
export const codeParser: Parser = {
  name: 'code',
  format: 'code',
  extensions: CODE_EXTENSIONS,
  async parse(input): Promise<ParsedFile> {
    const { text, warning } = decodeText(input.bytes, input.relPath);
    const tokens = countTokens(text);
    const summary = await summarizeCode({ relPath: input.relPath, text, mode: input.codeSummaryMode });
    const lines = new LineIndex(text).range(0, text.length);
    return {
      node: { kind: 'file', name: fileName(input.relPath), content: text, meta: { tokens, lines } },
      parserName: 'code',
      sourceFormat: 'code',
      ...(summary.language ? { language: summary.language } : {}),
      tokens,
      parseMs: 0,
      warnings: warning ? [warning] : [],
      ...(summary.summary ? { summary: summary.summary } : {}),
      ...(summary.summaryOwed ? { summaryOwed: summary.summaryOwed } : {}),
      ...(summary.skeletonText ? { skeletonText: summary.skeletonText } : {}),
    };
  },
};
