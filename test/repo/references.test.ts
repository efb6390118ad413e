/**
 * The repository explains itself (CONTRIBUTING.md, "Code rules"): every document a comment or a
 * Markdown file points at is in the repository, and so is every heading it names; no path climbs
 * out of the repository; nothing cites the planning or specification documents that live outside
 * it (docs/SPEC.md and docs/ARCHITECTURE.md say those things here). And source files stay short
 * enough to read, unless they say why not.
 *
 * What is read: the tracked and new files (`git ls-files`), without dependencies, fixtures and
 * lock files. Markdown is read whole; in source files only comments are read. String literals in
 * code, and paths quoted in a comment (`parserFor('docs/guide.md')` in an example), are data such
 * as the files a test creates, not references. A reference is resolved from the repository root
 * or from the referencing file's folder, the two ways people write them.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

const MAX_LINES = 700;
/** A comment line starting with `Long file:` and a reason, within a file's first lines. */
const LONG_FILE_MARKER = /^\s*(?:\/\/+|\/?\*+)\s*Long file:\s*\S/;
const MARKER_LINES = 10;
const LONG_CHECKED = /^(main|shared|renderer|test|bench|scripts)\/.*\.(ts|tsx|mjs|css)$/;

const SKIPPED = [/^node_modules\//, /^test\/fixtures\//, /(^|\/)package-lock\.json$/];
const SCRIPT = new Set(['.ts', '.tsx', '.js', '.mjs', '.cjs', '.css']);
const HASH_COMMENTS = new Set(['.yml', '.yaml', '.sh', '']);

function repositoryFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' });
  return [...new Set(out.split('\0'))]
    .filter((path) => path && !SKIPPED.some((rule) => rule.test(path)))
    .filter((path) => existsSync(join(ROOT, path)) && statSync(join(ROOT, path)).isFile())
    .sort();
}

interface Line {
  n: number;
  text: string;
}

/** The prose of a file: all of a Markdown file, the comments of a script, `#` lines elsewhere. */
function proseLines(path: string, content: string): Line[] {
  const lines = content.split('\n');
  const ext = extname(path);
  if (ext === '.md') return lines.map((text, i) => ({ n: i + 1, text }));
  const out: Line[] = [];
  if (SCRIPT.has(ext)) {
    let inBlock = false;
    lines.forEach((line, i) => {
      const trimmed = line.trim();
      if (inBlock) {
        out.push({ n: i + 1, text: line });
        inBlock = !line.includes('*/');
        return;
      }
      if (trimmed.startsWith('/*')) {
        out.push({ n: i + 1, text: line });
        inBlock = !trimmed.slice(2).includes('*/');
        return;
      }
      if (trimmed.startsWith('//') || trimmed.startsWith('*')) return void out.push({ n: i + 1, text: line });
      const trailing = /\s\/\/\s(.*)$/.exec(line);
      if (trailing) out.push({ n: i + 1, text: trailing[1]! });
    });
    return out;
  }
  if (HASH_COMMENTS.has(ext) || path.endsWith('.gitignore')) {
    lines.forEach((line, i) => {
      if (line.trim().startsWith('#')) out.push({ n: i + 1, text: line });
    });
  }
  return out;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function headingSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a Markdown text's headings (outside code fences), duplicates numbered as GitHub does. */
function anchorsIn(content: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of content.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = !fenced && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const slug = headingSlug(heading[1]!);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

const anchorsCache = new Map<string, Set<string>>();
function anchorsOf(file: string): Set<string> {
  let anchors = anchorsCache.get(file);
  if (!anchors) anchorsCache.set(file, (anchors = anchorsIn(readFileSync(file, 'utf8'))));
  return anchors;
}

const inside = (absolute: string) => absolute === ROOT || absolute.startsWith(ROOT + sep);
const besideRoot = (absolute: string) => !inside(absolute) && absolute.startsWith(dirname(ROOT) + sep);

/** Where a reference points, from the referencing file's folder first, then the root; null: nowhere. */
function resolveReference(from: string, target: string): string | null {
  for (const base of [dirname(join(ROOT, from)), ROOT]) {
    const absolute = resolve(base, target);
    if (inside(absolute) && existsSync(absolute)) return absolute;
  }
  return null;
}

/** Paths that name a document: an upper-case name ending in .md (README.md, docs/STATUS.md), or anything under docs/. */
const DOCUMENT = /(?<![\w./@{<$-])((?:\.\.?\/)*(?:[\w.-]+\/)*[A-Z][A-Z0-9_-]*\.md|(?:\.\.?\/)*docs\/[\w./-]*[\w-])(#[\w-]+)?/g;
/**
 * Relative paths that climb (`../x`) must not leave the repository for the folder around it,
 * where documents kept beside a checkout would be: such a link is broken for everyone who clones
 * the repository. (A path that climbs further, such as an attack on `/etc/passwd` described in a
 * test, names no document.)
 */
const CLIMBING = /(?<![\w./@-])((?:\.\.\/)+[\w./-]*[\w-])/g;
/** In Markdown, a source path in backticks (`main/engine/engine.ts`): documents name real files. */
const SOURCE_PATH = /`((?:main|shared|renderer|test|bench|scripts|assets|stubs|docs|\.ci)\/[^`\s]*[^`\s.,:;])`/g;
/** Folders the build and the tests write (the .gitignore's folder entries): named in docs, never tracked. */
const GENERATED = readFileSync(join(ROOT, '.gitignore'), 'utf8')
  .split('\n')
  .map((line) => line.trim().replace(/^\//, ''))
  .filter((line) => line.endsWith('/') && !line.startsWith('#'));
/** Markdown links with a relative target: `[text](target)`. */
const LINK = /\]\(([^)\s]+)\)/g;
/** Citations of documents that are not in the repository. */
const OUTSIDE = [
  { pattern: /\bseeds?\s+0\d\d\b|\bseeds\/0\d\d/i, what: 'a specification document by number (say what it requires, or point at docs/SPEC.md#…)' },
  { pattern: /\b(?:DESIGN|STACK|STYLE)(?:\.md)?[\s,]*(?:§|sections?|gotcha|rule)?\s*\d/, what: 'a numbered section of a planning document (point at a heading in docs/ instead)' },
];

/** Upper-case Markdown names that stand for a kind of file, not a document of this repository (a skill's SKILL.md). */
const FILE_KINDS = new Set(['SKILL.md']);

const quoted = (text: string, start: number, end: number) => {
  const before = text[start - 1];
  return (before === "'" || before === '"') && text[end] === before;
};

function checkReference(problems: string[], where: string, file: string, target: string, anchor: string | undefined): void {
  const resolved = resolveReference(file, target);
  if (!resolved) return void problems.push(`${where}: ${target} is not in the repository`);
  if (anchor && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor.slice(1))) {
    problems.push(`${where}: ${relative(ROOT, resolved)} has no heading ${anchor}`);
  }
}

/** Every broken reference of one file, as `path:line: problem`. */
function referenceProblems(path: string, content: string): string[] {
  const problems: string[] = [];
  const ownAnchors = path.endsWith('.md') ? anchorsIn(content) : new Set<string>();
  for (const { n, text } of proseLines(path, content)) {
    const where = `${path}:${n}`;
    for (const match of text.matchAll(DOCUMENT)) {
      if (quoted(text, match.index, match.index + match[0].length) || FILE_KINDS.has(match[1]!)) continue;
      checkReference(problems, where, path, match[1]!, match[2]);
    }
    for (const match of text.matchAll(CLIMBING)) {
      if (besideRoot(resolve(dirname(join(ROOT, path)), match[1]!))) problems.push(`${where}: ${match[1]} climbs out of the repository`);
    }
    if (path.endsWith('.md')) {
      for (const match of text.matchAll(SOURCE_PATH)) {
        const target = match[1]!.replace(/[#?].*$/, '');
        if (/[{}*<>]/.test(target) || GENERATED.some((folder) => target.startsWith(folder))) continue;
        if (!resolveReference(path, target)) problems.push(`${where}: ${target} is not in the repository`);
      }
      // Inline code is not a link: `call(request)` after a `[...]` is code.
      for (const match of text.replace(/`[^`]*`/g, ' ').matchAll(LINK)) {
        const target = match[1]!;
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
        const [file, anchor] = target.split('#', 2) as [string, string | undefined];
        if (file === '') {
          if (!ownAnchors.has(anchor ?? '')) problems.push(`${where}: no heading #${anchor} in this file`);
        } else checkReference(problems, where, path, file, anchor === undefined ? undefined : `#${anchor}`);
      }
    }
    for (const { pattern, what } of OUTSIDE) if (pattern.test(text)) problems.push(`${where}: cites ${what}`);
  }
  return [...new Set(problems)];
}

function longFileProblem(path: string, content: string): string | null {
  const lines = content.split('\n');
  const count = content.endsWith('\n') ? lines.length - 1 : lines.length;
  if (count <= MAX_LINES || lines.slice(0, MARKER_LINES).some((line) => LONG_FILE_MARKER.test(line))) return null;
  return `${path} has ${count} lines (over ${MAX_LINES}): split it, or say why in a "Long file:" comment in its first ${MARKER_LINES} lines`;
}

describe('the repository explains itself', () => {
  const files = repositoryFiles();
  const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

  it('reads the files it should', () => {
    expect(files).toContain('README.md');
    expect(files).toContain('docs/ARCHITECTURE.md');
    expect(files).toContain('shared/contracts/api.ts');
    expect(files.some((f) => f.startsWith('test/fixtures/') || f.startsWith('node_modules/'))).toBe(false);
  });

  it('points only at documents and headings that exist, from inside the repository', () => {
    const problems = files.flatMap((f) => referenceProblems(f, read(f)));
    expect(problems).toEqual([]);
  });


  it('keeps source files under 700 lines, or says why', () => {
    const problems = files.filter((f) => LONG_CHECKED.test(f)).flatMap((f) => longFileProblem(f, read(f)) ?? []);
    expect(problems).toEqual([]);
  });

});

describe('the checks themselves', () => {
  it('finds a document that is missing, a heading that is missing, and a path that climbs out', () => {
    const problems = referenceProblems(
      'main/engine/x.ts',
      [
        '/**',
        ' * As in NOWHERE.md and docs/ARCHITECTURE.md#no-such-heading; see ../../../outside/PLAN.md.',
        ' */',
        "import { x } from '../../shared/errors.js'; // see docs/SPEC.md#summaries",
      ].join('\n'),
    );
    expect(problems).toEqual([
      'main/engine/x.ts:2: NOWHERE.md is not in the repository',
      'main/engine/x.ts:2: docs/ARCHITECTURE.md has no heading #no-such-heading',
      'main/engine/x.ts:2: ../../../outside/PLAN.md is not in the repository',
      'main/engine/x.ts:2: ../../../outside/PLAN.md climbs out of the repository',
    ]);
  });

  it('reads Markdown links and source paths, and cites no outside document by number', () => {
    const lines = [
      'See [the spec](SPEC.md#summaries), [gone](gone.md), [here](#nowhere).',
      'As seed 004 says (STACK.md gotcha 5).',
      'The engine is `main/engine/engine.ts`, not `main/engine/gone.ts`; builds go to `bench/out/x.json` and `{workspace}/x`.',
    ];
    const problems = referenceProblems('docs/x.md', lines.join('\n'));
    expect(problems).toEqual([
      'docs/x.md:1: gone.md is not in the repository',
      'docs/x.md:1: no heading #nowhere in this file',
      expect.stringMatching(/^docs\/x\.md:2: cites a specification document by number/),
      expect.stringMatching(/^docs\/x\.md:2: cites a numbered section of a planning document/),
      'docs/x.md:3: main/engine/gone.ts is not in the repository',
    ]);
  });

  it('leaves code and quoted example paths alone', () => {
    const source = ["const path = 'docs/guide.md'; // the test's own file", " * parserFor('docs/guide.md', head).name // 'markdown'", "writeFile('NOTES.md', text);"].join('\n');
    expect(referenceProblems('main/engine/y.ts', source)).toEqual([]);
  });

  it('finds a long file without a reason, and accepts one that gives it', () => {
    const body = Array.from({ length: MAX_LINES }, (_, i) => `export const x${i} = ${i};`).join('\n');
    expect(longFileProblem('main/x.ts', `${body}\n`)).toBeNull();
    expect(longFileProblem('main/x.ts', `// one more\n${body}\n`)).toMatch(/^main\/x\.ts has 701 lines/);
    expect(longFileProblem('main/x.ts', `/**\n * Long file: one table of every label, so a missing key is a type error.\n */\n${body}\n`)).toBeNull();
    expect(longFileProblem('renderer/x.css', `/* Long file: the shared tokens and every view, in one cascade. */\n${body}\n`)).toBeNull();
  });

  it('makes GitHub anchors from headings', () => {
    expect(headingSlug('Summaries: the DAG')).toBe('summaries-the-dag');
    expect(headingSlug('Layers: L0, L1, L2')).toBe('layers-l0-l1-l2');
    expect(headingSlug('Track A: semantic buckets and topic clusters')).toBe('track-a-semantic-buckets-and-topic-clusters');
  });
});
