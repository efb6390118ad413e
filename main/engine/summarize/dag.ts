/**
 * The DAG summarizer of the spec (docs/SPEC.md#summaries): every directory is summarized once all
 * its children are, bottom-up, with as much running in parallel as the tree allows.
 *
 * `_dispatch_dir` lists a directory, creates its DirNode with `pending = dirs + files`, starts a
 * file task per file and recurses into each sub-directory. `_on_file_done` and `_on_child_done`
 * decrement `pending`; at zero the directory's summary task collects the file abstracts and the
 * child summaries, asks the summarizer (falling back to the seed's fallback when it fails), writes
 * the node to ContextFS, hands its L0 and L1 to the index and notifies its parent. The root's
 * completion ends the run.
 *
 * Work already done is not redone: a directory whose summary is current (its subtree unchanged
 * since it was summarized; the ingest marks changed directories as owed) is reused as it is
 * without descending into it, and a file that already has its L0/L1 is not summarized again. So
 * a crashed run resumes where it stopped, and an edit re-summarizes only the file and its ancestors.
 * A run with `redo` (an upgrade) descends into every directory instead, redoes the nodes `redo`
 * picks (what a weaker summarizer wrote) and the directories above them, and reuses the rest.
 *
 * Each meta records who wrote its summary (`summarizer`, provenance.ts), and each fallback its
 * cause, grouped per run (`fallback_causes`, llm/failure-cause.ts).
 *
 * @example
 * const result = await new DirectoryEventHandler(deps).processDirectoryEvent('ctx://resources/docs/');
 * result.dirsSummarized; // directories that got a new L0/L1
 */
import { setMaxListeners } from 'node:events';
import type { EngineEvent } from '../../../shared/contracts/api.js';
import { CairnError, errorMessage } from '../../../shared/errors.js';
import type { NodeMeta, SummarizerProvenance } from '../../../shared/types/node.js';
import { uriName } from '../../../shared/uri.js';
import type { Clock } from '../ports/clock.js';
import type { ContextIndex } from '../ports/context-index.js';
import { contentUpdatedAt, shapeNodeRecords, type NodeTexts } from '../index/node-records.js';
import type { Logger } from '../ports/logger.js';
import type { ContextFS } from '../tree/context-fs.js';
import { failureCause } from '../llm/failure-cause.js';
import { countCause, type FallbackCauses } from '../../../shared/fallback-causes.js';
import { keyTermsOfOverview } from './extractive-directory-terms.js';
import { categoriesOf, fallbackSummary } from './fallback.js';
import { priorityLimit, type PriorityLimit } from './priority-limit.js';
import { DEFAULT_MAX_INPUT_CHARS, MAX_ABSTRACT_CHARS, MAX_OVERVIEW_CHARS, clipSummary as clip, type ChildSummary, type NodeSummarizer, type SummaryOutput } from './types.js';

export interface DagDeps {
  fs: ContextFS;
  summarizer: NodeSummarizer;
  /** Used for a file when the summarizer fails on it (the embedded extractive summarizer). */
  fileFallback: NodeSummarizer;
  index: ContextIndex;
  logger: Logger;
  clock: Clock;
  emit(event: EngineEvent): void;
  /** Children per summary call; larger directories are summarized in batches and merged. */
  maxChildren?: number;
  /** Summary tasks in flight at once (the LLM's own process-wide limit applies inside it too). */
  concurrency?: number;
  /** Most characters of a file given to the summarizer. */
  maxInputChars?: number;
  signal?: AbortSignal;
  /**
   * Summaries to write again although they are current (`cairn summarize --upgrade/--force`).
   * With it the run descends into every directory; a directory is redone when `redo` picks it
   * or anything below it was redone.
   */
  redo?: (meta: NodeMeta) => boolean;
}

/** Directory and file nodes; of those, split documents (dirs) and their sections (files): shared/tree-counts.ts names them. */
export interface DagCounts {
  dirs_total: number;
  dirs_done: number;
  files_total: number;
  files_done: number;
  documents_total: number;
  documents_done: number;
  sections_total: number;
  sections_done: number;
  llm_calls: number;
}

export interface DirectoryEventResult extends DagCounts {
  root: string;
  dirsSummarized: number;
  dirsReused: number;
  filesSummarized: number;
  fallbacks: number;
  /** The fallbacks' causes, grouped, with counts. */
  fallback_causes: FallbackCauses;
  failed: number;
  tokens: number;
  ms: number;
}

/** The seed's DirNode. */
interface DirNode {
  uri: string;
  parentUri: string | null;
  children_dirs: string[];
  file_children: string[];
  pending: number;
  /** Summaries of the child directories, by their index in children_dirs (null: no summary). */
  children_summaries: (ChildSummary | null)[];
  /** The files' L0 and key terms as this run read or wrote them, so the summary does not read every meta again. */
  file_summaries: Map<string, ChildSummary>;
  /** LLM calls from this directory's summary to the root's, both included: its tasks' priority. */
  rest: number;
  /** Its meta as listed (null: none yet), which its summary extends. */
  meta: NodeMeta | null;
  /** Whether a child got a new summary in this run (with `redo`, it must be summarized again too). */
  changed: boolean;
}

/** What a directory's listing already read about a child directory. */
interface Listed {
  meta: NodeMeta | null;
  abstract: string | undefined;
}

type DagEvent = Extract<EngineEvent, { type: `dag/${string}` }>;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/**
 * Summary tasks in flight. Above the LLM's own limit (10 by default) on purpose: a task also
 * reads its file and writes its summary and index rows, and those should overlap the LLM calls
 * of other tasks rather than hold a call slot idle. The LLM limiter still caps calls in flight.
 * Queued tasks start by priority: the calls still ahead of them up to the root, so the deepest
 * chains (the critical path) go first and the run does not end on one chain climbing alone.
 */
export const DEFAULT_SUMMARY_TASKS = 32;

/**
 * Directories listed at once. A listing reads every child's meta (a file's holds its L1 and its
 * skeleton); unbounded, the descent listed the whole tree at once and held every meta of it
 * (bench/RESULTS.md, issue 20, 50k files). Deeper directories are listed first, so subtrees
 * finish and free their nodes while the descent goes on.
 */
export const MAX_DIRECTORY_LISTINGS = 8;

const DEFAULT_CATEGORY: Record<string, string> = { code: 'code', markdown: 'document', text: 'document', html: 'document', pdf: 'document' };

export class DirectoryEventHandler {
  private readonly nodes = new Map<string, DirNode>();
  private readonly limit: PriorityLimit;
  /** Bounds the listings in flight (MAX_DIRECTORY_LISTINGS), deepest first. */
  private readonly listings = priorityLimit(MAX_DIRECTORY_LISTINGS);
  private readonly counts: DagCounts = {
    dirs_total: 0,
    dirs_done: 0,
    files_total: 0,
    files_done: 0,
    documents_total: 0,
    documents_done: 0,
    sections_total: 0,
    sections_done: 0,
    llm_calls: 0,
  };
  private stats = { dirsSummarized: 0, dirsReused: 0, filesSummarized: 0, fallbacks: 0, fallback_causes: [] as FallbackCauses, failed: 0, tokens: 0 };
  private rootUri = '';
  private rootDone!: { resolve(summary: ChildSummary | null): void; reject(error: unknown): void };
  private readonly maxChildren: number;
  private readonly maxInputChars: number;

  constructor(private readonly deps: DagDeps) {
    this.limit = priorityLimit(deps.concurrency ?? DEFAULT_SUMMARY_TASKS);
    this.maxChildren = deps.maxChildren ?? 50;
    this.maxInputChars = deps.maxInputChars ?? DEFAULT_MAX_INPUT_CHARS;
    // Every summary in flight (and every LLM call waiting for a slot) listens to the run's signal;
    // that is by design, not a leak, so Node's warning past 10 listeners does not apply.
    if (deps.signal) setMaxListeners(0, deps.signal);
  }

  async processDirectoryEvent(rootUri: string): Promise<DirectoryEventResult> {
    const started = performance.now();
    const { uri, kind } = await this.deps.fs.canonicalUri(rootUri);
    this.rootUri = uri;
    if (kind === 'file') {
      // A single ingested file is a DAG of one node: summarize it if it has no L0/L1 yet.
      this.counts.files_total = 1;
      const meta = await this.deps.fs.readMeta(uri);
      if (!meta?.abstract || this.deps.redo?.(meta)) await this.summarizeFile(uri, meta);
      this.counts.files_done = 1;
      return { root: uri, ...this.counts, ...this.stats, ms: Math.round(performance.now() - started) };
    }
    const done = new Promise<ChildSummary | null>((resolve, reject) => (this.rootDone = { resolve, reject }));
    const onAbort = () => this.rootDone.reject(new CairnError('CANCELLED', `Summarizing ${uri} was cancelled; it resumes on the next run`));
    this.deps.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      this.dispatchDir(uri, null).catch((error) => this.rootDone.reject(error));
      await done;
    } finally {
      this.deps.signal?.removeEventListener('abort', onAbort);
    }
    return { root: uri, ...this.counts, ...this.stats, ms: Math.round(performance.now() - started) };
  }

  private emit(event: DistributiveOmit<DagEvent, 'root' | 'counts'>): void {
    this.deps.emit({ ...event, root: this.rootUri, counts: { ...this.counts } } as DagEvent);
  }

  private checkCancelled(): void {
    if (this.deps.signal?.aborted) throw new CairnError('CANCELLED', `Summarizing ${this.rootUri} was cancelled`);
  }

  /**
   * `_dispatch_dir`: list, build the DirNode, start file tasks, recurse into sub-directories.
   * `listed` is what the parent's listing read about this directory (the root reads its own).
   */
  private async dispatchDir(uri: string, parent: string | null, listed?: Listed): Promise<void> {
    this.checkCancelled();
    this.counts.dirs_total += 1;
    const meta = listed ? listed.meta : await this.deps.fs.readMeta(uri).catch(() => null);
    if (meta?.document) this.counts.documents_total += 1;
    // An upgrade looks below current directories too: what a weaker summarizer wrote may be anywhere.
    if (!this.deps.redo && isCurrent(meta) && (await this.reuse(uri, parent, meta, listed?.abstract))) return;

    const depth = parent === null ? 0 : (this.nodes.get(parent)?.rest ?? 0);
    let entries;
    try {
      entries = await this.listings(depth, () => this.deps.fs.lsWithMeta(uri));
    } catch (error) {
      this.deps.logger.warn(`Skipping ${uri}: cannot list it (${errorMessage(error)})`);
      this.stats.failed += 1;
      this.emit({ type: 'dag/failed', uri, reason: errorMessage(error) });
      this.childDone(parent, uri, null, false);
      return;
    }
    const files = entries.filter((e) => e.entry.kind === 'file');
    const dirs = entries.filter((e) => e.entry.kind === 'dir');
    const maxChildren = this.deps.summarizer.maxChildren ?? this.maxChildren;
    const node: DirNode = {
      uri,
      parentUri: parent,
      children_dirs: dirs.map((e) => e.entry.uri),
      file_children: files.map((e) => e.entry.uri),
      pending: entries.length,
      children_summaries: [],
      file_summaries: new Map(),
      // A directory above max_children costs two calls on the chain (its batches, then the merge).
      rest: (entries.length > maxChildren ? 2 : 1) + (parent === null ? 0 : (this.nodes.get(parent)?.rest ?? 0)),
      meta,
      changed: false,
    };
    node.children_summaries = node.children_dirs.map(() => null);
    this.nodes.set(uri, node);
    this.counts.files_total += node.file_children.length;
    if (meta?.document) this.counts.sections_total += node.file_children.length;
    this.emit({
      type: 'dag/dir-dispatched',
      uri,
      parent,
      pending: node.pending,
      dirs: node.children_dirs.length,
      files: node.file_children.length,
      ...(meta?.document ? { document: true } : {}),
    });

    if (node.pending === 0) {
      this.scheduleSummary(uri);
      return;
    }
    for (const { entry, meta, metaError } of files) {
      void this.fileTask(node, entry.uri, meta, metaError);
    }
    for (const { entry, meta: childMeta } of dirs) {
      this.dispatchDir(entry.uri, uri, { meta: childMeta, abstract: entry.abstract }).catch((error) => this.rootDone.reject(error));
    }
  }

  /** Reuses a current directory's summary as it is; false when it has none to reuse. */
  private async reuse(uri: string, parent: string | null, meta: NodeMeta | null, listedAbstract?: string): Promise<boolean> {
    const abstract = listedAbstract ?? (await this.deps.fs.read(uri, 0).catch(() => null));
    if (abstract === null) return false;
    this.counts.dirs_done += 1;
    if (meta?.document) this.counts.documents_done += 1;
    this.stats.dirsReused += 1;
    this.emit({ type: 'dag/summary-done', uri, reused: true, abstract });
    // Its L1 too: a parent summarized again names what each sub-folder covers from it, as on a first run.
    const overview = parent === null ? undefined : await this.deps.fs.read(uri, 1).catch(() => undefined);
    this.childDone(parent, uri, { uri, name: uriName(uri), abstract, category: meta?.category ?? 'directory', is_directory: true, has_abstract: true, overview, ...(meta?.document ? { document: true } : {}) }, false);
    return true;
  }

  /** `fresh`: the child got a new summary in this run. */
  private childDone(parent: string | null, uri: string, summary: ChildSummary | null, fresh: boolean): void {
    if (parent === null) this.rootDone.resolve(summary);
    else this.onChildDone(parent, uri, summary, fresh);
  }

  /**
   * A file task: make sure the file has its L0/L1, then `_on_file_done`. `meta` is the one its
   * directory's listing read; its priority is its own call plus every summary above it.
   */
  private async fileTask(parent: DirNode, uri: string, meta: NodeMeta | null, metaError?: unknown): Promise<void> {
    try {
      // An unreadable meta skips the file, as reading it here did before the listing passed it on.
      if (metaError !== undefined) throw metaError;
      const owed = !meta?.abstract || this.deps.redo?.(meta) === true;
      const done = owed ? await this.limit(parent.rest + 1, () => this.summarizeFile(uri, meta)) : meta;
      if (owed) parent.changed = true;
      if (done?.abstract) parent.file_summaries.set(uri, fileSummaryOf(uri, done));
    } catch (error) {
      if (CairnError.is(error, 'CANCELLED')) return;
      // The seed's first error rule: an unreadable child is skipped with a warning.
      this.deps.logger.warn(`Skipping ${uri}: ${errorMessage(error)}`);
      this.stats.failed += 1;
      this.emit({ type: 'dag/failed', uri, reason: errorMessage(error) });
    }
    this.counts.files_done += 1;
    if (parent.meta?.document) this.counts.sections_done += 1;
    this.onFileDone(parent.uri, uri);
  }

  /** Summarizes one file and writes its L0/L1; returns the meta written. */
  private async summarizeFile(uri: string, meta: NodeMeta | null): Promise<NodeMeta> {
    this.checkCancelled();
    const text = await this.deps.fs.readFileContent(uri);
    const input = {
      uri,
      name: uriName(uri),
      text: text.length > this.maxInputChars ? text.slice(0, this.maxInputChars) : text,
      format: meta?.source_format ?? 'text',
      ...(meta?.language ? { language: meta.language } : {}),
      ...(meta?.skeleton_text ? { skeleton: meta.skeleton_text } : {}),
      signal: this.deps.signal,
    };
    let output: SummaryOutput;
    let status: 'done' | 'fallback' = 'done';
    let reason = this.deps.summarizer.id;
    let writer = this.deps.summarizer;
    try {
      output = await this.deps.summarizer.summarizeFile(input);
    } catch (error) {
      if (this.deps.signal?.aborted) throw error;
      output = await this.deps.fileFallback.summarizeFile(input);
      status = 'fallback';
      reason = `${this.deps.fileFallback.id} after: ${errorMessage(error)}`;
      writer = this.deps.fileFallback;
      this.fellBack(uri, error);
    }
    this.account(output);
    // An ingest may have replaced the file while it was being summarized (the app ingests while a
    // background run goes on): its meta then names another source, whose summary is still owed.
    // Writing this one over it would give the new version the old version's L0/L1.
    const current = await this.deps.fs.readMetaOf(uri, 'file').catch(() => null);
    if (meta && current && current.source_hash !== meta.source_hash) {
      this.deps.logger.info(`Not writing the summary of ${uri}: the file changed while it was summarized; the next run summarizes the new version`);
      return current;
    }
    const now = this.deps.clock.now().toISOString();
    const written = current ?? meta;
    const updated: NodeMeta = {
      ...(written ?? { uri, kind: 'file', context_type: 'resource', created_at: now }),
      // The content's time stays what its L2 record says, so that record need not be written again.
      ...(written ? { content_updated_at: contentUpdatedAt(written) } : {}),
      abstract: clip(output.abstract, MAX_ABSTRACT_CHARS),
      overview: clip(output.overview, MAX_OVERVIEW_CHARS),
      summary_status: status,
      summary_reason: reason,
      summarizer: provenanceOfSummarizer(writer),
      updated_at: now,
    } as NodeMeta;
    // Index (journaled) before the meta says done: a kill between the two must leave the file
    // owed, so the resumed run summarizes and indexes it again. The other order lost its L0/L1
    // records for good, since a resumed run skips a file whose meta is done (crash soak).
    // Only the L0/L1 when the file had a meta: its writer indexed the content (L2), and that
    // record is unchanged (its time is content_updated_at). Sending it again rewrote every file's
    // text, vector and full-text terms in LanceDB: most of an offline summary run's CPU.
    await this.index(uri, updated, { ...(written ? {} : { content: text }), abstract: updated.abstract, overview: updated.overview });
    await this.deps.fs.writeMeta(uri, updated);
    this.stats.filesSummarized += 1;
    return updated;
  }

  /** `_on_file_done`. */
  private onFileDone(parent: string, _file: string): void {
    this.decrement(parent);
  }

  /** `_on_child_done`: keep the child's summary, then count it down. */
  private onChildDone(parent: string, child: string, summary: ChildSummary | null, fresh: boolean): void {
    const node = this.nodes.get(parent);
    if (!node) return;
    const index = node.children_dirs.indexOf(child);
    if (index >= 0) node.children_summaries[index] = summary;
    if (fresh) node.changed = true;
    this.decrement(parent);
  }

  private decrement(uri: string): void {
    const node = this.nodes.get(uri);
    if (!node) return;
    node.pending -= 1;
    this.emit({ type: 'dag/pending-changed', uri, pending: node.pending });
    if (node.pending === 0) this.scheduleSummary(uri);
  }

  private scheduleSummary(uri: string): void {
    this.summaryTask(uri).catch((error) => this.rootDone.reject(error));
  }

  /** `_summary_task`: runs when pending reaches 0. */
  private async summaryTask(uri: string): Promise<void> {
    const node = this.nodes.get(uri)!;
    this.nodes.delete(uri);
    // An upgrade reuses a directory that nothing below changed in and that `redo` does not pick.
    const redo = this.deps.redo;
    if (redo && !node.changed && node.meta && isCurrent(node.meta) && !redo(node.meta) && (await this.reuse(uri, node.parentUri, node.meta))) return;
    const files = this.collectFileSummaries(node);
    const dirs = node.children_summaries.filter((s): s is ChildSummary => s !== null);
    const children = [...dirs, ...files];
    this.counts.dirs_done += 1;
    if (node.meta?.document) this.counts.documents_done += 1;

    // The seed's last error rules: an empty directory, or one whose children all failed, gets no summary.
    if (children.length === 0) {
      const why = node.children_dirs.length + node.file_children.length === 0 ? 'empty directory' : 'every child failed';
      this.deps.logger.info(`No summary for ${uri}: ${why}`);
      this.emit({ type: 'dag/failed', uri, reason: why });
      this.childDone(node.parentUri, uri, null, false);
      return;
    }

    this.emit({ type: 'dag/summary-started', uri, children: children.length });
    const summary = await this.limit(node.rest, () => this.generateSummaryWithFallback(uri, children));
    // The meta as listed holds the tree these children were read from (its tree_hash); the meta
    // as it is now keeps what was written since: an ingest's notes (last_ingest), or a new
    // tree_hash when the folder changed meanwhile, which leaves this summary stale and owed.
    const meta = node.meta;
    const current = (await this.deps.fs.readMetaOf(uri, 'dir').catch(() => null)) ?? meta;
    const now = this.deps.clock.now().toISOString();
    const updated: NodeMeta = {
      ...(current ?? { uri, kind: 'dir', context_type: 'resource', created_at: now }),
      kind: 'dir',
      category: current?.category ?? 'directory',
      categories: summary.categories,
      child_count: summary.child_count,
      summary_status: summary.status,
      summary_reason: summary.reason,
      summarizer: summary.summarizer,
      summarized_tree_hash: meta?.tree_hash,
      updated_at: now,
    } as NodeMeta;
    // Indexed first for the same reason as files: the meta marks the directory current.
    await this.index(uri, updated, { abstract: summary.abstract, overview: summary.overview });
    await this.deps.fs.writeDirSummary(uri, { abstract: summary.abstract, overview: summary.overview }, updated);
    this.stats.dirsSummarized += 1;
    this.emit({ type: 'dag/summary-done', uri, reused: false, abstract: summary.abstract, status: summary.status });
    this.childDone(node.parentUri, uri, { uri, name: uriName(uri), abstract: summary.abstract, category: updated.category ?? 'directory', is_directory: true, has_abstract: true, overview: summary.overview, ...(updated.document ? { document: true } : {}) }, true);
  }

  /**
   * `_collect_file_summaries`: the abstracts of the directory's files, in listing order, as its
   * listing read them or its file tasks wrote them (what is on disk: this run is their writer).
   */
  private collectFileSummaries(node: DirNode): ChildSummary[] {
    return node.file_children.flatMap((file) => node.file_summaries.get(file) ?? []);
  }

  /** `_generate_summary_with_fallback`: the summarizer, in batches above max_children, else the seed fallback. */
  private async generateSummaryWithFallback(
    uri: string,
    children: ChildSummary[],
  ): Promise<{ abstract: string; overview: string; categories: string[]; child_count: number; status: 'done' | 'fallback'; reason: string; summarizer: SummarizerProvenance }> {
    try {
      this.checkCancelled();
      let inputs = children;
      const maxChildren = this.deps.summarizer.maxChildren ?? this.maxChildren;
      if (children.length > maxChildren) {
        // Too many children for one call: summarize batches, then merge the batch summaries.
        // The batches do not depend on each other: they run at once, so a big directory adds two
        // calls to the critical path, not one per batch.
        const batches: ChildSummary[][] = [];
        for (let i = 0; i < children.length; i += maxChildren) batches.push(children.slice(i, i + maxChildren));
        inputs = await Promise.all(
          batches.map(async (batch, n) => {
            const part = await this.deps.summarizer.summarizeDirectory({ uri, name: `${uriName(uri)} (part ${n + 1})`, children: batch, signal: this.deps.signal });
            this.account(part);
            return { uri, name: `part ${n + 1}`, abstract: part.abstract, category: categoriesOf(batch).join(', '), is_directory: true, has_abstract: true };
          }),
        );
      }
      const result = await this.deps.summarizer.summarizeDirectory({ uri, name: uriName(uri), children: inputs, signal: this.deps.signal });
      this.account(result);
      const categories = children.length > maxChildren ? categoriesOf(children) : result.categories.length ? result.categories : categoriesOf(children);
      return { abstract: clip(result.abstract, MAX_ABSTRACT_CHARS), overview: clip(result.overview, MAX_OVERVIEW_CHARS), categories, child_count: children.length, status: 'done', reason: this.deps.summarizer.id, summarizer: provenanceOfSummarizer(this.deps.summarizer) };
    } catch (error) {
      if (this.deps.signal?.aborted) throw error;
      this.deps.logger.warn(`Summary of ${uri} fell back: ${errorMessage(error)}`);
      this.fellBack(uri, error);
      const fallback = fallbackSummary(children);
      return { ...fallback, status: 'fallback', reason: `seed fallback after: ${errorMessage(error)}`, summarizer: { kind: 'fallback' } };
    }
  }

  /** Counts a fallback under its cause and tells the views. */
  private fellBack(uri: string, error: unknown): void {
    this.stats.fallbacks += 1;
    countCause(this.stats.fallback_causes, failureCause(error));
    this.emit({ type: 'dag/fallback-used', uri, reason: errorMessage(error) });
  }

  private account(output: SummaryOutput): void {
    if (output.llm) this.counts.llm_calls += 1;
    this.stats.tokens += output.usage.inputTokens + output.usage.outputTokens;
  }

  /**
   * `_vectorize_directory` (and its file counterpart): the node's records to the index, shaped
   * as a rebuild makes them.
   */
  private async index(uri: string, meta: NodeMeta, texts: NodeTexts): Promise<void> {
    await this.deps.index.upsert(shapeNodeRecords(uri, meta, texts));
  }
}

function provenanceOfSummarizer(summarizer: NodeSummarizer): SummarizerProvenance {
  return summarizer.provenance ?? { kind: 'extractive' };
}

function fileSummaryOf(uri: string, meta: NodeMeta): ChildSummary {
  return {
    uri,
    name: uriName(uri),
    abstract: meta.abstract!,
    category: meta.category ?? DEFAULT_CATEGORY[meta.source_format ?? ''] ?? 'document',
    is_directory: false,
    has_abstract: true,
    // Its key terms (the L1's last line) tell the offline directory summary what the body is about;
    // the rest of its L1 is not read there, so it is not kept: a run holds every file's summary
    // until its folder's turn (a few hundred bytes each rather than its whole L1: issue 20).
    ...(meta.overview ? { keyTerms: keyTermsOfOverview(meta.overview) } : {}),
  };
}

/** A directory's summary is current when it was made (or fell back) and nothing below changed since. */
export function isCurrent(meta: NodeMeta | null): boolean {
  if (!meta) return false;
  if (meta.summary_status !== 'done' && meta.summary_status !== 'fallback') return false;
  return meta.tree_hash === undefined || meta.summarized_tree_hash === meta.tree_hash;
}

