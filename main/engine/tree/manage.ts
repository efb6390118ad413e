/**
 * Trees a person manages (issue 21): fs:rm removes a tree or a node (its files, sidecars, queue
 * entries and index records), fs:mv renames one with the index following (records re-made under
 * the new URIs, metas re-addressed).
 *
 * Both hold the workspace (they wait for an ingest, like any writer), and both are journaled:
 * the operation is written to `.cairn/manage/` before its first step and deleted after its
 * last, every step can run twice, and the next fs:rm or fs:mv finishes one a kill interrupted.
 * The index goes first, then the files: a kill in between leaves files without records (found
 * again when the operation is finished), never records of files that are gone.
 */
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { CairnError, errorMessage } from '../../../shared/errors.js';
import { isWithinUri, parentUri, parseCtxUri, formatCtxUri } from '../../../shared/uri.js';
import type { CommandHandlers } from '../command-handlers.js';
import { nodeRecords } from '../index/node-records.js';
import type { IndexInput } from '../ports/context-index.js';
import type { EngineIndex } from '../ports/engine-index.js';
import type { Logger } from '../ports/logger.js';
import type { HeldRoots } from '../queue/held-roots.js';
import type { Outbox } from '../queue/outbox.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { sha256 } from '../util/hash.js';
import type { ContextFS } from './context-fs.js';

export interface ManageDeps {
  fs: ContextFS;
  /** The engine's (journaled) index: `flush` writes the buffered records before an operation reports done. */
  index: (EngineIndex & { flush?(): Promise<void> }) | null;
  outbox: () => Promise<Outbox>;
  held: HeldRoots;
  stateDir: string;
  logger: Logger;
  /** After a change queued a tree for summaries (the app then summarizes in the background). */
  onQueued: () => void;
}

type Operation = { op: 'rm'; uri: string } | { op: 'mv'; from: string; to: string };

export interface NodeCounts {
  /** Source files: a file node, or a split document (a directory of sections) counted once. */
  files: number;
  /** Sections of split documents. */
  sections: number;
  nodes: number;
}

const RECORDS_PER_WRITE = 256;

export function manageHandlers(deps: ManageDeps): Pick<CommandHandlers, 'fs:rm' | 'fs:mv'> {
  const journalDir = join(deps.stateDir, 'manage');
  let resumed: Promise<void> | null = null;

  /** Holds the workspace for `work`, after finishing what an earlier, interrupted run left. */
  const exclusive = async <T>(activity: string, work: (queue: Outbox) => Promise<T>): Promise<T> => {
    const queue = await deps.outbox();
    const letGo = await queue.hold(activity);
    try {
      await (resumed ??= finishInterrupted(deps, queue, journalDir).catch((error: unknown) => {
        resumed = null;
        throw error;
      }));
      return await work(queue);
    } finally {
      letGo();
    }
  };

  return {
    'fs:rm': async (request) => {
      assertManaged(request.uri);
      if (request.dryRun) {
        const { uri, kind } = await deps.fs.canonicalUri(request.uri);
        return { uri, ...(await countNodes(deps.fs, uri, kind)), removed: false };
      }
      // Resolved once the workspace is ours: an ingest we waited for may be what creates it.
      return exclusive(`the removal of ${request.uri}`, async (queue) => {
        const { uri, kind } = await deps.fs.canonicalUri(request.uri);
        const counts = await countNodes(deps.fs, uri, kind);
        assertNotSummarizing(queue, uri);
        await journaled(journalDir, { op: 'rm', uri }, () => removeSteps(deps, queue, uri));
        return { uri, ...counts, removed: true };
      });
    },
    'fs:mv': async (request) => {
      assertManaged(request.from);
      assertManaged(request.to);
      const scope = parseCtxUri(request.from).scope;
      if (scope !== parseCtxUri(request.to).scope) throw new CairnError('INVALID_INPUT', `Cannot move ${request.from} to another scope (${request.to}): move it within ${scope}/`);
      // Resolved once the workspace is ours: an ingest we waited for may be what creates it.
      return exclusive(`the move of ${request.from} to ${request.to}`, async (queue) => {
        const { uri: from, kind } = await deps.fs.canonicalUri(request.from);
        const to = formatCtxUri({ ...parseCtxUri(request.to), isDir: kind === 'dir' });
        if (isWithinUri(from, to)) throw new CairnError('INVALID_INPUT', `Cannot move ${from} into itself (${to})`);
        if (await deps.fs.kindOf(to)) throw new CairnError('ALREADY_EXISTS', `Cannot move ${from} to ${to}: ${to} exists`, { details: { uri: to } });
        assertNotSummarizing(queue, from);
        const { nodes } = await countNodes(deps.fs, from, kind);
        let records = 0;
        await journaled(journalDir, { op: 'mv', from, to }, async () => {
          records = await moveSteps(deps, queue, from, to);
        });
        return { from, to, nodes, records };
      });
    },
  };
}

/** Trees a person ingested; conversations and long-term memories have their own commands. */
function assertManaged(uri: string): void {
  const parsed = parseCtxUri(uri);
  if (parsed.segments.length === 0) throw new CairnError('INVALID_INPUT', `Refusing to remove or move the scope root ${uri}`);
  if (parsed.scope === 'session' || parsed.scope === 'temp') throw new CairnError('INVALID_INPUT', `${uri} is not a tree of ingested files: conversations are managed with \`cairn sessions\``);
  if (parsed.scope === 'user' && parsed.segments[0] === 'memories') throw new CairnError('INVALID_INPUT', `${uri} holds long-term memories: forget them with \`cairn memories forget\``);
}

function assertNotSummarizing(queue: Outbox, uri: string): void {
  const busy = queue.list({ status: 'processing' }).find((message) => isWithinUri(uri, message.uri) || isWithinUri(message.uri, uri));
  if (busy) throw new CairnError('LOCKED', `${busy.uri} is being summarized right now; try again when that run is done`, { details: { uri: busy.uri } });
}

/** What a removal of `uri` takes with it: files, sections of split documents, nodes. */
export async function countNodes(fs: ContextFS, uri: string, kind: 'file' | 'dir'): Promise<NodeCounts> {
  const counts: NodeCounts = { files: 0, sections: 0, nodes: 0 };
  const visit = async (node: string, nodeKind: 'file' | 'dir', inDocument: boolean): Promise<void> => {
    counts.nodes += 1;
    if (nodeKind === 'file') {
      if (inDocument) counts.sections += 1;
      else counts.files += 1;
      return;
    }
    const document = inDocument || (await fs.readMetaOf(node, 'dir').catch(() => null))?.document === true;
    if (document && !inDocument) counts.files += 1;
    for (const entry of await fs.ls(node)) await visit(entry.uri, entry.kind, document);
  };
  await visit(uri, kind, false);
  return counts;
}

/** Writes the operation down, runs it, and deletes it: a kill in between leaves it for finishInterrupted. */
async function journaled(journalDir: string, operation: Operation, steps: () => Promise<void>): Promise<void> {
  await mkdir(journalDir, { recursive: true });
  const path = join(journalDir, `${sha256(JSON.stringify(operation)).slice(0, 16)}.json`);
  await writeFileAtomic(path, JSON.stringify(operation), { durable: true });
  await steps();
  await rm(path, { force: true });
}

/** Runs again, to the end, every operation a killed process left in the journal. */
async function finishInterrupted(deps: ManageDeps, queue: Outbox, journalDir: string): Promise<void> {
  const names = await readdir(journalDir).catch(() => [] as string[]);
  for (const name of names.filter((n) => n.endsWith('.json')).sort()) {
    const path = join(journalDir, name);
    let operation: Operation;
    try {
      operation = JSON.parse(await readFile(path, 'utf8')) as Operation;
    } catch (error) {
      // Written atomically, so this is outside damage; the tree stays as it is.
      deps.logger.warn('Skipped an unreadable entry of the tree-management journal', { path, error: errorMessage(error) });
      continue;
    }
    deps.logger.info(`Finishing an interrupted ${operation.op === 'rm' ? `removal of ${operation.uri}` : `move of ${operation.from} to ${operation.to}`}`);
    if (operation.op === 'rm') await removeSteps(deps, queue, operation.uri);
    else await moveSteps(deps, queue, operation.from, operation.to);
    await rm(path, { force: true });
  }
}

/** Index records, then queue entries, then files; each step again is harmless. */
async function removeSteps(deps: ManageDeps, queue: Outbox, uri: string): Promise<void> {
  await deps.index?.removeUnder(uri);
  await queue.drop((queued) => isWithinUri(uri, queued));
  for (const root of deps.held.list()) if (isWithinUri(uri, root)) await deps.held.delete(root);
  if (await deps.fs.kindOf(uri)) await deps.fs.rm(uri, { recursive: true });
  await resummarizeAncestors(deps, queue, uri);
}

/**
 * Old records out, the node renamed, its metas re-addressed, new records in; returns how many
 * records the moved nodes have now. Run again after a kill, it picks up after the rename.
 */
async function moveSteps(deps: ManageDeps, queue: Outbox, from: string, to: string): Promise<number> {
  const fs = deps.fs;
  await deps.index?.removeUnder(from);
  if ((await fs.kindOf(from)) && !(await fs.kindOf(to))) await fs.mv(from, to);
  const kind = await fs.kindOf(to);
  if (!kind) throw new CairnError('NOT_FOUND', `Neither ${from} nor ${to} exists: nothing to move`, { details: { from, to } });

  let batch: IndexInput[] = [];
  let records = 0;
  const flush = async () => {
    if (batch.length > 0) await deps.index?.upsert(batch);
    records += batch.length;
    batch = [];
  };
  const visit = async (node: string, nodeKind: 'file' | 'dir'): Promise<void> => {
    const meta = await fs.readMetaOf(node, nodeKind);
    if (meta && meta.uri !== node) await fs.writeMeta(node, { ...meta, uri: node });
    batch.push(...(await nodeRecords(fs, node, nodeKind)));
    if (batch.length >= RECORDS_PER_WRITE) await flush();
    if (nodeKind === 'dir') for (const entry of await fs.ls(node)) await visit(entry.uri, entry.kind);
  };
  await visit(to, kind);
  await flush();
  await deps.index?.flush?.();

  // The queue and the held roots follow the tree; the trees that lost or gained it are summarized again.
  const { dropped } = await queue.drop((queued) => isWithinUri(from, queued));
  for (const message of dropped) {
    if (message.status === 'completed') continue;
    await queue.enqueue({ uri: to + message.uri.slice(from.length), context_type: message.context_type });
    deps.onQueued();
  }
  for (const root of deps.held.list()) {
    if (!isWithinUri(from, root)) continue;
    await deps.held.delete(root);
    await deps.held.add(to + root.slice(from.length));
  }
  await resummarizeAncestors(deps, queue, from);
  await resummarizeAncestors(deps, queue, to);
  return records;
}

/**
 * The directories above a node that changed (removed, moved away or in) summarize children that
 * are no longer theirs: their tree hash changes, so the DAG makes their summaries again, and the
 * tree they are in is queued. A whole tree under the scope root has none.
 */
async function resummarizeAncestors(deps: ManageDeps, queue: Outbox, uri: string): Promise<void> {
  const parsed = parseCtxUri(uri);
  if (parsed.segments.length < 2) return;
  const root = formatCtxUri({ scope: parsed.scope, segments: parsed.segments.slice(0, 1), isDir: true });
  let dir = parentUri(uri);
  while (dir && isWithinUri(root, dir)) {
    const meta = await deps.fs.readMetaOf(dir, 'dir').catch(() => null);
    if (meta) await deps.fs.writeMeta(dir, { ...meta, tree_hash: sha256(`${meta.tree_hash ?? ''}\nchanged: ${uri}`), summary_status: 'owed' });
    dir = parentUri(dir);
  }
  const rootMeta = await deps.fs.readMetaOf(root, 'dir').catch(() => null);
  if (!rootMeta) return;
  await queue.enqueue({ uri: root, context_type: rootMeta.context_type });
  deps.onQueued();
}
