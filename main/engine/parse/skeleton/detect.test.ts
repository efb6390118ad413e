import { describe, expect, it } from 'vitest';
import { detectLanguage, extensionOf, isSkeletonPath, sniffHeader } from './detect.js';

describe('detectLanguage', () => {
  it('maps every supported extension', () => {
    const cases: Record<string, string> = {
      'a.py': 'python',
      'a.pyi': 'python',
      'a.js': 'javascript',
      'a.jsx': 'javascript',
      'a.mjs': 'javascript',
      'a.cjs': 'javascript',
      'a.ts': 'typescript',
      'a.mts': 'typescript',
      'a.cts': 'typescript',
      'a.d.ts': 'typescript',
      'a.tsx': 'tsx',
      'a.rs': 'rust',
      'a.go': 'go',
      'A.java': 'java',
      'a.c': 'c',
      'a.cc': 'cpp',
      'a.cpp': 'cpp',
      'a.cxx': 'cpp',
      'a.hpp': 'cpp',
      'a.hh': 'cpp',
      'a.hxx': 'cpp',
      'SRC/Main.PY': 'python',
    };
    for (const [path, language] of Object.entries(cases)) expect([path, detectLanguage(path)]).toEqual([path, language]);
  });

  it('has no extractor for other files', () => {
    for (const path of ['README.md', 'a.rb', 'Makefile', '.py', 'dir.py/file', 'a.json']) {
      expect(detectLanguage(path)).toBeUndefined();
      expect(isSkeletonPath(path)).toBe(false);
    }
    expect(isSkeletonPath('x/y.h')).toBe(true);
  });

  it('decides .h by content', () => {
    expect(detectLanguage('ring.h', '#include <stdint.h>\ntypedef struct ring { int n; } ring_t;\nvoid ring_init(ring_t *r);\n')).toBe('c');
    expect(detectLanguage('graph.h', 'namespace geo {\nclass Graph {\n public:\n  Graph();\n};\n}\n')).toBe('cpp');
    expect(sniffHeader('template <typename T> T max(T a, T b);')).toBe('cpp');
    expect(sniffHeader('int f(void) { return std::max(1, 2); }')).toBe('cpp');
    expect(sniffHeader('#include <vector>\n')).toBe('cpp');
    expect(sniffHeader('class Foo : public Bar {};')).toBe('cpp');
  });

  it('is not fooled by C++ words in comments, strings or C idioms', () => {
    const c = [
      '/* This class of functions uses a namespace-like prefix: ring::push in C++ terms. */',
      '// template<typename T> is not used here',
      'static const char *usage = "usage: ring::push";',
      '#ifdef __cplusplus',
      'extern "C" {',
      '#endif',
      'struct ring { int len; };',
      '#ifdef __cplusplus',
      '}',
      '#endif',
    ].join('\n');
    expect(sniffHeader(c)).toBe('c');
  });

  it('takes the extension of the last path segment', () => {
    expect(extensionOf('a/b.c/d')).toBe('');
    expect(extensionOf('a/b/.hidden')).toBe('');
    expect(extensionOf('a/b/file.TSX')).toBe('.tsx');
  });
});
