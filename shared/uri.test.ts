import { describe, expect, it } from 'vitest';
import { childUri, isWithinUri, normalizeCtxUri, parentUri, parseCtxUri, uriName } from './uri.js';
import { CairnError } from './errors.js';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return CairnError.is(error) ? error.code : 'not-a-cairn-error';
  }
  return undefined;
}

describe('ctx:// URIs', () => {
  it('parses scope, segments and the directory mark', () => {
    expect(parseCtxUri('ctx://resources/docs/guide.md')).toEqual({ scope: 'resources', segments: ['docs', 'guide.md'], isDir: false });
    expect(parseCtxUri('ctx://user/memories/preference/')).toEqual({ scope: 'user', segments: ['memories', 'preference'], isDir: true });
    expect(parseCtxUri('ctx://agent')).toEqual({ scope: 'agent', segments: [], isDir: true });
  });

  it('normalises scheme case, NFC, dot segments and the scope root', () => {
    expect(normalizeCtxUri('CTX://Resources/a/./b.md')).toBe('ctx://resources/a/b.md');
    expect(normalizeCtxUri('ctx://resources')).toBe('ctx://resources/');
    const decomposed = 'ctx://resources/cafe\u0301.md';
    expect(normalizeCtxUri(decomposed)).toBe('ctx://resources/caf\u00e9.md');
    expect(normalizeCtxUri('ctx://resources/文档/说明.md')).toBe('ctx://resources/文档/说明.md');
  });

  it.each([
    ['ctx://resources/../etc/passwd', 'PATH_ESCAPE'],
    ['ctx://resources/a/../../b', 'PATH_ESCAPE'],
    ['ctx://resources//etc/passwd', 'PATH_ESCAPE'],
    ['ctx://resources/a\0b', 'PATH_ESCAPE'],
    ['ctx://resources/a%2f..%2fb', 'PATH_ESCAPE'],
    ['ctx://resources/%2e%2e/x', 'PATH_ESCAPE'],
    ['ctx://resources/a%5Cb', 'PATH_ESCAPE'],
    ['ctx://resources/..\\..\\x', 'PATH_ESCAPE'],
    ['ctx://resources/C:/Windows', 'PATH_ESCAPE'],
    ['ctx://resources/c:foo', 'PATH_ESCAPE'],
    ['ctx:///etc/passwd', 'INVALID_URI'],
    ['ctx://etc/passwd', 'INVALID_URI'],
    ['/etc/passwd', 'INVALID_URI'],
    ['file:///etc/passwd', 'INVALID_URI'],
  ])('rejects %s with %s', (input, code) => {
    expect(codeOf(() => parseCtxUri(input))).toBe(code);
  });

  it('walks parents and children', () => {
    expect(parentUri('ctx://resources/a/b.md')).toBe('ctx://resources/a/');
    expect(parentUri('ctx://resources/a/')).toBe('ctx://resources/');
    expect(parentUri('ctx://resources/')).toBeNull();
    expect(childUri('ctx://resources/a/', 'b', true)).toBe('ctx://resources/a/b/');
    expect(codeOf(() => childUri('ctx://resources/a/', '..', true))).toBe('PATH_ESCAPE');
    expect(uriName('ctx://resources/a/b.md')).toBe('b.md');
  });

  it('tells containment by segments, not by string prefix', () => {
    expect(isWithinUri('ctx://resources/a/', 'ctx://resources/a/b.md')).toBe(true);
    expect(isWithinUri('ctx://resources/a/', 'ctx://resources/ab/c.md')).toBe(false);
    expect(isWithinUri('ctx://resources/a/', 'ctx://user/a/c.md')).toBe(false);
  });
});
