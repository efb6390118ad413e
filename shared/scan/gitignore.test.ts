import { describe, expect, it } from 'vitest';
import { matchGitignore, parseGitignore, type GitignoreStack } from './gitignore.js';

const level = (base: string, text: string) => ({ base, rules: parseGitignore(text, base ? `${base}/.gitignore` : '.gitignore') });
const ignored = (stack: GitignoreStack, path: string, isDir = false) => matchGitignore(stack, path, isDir).ignored;

describe('parseGitignore', () => {
  it('skips comments and blank lines, keeps escaped # and !, and trims unescaped trailing spaces', () => {
    const rules = parseGitignore('\uFEFF# comment\n\n\\#hash\n\\!bang\r\nspace\\ \ntrail   \n!\n/\n', '.gitignore');
    expect(rules.map((r) => [r.pattern, r.line, r.negative])).toEqual([
      ['\\#hash', 3, false],
      ['\\!bang', 4, false],
      ['space\\ ', 5, false],
      ['trail', 6, false],
    ]);
    const stack = [{ base: '', rules }];
    expect(ignored(stack, '#hash')).toBe(true);
    expect(ignored(stack, '!bang')).toBe(true);
    expect(ignored(stack, 'space ')).toBe(true);
    expect(ignored(stack, 'space')).toBe(false);
    expect(ignored(stack, 'trail')).toBe(true);
  });

  it('drops lines git can never match', () => {
    expect(parseGitignore('bad\\\n[[:nope:]]x\n', '.gitignore')).toEqual([]);
  });
});

describe('matchGitignore', () => {
  it('matches a slash-free pattern by name at any depth, an anchored one from its own folder', () => {
    const stack = [level('', '*.log\n/top.txt\ndocs/*.md\n')];
    expect(ignored(stack, 'a.log')).toBe(true);
    expect(ignored(stack, 'x/y/a.log')).toBe(true);
    expect(ignored(stack, 'top.txt')).toBe(true);
    expect(ignored(stack, 'x/top.txt')).toBe(false);
    expect(ignored(stack, 'docs/a.md')).toBe(true);
    expect(ignored(stack, 'docs/x/a.md')).toBe(false);
    expect(ignored(stack, 'x/docs/a.md')).toBe(false);
  });

  it('keeps directory-only rules to directories', () => {
    const stack = [level('', 'node_modules/\nlogs/\n')];
    expect(ignored(stack, 'node_modules', true)).toBe(true);
    expect(ignored(stack, 'a/node_modules', true)).toBe(true);
    expect(ignored(stack, 'logs', false)).toBe(false);
    expect(ignored(stack, 'logs', true)).toBe(true);
  });

  it('lets the last matching line win, and a deeper file win over a shallower one', () => {
    const stack = [level('', '*.md\n!README.md\nbuild/\n'), level('sub', '!build/\nREADME.md\n')];
    expect(ignored(stack, 'notes.md')).toBe(true);
    expect(ignored(stack, 'README.md')).toBe(false);
    expect(ignored(stack, 'sub/README.md')).toBe(true);
    expect(ignored(stack, 'build', true)).toBe(true);
    expect(ignored(stack, 'sub/build', true)).toBe(false);
    // Matched on its own path, as git does: the root file's `build/` is about folders, not this file.
    expect(ignored(stack, 'sub/build/x.txt')).toBe(false);
    expect(matchGitignore(stack, 'sub/README.md', false).rule).toMatchObject({ pattern: 'README.md', source: 'sub/.gitignore', line: 2 });
  });

  it('reads a rule in a sub-folder relative to that folder', () => {
    const stack = [level('', ''), level('sub', '/local.txt\nnested/*.txt\n')];
    expect(ignored(stack, 'sub/local.txt')).toBe(true);
    expect(ignored(stack, 'sub/q/local.txt')).toBe(false);
    expect(ignored(stack, 'sub/nested/n.txt')).toBe(true);
    expect(ignored(stack, 'sub/nested/deeper/n.txt')).toBe(false);
  });

  it('spans folders only with a double star next to slashes', () => {
    const stack = [level('', '**/cache\ndocs/**/*.tmp\nout/**\na**b\n')];
    expect(ignored(stack, 'cache', true)).toBe(true);
    expect(ignored(stack, 'x/y/cache', true)).toBe(true);
    expect(ignored(stack, 'docs/a.tmp')).toBe(true);
    expect(ignored(stack, 'docs/x/y/a.tmp')).toBe(true);
    expect(ignored(stack, 'out', true)).toBe(false);
    expect(ignored(stack, 'out/x/y.txt')).toBe(true);
    expect(ignored(stack, 'aXXb')).toBe(true);
    expect(ignored(stack, 'a/b')).toBe(false);
  });

  it('handles ?, bracket expressions, classes and special characters', () => {
    const stack = [level('', '?.c\n[abc]x\n[!a-c]y\n[[:digit:]]z\n[]]w\n*.(1)\nname with spaces.txt\n')];
    expect(ignored(stack, 'a.c')).toBe(true);
    expect(ignored(stack, 'ab.c')).toBe(false);
    expect(ignored(stack, 'bx')).toBe(true);
    expect(ignored(stack, 'dx')).toBe(false);
    expect(ignored(stack, 'dy')).toBe(true);
    expect(ignored(stack, 'ay')).toBe(false);
    expect(ignored(stack, '7z')).toBe(true);
    expect(ignored(stack, ']w')).toBe(true);
    expect(ignored(stack, 'a.(1)')).toBe(true);
    expect(ignored(stack, 'name with spaces.txt')).toBe(true);
  });

  it('matches names with newlines and non-ASCII characters', () => {
    const stack = [level('', 'line*\n?.md\n')];
    expect(ignored(stack, 'line\nbreak')).toBe(true);
    expect(ignored(stack, '😀.md')).toBe(true);
    expect(ignored(stack, 'é.md')).toBe(true);
  });

  it('is case-sensitive unless told otherwise', () => {
    expect(ignored([level('', '*.LOG\n')], 'a.log')).toBe(false);
    expect(matchGitignore([{ base: '', rules: parseGitignore('*.LOG\n', '.gitignore', { ignoreCase: true }) }], 'a.log', false).ignored).toBe(true);
  });
});
