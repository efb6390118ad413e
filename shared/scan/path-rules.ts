/**
 * The scan's decisions that a file's relative path settles on its own, for a folder known only as
 * a list of files: a browser upload (issue 21). Version-control and dependency folders (by name),
 * virtual environments (a folder holding `pyvenv.cfg`), a `.git` link file, and the rules of every
 * `.gitignore` in the list and of the root's `.git/info/exclude` are applied as
 * main/engine/scan/scan-folder.ts applies them, so the page sends only what an ingest of the same
 * folder by path would take (the host's ingest of the upload then applies them again, with the
 * content rules: binary, size).
 *
 * What a path cannot tell: whether the browser read the file through a symbolic link (see
 * main/host/upload.ts). Matching is case-sensitive: where the host's scan ignores case (macOS,
 * Windows) it leaves out the rest itself.
 */
import type { Skip } from '../types/ingest.js';
import { matchGitignore, parseGitignore, type GitignoreStack } from './gitignore.js';
import { folderVerdict, vcsFileVerdict, venvVerdict, VENV_MARKER } from './skip-rules.js';

/** The root's exclude file, read before `.git/` itself is left out. */
export const GIT_INFO_EXCLUDE = '.git/info/exclude';

/** True for the files whose text the rules need: every `.gitignore` and the root's `.git/info/exclude`. */
export function isIgnoreFile(path: string): boolean {
  return path === GIT_INFO_EXCLUDE || path === '.gitignore' || path.endsWith('/.gitignore');
}

const parentOf = (path: string) => (path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '');
const nameOf = (path: string) => path.slice(path.lastIndexOf('/') + 1);

/**
 * Splits a folder's files (relative POSIX paths) into those the scan would read and the skips of
 * the rest, one per left-out folder or file. `ignoreTexts` holds the text of the ignore files
 * among them (see isIgnoreFile).
 *
 * @example
 * scanByPath(['README.md', 'node_modules/x/index.js', 'app.log', '.gitignore'], new Map([['.gitignore', '*.log\n']]));
 * // { kept: ['README.md', '.gitignore'], skipped: [{ path: 'node_modules', reason: 'dependency-folder', … }, { path: 'app.log', reason: 'gitignored', … }] }
 */
export function scanByPath(paths: readonly string[], ignoreTexts: ReadonlyMap<string, string>): { kept: string[]; skipped: Skip[] } {
  const venvs = new Set(paths.filter((p) => nameOf(p) === VENV_MARKER && parentOf(p) !== '').map(parentOf));
  const levels = new Map<string, GitignoreStack>();
  const levelsOf = (dir: string): GitignoreStack => {
    const known = levels.get(dir);
    if (known) return known;
    let stack: GitignoreStack = dir === '' ? [] : levelsOf(parentOf(dir));
    if (dir === '') {
      const exclude = ignoreTexts.get(GIT_INFO_EXCLUDE);
      const rules = exclude === undefined ? [] : parseGitignore(exclude, GIT_INFO_EXCLUDE);
      if (rules.length > 0) stack = [{ base: '', rules }];
    }
    const source = dir === '' ? '.gitignore' : `${dir}/.gitignore`;
    const text = ignoreTexts.get(source);
    const rules = text === undefined ? [] : parseGitignore(text, source);
    if (rules.length > 0) stack = [...stack, { base: dir, rules }];
    levels.set(dir, stack);
    return stack;
  };
  const ignored = (rel: string, isDir: boolean): Skip | null => {
    const match = matchGitignore(levelsOf(parentOf(rel)), rel, isDir);
    if (!match.ignored || !match.rule) return null;
    return { path: rel, reason: 'gitignored', detail: `ignored by the rule "${match.rule.pattern}" in ${match.rule.source} (line ${match.rule.line})` };
  };
  // A folder's verdict: null when the scan enters it, else the skip of it or of the folder above it that was left out.
  const dirs = new Map<string, Skip | null>();
  const dirVerdict = (dir: string): Skip | null => {
    if (dir === '') return null;
    if (dirs.has(dir)) return dirs.get(dir)!;
    const above = dirVerdict(parentOf(dir));
    let verdict: Skip | null = above;
    if (!above) {
      const byName = folderVerdict(nameOf(dir), nameOf(parentOf(dir))) ?? (venvs.has(dir) ? venvVerdict() : null);
      verdict = byName ? { path: dir, reason: byName.reason, detail: byName.detail } : ignored(dir, true);
    }
    dirs.set(dir, verdict);
    return verdict;
  };

  const kept: string[] = [];
  const skipped = new Map<string, Skip>();
  for (const path of paths) {
    const folder = dirVerdict(parentOf(path));
    if (folder) {
      skipped.set(folder.path, folder);
      continue;
    }
    const byName = vcsFileVerdict(nameOf(path));
    const verdict = byName ? { path, reason: byName.reason, detail: byName.detail } : ignored(path, false);
    if (verdict) skipped.set(path, verdict);
    else kept.push(path);
  }
  return { kept, skipped: [...skipped.values()] };
}
