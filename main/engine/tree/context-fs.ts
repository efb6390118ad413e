/**
 * ContextFS: the `ctx://` tree as a plain folder a person can open.
 *
 * `ctx://{scope}/{path}` maps to `{root}/{scope}/{path}`. A directory node is a folder with
 * `.abstract.md` (L0), `.overview.md` (L1) and `.meta.json`; a file node is its content (L2)
 * plus `{name}.meta.json`, which also holds the file's own L0/L1 when it has them. Writes are
 * atomic. Every URI is validated by `parseCtxUri` and every path is checked to stay inside the
 * root, so no request can read or write outside the workspace.
 *
 * @example
 * const fs = await ContextFS.open('/home/ana/.cairn/workspace');
 * await fs.writeFile('ctx://resources/notes/todo.md', '# Todo\n');
 * await fs.ls('ctx://resources/notes/'); // [{ uri: 'ctx://resources/notes/todo.md', kind: 'file', ... }]
 */
import { lstatSync, readdirSync, readFileSync, statSync, type Dirent } from 'node:fs';
import { lstat, mkdir, readdir, readFile, rename, rm, stat, realpath } from 'node:fs/promises';
import { dirname, join, relative, isAbsolute, sep } from 'node:path';
import { CairnError } from '../../../shared/errors.js';
import {
  ABSTRACT_FILE,
  FILE_META_SUFFIX,
  META_FILE,
  OVERVIEW_FILE,
  formatCtxUri,
  isSidecarName,
  parseCtxUri,
  type CtxUri,
} from '../../../shared/uri.js';
import { NodeMeta, type NodeEntry, type NodeStat, type TreeNode } from '../../../shared/types/node.js';
import { compareNatural } from '../../../shared/natural-sort.js';
import { writeFileAtomic } from '../util/atomic-write.js';

export type NodeKind = 'file' | 'dir';

export interface WriteOptions {
  /** fsync before rename: survives power loss, costs a disk flush per file. */
  durable?: boolean;
}

export class ContextFS {
  private constructor(readonly root: string) {}

  static async open(root: string): Promise<ContextFS> {
    await mkdir(root, { recursive: true });
    return new ContextFS(await realpath(root));
  }

  /** The absolute path a URI maps to. Throws PATH_ESCAPE if it would leave the workspace. */
  pathOf(uri: string | CtxUri): string {
    const parsed = typeof uri === 'string' ? parseCtxUri(uri) : uri;
    const path = join(this.root, parsed.scope, ...parsed.segments);
    const rel = relative(this.root, path);
    if (rel.startsWith('..') || isAbsolute(rel)) {
      throw new CairnError('PATH_ESCAPE', `Refused ${formatCtxUri(parsed)}: it maps outside the workspace`);
    }
    return path;
  }

  /**
   * Like pathOf, and also resolves symbolic links on disk: a link planted inside the workspace
   * must not lead a read outside it.
   */
  private async safePathOf(uri: string | CtxUri): Promise<string> {
    const path = this.pathOf(uri);
    let real: string;
    try {
      real = await realpath(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return path;
      throw error;
    }
    if (real !== this.root && !real.startsWith(this.root + sep)) {
      throw new CairnError('PATH_ESCAPE', `Refused ${typeof uri === 'string' ? uri : formatCtxUri(uri)}: a link on disk leads outside the workspace`);
    }
    return real;
  }

  /** 'file', 'dir', or null when there is no such node. */
  async kindOf(uri: string): Promise<NodeKind | null> {
    const parsed = parseCtxUri(uri);
    if (parsed.segments.length > 0 && isSidecarName(parsed.segments.at(-1)!)) return null;
    try {
      const info = await stat(await this.safePathOf(parsed));
      return info.isDirectory() ? 'dir' : info.isFile() ? 'file' : null;
    } catch (error) {
      // A scope is there before anything is written to it: a fresh workspace lists it empty.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' && parsed.segments.length === 0) return 'dir';
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return null;
      throw error;
    }
  }

  /** The URI of a node as it really is on disk: a trailing slash exactly when it is a directory. */
  async canonicalUri(uri: string): Promise<{ uri: string; kind: NodeKind }> {
    const parsed = parseCtxUri(uri);
    const kind = await this.kindOf(uri);
    if (!kind) throw notFound(uri);
    return { uri: formatCtxUri({ ...parsed, isDir: kind === 'dir' }), kind };
  }

  async mkdir(uri: string): Promise<void> {
    await mkdir(this.pathOf(uri), { recursive: true });
  }

  /** Writes a file node's content (L2), and its meta when given. */
  async writeFile(uri: string, content: string | Uint8Array, meta?: NodeMeta, options: WriteOptions = {}): Promise<void> {
    const parsed = parseCtxUri(uri);
    assertNodeName(parsed, uri);
    if (parsed.isDir) throw new CairnError('IS_A_DIRECTORY', `Cannot write file content to directory URI ${uri}`);
    await writeFileAtomic(this.pathOf(parsed), content, options);
    if (meta) await this.writeMeta(uri, meta, options);
  }

  async readFileContent(uri: string): Promise<string> {
    // One realpath, one stat, the read: the DAG reads every file, and resolving the path twice
    // (kindOf, then safePathOf) cost a syscall per file for nothing. The stat stays: a FIFO or a
    // socket planted in the workspace must be refused, not opened (an open would wait forever).
    const parsed = parseCtxUri(uri);
    if (parsed.segments.length > 0 && isSidecarName(parsed.segments.at(-1)!)) throw notFound(uri);
    let path: string;
    let info;
    try {
      path = await this.safePathOf(parsed);
      info = await stat(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') throw notFound(uri);
      throw error;
    }
    if (info.isDirectory()) throw new CairnError('IS_A_DIRECTORY', `${uri} is a directory: read its L0 (level 0) or L1 (level 1), or list it`);
    if (!info.isFile()) throw notFound(uri);
    return info.size <= SMALL_FILE_BYTES ? readSmallFile(path) : readFile(path, 'utf8');
  }

  /** The meta file of a node: `.meta.json` inside a directory, `{name}.meta.json` beside a file. */
  metaPathOf(uri: string, kind: NodeKind): string {
    const path = this.pathOf(uri);
    return kind === 'dir' ? join(path, META_FILE) : path + FILE_META_SUFFIX;
  }

  async readMeta(uri: string): Promise<NodeMeta | null> {
    const kind = await this.kindOf(uri);
    if (!kind) return null;
    return this.readMetaOf(uri, kind);
  }

  /**
   * readMeta for a node whose kind is already known (from a listing of its real parent folder):
   * no realpath and no stat, which the DAG cannot afford per node on its way to the LLM.
   */
  async readMetaOf(uri: string, kind: NodeKind): Promise<NodeMeta | null> {
    let text: string;
    try {
      // Synchronous on purpose: a meta is a few KB, and the DAG reads hundreds at once (see readSmallFile).
      text = readSmallFile(this.metaPathOf(uri, kind));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    try {
      return NodeMeta.parse(JSON.parse(text));
    } catch (error) {
      throw new CairnError('PARSE_FAILED', `Corrupt metadata for ${uri}: ${(error as Error).message}`, { cause: error });
    }
  }

  async writeMeta(uri: string, meta: NodeMeta, options: WriteOptions = {}): Promise<void> {
    // writeFileAtomic makes a missing directory itself (only when the write finds it missing).
    await writeFileAtomic(this.metaPathOf(uri, meta.kind), JSON.stringify(meta, null, 2) + '\n', options);
  }

  /** Writes a directory's L0 and L1 sidecars (and meta when given). */
  async writeDirSummary(uri: string, summary: { abstract: string; overview: string }, meta?: NodeMeta, options: WriteOptions = {}): Promise<void> {
    const path = this.pathOf(uri);
    // No mkdir first: a missing directory has nothing to sweep, and writeFileAtomic makes it.
    await sweepDeadTempFiles(path);
    await writeFileAtomic(join(path, ABSTRACT_FILE), summary.abstract, options);
    await writeFileAtomic(join(path, OVERVIEW_FILE), summary.overview, options);
    if (meta) await this.writeMeta(uri, { ...meta, kind: 'dir' }, options);
  }

  /**
   * Reads a node at a level: 0 is the abstract, 1 the overview, 2 the content: a file's own, or
   * for the directory of a split document, the whole document (its sections in order, which
   * give back the source text). A node without the level asked for gives NOT_FOUND saying why.
   */
  async read(uri: string, level: 0 | 1 | 2): Promise<string> {
    const { uri: canonical, kind } = await this.canonicalUri(uri);
    if (level === 2 && kind === 'dir' && (await this.readMetaOf(canonical, 'dir'))?.document) return this.documentText(canonical);
    if (level === 2) return this.readFileContent(canonical);
    if (kind === 'dir') {
      const file = join(await this.safePathOf(canonical), level === 0 ? ABSTRACT_FILE : OVERVIEW_FILE);
      try {
        return await readFile(file, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
          throw new CairnError('NOT_FOUND', `${canonical} has no ${level === 0 ? 'L0 abstract' : 'L1 overview'} yet: it has not been summarized`);
        }
        throw error;
      }
    }
    const meta = await this.readMeta(canonical);
    const text = level === 0 ? meta?.abstract : meta?.overview;
    if (text === undefined) {
      const why = meta?.summary_reason ? ` (${meta.summary_reason})` : '';
      throw new CairnError('NOT_FOUND', `${canonical} has no ${level === 0 ? 'L0 abstract' : 'L1 overview'} yet${why}`);
    }
    return text;
  }

  /**
   * A split document's text: its sections depth-first in listing order. Section names start with
   * their number (`01-…`, `02-…`), so the listing order is the document's order.
   */
  private async documentText(dirUri: string): Promise<string> {
    const parts: string[] = [];
    for (const entry of await this.ls(dirUri)) parts.push(entry.kind === 'dir' ? await this.documentText(entry.uri) : await this.readFileContent(entry.uri));
    return parts.join('');
  }

  /** Lists a directory's children, sidecars hidden, in natural order (shared/natural-sort.ts: 2.4.0 before 2.39.5). */
  async ls(uri: string): Promise<NodeEntry[]> {
    return (await this.lsWithMeta(uri)).map(({ entry }) => entry);
  }

  /**
   * ls, with each child's meta as read for its entry (null when it has none; when it cannot be
   * read or parsed, null with the error), so a caller that needs both (the DAG) does not read
   * every meta a second time.
   */
  async lsWithMeta(uri: string): Promise<{ entry: NodeEntry; meta: NodeMeta | null; metaError?: unknown }[]> {
    const { parsed, path, names } = await this.listing(uri);
    return Promise.all(
      names.map(async (d) => {
        const isDir = d.isDirectory();
        const childUri = formatCtxUri({ scope: parsed.scope, segments: [...parsed.segments, d.name], isDir });
        const entry: NodeEntry = { uri: childUri, name: d.name, kind: isDir ? 'dir' : 'file' };
        // The dirent is the child itself, not a link (links are not listed), inside a folder
        // already resolved within the workspace: its kind is known without a realpath and a stat.
        let meta: NodeMeta | null = null;
        let metaError: unknown;
        try {
          meta = await this.readMetaOf(childUri, isDir ? 'dir' : 'file');
        } catch (error) {
          metaError = error;
        }
        if (meta) {
          if (meta.tokens !== undefined) entry.tokens = meta.tokens;
          if (meta.bytes !== undefined) entry.bytes = meta.bytes;
          if (meta.summary_status) entry.summary_status = meta.summary_status;
          if (meta.title) entry.title = meta.title;
          if (!isDir && meta.abstract) entry.abstract = meta.abstract;
        }
        if (isDir) {
          const abstract = readSmallFileIfAny(join(path, d.name, ABSTRACT_FILE));
          if (abstract) entry.abstract = abstract;
        }
        return metaError === undefined ? { entry, meta } : { entry, meta, metaError };
      }),
    );
  }

  /**
   * A directory's children by name and kind only, in ls order, without reading their metas: for
   * walks that need no more (the tree builder's sweep of vanished nodes read every meta of the
   * tree through ls for nothing).
   */
  async children(uri: string, options: { real?: boolean } = {}): Promise<Pick<NodeEntry, 'uri' | 'name' | 'kind'>[]> {
    const { parsed, names } = options.real ? this.realListing(uri) : await this.listing(uri);
    return names.map((d) => {
      const isDir = d.isDirectory();
      return { uri: formatCtxUri({ scope: parsed.scope, segments: [...parsed.segments, d.name], isDir }), name: d.name, kind: isDir ? 'dir' : 'file' };
    });
  }

  /**
   * `listing` of a directory the caller found real (dirStates: a real folder inside the workspace,
   * reached through no link): one synchronous readdir, not two realpaths, a stat and a readdir
   * through the thread pool, which a walk of a whole tree paid in turn for every folder.
   */
  private realListing(uri: string): { parsed: CtxUri; path: string; names: Dirent[] } {
    const parsed = parseCtxUri(uri);
    if (!parsed.isDir) throw new CairnError('NOT_A_DIRECTORY', `${uri} is a file, not a directory`);
    const path = this.pathOf(parsed);
    return { parsed, path, names: nodeDirents(readdirSync(path, { withFileTypes: true })) };
  }

  /** A directory's real path and its node entries (links, special files and sidecars left out), in natural order. */
  private async listing(uri: string): Promise<{ parsed: CtxUri; path: string; names: Dirent[] }> {
    const { uri: dirUri, kind } = await this.canonicalUri(uri);
    if (kind !== 'dir') throw new CairnError('NOT_A_DIRECTORY', `${uri} is a file, not a directory`);
    const parsed = parseCtxUri(dirUri);
    const path = await this.safePathOf(parsed);
    const dirents = await readdir(path, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' && parsed.segments.length === 0) return [];
      throw error;
    });
    return { parsed, path, names: nodeDirents(dirents) };
  }

  /**
   * Which of the directory nodes `uris` are real folders inside the workspace, reached through
   * no symbolic link (`real`: the guarantee kindOf's realpath gives, for a whole tree at the cost
   * of one lstat per folder, a realpath only for a folder whose parent is not among them), and
   * which are not there at all, their parent being real or missing too (`missing`). The metas of
   * real folders, and of the files they hold, can be read or stat'ed by path (a link in the last
   * component is still for the caller to refuse, with lstat); nothing can be under a missing one.
   * Links, and anything under one, are in neither set.
   */
  async dirStates(uris: readonly string[]): Promise<{ real: Set<string>; missing: Set<string> }> {
    const real = new Set<string>();
    const missing = new Set<string>();
    const byDepth = [...uris].sort((a, b) => parseCtxUri(a).segments.length - parseCtxUri(b).segments.length);
    for (const uri of byDepth) {
      const parsed = parseCtxUri(uri);
      if (!parsed.isDir) continue;
      const path = this.pathOf(parsed);
      const parent = parsed.segments.length > 0 ? formatCtxUri({ ...parsed, segments: parsed.segments.slice(0, -1) }) : null;
      if (parent !== null && missing.has(parent)) {
        missing.add(uri);
        continue;
      }
      const underReal = parent !== null && real.has(parent);
      try {
        if (underReal) {
          if (lstatSync(path).isDirectory()) real.add(uri);
        } else if ((await realpath(path)) === path && statSync(path).isDirectory()) {
          real.add(uri);
        }
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
        if (code === 'ENOENT' && (underReal || (await this.isMissingUnderRealFolder(path)))) missing.add(uri);
      }
    }
    return { real, missing };
  }

  /** True when nothing is at `path` (not even a dangling link) and its folder is a real one inside the workspace. */
  private async isMissingUnderRealFolder(path: string): Promise<boolean> {
    try {
      lstatSync(path);
      return false;
    } catch {
      const folder = dirname(path);
      return (await realpath(folder).catch(() => null)) === folder && (folder === this.root || folder.startsWith(this.root + sep));
    }
  }

  async stat(uri: string): Promise<NodeStat> {
    const { uri: canonical, kind } = await this.canonicalUri(uri);
    const path = await this.safePathOf(canonical);
    const meta = await this.readMeta(canonical);
    if (kind === 'dir') {
      const names = await readdir(path).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT' && parseCtxUri(canonical).segments.length === 0) return [];
        throw error;
      });
      const children = names.filter((name) => !isSidecarName(name)).length;
      const hasAbstract = await exists(join(path, ABSTRACT_FILE));
      const hasOverview = await exists(join(path, OVERVIEW_FILE));
      return { uri: canonical, kind, bytes: 0, children, has_abstract: hasAbstract, has_overview: hasOverview, meta };
    }
    const info = await stat(path);
    return { uri: canonical, kind, bytes: info.size, has_abstract: meta?.abstract !== undefined, has_overview: meta?.overview !== undefined, meta };
  }

  /** The subtree under `uri`, depth-first in listing order, cut at `depth` levels and `maxChildren` per directory. */
  async tree(uri: string, depth: number, maxChildren: number): Promise<TreeNode> {
    const { uri: canonical, kind } = await this.canonicalUri(uri);
    const parsed = parseCtxUri(canonical);
    const name = parsed.segments.at(-1) ?? parsed.scope;
    if (kind === 'file') {
      const meta = await this.readMeta(canonical);
      return { uri: canonical, name, kind, ...(meta?.abstract ? { abstract: meta.abstract } : {}), ...(meta?.tokens !== undefined ? { tokens: meta.tokens } : {}), ...summaryOf(meta) };
    }
    const node: TreeNode = { uri: canonical, name, kind: 'dir' };
    const abstract = await readFile(join(await this.safePathOf(canonical), ABSTRACT_FILE), 'utf8').catch(() => undefined);
    if (abstract) node.abstract = abstract;
    const meta = await this.readMeta(canonical);
    if (meta?.tokens !== undefined) node.tokens = meta.tokens;
    Object.assign(node, summaryOf(meta));
    if (meta?.document) node.document = true;
    if (depth <= 0) return node;
    const entries = await this.ls(canonical);
    const shown = entries.slice(0, maxChildren);
    node.children = [];
    for (const entry of shown) {
      if (entry.kind === 'dir') node.children.push(await this.tree(entry.uri, depth - 1, maxChildren));
      else {
        node.children.push({
          uri: entry.uri,
          name: entry.name,
          kind: 'file',
          ...(entry.abstract ? { abstract: entry.abstract } : {}),
          ...(entry.tokens !== undefined ? { tokens: entry.tokens } : {}),
          ...(entry.summary_status ? { summary_status: entry.summary_status } : {}),
        });
      }
    }
    if (entries.length > shown.length) node.truncated = entries.length - shown.length;
    return node;
  }

  /** Moves a node (with its sidecars) to a new URI. The target must not exist. */
  async mv(from: string, to: string): Promise<void> {
    const { uri: source, kind } = await this.canonicalUri(from);
    const target = formatCtxUri({ ...parseCtxUri(to), isDir: kind === 'dir' });
    assertNodeName(parseCtxUri(target), to);
    if (await this.kindOf(target)) throw new CairnError('ALREADY_EXISTS', `Cannot move ${source} to ${target}: the target exists`);
    const targetPath = this.pathOf(target);
    await mkdir(join(targetPath, '..'), { recursive: true });
    await rename(this.pathOf(source), targetPath);
    if (kind === 'file') {
      await rename(this.pathOf(source) + FILE_META_SUFFIX, targetPath + FILE_META_SUFFIX).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
    }
  }

  /** Removes a node and its sidecars; a non-empty directory needs `recursive`. */
  async rm(uri: string, options: { recursive?: boolean } = {}): Promise<void> {
    const { uri: canonical, kind } = await this.canonicalUri(uri);
    if (parseCtxUri(canonical).segments.length === 0) throw new CairnError('INVALID_INPUT', `Refusing to remove the scope root ${canonical}`);
    const path = this.pathOf(canonical);
    if (kind === 'dir') {
      if (!options.recursive) {
        const children = (await readdir(path)).filter((name) => !isSidecarName(name));
        if (children.length > 0) throw new CairnError('INVALID_INPUT', `${canonical} is not empty: remove it recursively`);
      }
      await rm(path, { recursive: true, force: true });
    } else {
      await rm(path, { force: true });
      await rm(path + FILE_META_SUFFIX, { force: true });
    }
  }
}

/** A node's summary state for `tree()`: drawn by the DAG view when it rebuilds from the workspace. */
/**
 * Files up to this size are read synchronously. Reading a small file through the thread pool
 * is four round trips (open, stat, read, close), each a promise and a turn of the event loop:
 * about ten times the CPU of one synchronous read, which takes microseconds. The DAG reads a
 * meta per node and hundreds at once when it lists a directory, and that CPU on the engine's
 * thread delays every LLM answer in flight (issue 4). The engine runs in a worker in the app
 * and the web host, so a synchronous read never blocks a window.
 */
const SMALL_FILE_BYTES = 256 * 1024;

function readSmallFile(path: string): string {
  return readFileSync(path, 'utf8');
}

/** The file's text, or undefined when it cannot be read (a sidecar that is not there yet). */
function readSmallFileIfAny(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** The entries of a folder that are nodes (links, special files and sidecars left out), in natural order. */
function nodeDirents(dirents: Dirent[]): Dirent[] {
  return dirents.filter((d) => !isSidecarName(d.name) && (d.isDirectory() || d.isFile())).sort((a, b) => compareNatural(a.name, b.name));
}

function summaryOf(meta: NodeMeta | null): Pick<TreeNode, 'summary_status' | 'summary_reason'> {
  if (!meta?.summary_status) return {};
  return meta.summary_reason ? { summary_status: meta.summary_status, summary_reason: meta.summary_reason } : { summary_status: meta.summary_status };
}

function notFound(uri: string): CairnError {
  return new CairnError('NOT_FOUND', `No such node: ${uri}`, { details: { uri } });
}

function assertNodeName(parsed: CtxUri, uri: string): void {
  const name = parsed.segments.at(-1);
  if (name !== undefined && isSidecarName(name)) {
    throw new CairnError('INVALID_URI', `${uri}: "${name}" is reserved for ContextFS sidecar files`);
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

/** When this process started: a temp file older than that belongs to a process that is gone. */
const PROCESS_STARTED_AT = Date.now() - process.uptime() * 1000;

/**
 * Removes atomic-write temp files (`.cairn-tmp-*`) left in a directory by a process killed in
 * mid-write (found by the crash soak, test/reliability/crash-soak.test.ts). Called when a
 * directory is summarized again, which a resumed run does for every directory a kill left
 * unfinished. Only files older than this process are removed: a live writer's temp file exists
 * for milliseconds and is newer.
 */
async function sweepDeadTempFiles(dir: string): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith('.cairn-tmp-')) continue;
    const info = await lstat(join(dir, name)).catch(() => null);
    if (info?.isFile() && info.mtimeMs < PROCESS_STARTED_AT) await rm(join(dir, name), { force: true });
  }
}
