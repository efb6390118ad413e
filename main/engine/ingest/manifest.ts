/**
 * The manifest of a finished ingest: for each file of the tree, its source's size and mtime, its
 * node's hash, kind, tokens and node count, and how its node's meta and content stood on disk
 * (inode, size, ctime) when the ingest ended. The next ingest of the same root reads it in one go
 * and trusts an entry instead of reading the file's meta when the source has the same size and
 * mtime (the rule prepareFile applies to the meta anyway) and the node's meta and content are
 * still the very files the manifest saw: an lstat of each, where the meta read cost a realpath,
 * a stat, a read and a parse (an unchanged re-ingest of Go's src spent most of its 3.6 s there).
 *
 * Anything else falls back to reading the meta: a node removed, moved or rewritten since (by
 * `cairn rm`, a summary run, a hand edit: its meta is a new file, with a new inode and ctime), a
 * meta or content that is now a link, a folder on the way that is not a real folder inside the
 * workspace (ContextFS.dirStates), a file a killed run of this job already parsed. A manifest is
 * only a shortcut: a missing or unreadable one costs the meta reads, never a wrong tree.
 */
import { lstatSync, type Stats } from 'node:fs';
import { parentUri } from '../../../shared/uri.js';
import type { ContextFS } from '../tree/context-fs.js';
import type { FileOutcome } from '../tree/tree-builder.js';
import type { JobStore } from './job-store.js';

const VERSION = 1;

/** What the manifest knows of one file's node. */
export interface ManifestEntry {
  size: number;
  mtimeMs: number;
  sourceHash: string;
  kind: 'file' | 'dir';
  tokens: number;
  nodeCount: number;
  /** [inode, size, ctimeMs] of the node's meta, then of its content (a file, or a document's folder). */
  disk: [number, number, number, number, number, number];
}

type Row = [string, number, number, string, 'f' | 'd', number, number, number, number, number, number, number, number];

interface ManifestFileFormat {
  version: number;
  source: string;
  files: Row[];
}

export interface ManifestFile {
  relPath: string;
  size: number;
  mtimeMs: number;
  /** The node's URI, without a trailing slash. */
  target: string;
}

/** The entries of the last manifest of `rootUri`, when it was written for this source (empty otherwise). */
export async function readManifest(jobs: JobStore, rootUri: string, source: string): Promise<Map<string, ManifestEntry>> {
  return parseManifest(await jobs.readManifest(rootUri), source) ?? new Map();
}

/** True when the manifest knows a file with this size and mtime (whether its node is still in place is trustedEntries' question). */
export function knownSource(manifest: ReadonlyMap<string, ManifestEntry>, relPath: string, size: number, mtimeMs: number): boolean {
  const entry = manifest.get(relPath);
  return entry !== undefined && entry.size === size && entry.mtimeMs === mtimeMs;
}

/**
 * The manifest's entries that still hold for these scanned files: the caller treats them as
 * unchanged without reading their metas. `realDirs` are the directory nodes a file's parent must
 * be among (ContextFS.dirStates); `exclude` the files not to trust whatever the manifest says.
 */
export function trustedEntries(
  fs: ContextFS,
  manifest: ReadonlyMap<string, ManifestEntry>,
  input: { files: readonly ManifestFile[]; realDirs: ReadonlySet<string>; exclude: ReadonlySet<string> },
): Map<string, ManifestEntry> {
  const trusted = new Map<string, ManifestEntry>();
  for (const file of input.files) {
    const entry = manifest.get(file.relPath);
    if (!entry || !knownSource(manifest, file.relPath, file.size, file.mtimeMs) || input.exclude.has(file.relPath)) continue;
    const parent = parentUri(file.target);
    if (parent === null || !input.realDirs.has(parent)) continue;
    const disk = diskOf(fs, file.target, entry.kind);
    if (disk && disk.every((value, i) => value === entry.disk[i])) trusted.set(file.relPath, entry);
  }
  return trusted;
}

/**
 * Writes the manifest of a finished ingest. `known` are the entries trusted at its start (their
 * files are as they were); every other file's meta and content are lstat'ed now. A file whose
 * node cannot be found is left out (the next run reads its meta).
 */
export async function writeManifest(
  deps: { fs: ContextFS; jobs: JobStore },
  input: { rootUri: string; source: string; files: readonly { outcome: FileOutcome; size: number; mtimeMs: number }[]; known: ReadonlyMap<string, ManifestEntry> },
): Promise<void> {
  const rows: Row[] = [];
  for (const { outcome, size, mtimeMs } of input.files) {
    const known = input.known.get(outcome.relPath);
    const disk = known?.disk ?? diskOf(deps.fs, outcome.target, outcome.kind);
    if (!disk) continue;
    rows.push([outcome.relPath, size, mtimeMs, outcome.sourceHash, outcome.kind === 'dir' ? 'd' : 'f', outcome.tokens, outcome.nodeCount, ...disk]);
  }
  const manifest: ManifestFileFormat = { version: VERSION, source: input.source, files: rows };
  await deps.jobs.writeManifest(input.rootUri, manifest);
}

/** [inode, size, ctimeMs] of a node's meta and of its content, or null when either is missing or not what it should be (a link, a folder for a file). */
function diskOf(fs: ContextFS, target: string, kind: 'file' | 'dir'): ManifestEntry['disk'] | null {
  const uri = kind === 'dir' ? `${target}/` : target;
  let meta: Stats;
  let content: Stats;
  try {
    content = lstatSync(fs.pathOf(uri));
    meta = lstatSync(fs.metaPathOf(uri, kind));
  } catch {
    return null;
  }
  if (!meta.isFile() || (kind === 'dir' ? !content.isDirectory() : !content.isFile())) return null;
  return [meta.ino, meta.size, meta.ctimeMs, content.ino, content.size, content.ctimeMs];
}

function parseManifest(data: unknown, source: string): Map<string, ManifestEntry> | null {
  const manifest = data as Partial<ManifestFileFormat> | null;
  if (!manifest || manifest.version !== VERSION || manifest.source !== source || !Array.isArray(manifest.files)) return null;
  const entries = new Map<string, ManifestEntry>();
  for (const row of manifest.files) {
    if (!Array.isArray(row) || row.length !== 13) return null;
    const [relPath, size, mtimeMs, sourceHash, kind, tokens, nodeCount, ...disk] = row;
    entries.set(relPath, { size, mtimeMs, sourceHash, kind: kind === 'd' ? 'dir' : 'file', tokens, nodeCount, disk: disk as ManifestEntry['disk'] });
  }
  return entries;
}
