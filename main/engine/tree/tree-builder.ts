/**
 * TreeBuilder: moves staged trees from `ctx://temp/{job}/` into their scope, removes nodes whose
 * source disappeared, and writes directory metas with a tree hash, so a directory whose subtree
 * did not change keeps its summary. Every step checks what is already in place, so running it
 * again after a kill finishes the job without doing anything twice.
 */
import { CairnError } from '../../../shared/errors.js';
import type { Skip } from '../../../shared/types/ingest.js';
import type { ContextType, NodeMeta } from '../../../shared/types/node.js';
import { parentUri } from '../../../shared/uri.js';
import { noopIndex, type ContextIndex, type IndexInput } from '../ports/context-index.js';
import { nodeRecords } from '../index/node-records.js';
import type { Logger } from '../ports/logger.js';
import { sha256 } from '../util/hash.js';
import type { ContextFS } from './context-fs.js';

export interface FileOutcome {
  relPath: string;
  /** Where the file's node lives (without a trailing slash; the kind says file or directory). */
  target: string;
  staging: string;
  state: 'unchanged' | 'staged';
  /**
   * An unchanged node to hand to the index again: a killed run of this ingest moved it into
   * place, and may have died before its records reached the index journal.
   */
  reindex?: boolean;
  kind: 'file' | 'dir';
  sourceHash: string;
  bytes: number;
  tokens: number;
  nodeCount: number;
}

export interface BuildInput {
  fs: ContextFS;
  index: ContextIndex;
  logger: Logger;
  now: string;
  rootUri: string;
  /** Where the parse staged this job's trees (`ctx://temp/{job}/`), laid out as under the root. */
  stagingRoot: string;
  sourceIsFile: boolean;
  source: string;
  contextType: ContextType;
  files: FileOutcome[];
  /** Every included source directory, '' being the root, with its node URI. */
  dirs: { relPath: string; uri: string }[];
  skipped: Skip[];
  /** Directory nodes found to be real folders in the workspace, reached through no link (ContextFS.dirStates). */
  realDirs?: ReadonlySet<string>;
  signal: AbortSignal;
  onProgress(done: number, total: number, current: string): void;
}

export interface BuildResult {
  rootUri: string;
  nodes: number;
  changed: number;
  removed: number;
  /** True when the root has no up-to-date summary: something changed, or it was never summarized. */
  needsSummary: boolean;
}

/** Most skips kept in the root's meta; the total is always kept. */
const MAX_SKIPS_IN_META = 5_000;

export async function buildTree(input: BuildInput): Promise<BuildResult> {
  const { fs, index } = input;
  let changed = 0;
  let done = 0;
  const total = input.files.length;

  // A first ingest (no root yet, everything staged): the staging tree is the whole new tree, so
  // one rename puts it in place instead of a rename (and its checks) per file and sidecar. A kill
  // after it is resumed like any kill after a move: the files are found in place, parsed by this
  // job, and handed to the index again.
  const whole = !input.sourceIsFile && (await movedWhole(input));

  for (const dir of input.dirs) await fs.mkdir(dir.uri);

  for (const file of input.files) {
    if (input.signal.aborted) throw new CairnError('CANCELLED', `Ingest of ${input.source} was cancelled; run it again to resume`);
    if (whole) {
      await indexSubtree(fs, index, withKind(file.target, file.kind));
      changed += 1;
    } else if (file.state === 'staged') {
      const kind = await fs.kindOf(file.target);
      if (kind) {
        // The index first: a run that dies between the two still finds the old node on resume
        // and removes both. The tree first would leave its records with nothing to find them by.
        await index.removeUnder(file.target);
        await fs.rm(file.target, { recursive: true });
      }
      await fs.mv(file.staging, file.target);
      await indexSubtree(fs, index, withKind(file.target, file.kind));
      changed += 1;
    } else if (file.reindex) {
      await indexSubtree(fs, index, withKind(file.target, file.kind));
    }
    done += 1;
    input.onProgress(done, total, file.relPath);
  }

  if (input.sourceIsFile) {
    const file = input.files[0];
    const rootUri = file ? withKind(file.target, file.kind) : input.rootUri;
    const meta = file ? await fs.readMeta(rootUri) : null;
    return { rootUri, nodes: file?.nodeCount ?? 0, changed, removed: 0, needsSummary: changed > 0 || (meta !== null && meta.summary_status !== 'done') };
  }

  const removed = await removeVanished(input);
  const dirResult = await writeDirMetas(input);
  const nodes = input.files.reduce((sum, f) => sum + f.nodeCount, 0) + input.dirs.length;
  return {
    rootUri: input.rootUri,
    nodes,
    changed: changed + dirResult.changedDirs,
    removed,
    needsSummary: changed > 0 || removed > 0 || dirResult.changedDirs > 0 || dirResult.rootUnsummarized,
  };
}

/**
 * Moves the staging tree to the root in one rename when the root does not exist yet and every
 * file was staged by this job; false (nothing done) otherwise. A staged file whose source has gone
 * since a killed run moves with it, and removeVanished takes it out like any other stray node.
 */
async function movedWhole(input: BuildInput): Promise<boolean> {
  if (input.files.length === 0 || input.files.some((file) => file.state !== 'staged')) return false;
  if ((await input.fs.kindOf(input.rootUri)) !== null || (await input.fs.kindOf(input.stagingRoot)) !== 'dir') return false;
  await input.fs.mv(input.stagingRoot, input.rootUri);
  return true;
}

/** Removes nodes under the root that no longer stand for an included source file or folder. */
async function removeVanished(input: BuildInput): Promise<number> {
  const expectedDirs = new Set(input.dirs.map((d) => d.uri));
  const expectedFiles = new Set(input.files.map((f) => f.target));
  let removed = 0;
  const walk = async (dirUri: string): Promise<void> => {
    for (const entry of await input.fs.children(dirUri, { real: input.realDirs?.has(dirUri) === true })) {
      const bare = entry.kind === 'dir' ? entry.uri.slice(0, -1) : entry.uri;
      if (expectedFiles.has(bare)) continue;
      if (entry.kind === 'dir' && expectedDirs.has(entry.uri)) {
        await walk(entry.uri);
        continue;
      }
      // The index first, as for a replaced node (see buildTree).
      await input.index.removeUnder(entry.uri);
      await input.fs.rm(entry.uri, { recursive: true });
      input.logger.info(`Removed ${entry.uri}: its source is gone or now skipped`);
      removed += 1;
    }
  };
  await walk(input.rootUri);
  return removed;
}

/**
 * Writes each directory's meta bottom-up. The tree hash covers the children's hashes; a
 * directory whose hash is unchanged keeps its meta (and so its summary status) untouched.
 */
async function writeDirMetas(input: BuildInput): Promise<{ changedDirs: number; rootUnsummarized: boolean }> {
  const childHashes = new Map<string, string[]>();
  const add = (parent: string | null, line: string) => {
    if (parent === null) return;
    const list = childHashes.get(parent) ?? [];
    list.push(line);
    childHashes.set(parent, list);
  };
  for (const file of input.files) add(parentUri(file.target), `f ${lastSegment(file.target)} ${file.sourceHash}`);

  let changedDirs = 0;
  let rootUnsummarized = false;
  const byDepth = [...input.dirs].sort((a, b) => depth(b.relPath) - depth(a.relPath) || (a.relPath < b.relPath ? -1 : 1));
  for (const dir of byDepth) {
    const isRoot = dir.relPath === '';
    const lines = (childHashes.get(dir.uri) ?? []).sort();
    const treeHash = sha256(lines.join('\n'));
    if (!isRoot) add(parentUri(dir.uri), `d ${lastSegment(dir.uri)} ${treeHash}`);
    // A folder known to be real and inside the workspace needs no realpath and stat of its own.
    const existing = await (input.realDirs?.has(dir.uri) ? input.fs.readMetaOf(dir.uri, 'dir') : input.fs.readMeta(dir.uri)).catch(() => null);
    const skipsChanged = isRoot && JSON.stringify(existing?.skipped ?? []) !== JSON.stringify(input.skipped.slice(0, MAX_SKIPS_IN_META));
    const sources = isRoot ? rootSources(existing, input.source) : undefined;
    if (existing?.tree_hash === treeHash && !skipsChanged && sources?.length === existing.sources?.length) {
      if (isRoot && existing.summary_status !== 'done') rootUnsummarized = true;
      continue;
    }
    const meta: NodeMeta = {
      ...(existing ?? {}),
      uri: dir.uri,
      kind: 'dir',
      context_type: input.contextType,
      source_path: dir.relPath ? `${input.source}/${dir.relPath}` : input.source,
      tree_hash: treeHash,
      created_at: existing?.created_at ?? input.now,
      updated_at: input.now,
      summary_status: existing?.tree_hash === treeHash ? (existing.summary_status ?? 'owed') : 'owed',
      ...(isRoot ? { skipped: input.skipped.slice(0, MAX_SKIPS_IN_META), skipped_total: input.skipped.length, sources } : {}),
    };
    await input.fs.writeMeta(dir.uri, meta);
    if (existing?.tree_hash !== treeHash) changedDirs += 1;
    if (isRoot && meta.summary_status !== 'done') rootUnsummarized = true;
  }
  return { changedDirs, rootUnsummarized };
}

/** The sources that fed a root, this one included (a root from before `sources` has its source_path). */
export function rootSources(meta: NodeMeta | null, source: string): string[] {
  const known = meta?.sources ?? (meta?.source_path ? [meta.source_path] : []);
  return known.includes(source) ? known : [...known, source];
}

/** Hands a moved subtree's leaves (L2) and any summaries they already have (L0/L1) to the index. */
async function indexSubtree(fs: ContextFS, index: ContextIndex, uri: string): Promise<void> {
  if (index === noopIndex) return;
  const records: IndexInput[] = [];
  const visit = async (nodeUri: string, kind: 'file' | 'dir'): Promise<void> => {
    if (kind === 'file') records.push(...(await nodeRecords(fs, nodeUri, 'file')));
    else for (const entry of await fs.children(nodeUri)) await visit(entry.uri, entry.kind);
  };
  await visit(uri, uri.endsWith('/') ? 'dir' : 'file');
  if (records.length > 0) await index.upsert(records);
}

function withKind(uri: string, kind: 'file' | 'dir'): string {
  return kind === 'dir' ? `${uri}/` : uri;
}

function lastSegment(uri: string): string {
  const bare = uri.endsWith('/') ? uri.slice(0, -1) : uri;
  return bare.slice(bare.lastIndexOf('/') + 1);
}

function depth(relPath: string): number {
  return relPath === '' ? 0 : relPath.split('/').length;
}
