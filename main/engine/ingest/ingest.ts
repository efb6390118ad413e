/**
 * The ingest pipeline: scan a folder, parse its files in parallel into `ctx://temp/{job}/`, then
 * let the tree builder move the result into its scope and enqueue the root for summarization.
 *
 * It is resumable and idempotent. A file whose bytes have not changed since the last ingest
 * (same sha256 as the `source_hash` on its node) is neither parsed nor rewritten, so summaries
 * already made survive. A killed run leaves a job record and the files it already parsed; the
 * next run of the same ingest picks both up, and since every step checks what is already in
 * place, nothing is lost and nothing is written twice.
 */
import { readFile, realpath, stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import pLimit from 'p-limit';
import type { EngineEvent } from '../../../shared/contracts/api.js';
import { CairnError, errorMessage } from '../../../shared/errors.js';
import type { FileWarning, IngestOptions, IngestResult, Skip, SkipReason } from '../../../shared/types/ingest.js';
import type { ContextType, NodeMeta } from '../../../shared/types/node.js';
import { formatCtxUri, parentUri, parseCtxUri, scopeRootUri, uriName, type IngestScope } from '../../../shared/uri.js';
import type { Clock } from '../ports/clock.js';
import type { ContextIndex } from '../ports/context-index.js';
import type { Logger } from '../ports/logger.js';
import type { ParseRunner } from '../parse/runner.js';
import { scanFolder, type ScannedFile } from '../scan/scan-folder.js';
import type { ContextFS } from '../tree/context-fs.js';
import { buildTree, rootSources, type FileOutcome } from '../tree/tree-builder.js';
import { safeNamesFor, safeNodeName } from '../tree/names.js';
import { sha256 } from '../util/hash.js';
import type { JobRecord, JobStore } from './job-store.js';
import { knownSource, readManifest, trustedEntries, writeManifest, type ManifestEntry } from './manifest.js';
import { asKind, writeParsedTree } from './write-parsed.js';

/** Where a finished tree's root is handed for summarization (the durable outbox). */
export interface SemanticQueue {
  enqueue(message: { uri: string; context_type: ContextType }): Promise<{ id: string }>;
}

export interface IngestDeps {
  fs: ContextFS;
  jobs: JobStore;
  parser: ParseRunner;
  index: ContextIndex;
  queue: SemanticQueue | null;
  logger: Logger;
  clock: Clock;
  /**
   * Files get their L0/L1 in the parse (extractive): true when the summary run that follows
   * would summarize them offline anyway (no LLM configured, summaries not held back).
   */
  summarizeFilesAtParse?: boolean;
}

export interface IngestRun {
  signal: AbortSignal;
  emit(event: EngineEvent): void;
  jobId?: string;
}

/**
 * A folder that is a copy of the real source (a git checkout in a temporary folder): the tree
 * records `source` (the repository's URL) rather than the copy's path, so a later ingest of the
 * same source finds and updates it, and `rootMeta` is written over the root's meta.
 */
export interface CopiedSource {
  source: string;
  /** The root's name unless `options.name` says otherwise (the copy's folder name means nothing). */
  name: string;
  rootMeta: Pick<NodeMeta, 'git'>;
}

/** Warnings listed in an ingest's result; the rest are in their nodes' metas and the log. */
export const MAX_WARNINGS_IN_RESULT = 1_000;

export const CONTEXT_TYPE_BY_SCOPE: Record<IngestScope, ContextType> = { resources: 'resource', user: 'memory', agent: 'skill' };

/**
 * Ingests a folder or a file into the workspace.
 *
 * @example
 * const result = await ingest(deps, '/usr/share/doc/python3.11/html', IngestOptions.parse({}), { signal, emit: console.log });
 * result.root; // 'ctx://resources/html/'
 */
export async function ingest(deps: IngestDeps, path: string, options: IngestOptions, run: IngestRun, copy?: CopiedSource): Promise<IngestResult> {
  const startedAt = performance.now();
  const folder = await resolveSource(path);
  const source = copy?.source ?? folder;
  // A file ingested `asFolder` is scanned as a file but built as a folder holding it.
  const isFile = (await stat(folder)).isFile();
  const wrapsFile = options.asFolder && isFile;
  const sourceIsFile = isFile && !wrapsFile;
  const contextType = CONTEXT_TYPE_BY_SCOPE[options.scope];
  const rootName = safeNodeName(options.name ?? copy?.name ?? basename(folder)).name;

  const resumable = (await deps.jobs.unfinished()).find(
    (job) => job.source === source && parseCtxUri(job.rootUri).scope === options.scope && (options.name === undefined || job.rootUri.includes(`/${rootName}`)),
  );
  const job: JobRecord =
    resumable ??
    (await deps.jobs.create(
      { source, rootUri: await chooseRootUri(deps, source, options, rootName, sourceIsFile), sourceIsFile, options, startedAt: deps.clock.now().toISOString() },
      run.jobId,
    ));
  const jobId = job.id;
  const resumed = resumable !== undefined;
  run.emit({ type: 'ingest/started', jobId, source, root: job.rootUri, resumed });
  if (resumed) deps.logger.info(`Resuming the interrupted ingest of ${source}`, { jobId });

  // 1. Scan.
  const skipped: Skip[] = [];
  const warnings: FileWarning[] = [];
  const warn = (warning: FileWarning) => {
    if (warnings.length < MAX_WARNINGS_IN_RESULT) warnings.push(warning);
  };
  const report = (skip: Skip) => {
    skipped.push(skip);
    run.emit({ type: 'ingest/skipped', jobId, skip });
  };
  // What the last finished ingest of this root left (manifest.ts): files it knows unchanged are
  // only stat'ed by the scan, and not opened.
  const manifest = sourceIsFile ? new Map<string, ManifestEntry>() : await readManifest(deps.jobs, job.rootUri, source);
  const scan = await scanFolder(folder, {
    maxFileBytes: options.maxFileBytes,
    ...(manifest.size > 0 ? { knownFile: (relPath: string, size: number, mtimeMs: number) => knownSource(manifest, relPath, size, mtimeMs) } : {}),
    followSymlinks: options.followSymlinks,
    signal: run.signal,
    logger: deps.logger,
    onProgress: (p) => run.emit({ type: 'ingest/progressed', jobId, phase: 'scan', done: p.files, total: null, bytes: p.bytes, current: p.current }),
  });
  for (const skip of scan.skipped) report(skip);
  run.emit({ type: 'ingest/progressed', jobId, phase: 'scan', done: scan.files.length, total: scan.files.length, bytes: scan.files.reduce((s, f) => s + f.size, 0) });

  // 2. Map source paths to node URIs, the same way every run.
  const scannedDirs = wrapsFile ? [''] : scan.dirs;
  const segmentsOf = nameMapper(scan.files.map((f) => f.relPath), scannedDirs);
  const rootSegments = parseCtxUri(job.rootUri).segments;
  const stagingRoot = `ctx://temp/${jobId}/`;
  const targetOf = (relPath: string) =>
    sourceIsFile ? stripSlash(job.rootUri) : formatCtxUri({ scope: options.scope, segments: [...rootSegments, ...segmentsOf(relPath)], isDir: false });
  const stagingOf = (relPath: string) => formatCtxUri({ scope: 'temp', segments: [jobId, ...(sourceIsFile ? [rootName] : segmentsOf(relPath))], isDir: false });

  // 3. Parse what changed, in parallel, into the staging tree. Files the last ingest's manifest
  // still vouches for are unchanged without a meta read (a file a killed run of this job parsed
  // is not among them: its node may be new, and its records may not have reached the index).
  const alreadyParsed = await deps.jobs.readParsed(jobId);
  const dirUriOf = (rel: string) => formatCtxUri({ scope: options.scope, segments: [...rootSegments, ...segmentsOf(rel)], isDir: true });
  const dirs = sourceIsFile ? { real: new Set<string>(), missing: new Set<string>() } : await deps.fs.dirStates(scannedDirs.map(dirUriOf));
  const realDirs = dirs.real;
  const trusted = trustedEntries(deps.fs, manifest, {
    files: scan.files.map((file) => ({ relPath: file.relPath, size: file.size, mtimeMs: file.mtimeMs, target: targetOf(file.relPath) })),
    realDirs,
    exclude: new Set(alreadyParsed.keys()),
  });
  const outcomes: (FileOutcome | null)[] = new Array(scan.files.length).fill(null);
  let parsedDone = 0;
  let bytesDone = 0;
  const totalFiles = scan.files.length;
  const limit = pLimit(Math.max(2, deps.parser.concurrency * 2));
  await Promise.all(
    scan.files.map((file, i) =>
      limit(async () => {
        if (run.signal.aborted) return;
        const recordedPath = copy ? `${source}/${file.relPath}` : file.path;
        const target = targetOf(file.relPath);
        const known = trusted.get(file.relPath);
        const outcome: FileOutcome | null = known
          ? { relPath: file.relPath, target, staging: stagingOf(file.relPath), state: 'unchanged', reindex: false, kind: known.kind, sourceHash: known.sourceHash, bytes: file.size, tokens: known.tokens, nodeCount: known.nodeCount }
          : await prepareFile(deps, { file, recordedPath, job, contextType, target, staging: stagingOf(file.relPath), alreadyParsed, signal: run.signal, report, warn, inMissingDir: dirs.missing.has(parentUri(target) ?? '') });
        outcomes[i] = outcome;
        parsedDone += 1;
        bytesDone += file.size;
        run.emit({ type: 'ingest/progressed', jobId, phase: 'parse', done: parsedDone, total: totalFiles, bytes: bytesDone, current: file.relPath });
      }),
    ),
  );
  throwIfCancelled(run.signal, source);

  // 4. Build: move staged trees into place, drop what disappeared, update directory metas.
  const kept = outcomes.filter((o): o is FileOutcome => o !== null);
  const built = await buildTree({
    fs: deps.fs,
    index: deps.index,
    logger: deps.logger,
    now: deps.clock.now().toISOString(),
    rootUri: job.rootUri,
    stagingRoot,
    sourceIsFile,
    source,
    contextType,
    files: kept,
    dirs: sourceIsFile ? [] : scannedDirs.map((rel) => ({ relPath: rel, uri: dirUriOf(rel) })),
    skipped,
    realDirs,
    signal: run.signal,
    onProgress: (done, total, current) => run.emit({ type: 'ingest/progressed', jobId, phase: 'build', done, total, bytes: 0, current }),
  });

  if (copy) {
    // Written whatever the tree did: a new commit that changed no ingested file still moves the root to it.
    const rootMeta = await deps.fs.readMeta(built.rootUri);
    if (rootMeta) await deps.fs.writeMeta(built.rootUri, { ...rootMeta, ...copy.rootMeta });
  }
  if (options.reason !== undefined) await keepReason(deps.fs, built.rootUri, options.reason);

  // 5. Hand the root to the summarizer when anything under it changed or it was never summarized.
  if (deps.queue && built.needsSummary) {
    const message = await deps.queue.enqueue({ uri: built.rootUri, context_type: contextType });
    run.emit({ type: 'queue/enqueued', id: message.id, uri: built.rootUri, context_type: contextType });
  }
  await deps.fs.rm(stagingRoot, { recursive: true }).catch(() => undefined);
  // Before the job is finished: a kill in between resumes the job, which trusts no file it parsed.
  if (!sourceIsFile && (trusted.size !== kept.length || built.changed > 0 || built.removed > 0)) {
    const scanned = new Map(scan.files.map((file) => [file.relPath, file]));
    const files = kept.map((outcome) => ({ outcome, size: scanned.get(outcome.relPath)!.size, mtimeMs: scanned.get(outcome.relPath)!.mtimeMs }));
    await writeManifest(deps, { rootUri: job.rootUri, source, files, known: trusted });
  }
  await deps.jobs.finish(jobId);

  return {
    jobId,
    root: built.rootUri,
    files: kept.length,
    nodes: built.nodes,
    changed: built.changed,
    removed: built.removed,
    skipped,
    warnings,
    bytes: kept.reduce((sum, o) => sum + o.bytes, 0),
    tokens: kept.reduce((sum, o) => sum + o.tokens, 0),
    llm_calls: 0,
    ms: Math.round(performance.now() - startedAt),
    resumed,
  };
}

interface PrepareInput {
  file: ScannedFile;
  /** The file's source_path in its node's meta. */
  recordedPath: string;
  job: JobRecord;
  contextType: ContextType;
  target: string;
  staging: string;
  alreadyParsed: Map<string, { sourceHash: string; kind: 'file' | 'dir'; tokens: number; nodeCount: number }>;
  signal: AbortSignal;
  /** Its folder's node is not there (a first ingest): no node to read a meta from. */
  inMissingDir: boolean;
  report(skip: Skip): void;
  warn(warning: FileWarning): void;
}

/** Decides a file's fate: unchanged since the last ingest, staged earlier by a killed run, or parsed now. */
async function prepareFile(deps: IngestDeps, input: PrepareInput): Promise<FileOutcome | null> {
  const { file, job } = input;
  const existing = input.inMissingDir ? null : await deps.fs.readMeta(input.target).catch(() => null);
  // Parsed by a killed run of this very ingest and already in place: that run may have died
  // between the move and the index write (crash soak, issue 10), so its records go again
  // (unchanged texts keep their vectors).
  const movedByKilledRun = existing?.source_hash !== undefined && input.alreadyParsed.get(file.relPath)?.sourceHash === existing.source_hash;
  // Same size and mtime as when it was last read: trust its hash rather than read it again, so
  // re-ingesting (and `cairn watch`) costs a stat per unchanged file, not a read.
  if (existing?.source_hash && existing.source_mtime_ms === file.mtimeMs && existing.bytes === file.size) {
    const base = { relPath: file.relPath, target: input.target, staging: input.staging, sourceHash: existing.source_hash, bytes: file.size };
    return { ...base, state: 'unchanged', reindex: movedByKilledRun, kind: existing.kind, tokens: existing.tokens ?? 0, nodeCount: existing.node_count ?? 1 };
  }
  let bytes: Buffer;
  try {
    bytes = await readFile(file.path);
  } catch (error) {
    input.report({ path: file.relPath, reason: 'unreadable', detail: `cannot read the file: ${errorMessage(error)}` });
    return null;
  }
  const sourceHash = sha256(bytes);
  const base = { relPath: file.relPath, target: input.target, staging: input.staging, sourceHash, bytes: bytes.byteLength };

  if (existing?.source_hash === sourceHash) {
    // Touched but not changed: remember the new mtime so the next run need not read it.
    if (existing.source_mtime_ms !== file.mtimeMs) await deps.fs.writeMeta(input.target, { ...existing, source_mtime_ms: file.mtimeMs }).catch(() => undefined);
    return { ...base, state: 'unchanged', reindex: movedByKilledRun, kind: existing.kind, tokens: existing.tokens ?? 0, nodeCount: existing.node_count ?? 1 };
  }
  const earlier = input.alreadyParsed.get(file.relPath);
  if (earlier?.sourceHash === sourceHash && (await deps.fs.kindOf(input.staging)) === earlier.kind) {
    return { ...base, state: 'staged', kind: earlier.kind, tokens: earlier.tokens, nodeCount: earlier.nodeCount };
  }

  let parsed;
  try {
    parsed = await deps.parser.parse(
      {
        path: file.path,
        relPath: file.relPath,
        bytes: new Uint8Array(bytes),
        split: job.options.split,
        codeSummaryMode: job.options.codeSummaryMode,
        ...(deps.summarizeFilesAtParse ? { fileSummaries: { name: uriName(input.target) } } : {}),
      },
      input.signal,
    );
  } catch (error) {
    if (input.signal.aborted) return null;
    const reason: SkipReason = CairnError.is(error, 'UNSUPPORTED_ENCODING') ? 'unsupported-encoding' : 'parse-error';
    input.report({ path: file.relPath, reason, detail: errorMessage(error) });
    return null;
  }
  for (const warning of parsed.warnings) {
    deps.logger.warn(`${file.relPath}: ${warning}`);
    input.warn({ path: file.relPath, warning });
  }
  // A staging tree left by a killed parse of this same file is replaced whole.
  await deps.fs.rm(input.staging, { recursive: true }).catch(() => undefined);
  const kind = parsed.node.kind;
  const nodeCount = await writeParsedTree({
    fs: deps.fs,
    stagingUri: input.staging,
    finalUri: asKind(input.target, kind === 'dir'),
    parsed,
    sourcePath: input.recordedPath,
    sourceHash,
    bytes: bytes.byteLength,
    mtimeMs: file.mtimeMs,
    contextType: input.contextType,
    now: deps.clock.now().toISOString(),
  });
  await deps.jobs.appendParsed(job.id, { relPath: file.relPath, sourceHash, kind, tokens: parsed.tokens, nodeCount });
  return { ...base, state: 'staged', kind, tokens: parsed.tokens, nodeCount };
}

async function resolveSource(path: string): Promise<string> {
  try {
    return await realpath(resolve(path));
  } catch (error) {
    throw new CairnError('NOT_FOUND', `Cannot ingest ${path}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or folder' : errorMessage(error)}`, { cause: error });
  }
}

/**
 * The root's URI under its scope: the source's name, unless a different source already holds
 * that name, in which case `name-2`, `name-3`... Re-ingesting the same source finds its old root.
 */
/**
 * Where a source's tree goes. A root this source already fed is updated in place, whatever its
 * name now (renamed with fs:mv, or updated from here before); without `name`, found by the
 * sources recorded in the roots' metas. Else the name, when free; when a tree of another source
 * has it, `onClash` says: update that tree, or add this one as a copy (`name-2`).
 */
async function chooseRootUri(deps: IngestDeps, source: string, options: IngestOptions, name: string, isFile: boolean): Promise<string> {
  const base = baseUriOf(options);
  const kind = isFile ? 'file' : 'dir';
  const withKind = (uri: string) => (isFile ? uri : `${uri}/`);
  const fedBy = async (uri: string, nodeKind: 'file' | 'dir') => {
    const meta = await deps.fs.readMetaOf(uri, nodeKind).catch(() => null);
    return meta !== null && rootSources(meta, '').includes(source);
  };
  if (options.name === undefined) {
    const roots = (await deps.fs.ls(base).catch(() => [])).filter((entry) => entry.kind === kind);
    for (const entry of roots) if (await fedBy(entry.uri, entry.kind)) return entry.uri;
  }
  const claimed = new Set((await deps.jobs.unfinished()).filter((job) => job.source !== source).map((job) => stripSlash(job.rootUri)));
  for (let n = 1; ; n++) {
    const candidate = stripSlash(`${base}${n === 1 ? name : suffixName(name, n, isFile)}`);
    if (claimed.has(candidate)) continue;
    const existing = await deps.fs.kindOf(candidate);
    if (existing === null) return withKind(candidate);
    if (existing === kind && ((await fedBy(withKind(candidate), kind)) || (n === 1 && options.onClash === 'update'))) return withKind(candidate);
  }
}

/** The folder an ingest's root goes in: the scope root, or the folder `under` names in it. */
function baseUriOf(options: IngestOptions): string {
  return `${scopeRootUri(options.scope)}${options.under ? `${options.under}/` : ''}`;
}

/** Keeps why the tree was added on its root's meta (what it says now replaces what it said before). */
async function keepReason(fs: ContextFS, rootUri: string, reason: string): Promise<void> {
  const meta = await fs.readMeta(rootUri);
  if (meta && meta.reason !== reason) await fs.writeMeta(rootUri, { ...meta, reason });
}

function suffixName(name: string, n: number, isFile: boolean): string {
  if (!isFile) return `${name}-${n}`;
  const dot = name.lastIndexOf('.');
  return dot > 0 ? `${name.slice(0, dot)}-${n}${name.slice(dot)}` : `${name}-${n}`;
}

/** Maps each relative source path to its node-name segments, sibling by sibling. */
function nameMapper(files: string[], dirs: string[]): (relPath: string) => string[] {
  const children = new Map<string, string[]>();
  for (const rel of [...files, ...dirs]) {
    if (!rel) continue;
    const parent = dirname(rel) === '.' ? '' : dirname(rel);
    const list = children.get(parent) ?? [];
    list.push(basename(rel));
    children.set(parent, list);
  }
  const safeByParent = new Map<string, Map<string, string>>();
  for (const [parent, names] of children) safeByParent.set(parent, safeNamesFor(names));
  return (relPath: string) => {
    const parts = relPath.split('/').filter(Boolean);
    const segments: string[] = [];
    for (let i = 0; i < parts.length; i++) {
      const parent = parts.slice(0, i).join('/');
      segments.push(safeByParent.get(parent)?.get(parts[i]!) ?? safeNodeName(parts[i]!).name);
    }
    return segments;
  };
}

function stripSlash(uri: string): string {
  return uri.endsWith('/') && !uri.endsWith('://') ? uri.slice(0, -1) : uri;
}

function throwIfCancelled(signal: AbortSignal, source: string): void {
  if (signal.aborted) throw new CairnError('CANCELLED', `Ingest of ${source} was cancelled; run it again to resume`);
}
