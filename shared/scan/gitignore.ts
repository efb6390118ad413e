/**
 * `.gitignore` rules with git's own semantics (gitignore(5), wildmatch):
 * - a pattern with a slash at its start or in its middle is relative to the folder of the file
 *   that holds it; one without matches the name at any depth below that folder;
 * - a trailing slash matches folders only; `!` re-includes; the last matching line of a file
 *   wins; a deeper file wins over a shallower one, and `.git/info/exclude` comes last;
 * - `**` spans folders only as `**` + `/`, `/` + `**` + `/` or a trailing `/` + `**`;
 *   `*`, `?` and `[...]` never match a slash.
 *
 * The `ignore` package matches a path together with its parent folders inside one rule set. That
 * cannot express the layering above: with `build/` in the root file and `!build/` in `sub/`,
 * git includes `sub/build/x.txt`, while `ignore` reports it ignored by its parent. The walk
 * never descends into an excluded folder anyway, so here each path is matched on its own, as git
 * does, and the pruning does the rest ("a file cannot be re-included if its folder is excluded").
 */

/** One usable line of an ignore file. */
export interface GitignoreRule {
  /** The line as written, for messages. */
  readonly pattern: string;
  /** Where the line came from, relative to the scan root (`sub/.gitignore`). */
  readonly source: string;
  /** 1-based line number in `source`. */
  readonly line: number;
  readonly negative: boolean;
  readonly dirOnly: boolean;
  /** Matched against the path below the rules' folder rather than against the name alone. */
  readonly anchored: boolean;
  readonly regex: RegExp;
}

/** The rules of one ignore file and the folder they apply to ('' for the scan root). */
export interface GitignoreLevel {
  readonly base: string;
  readonly rules: readonly GitignoreRule[];
}

/** Root-first list of the levels in force in a folder; immutable, shared by siblings. */
export type GitignoreStack = readonly GitignoreLevel[];

/**
 * Parses the text of an ignore file. Lines git would never match (a trailing backslash, an
 * unknown `[:class:]`) are left out, as git leaves them out.
 *
 * @example
 * const rules = parseGitignore('*.log\n!keep.log\nbuild/\n', '.gitignore');
 * matchGitignore([{ base: '', rules }], 'a/debug.log', false); // { ignored: true, rule: { pattern: '*.log', ... } }
 */
export function parseGitignore(text: string, source: string, options: { ignoreCase?: boolean } = {}): GitignoreRule[] {
  const rules: GitignoreRule[] = [];
  const lines = (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).split('\n');
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!;
    if (line.endsWith('\r')) line = line.slice(0, -1);
    if (line === '' || line.startsWith('#')) continue;
    const pattern = trimTrailingSpaces(line);
    let body = pattern;
    const negative = body.startsWith('!');
    if (negative) body = body.slice(1);
    const dirOnly = body.endsWith('/') && !isEscapedAt(body, body.length - 1);
    if (dirOnly) body = body.slice(0, -1);
    const anchored = body.includes('/');
    if (body.startsWith('/')) body = body.slice(1);
    if (body === '') continue;
    const regex = globToRegExp(body, options.ignoreCase ?? false);
    if (regex === null) continue;
    rules.push({ pattern, source, line: i + 1, negative, dirOnly, anchored, regex });
  }
  return rules;
}

export interface GitignoreMatch {
  ignored: boolean;
  /** The deciding line; absent when no line matched. */
  rule?: GitignoreRule;
}

/**
 * Decides one path (relative to the scan root, POSIX) against the levels in force in its folder.
 * Only the path itself is matched: callers must not ask about paths inside an excluded folder.
 */
export function matchGitignore(stack: GitignoreStack, relPath: string, isDir: boolean): GitignoreMatch {
  const slash = relPath.lastIndexOf('/');
  const name = slash < 0 ? relPath : relPath.slice(slash + 1);
  for (let l = stack.length - 1; l >= 0; l--) {
    const level = stack[l]!;
    if (level.base !== '' && !relPath.startsWith(`${level.base}/`)) continue;
    const below = level.base === '' ? relPath : relPath.slice(level.base.length + 1);
    for (let r = level.rules.length - 1; r >= 0; r--) {
      const rule = level.rules[r]!;
      if (rule.dirOnly && !isDir) continue;
      if (rule.regex.test(rule.anchored ? below : name)) return { ignored: !rule.negative, rule };
    }
  }
  return { ignored: false };
}

/** git's trim_trailing_spaces: unescaped trailing spaces go, `\ ` keeps its space. */
function trimTrailingSpaces(line: string): string {
  let lastSpace = -1;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === ' ') {
      if (lastSpace < 0) lastSpace = i;
    } else {
      if (c === '\\') i++;
      lastSpace = -1;
    }
  }
  return lastSpace < 0 ? line : line.slice(0, lastSpace);
}

function isEscapedAt(text: string, index: number): boolean {
  let backslashes = 0;
  for (let i = index - 1; i >= 0 && text[i] === '\\'; i--) backslashes++;
  return backslashes % 2 === 1;
}

const POSIX_CLASSES: Record<string, string> = {
  alnum: 'a-zA-Z0-9',
  alpha: 'a-zA-Z',
  blank: ' \\t',
  cntrl: '\\x00-\\x1f\\x7f',
  digit: '0-9',
  graph: '\\x21-\\x7e',
  lower: 'a-z',
  print: '\\x20-\\x7e',
  punct: '\\x21-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7e',
  space: ' \\t\\n\\r\\f\\v',
  upper: 'A-Z',
  xdigit: '0-9a-fA-F',
};

const REGEX_SYNTAX = new Set(['\\', '^', '$', '.', '|', '?', '*', '+', '(', ')', '[', ']', '{', '}', '/']);

function literal(ch: string): string {
  return REGEX_SYNTAX.has(ch) ? `\\${ch}` : ch;
}

function inClass(ch: string): string {
  return `\\u{${ch.codePointAt(0)!.toString(16)}}`;
}

/** Translates a wildmatch pattern (WM_PATHNAME) into an anchored RegExp; null when git would never match it. */
function globToRegExp(glob: string, ignoreCase: boolean): RegExp | null {
  // Code points, not UTF-16 units: `?` and `[...]` take one character, astral or not.
  const chars = Array.from(glob);
  const n = chars.length;
  let out = '^';
  let i = 0;
  while (i < n) {
    const c = chars[i]!;
    if (c === '\\') {
      if (i + 1 >= n) return null;
      out += literal(chars[i + 1]!);
      i += 2;
    } else if (c === '*') {
      let j = i;
      while (chars[j] === '*') j++;
      const spansFolders = j - i >= 2 && (i === 0 || chars[i - 1] === '/') && (j === n || chars[j] === '/');
      if (!spansFolders) out += '[^/]*';
      else if (j === n) out += '.*';
      else {
        out += '(?:.*/)?';
        j++;
      }
      i = j;
    } else if (c === '?') {
      out += '[^/]';
      i++;
    } else if (c === '[') {
      const parsed = bracket(chars, i);
      if (parsed === 'malformed') return null;
      if (parsed === null) {
        out += '\\[';
        i++;
      } else {
        out += parsed.source;
        i = parsed.end;
      }
    } else {
      out += literal(c);
      i++;
    }
  }
  return new RegExp(`${out}$`, ignoreCase ? 'isu' : 'su');
}

/**
 * A `[...]` expression starting at `start`: null when it never closes (then `[` is literal, as in
 * wildmatch), 'malformed' for an unknown `[:class:]` (wildmatch aborts the whole pattern).
 */
function bracket(chars: string[], start: number): { source: string; end: number } | null | 'malformed' {
  let j = start + 1;
  let negate = false;
  if (chars[j] === '!' || chars[j] === '^') {
    negate = true;
    j++;
  }
  let items = '';
  let first = true;
  for (;;) {
    if (j >= chars.length) return null;
    let ch = chars[j]!;
    if (ch === ']' && !first) break;
    first = false;
    if (ch === '[' && chars[j + 1] === ':') {
      const close = chars.indexOf(':', j + 2);
      if (close >= 0 && chars[close + 1] === ']') {
        const name = chars.slice(j + 2, close).join('');
        const cls = POSIX_CLASSES[name];
        if (cls === undefined) return 'malformed';
        items += cls;
        j = close + 2;
        continue;
      }
    }
    if (ch === '\\') {
      j++;
      if (j >= chars.length) return null;
      ch = chars[j]!;
    }
    if (chars[j + 1] === '-' && j + 2 < chars.length && chars[j + 2] !== ']') {
      let hi = chars[j + 2]!;
      let next = j + 3;
      if (hi === '\\') {
        if (j + 3 >= chars.length) return null;
        hi = chars[j + 3]!;
        next = j + 4;
      }
      // A reversed range matches nothing in wildmatch; a JS class would refuse to compile.
      if (hi.codePointAt(0)! >= ch.codePointAt(0)!) items += `${inClass(ch)}-${inClass(hi)}`;
      j = next;
      continue;
    }
    items += inClass(ch);
    j++;
  }
  // A bracket expression never matches the separator, negated or not.
  const source = negate ? `[^/${items}]` : items === '' ? '(?!)' : `(?!/)[${items}]`;
  return { source, end: j + 1 };
}
