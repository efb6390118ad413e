/**
 * The first stage of an ingest: walk a folder and decide, for every entry, whether it is content
 * or why it is not. Every skipped entry gets one `Skip` with a sentence for people; a skipped
 * folder gets one skip, and nothing inside it is ever read.
 *
 * Order of decisions for an entry: version-control and dependency folders (by name, not
 * overridable), then `.gitignore` rules, then what the entry is (link, special file), then for
 * files their content (binary) and size. The head read for sniffing is kept on the result so the
 * parser stage can pick a parser without reading the file again.
 *
 * Ignore rules come from every `.gitignore` at or below the root and from the root's
 * `.git/info/exclude`. Files above the root and the user's global excludes (`core.excludesFile`)
 * are not read: the folder the user chose is the whole world, and the engine reads no settings
 * of its own accord.
 *
 * Symbolic links are followed after the plain tree has been walked, in rounds decided in path
 * order, so which path wins when two lead to the same folder or file never depends on timing:
 * the real location first, then the shallower link, then the link that sorts first.
 */
import { readdir, readFile, readlink, realpath, stat, lstat } from 'node:fs/promises';
import type { Dirent, Stats } from 'node:fs';
import { basename, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { performance } from 'node:perf_hooks';
import { CairnError, errorMessage } from '../../../shared/errors.js';
import type { Skip, SkipReason } from '../../../shared/types/ingest.js';
import { silentLogger, type Logger } from '../ports/logger.js';
import { describeBinary, sniffHead } from './binary-sniff.js';
import { matchGitignore, parseGitignore, type GitignoreMatch, type GitignoreStack } from '../../../shared/scan/gitignore.js';
import { comparePaths } from './path-order.js';
import { readHead, type OpenedHead } from './read-head.js';
import {
  describeErrno,
  describeSpecial,
  folderVerdict,
  formatBytes,
  vcsFileVerdict,
  venvVerdict,
  VENV_MARKER,
  type SpecialKind,
} from '../../../shared/scan/skip-rules.js';
import { TaskPool } from './task-pool.js';

/** How much of each file is read for sniffing and handed on as `head`. */
export const HEAD_BYTES = 8 * 1024;
/** Concurrent readdir/open/read calls; libuv's thread pool runs 4 at a time, the rest queue cheaply. */
const CONCURRENCY = 32;
/** A 100k-file scan would otherwise call onProgress 100k times. */
const PROGRESS_INTERVAL_MS = 100;
/** git's core.ignorecase defaults to the file system's case sensitivity; these platforms' defaults are case-insensitive. */
const IGNORE_CASE = process.platform === 'darwin' || process.platform === 'win32';

export interface ScanProgress {
  /** Files included so far. */
  files: number;
  /** Folders included so far, the root among them. */
  dirs: number;
  /** Bytes of the files included so far. */
  bytes: number;
  /** The relative path of the last file included. */
  current: string;
}

export interface ScanOptions {
  /** Files larger than this are skipped as `too-large`. */
  maxFileBytes: number;
  /** Follow symbolic links whose target stays inside the root; otherwise skip every link. */
  followSymlinks: boolean;
  /** Aborting it makes the scan throw `CANCELLED`. */
  signal?: AbortSignal;
  /** Called at most every 100 ms while the scan runs, and once at the end. */
  onProgress?: (progress: ScanProgress) => void;
  /**
   * Takes only the files whose relative path it accepts; the others are left out quietly, never
   * opened (a command that reads only some kinds of file, such as `cairn skeleton`).
   */
  acceptFile?: (relPath: string) => boolean;
  /**
   * True for a file the caller already holds as it is now (an ingest's manifest: same size and
   * mtime as when it was last read): it is taken after a stat, without being opened and sniffed
   * again (one syscall instead of four), and its `head` is empty.
   */
  knownFile?: (relPath: string, size: number, mtimeMs: number) => boolean;
  logger?: Logger;
}

export interface ScannedFile {
  /** Absolute path to read the file from (through the link, for a file reached by one). */
  path: string;
  /** POSIX path relative to the root; for a single-file root, the file's name. */
  relPath: string;
  size: number;
  mtimeMs: number;
  /** The first `HEAD_BYTES` bytes at most (the whole file when smaller); empty for a file taken as known (`knownFile`). */
  head: Uint8Array;
}

export interface ScanResult {
  /** The real path of the root (symbolic links resolved). */
  root: string;
  /** Included files, sorted by `comparePaths` on `relPath`. */
  files: ScannedFile[];
  /**
   * Relative paths of the included folders, sorted by `comparePaths`. The root is included as
   * `''` (first); a single-file root gives `[]`. A folder whose entries were all skipped is
   * still included.
   */
  dirs: string[];
  /** One entry per skipped file or folder, sorted by path. */
  skipped: Skip[];
}

/**
 * Walks `root` (a folder or a single file) and returns the files to ingest, the folders that hold
 * them and every skip with its reason. Throws `NOT_FOUND` when the root does not exist, `IO_ERROR`
 * when it cannot be listed and `CANCELLED` when `signal` aborts.
 *
 * @example
 * const scan = await scanFolder('/home/ana/notes', { maxFileBytes: 10 * 1024 * 1024, followSymlinks: true });
 * scan.files.map((f) => f.relPath); // ['README.md', 'docs/intro.md', ...]
 * scan.skipped; // [{ path: 'node_modules', reason: 'dependency-folder', detail: 'dependency folder: installed npm packages (node_modules)' }, ...]
 */
export async function scanFolder(root: string, options: ScanOptions): Promise<ScanResult> {
  const cancelled = () => new CairnError('CANCELLED', `The scan of ${root} was cancelled`);
  if (options.signal?.aborted) throw cancelled();
  const startedAt = performance.now();
  const rootReal = await resolveRoot(root);
  let rootStat: Stats;
  try {
    rootStat = await stat(rootReal);
  } catch (error) {
    throw new CairnError('IO_ERROR', `Cannot read ${root}: ${errnoText(error)}`, { cause: error });
  }

  const scan = new FolderScan(rootReal, options, new TaskPool(CONCURRENCY, options.signal, cancelled));
  try {
    if (rootStat.isDirectory()) await scan.walk();
    else await scan.single(rootStat);
  } finally {
    scan.dispose();
  }
  const result = scan.result();
  const byReason: Partial<Record<SkipReason, number>> = {};
  for (const s of result.skipped) byReason[s.reason] = (byReason[s.reason] ?? 0) + 1;
  (options.logger ?? silentLogger).info(`Scanned ${rootReal}: ${result.files.length} files, ${result.dirs.length} folders, ${result.skipped.length} skipped`, {
    ms: Math.round(performance.now() - startedAt),
    skipped: byReason,
  });
  return result;
}

interface DirJob {
  rel: string;
  /** Absolute path through any links on the way; the base of the files' `path`. */
  path: string;
  /** Real path on disk: children are read through it. */
  real: string;
  name: string;
  levels: GitignoreStack;
}

interface FileJob {
  rel: string;
  /** Reported as `ScannedFile.path`. */
  path: string;
  /** Opened for the head; also the key that keeps a file reached twice to one entry. */
  real: string;
}

/** A link met in a folder, resolved once the plain tree is done. */
interface LinkJob {
  rel: string;
  name: string;
  parent: DirJob;
  levels: GitignoreStack;
}

type EntryKind = 'dir' | 'file' | 'link' | SpecialKind | 'unknown';

type ResolvedLink =
  | { kind: 'unresolved'; code: string; to: string | null }
  | { kind: 'outside'; target: string }
  | { kind: 'unstatable'; error: unknown }
  | { kind: 'inside'; target: string; targetRel: string; entry: EntryKind };

class FolderScan {
  private readonly files: ScannedFile[] = [];
  private readonly dirs: string[] = [];
  private readonly skipped: Skip[] = [];
  /**
   * Set once the plain walk is done and links are being followed; from then on every folder and
   * file is checked against the real paths already taken. The plain walk needs no such check
   * (no two entries share a real path there), which keeps a map of 100k paths out of most scans.
   */
  private linking = false;
  /** Real path of every folder taken (or being listed), to its relative path: a second way in is a loop. */
  private readonly dirsByReal = new Map<string, string>();
  /** Real path of every file taken (or being read), to its relative path. */
  private readonly filesByReal = new Map<string, string>();
  private readonly links: LinkJob[] = [];
  private bytes = 0;
  private lastProgress = Number.NEGATIVE_INFINITY;
  private readonly logger: Logger;

  constructor(
    private readonly root: string,
    private readonly options: ScanOptions,
    private readonly pool: TaskPool,
  ) {
    this.logger = options.logger ?? silentLogger;
  }

  async walk(): Promise<void> {
    const levels: GitignoreStack = await this.excludeLevel();
    const rootJob: DirJob = { rel: '', path: this.root, real: this.root, name: '', levels };
    this.pool.run(() => this.visitDir(rootJob));
    await this.pool.idle();
    await this.followLinks();
    this.reportProgress('', true);
  }

  async single(st: Stats): Promise<void> {
    const name = basename(this.root);
    const kind = kindOf(st);
    if (kind === 'file') {
      this.pool.run(() => this.inspectFile({ rel: name, path: this.root, real: this.root }).then(() => undefined));
      await this.pool.idle();
    } else {
      this.skip(name, 'special-file', isSpecial(kind) ? describeSpecial(kind) : 'an entry of a type this system does not report, not a regular file');
    }
    this.reportProgress(name, true);
  }

  result(): ScanResult {
    return {
      root: this.root,
      files: this.files.sort((a, b) => comparePaths(a.relPath, b.relPath)),
      dirs: this.dirs.sort(comparePaths),
      skipped: this.skipped.sort((a, b) => comparePaths(a.path, b.path) || (a.reason < b.reason ? -1 : a.reason > b.reason ? 1 : 0)),
    };
  }

  dispose(): void {
    this.pool.dispose();
  }

  /** `.git/info/exclude` of a repository at the root: the lowest level of rules. */
  private async excludeLevel(): Promise<GitignoreStack> {
    const source = '.git/info/exclude';
    try {
      const rules = parseGitignore(await readFile(join(this.root, '.git', 'info', 'exclude'), 'utf8'), source, { ignoreCase: IGNORE_CASE });
      return rules.length > 0 ? [{ base: '', rules }] : [];
    } catch (error) {
      const code = errnoOf(error);
      if (code === undefined) throw error;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') this.logger.warn(`Cannot read ${source}; its rules are not applied: ${describeErrno(code)}`);
      return [];
    }
  }

  private async visitDir(dir: DirJob): Promise<void> {
    let entries: Dirent[];
    try {
      entries = await readdir(dir.real, { withFileTypes: true });
    } catch (error) {
      const code = errnoOf(error);
      if (code === undefined) throw error;
      if (dir.rel === '') throw new CairnError('IO_ERROR', `Cannot list ${this.root}: ${describeErrno(code)}`, { cause: error, details: { errno: code } });
      if (this.linking) this.dirsByReal.delete(dir.real);
      return this.unreadable(error, dir.rel, 'cannot list the folder');
    }
    if (dir.rel !== '' && entries.some((e) => e.name === VENV_MARKER && !e.isDirectory())) {
      if (this.linking) this.dirsByReal.delete(dir.real);
      const verdict = venvVerdict();
      this.skip(dir.rel, verdict.reason, verdict.detail);
      return;
    }
    this.dirs.push(dir.rel);

    let levels = dir.levels;
    if (entries.some((e) => e.name === '.gitignore' && e.isFile())) {
      const source = dir.rel === '' ? '.gitignore' : `${dir.rel}/.gitignore`;
      try {
        const rules = parseGitignore(await readFile(join(dir.real, '.gitignore'), 'utf8'), source, { ignoreCase: IGNORE_CASE });
        if (rules.length > 0) levels = [...levels, { base: dir.rel, rules }];
      } catch (error) {
        const code = errnoOf(error);
        if (code === undefined) throw error;
        // The file itself gets its own `unreadable` skip when the walk reaches it.
        this.logger.warn(`Cannot read ${source}; its rules are not applied: ${describeErrno(code)}`);
      }
    }
    for (const entry of entries) this.classify(entry.name, kindOf(entry), dir, levels);
  }

  private classify(name: string, kind: EntryKind, parent: DirJob, levels: GitignoreStack): void {
    const rel = parent.rel === '' ? name : `${parent.rel}/${name}`;
    const real = join(parent.real, name);
    const path = parent.path === parent.real ? real : join(parent.path, name);
    switch (kind) {
      case 'dir': {
        const verdict = folderVerdict(name, parent.name);
        if (verdict) return this.skip(rel, verdict.reason, verdict.detail);
        if (this.gitignored(levels, rel, true)) return;
        return this.enterDir({ rel, path, real, name, levels });
      }
      case 'file': {
        const verdict = vcsFileVerdict(name);
        if (verdict) return this.skip(rel, verdict.reason, verdict.detail);
        if (this.gitignored(levels, rel, false)) return;
        return this.takeFile({ rel, path, real });
      }
      case 'link':
        if (this.options.followSymlinks) {
          this.links.push({ rel, name, parent, levels });
          return;
        }
        if (this.gitignored(levels, rel, false)) return;
        this.pool.run(async () => {
          const target = await readlink(real).catch(() => null);
          this.skip(rel, 'symlink-not-followed', `symbolic link${target === null ? '' : ` to "${target}"`} not followed: following links is turned off`);
        });
        return;
      case 'unknown':
        // Some file systems do not report entry types in readdir.
        this.pool.run(async () => {
          let known: EntryKind;
          try {
            known = kindOf(await lstat(real));
          } catch (error) {
            return this.unreadable(error, rel, 'cannot inspect the entry');
          }
          if (known === 'unknown') this.skip(rel, 'special-file', 'an entry of a type this system does not report, not a regular file');
          else this.classify(name, known, parent, levels);
        });
        return;
      default:
        if (this.gitignored(levels, rel, false)) return;
        this.skip(rel, 'special-file', describeSpecial(kind));
    }
  }

  private enterDir(dir: DirJob): void {
    if (this.linking) {
      const seen = this.dirsByReal.get(dir.real);
      if (seen !== undefined) return this.skip(dir.rel, 'symlink-loop', `the folder "${seen}" is already included through another path`);
      this.dirsByReal.set(dir.real, dir.rel);
    }
    this.pool.run(() => this.visitDir(dir));
  }

  private takeFile(file: FileJob): void {
    if (this.options.acceptFile && !this.options.acceptFile(file.rel)) return;
    if (!this.linking) {
      this.pool.run(() => this.inspectFile(file).then(() => undefined));
      return;
    }
    const seen = this.filesByReal.get(file.real);
    if (seen !== undefined) return this.skip(file.rel, 'symlink-loop', `the same file as "${seen}", which is already included`);
    this.filesByReal.set(file.real, file.rel);
    this.pool.run(async () => {
      if (!(await this.inspectFile(file))) this.filesByReal.delete(file.real);
    });
  }

  /** Opens, checks and sniffs one file; true when it is taken. */
  private async inspectFile(file: FileJob): Promise<boolean> {
    const known = await this.knownStats(file);
    if (known) return this.take(file, known, new Uint8Array(0));
    let opened: OpenedHead;
    try {
      opened = await readHead(file.real, HEAD_BYTES);
    } catch (error) {
      const syscall = (error as NodeJS.ErrnoException).syscall;
      this.unreadable(error, file.rel, syscall === 'open' ? 'cannot open the file' : 'cannot read the file');
      return false;
    }
    const { stats: st, head } = opened;
    const kind = kindOf(st);
    if (isSpecial(kind)) {
      this.skip(file.rel, 'special-file', describeSpecial(kind));
      return false;
    }
    if (kind !== 'file') {
      this.skip(file.rel, 'unreadable', 'cannot read the file: it was replaced by a folder during the scan');
      return false;
    }

    // The content decides first: "binary" stays true whatever the cap, "too large" would suggest raising it.
    const sniffed = sniffHead(head);
    if (sniffed.kind === 'binary') {
      this.skip(file.rel, 'binary', describeBinary(sniffed));
      return false;
    }
    return this.take(file, st, head);
  }

  /** Takes a regular file unless it is over the size limit; true when it is taken. */
  private take(file: FileJob, st: Stats, head: Uint8Array): boolean {
    if (st.size > this.options.maxFileBytes) {
      this.skip(file.rel, 'too-large', `${formatBytes(st.size)} (${st.size} bytes) is over the ${formatBytes(this.options.maxFileBytes)} limit for one file`);
      return false;
    }
    this.files.push({ path: file.path, relPath: file.rel, size: st.size, mtimeMs: st.mtimeMs, head });
    this.bytes += st.size;
    this.reportProgress(file.rel, false);
    return true;
  }

  /** The stats of a regular file `knownFile` vouches for; null otherwise, or when the stat fails (the open then says why). */
  private async knownStats(file: FileJob): Promise<Stats | null> {
    if (!this.options.knownFile) return null;
    const st = await stat(file.real).catch(() => null);
    return st?.isFile() && this.options.knownFile(file.rel, st.size, st.mtimeMs) ? st : null;
  }

  /**
   * Follows links in rounds. Each round resolves its links concurrently, then decides them one by
   * one in path order (taking a target reserves its real path), then walks what was taken; links
   * met in those walks make the next round. Nothing a decision reads depends on timing, so the
   * outcome is the same on every run: real locations first, then shallower links, then path order.
   */
  private async followLinks(): Promise<void> {
    if (this.links.length === 0) return;
    this.linking = true;
    // Everything the plain walk took sits at its real path.
    for (const rel of this.dirs) this.dirsByReal.set(rel === '' ? this.root : join(this.root, rel), rel);
    for (const file of this.files) this.filesByReal.set(file.path, file.relPath);
    while (this.links.length > 0) {
      const round = this.links.splice(0).sort((a, b) => comparePaths(a.rel, b.rel));
      const resolved: ResolvedLink[] = new Array(round.length);
      round.forEach((link, i) =>
        this.pool.run(async () => {
          resolved[i] = await this.resolveLink(link);
        }),
      );
      await this.pool.idle();
      round.forEach((link, i) => this.decideLink(link, resolved[i]!));
      await this.pool.idle();
    }
  }

  private async resolveLink(link: LinkJob): Promise<ResolvedLink> {
    const linkPath = join(link.parent.real, link.name);
    let target: string;
    try {
      target = await realpath(linkPath);
    } catch (error) {
      const code = errnoOf(error);
      if (code === undefined) throw error;
      return { kind: 'unresolved', code, to: await readlink(linkPath).catch(() => null) };
    }
    const inside = relative(this.root, target);
    if (inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)) return { kind: 'outside', target };
    try {
      return { kind: 'inside', target, targetRel: inside.split(sep).join('/'), entry: kindOf(await stat(target)) };
    } catch (error) {
      if (errnoOf(error) === undefined) throw error;
      return { kind: 'unstatable', error };
    }
  }

  private decideLink(link: LinkJob, resolved: ResolvedLink): void {
    const { rel, name, parent, levels } = link;
    // git sees a link as a file; one that leads to a folder inside the root is judged as the folder it becomes.
    if (this.gitignored(levels, rel, resolved.kind === 'inside' && resolved.entry === 'dir')) return;
    switch (resolved.kind) {
      case 'unresolved': {
        const where = resolved.to === null ? '' : ` to "${resolved.to}"`;
        if (resolved.code === 'ENOENT' || resolved.code === 'ENOTDIR') return this.skip(rel, 'broken-symlink', `symbolic link${where} points to nothing`);
        if (resolved.code === 'ELOOP') return this.skip(rel, 'symlink-loop', `symbolic link${where} is part of a cycle of links`);
        return this.skip(rel, 'unreadable', `cannot resolve the symbolic link${where}: ${describeErrno(resolved.code)}`);
      }
      case 'outside':
        return this.skip(rel, 'symlink-outside', `symbolic link to "${resolved.target}", which is outside the ingested folder`);
      case 'unstatable':
        return this.unreadable(resolved.error, rel, 'cannot inspect the target of the symbolic link');
    }
    const { target, targetRel, entry } = resolved;
    const shown = targetRel === '' ? 'the root folder' : `"${targetRel}"`;
    if (entry === 'dir') {
      if (parent.real === target || parent.real.startsWith(target.endsWith(sep) ? target : target + sep)) {
        return this.skip(rel, 'symlink-loop', `symbolic link to ${shown}, a folder that contains the link: following it would never end`);
      }
      const verdict = folderVerdict(name, parent.name) ?? this.verdictOnTheWay(targetRel);
      if (verdict) return this.skip(rel, verdict.reason, `symbolic link to ${shown}: ${verdict.detail}`);
      const seen = this.dirsByReal.get(target);
      if (seen !== undefined) return this.skip(rel, 'symlink-loop', `symbolic link to ${shown}, a folder already included as "${seen || '.'}"`);
      return this.enterDir({ rel, path: join(parent.path, name), real: target, name, levels });
    }
    if (entry === 'file') {
      const verdict = vcsFileVerdict(name) ?? this.verdictOnTheWay(targetRel);
      if (verdict) return this.skip(rel, verdict.reason, `symbolic link to ${shown}: ${verdict.detail}`);
      const seen = this.filesByReal.get(target);
      if (seen !== undefined) return this.skip(rel, 'symlink-loop', `symbolic link to ${shown}, a file already included as "${seen}"`);
      return this.takeFile({ rel, path: join(parent.path, name), real: target });
    }
    if (isSpecial(entry)) return this.skip(rel, 'special-file', `symbolic link to ${describeSpecial(entry)}`);
    this.skip(rel, 'special-file', `symbolic link to an entry of a type this system does not report`);
  }

  /** A link into `.git/` or `node_modules/` must not smuggle them in. */
  private verdictOnTheWay(targetRel: string): ReturnType<typeof folderVerdict> {
    const parts = targetRel.split('/');
    for (let i = 0; i < parts.length; i++) {
      const verdict = folderVerdict(parts[i]!, i === 0 ? '' : parts[i - 1]!);
      if (verdict) return verdict;
    }
    return null;
  }

  private gitignored(levels: GitignoreStack, rel: string, isDir: boolean): boolean {
    if (levels.length === 0) return false;
    const match: GitignoreMatch = matchGitignore(levels, rel, isDir);
    if (!match.ignored || !match.rule) return false;
    const { rule } = match;
    this.skip(rel, 'gitignored', `ignored by the rule "${rule.pattern}" in ${rule.source} (line ${rule.line})`);
    return true;
  }

  private unreadable(error: unknown, rel: string, what: string): void {
    const code = errnoOf(error);
    if (code === undefined) throw error;
    // Node decodes names as UTF-8; a name that is not valid UTF-8 comes back altered and cannot be opened.
    const why = code === 'ENOENT' && rel.includes('\uFFFD') ? 'its name is not valid UTF-8, so it cannot be opened by name' : describeErrno(code);
    this.skip(rel, 'unreadable', `${what}: ${why}`);
  }

  private skip(path: string, reason: SkipReason, detail: string): void {
    this.skipped.push({ path, reason, detail });
  }

  private reportProgress(current: string, final: boolean): void {
    const onProgress = this.options.onProgress;
    if (!onProgress || this.options.signal?.aborted) return;
    const now = performance.now();
    if (!final && now - this.lastProgress < PROGRESS_INTERVAL_MS) return;
    this.lastProgress = now;
    onProgress({ files: this.files.length, dirs: this.dirs.length, bytes: this.bytes, current });
  }
}

async function resolveRoot(root: string): Promise<string> {
  try {
    return await realpath(resolve(root));
  } catch (error) {
    const code = errnoOf(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new CairnError('NOT_FOUND', `Cannot scan ${root}: no such file or folder`, { cause: error });
    throw new CairnError('IO_ERROR', `Cannot scan ${root}: ${errnoText(error)}`, { cause: error });
  }
}

function kindOf(entry: Dirent | Stats): EntryKind {
  if (entry.isFile()) return 'file';
  if (entry.isDirectory()) return 'dir';
  if (entry.isSymbolicLink()) return 'link';
  if (entry.isFIFO()) return 'fifo';
  if (entry.isSocket()) return 'socket';
  if (entry.isBlockDevice()) return 'block-device';
  if (entry.isCharacterDevice()) return 'char-device';
  return 'unknown';
}

function isSpecial(kind: EntryKind): kind is SpecialKind {
  return kind === 'fifo' || kind === 'socket' || kind === 'block-device' || kind === 'char-device';
}

function errnoOf(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' && /^E[A-Z0-9]+$/.test(code) ? code : undefined;
}

function errnoText(error: unknown): string {
  const code = errnoOf(error);
  return code === undefined ? errorMessage(error) : describeErrno(code);
}
