/**
 * Which extractor a file gets, by its extension; `.h` is decided by its content.
 */
import type { SkeletonLanguage } from './skeleton.js';

export interface LanguageInfo {
  id: SkeletonLanguage;
  /** Name for people: "Python", "C++". */
  display: string;
  /** Grammar file stem: `tree-sitter-${grammar}.wasm`. */
  grammar: string;
  /** npm package that ships the grammar. */
  packageName: string;
}

export const LANGUAGES: Readonly<Record<SkeletonLanguage, LanguageInfo>> = {
  python: { id: 'python', display: 'Python', grammar: 'python', packageName: 'tree-sitter-python' },
  javascript: { id: 'javascript', display: 'JavaScript', grammar: 'javascript', packageName: 'tree-sitter-javascript' },
  typescript: { id: 'typescript', display: 'TypeScript', grammar: 'typescript', packageName: 'tree-sitter-typescript' },
  tsx: { id: 'tsx', display: 'TSX', grammar: 'tsx', packageName: 'tree-sitter-typescript' },
  rust: { id: 'rust', display: 'Rust', grammar: 'rust', packageName: 'tree-sitter-rust' },
  go: { id: 'go', display: 'Go', grammar: 'go', packageName: 'tree-sitter-go' },
  java: { id: 'java', display: 'Java', grammar: 'java', packageName: 'tree-sitter-java' },
  c: { id: 'c', display: 'C', grammar: 'c', packageName: 'tree-sitter-c' },
  cpp: { id: 'cpp', display: 'C++', grammar: 'cpp', packageName: 'tree-sitter-cpp' },
};

const BY_EXTENSION: Readonly<Record<string, SkeletonLanguage>> = {
  '.py': 'python',
  '.pyi': 'python',
  '.js': 'javascript',
  '.jsx': 'javascript',
  '.mjs': 'javascript',
  '.cjs': 'javascript',
  '.ts': 'typescript',
  '.mts': 'typescript',
  '.cts': 'typescript',
  '.tsx': 'tsx',
  '.rs': 'rust',
  '.go': 'go',
  '.java': 'java',
  '.c': 'c',
  '.cc': 'cpp',
  '.cpp': 'cpp',
  '.cxx': 'cpp',
  '.c++': 'cpp',
  '.hpp': 'cpp',
  '.hh': 'cpp',
  '.hxx': 'cpp',
  '.h++': 'cpp',
};

/** Lower-case extension with its dot, or '' (a leading dot alone is a hidden file, not an extension). */
export function extensionOf(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot).toLowerCase() : '';
}

/** Whether `detectLanguage` can give this path an extractor (`.h` always can). */
export function isSkeletonPath(path: string): boolean {
  const ext = extensionOf(path);
  return ext === '.h' || ext in BY_EXTENSION;
}

// Constructs that C cannot contain, looked for outside comments, each anchored so that prose
// and C code (`struct s {`, `extern "C"` guards) do not match.
const CPP_MARKERS = [
  /^\s*(?:template\s*<|namespace\s+\w|using\s+namespace\s|class\s+\w+\s*(?:final\s*)?[:{]|(?:public|private|protected)\s*:)/m,
  /\w::~?\w/,
  /^\s*#\s*include\s*<(?:iostream|string|vector|memory|map|set|unordered_map|functional|algorithm|utility|cstdint|cstddef|cstdio|cstdlib|cstring|type_traits)>/m,
];
// A header's first 64 KiB decide: enough for its declarations, bounded for generated monsters.
const SNIFF_CHARS = 64 * 1024;

/** Decides whether a `.h` file is C++ (templates, namespaces, classes, `::`) or C. */
export function sniffHeader(text: string): 'c' | 'cpp' {
  const code = text
    .slice(0, SNIFF_CHARS)
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .replace(/\/\/[^\n]*/g, ' ')
    .replace(/"(?:[^"\\\n]|\\.)*"/g, '""');
  return CPP_MARKERS.some((re) => re.test(code)) ? 'cpp' : 'c';
}

/**
 * The extractor language for a path, or undefined when none applies.
 *
 * @example
 * detectLanguage('src/app.tsx');                  // 'tsx'
 * detectLanguage('include/graph.h', 'class G {};'); // 'cpp'
 */
export function detectLanguage(path: string, text = ''): SkeletonLanguage | undefined {
  const ext = extensionOf(path);
  if (ext === '.h') return sniffHeader(text);
  return BY_EXTENSION[ext];
}
