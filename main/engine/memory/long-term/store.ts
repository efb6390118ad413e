/**
 * The long-term memory store on ContextFS (docs/ARCHITECTURE.md#long-term-memory): each memory is a
 * page under `ctx://user/memories/{category}/{id}.md`, deduplicated and merged on commit (dedup.ts,
 * or the model in llm-decider.ts), every change appended to `.cairn/memory-history.jsonl` before
 * the page changes, the page's records handed to the index, and the category directories queued for
 * the DAG so each gets its L0/L1.
 *
 * Order of a change: history line (fsync) → page and meta (atomic) → index → directory marked
 * owed and queued. A crash after the history line is repaired on the next open: the last change
 * is redone when the page does not show it (`recover`). Only the last one can be unfinished,
 * because changes run one at a time; redoing older ones would undo a person's edits to the folder.
 *
 * @example
 * const store = await ContextFsMemoryStore.open({ fs, stateDir: join(workspace, '.cairn') });
 * const [change] = await store.commit([{ category: 'preference', title: 'Dark theme', content: 'Ana prefers the dark theme.',
 *   keywords: ['theme'], message_ids: ['s1:4'], conversation_id: 'c1', confidence: 0.8 }]);
 * change.op; // 'add'
 */
import { join } from 'node:path';
import { CairnError, errorMessage } from '../../../../shared/errors.js';
import { keptItem, type KeptCause, type KeptItem } from '../../../../shared/import-kept-cause.js';
import { because, type ChangeCause } from '../../../../shared/memory-change-cause.js';
import { MemoryCategory, type LongTermMemory, type MemoryChange } from '../../../../shared/types/memory.js';
import type { NodeMeta } from '../../../../shared/types/node.js';
import { systemClock, type Clock } from '../../ports/clock.js';
import { noopIndex, type ContextIndex } from '../../ports/context-index.js';
import { silentLogger, type Logger } from '../../ports/logger.js';
import { nodeRecords } from '../../index/node-records.js';
import type { ContextFS } from '../../tree/context-fs.js';
import { decide, named, union } from './dedup.js';
import { MemoryHistory } from './history.js';
import type { MemoryLlm } from '../llm-run.js';
import { decideWithLlm, type LlmDecision } from './llm-decider.js';
import { MEMORIES_ROOT, assertMemoryId, categoryUri, memoryId, memoryMeta, memoryOfMeta, memoryUri, renderMemory } from './memory-file.js';
import type { MemoryCandidate, MemoryListQuery, MemoryStore } from './types.js';

export interface MemoryStoreDeps {
  fs: ContextFS;
  /** The workspace's `.cairn` folder, where the history lives. */
  stateDir: string;
  /** Receives each memory page's records (the engine's journaled index); nothing when absent. */
  index?: ContextIndex;
  /** Queues a directory for the DAG summarizer (the engine's outbox). */
  enqueue?: (uri: string) => Promise<void>;
  logger?: Logger;
  clock?: Clock;
}

/** What `restore` did: counts, and the memories the workspace kept over the imported ones, with why. */
export interface RestoreOutcome {
  added: number;
  updated: number;
  unchanged: number;
  /** History lines that were new here. */
  history: number;
  kept: KeptItem[];
}

type MemoryPatch = Partial<Pick<LongTermMemory, 'title' | 'content' | 'keywords' | 'category'>>;

export class ContextFsMemoryStore implements MemoryStore {
  private tail: Promise<unknown> = Promise.resolve();
  private readonly index: ContextIndex;
  private readonly logger: Logger;
  private readonly clock: Clock;

  private constructor(
    private readonly deps: MemoryStoreDeps,
    private readonly log: MemoryHistory,
  ) {
    this.index = deps.index ?? noopIndex;
    this.logger = deps.logger ?? silentLogger;
    this.clock = deps.clock ?? systemClock;
  }

  static async open(deps: MemoryStoreDeps): Promise<ContextFsMemoryStore> {
    const history = await MemoryHistory.open(join(deps.stateDir, 'memory-history.jsonl'), deps.logger ?? silentLogger);
    const store = new ContextFsMemoryStore(deps, history);
    await store.exclusive(() => store.recover());
    return store;
  }

  /** With `llm`, the run's model decides add/update/delete/none (the rules otherwise, and per candidate when it fails). */
  async commit(candidates: MemoryCandidate[], options: { signal?: AbortSignal; dryRun?: boolean; llm?: MemoryLlm | undefined } = {}): Promise<MemoryChange[]> {
    // A dry run decides exactly as a commit does and writes nothing: what the review shows.
    const write = options.dryRun !== true;
    return this.exclusive(async () => {
      const changes: MemoryChange[] = [];
      const touched = new Set<MemoryCategory>();
      const loaded = new Map<MemoryCategory, LongTermMemory[]>();
      const memoriesOf = async (category: MemoryCategory) => {
        if (!loaded.has(category)) loaded.set(category, await this.readCategory(category));
        return loaded.get(category)!;
      };
      try {
        for (const candidate of candidates) {
          if (options.signal?.aborted) throw new CairnError('CANCELLED', `Memory commit cancelled after ${changes.length} of ${candidates.length} candidates`);
          checkCandidate(candidate);
          const memories = await memoriesOf(candidate.category);
          const decision: LlmDecision = options.llm ? await decideWithLlm(options.llm, candidate, memories, { signal: options.signal }) : decide(candidate, memories);
          const change = await this.apply(candidate, decision, write);
          changes.push(change);
          // Keep this call's view of the category current for the next candidate.
          const list = await memoriesOf(candidate.category);
          const gone = new Set([change.before?.id, decision.op === 'delete' ? decision.target.id : undefined].filter(Boolean));
          const next = list.filter((m) => !gone.has(m.id) && m.id !== change.after?.id);
          if (change.after) next.push(change.after);
          loaded.set(candidate.category, next);
          if (write) touched.add(candidate.category);
        }
      } finally {
        await this.afterChanges(touched);
      }
      return changes;
    });
  }

  async list(query: MemoryListQuery = {}): Promise<LongTermMemory[]> {
    const categories = query.category ? [query.category] : MemoryCategory.options;
    const all = (await Promise.all(categories.map((c) => this.readCategory(c)))).flat();
    all.sort((a, b) => (a.updated_at < b.updated_at ? 1 : a.updated_at > b.updated_at ? -1 : a.id.localeCompare(b.id)));
    return all.slice(0, query.limit ?? 100);
  }

  async get(id: string): Promise<LongTermMemory | null> {
    assertMemoryId(id);
    return (await this.find(id))?.memory ?? null;
  }

  async edit(id: string, patch: MemoryPatch): Promise<MemoryChange> {
    return this.exclusive(async () => {
      const before = await this.require(id);
      const clean = cleanPatch(patch, id);
      // A person's edit pins the memory: later commits may propose changes to it, never merge into it.
      const after: LongTermMemory = { ...before, ...clean, pinned: true, updated_at: this.now() };
      if (sameFields(before, after)) return { at: this.now(), op: 'none', memory_id: id, after: before, ...because({ code: 'edit_unchanged' }) };
      const change: MemoryChange = { at: this.now(), op: 'update', memory_id: id, before, after, ...because({ code: 'edited' }) };
      await this.persist(change);
      await this.afterChanges(new Set([before.category, after.category]));
      return change;
    });
  }

  async forget(id: string, reason?: string): Promise<MemoryChange> {
    return this.exclusive(async () => {
      const before = await this.require(id);
      const change: MemoryChange = { at: this.now(), op: 'delete', memory_id: id, before, ...because(reason?.trim() ? { code: 'forgotten', detail: reason.trim() } : { code: 'forgotten' }) };
      await this.persist(change);
      await this.afterChanges(new Set([before.category]));
      return change;
    });
  }

  async history(id?: string): Promise<MemoryChange[]> {
    if (id !== undefined) assertMemoryId(id);
    return this.log.list(id);
  }

  /**
   * Merges memories exported from a workspace (export:run → import:run), by id and without dedup:
   * the history lines come first (merged in time order), then each memory is written as it was
   * unless this workspace holds the same one, a newer version of it, or the user forgot it here
   * after it was last changed. A memory written gets a history line naming `source` unless the
   * imported history already ends with this very version (an export carries its memories'
   * history), and the history's last line is left describing the pages, as `recover` expects.
   */
  async restore(memories: LongTermMemory[], history: MemoryChange[], source: string): Promise<RestoreOutcome> {
    return this.exclusive(async () => {
      const outcome: RestoreOutcome = { added: 0, updated: 0, unchanged: 0, history: await this.log.merge(history), kept: [] };
      const touched = new Set<MemoryCategory>();
      try {
        for (const memory of memories) {
          const decision = await this.restoreDecision(memory);
          if (decision.op === 'unchanged') outcome.unchanged += 1;
          else if (decision.op === 'keep') outcome.kept.push(keptItem(memory.id, decision.cause));
          else {
            const current = decision.current;
            const recorded = this.log.last(memory.id);
            if (recorded?.after && JSON.stringify(recorded.after) === JSON.stringify(memory)) {
              // The imported history already holds the change that made this version (and is on
              // disk, fsync'd): the page is written as that line says, and nothing is recorded
              // twice, so an export of this workspace gives back the history it was given.
              const { before: _older, ...change } = recorded;
              await this.applyToFiles(current ? { ...change, before: current } : change);
            } else {
              await this.persist({ at: this.now(), op: current ? 'update' : 'add', memory_id: memory.id, ...(current ? { before: current } : {}), after: memory, ...because({ code: 'imported', detail: source }) });
            }
            if (current) touched.add(current.category);
            touched.add(memory.category);
            outcome[current ? 'updated' : 'added'] += 1;
          }
        }
        await this.settleHistory();
      } finally {
        await this.afterChanges(touched);
      }
      return outcome;
    });
  }

  /** Takes in history lines written by other processes or stores, so `restoreDecision` sees a forget made there. */
  async reloadHistory(): Promise<void> {
    await this.exclusive(() => this.log.reload());
  }

  /**
   * What importing `memory` should do here: nothing (the same memory is here), keep this
   * workspace's (a newer version, or forgotten by the user after the imported version), or write it.
   */
  async restoreDecision(memory: LongTermMemory): Promise<{ op: 'unchanged' } | { op: 'keep'; cause: KeptCause } | { op: 'write'; current: LongTermMemory | null }> {
    assertMemoryId(memory.id);
    const current = (await this.find(memory.id))?.memory ?? null;
    if (current && JSON.stringify(current) === JSON.stringify(memory)) return { op: 'unchanged' };
    if (current && current.updated_at > memory.updated_at) return { op: 'keep', cause: { code: 'newer_here', ours: current.updated_at, theirs: memory.updated_at } };
    const last = this.log.last(memory.id);
    if (!current && last?.op === 'delete' && (last.cause ? last.cause.code === 'forgotten' : last.reason.startsWith('forgotten by user')) && last.at > memory.updated_at) {
      return { op: 'keep', cause: { code: 'forgotten_here', ours: last.at, theirs: memory.updated_at } };
    }
    return { op: 'write', current };
  }

  /**
   * Records memory pages an import copied into place byte for byte (a ContextFS copy): one history
   * line each, and new summaries for `stale` categories (folders that now hold more than the copy brought).
   */
  async recordCopied(changes: Array<{ before: LongTermMemory | null; after: LongTermMemory }>, source: string, stale: MemoryCategory[]): Promise<void> {
    return this.exclusive(async () => {
      const lines: MemoryChange[] = changes.map(({ before, after }) => ({
        at: this.now(),
        op: before ? 'update' : 'add',
        memory_id: after.id,
        ...(before ? { before } : {}),
        after,
        ...because({ code: 'imported', detail: source }),
      }));
      await this.log.append(lines);
      await this.settleHistory();
      await this.afterChanges(new Set(stale));
    });
  }

  /**
   * After a merge the last history line may be an older change from elsewhere; `recover` would
   * redo it on the next open. A `none` line stating the page as it is makes the last line true.
   */
  private async settleHistory(): Promise<void> {
    const last = this.log.lastOverall();
    if (!last) return;
    const current = (await this.find(last.memory_id))?.memory ?? null;
    const matches = last.after ? current !== null && JSON.stringify(current) === JSON.stringify(last.after) : current === null;
    if (matches) return;
    await this.log.append([{ at: this.now(), op: 'none', memory_id: last.memory_id, ...(current ? { after: current } : {}), ...because({ code: 'import_stays' }) }]);
  }

  // -------------------------------------------------------------------------------------------

  /** Carries out one dedup decision  // -------------------------------------------------------------------------------------------

  /**
   * Carries out one dedup decision (records and writes it when `write`) and returns the
   * candidate's change. A pinned memory (the person's text) is never changed by a machine's
   * candidate: the update is returned as `proposed` on a 'none' change, for the person to accept.
   */
  private async apply(candidate: MemoryCandidate, decision: LlmDecision, write: boolean): Promise<MemoryChange> {
    const now = this.now();
    const persist = write ? (change: MemoryChange) => this.persist(change) : async () => {};
    if (decision.op !== 'add' && decision.op !== 'none' && decision.target.pinned && !candidate.pinned) {
      const before = decision.target;
      const proposed: LongTermMemory =
        decision.op === 'update'
          ? { ...before, ...decision.patch, message_ids: union(before.message_ids, candidate.message_ids), updated_at: now }
          : { ...before, title: candidate.title.trim(), content: candidate.content.trim(), message_ids: union(before.message_ids, candidate.message_ids), updated_at: now };
      return { at: now, op: 'none', memory_id: before.id, before, after: before, proposed, ...because({ code: 'pinned', memory: named(before), decision: decision.cause }) };
    }
    if (decision.op === 'add' || decision.op === 'delete') {
      if (decision.op === 'delete') {
        await persist({ at: now, op: 'delete', memory_id: decision.target.id, before: decision.target, ...because(decision.cause) });
      }
      const id = await this.newId(candidate);
      if (id === null) {
        // Same category, title and first message as a memory the user forgot: keep it forgotten.
        const forgotten = memoryId(candidate.category, candidate.title, candidate.message_ids[0]!);
        return { at: now, op: 'none', memory_id: forgotten, ...because({ code: 'not_readded' }) };
      }
      const after: LongTermMemory = {
        id,
        category: candidate.category,
        title: candidate.title.trim(),
        content: candidate.content.trim(),
        keywords: union([], candidate.keywords),
        message_ids: union([], candidate.message_ids),
        ...(candidate.conversation_id ? { conversation_id: candidate.conversation_id } : {}),
        ...(candidate.chain_ids?.length ? { chain_ids: union([], candidate.chain_ids) } : {}),
        ...(candidate.cluster_ids?.length ? { cluster_ids: union([], candidate.cluster_ids) } : {}),
        confidence: candidate.confidence,
        created_at: now,
        updated_at: now,
        ...(candidate.pinned ? { pinned: true } : {}),
      };
      const cause: ChangeCause = decision.op === 'delete' ? { code: 'replaces', memory: named(decision.target), decision: decision.cause } : decision.cause;
      const change: MemoryChange = { at: now, op: 'add', memory_id: id, after, ...because(cause) };
      await persist(change);
      return change;
    }

    const before = decision.target;
    const provenance = {
      message_ids: union(before.message_ids, candidate.message_ids),
      ...(before.chain_ids || candidate.chain_ids ? { chain_ids: union(before.chain_ids ?? [], candidate.chain_ids ?? []) } : {}),
      ...(before.cluster_ids || candidate.cluster_ids ? { cluster_ids: union(before.cluster_ids ?? [], candidate.cluster_ids ?? []) } : {}),
    };
    if (decision.op === 'none') {
      if (candidate.message_ids.every((m) => before.message_ids.includes(m))) {
        return { at: now, op: 'none', memory_id: before.id, after: before, ...because({ ...decision.cause, messages: 'recorded' }) };
      }
      // Nothing new to say, but new evidence: the messages join the provenance, recorded as an update.
      const after: LongTermMemory = { ...before, ...provenance, updated_at: now };
      const added = because({ ...decision.cause, messages: 'added' });
      await persist({ at: now, op: 'update', memory_id: before.id, before, after, ...added });
      return { at: now, op: 'none', memory_id: before.id, before, after, ...added };
    }
    const after: LongTermMemory = {
      ...before,
      ...decision.patch,
      ...provenance,
      confidence: Math.max(before.confidence, candidate.confidence),
      updated_at: now,
      // What the person accepted or wrote is theirs from now on.
      ...(candidate.pinned ? { pinned: true } : {}),
    };
    const change: MemoryChange = { at: now, op: 'update', memory_id: before.id, before, after, ...because(decision.cause) };
    await persist(change);
    return change;
  }

  /** A free stable id for a new memory, or null when this very memory was forgotten by the user. */
  private async newId(candidate: MemoryCandidate): Promise<string | null> {
    const first = candidate.message_ids[0]!;
    const last = this.log.last(memoryId(candidate.category, candidate.title, first));
    if (last?.op === 'delete' && (last.cause ? last.cause.code === 'forgotten' : last.reason.startsWith('forgotten by user'))) return null;
    for (let attempt = 0; ; attempt += 1) {
      const id = memoryId(candidate.category, candidate.title, first, attempt);
      if (!(await this.find(id))) return id;
    }
  }

  /** History first, then the page: see the header for why. */
  private async persist(change: MemoryChange): Promise<void> {
    await this.log.append([change]);
    await this.applyToFiles(change);
  }

  private async applyToFiles(change: MemoryChange): Promise<void> {
    const { before, after } = change;
    if (before && (!after || before.category !== after.category)) {
      const uri = memoryUri(before.category, before.id);
      await this.index.removeUnder(uri);
      if (await this.deps.fs.kindOf(uri)) await this.deps.fs.rm(uri);
    }
    if (after) {
      const uri = memoryUri(after.category, after.id);
      const page = renderMemory(after);
      await this.ensureDirs(after.category);
      // Atomic, not fsync'd: the fsync'd history line already holds the change, and a kill is survived
      // either way (the ingest writes the tree the same way). Power loss may lose pages; see recover.
      await this.deps.fs.writeFile(uri, page, memoryMeta(after, uri, page));
      await this.index.upsert(await nodeRecords(this.deps.fs, uri, 'file'));
    }
  }

  /** Makes the memories folder and a category folder nodes of their own, with the category the DAG reads. */
  private async ensureDirs(category: MemoryCategory): Promise<void> {
    for (const [uri, name] of [
      [MEMORIES_ROOT, 'memory'],
      [categoryUri(category), category],
    ] as const) {
      if ((await this.deps.fs.kindOf(uri)) === 'dir' && (await this.deps.fs.readMeta(uri))) continue;
      const now = this.now();
      await this.deps.fs.writeMeta(uri, { uri, kind: 'dir', context_type: 'memory', category: name, summary_status: 'owed', created_at: now, updated_at: now });
    }
  }

  /**
   * The touched category folders and the memories folder owe a new L0/L1: marked owed (so the DAG
   * does not reuse the old summary) and queued. A folder left empty is removed with its records,
   * or its old abstract would go on counting memories that are gone.
   */
  private async afterChanges(categories: Set<MemoryCategory>): Promise<void> {
    if (categories.size === 0) return;
    const fs = this.deps.fs;
    for (const category of categories) {
      const uri = categoryUri(category);
      if ((await fs.kindOf(uri)) !== 'dir') continue;
      if ((await fs.ls(uri)).length === 0) {
        // The index first: a kill between the two leaves the folder, which the next change finds again.
        await this.index.removeUnder(uri);
        await fs.rm(uri, { recursive: true });
      } else {
        await this.markOwed(uri, category);
      }
    }
    if ((await fs.kindOf(MEMORIES_ROOT)) !== 'dir') return;
    if ((await fs.ls(MEMORIES_ROOT)).length === 0) {
      await this.index.removeUnder(MEMORIES_ROOT);
      await fs.rm(MEMORIES_ROOT, { recursive: true });
      return;
    }
    await this.markOwed(MEMORIES_ROOT, 'memory');
    try {
      await this.deps.enqueue?.(MEMORIES_ROOT);
    } catch (error) {
      // The change itself is done and recorded; the folders stay marked owed, so the next change
      // that gets them queued gives them their L0/L1.
      this.logger.warn(`Memory store: could not queue ${MEMORIES_ROOT} for summarizing: ${errorMessage(error)}`);
    }
  }

  private async markOwed(uri: string, category: string): Promise<void> {
    const now = this.now();
    const meta: NodeMeta = (await this.deps.fs.readMeta(uri)) ?? { uri, kind: 'dir', context_type: 'memory', created_at: now, updated_at: now };
    await this.deps.fs.writeMeta(uri, { ...meta, kind: 'dir', context_type: 'memory', category, summary_status: 'owed', summary_reason: 'memories changed', updated_at: now });
  }

  /** Redoes the last change in the history when the page does not show it (a crash between the two). */
  private async recover(): Promise<void> {
    const last = this.log.lastOverall();
    if (!last) return;
    const current = await this.find(last.memory_id);
    const wanted = last.after;
    const done = wanted ? current !== null && current.category === wanted.category && JSON.stringify(current.memory) === JSON.stringify(wanted) : current === null;
    if (done) return;
    this.logger.warn(`Memory store: redoing the last change to ${last.memory_id} (${last.op}), interrupted before its page was written`);
    await this.applyToFiles({ ...last, before: current?.memory ?? last.before });
    await this.afterChanges(new Set([last.before?.category, wanted?.category, current?.category].filter((c): c is MemoryCategory => c !== undefined)));
  }

  private async readCategory(category: MemoryCategory): Promise<LongTermMemory[]> {
    const uri = categoryUri(category);
    if ((await this.deps.fs.kindOf(uri)) !== 'dir') return [];
    const out: LongTermMemory[] = [];
    for (const entry of await this.deps.fs.ls(uri)) {
      if (entry.kind !== 'file') continue;
      const memory = memoryOfMeta(await this.deps.fs.readMeta(entry.uri));
      if (memory) out.push(memory);
    }
    return out;
  }

  private async find(id: string): Promise<{ memory: LongTermMemory; category: MemoryCategory } | null> {
    for (const category of MemoryCategory.options) {
      const uri = memoryUri(category, id);
      if ((await this.deps.fs.kindOf(uri)) !== 'file') continue;
      const memory = memoryOfMeta(await this.deps.fs.readMeta(uri));
      if (memory) return { memory, category };
    }
    return null;
  }

  private async require(id: string): Promise<LongTermMemory> {
    assertMemoryId(id);
    const found = await this.find(id);
    if (!found) throw new CairnError('NOT_FOUND', `No memory ${id}: it does not exist or was forgotten (see its history)`, { details: { id } });
    return found.memory;
  }

  /** Runs store changes one at a time, in call order. */
  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.tail.then(work, work);
    this.tail = run.catch(() => undefined);
    return run;
  }

  private now(): string {
    return this.clock.now().toISOString();
  }
}

function checkCandidate(candidate: MemoryCandidate): void {
  const problems: string[] = [];
  if (!MemoryCategory.safeParse(candidate.category).success) problems.push(`unknown category ${JSON.stringify(candidate.category)}`);
  if (!candidate.title?.trim()) problems.push('empty title');
  if (!candidate.content?.trim()) problems.push('empty content');
  if (!candidate.message_ids?.length) problems.push('no message ids (every memory names the messages it came from)');
  if (problems.length > 0) throw new CairnError('INVALID_INPUT', `Memory candidate "${candidate.title ?? ''}": ${problems.join('; ')}`, { details: { problems } });
}

function cleanPatch(patch: MemoryPatch, id: string): MemoryPatch {
  const out: MemoryPatch = {};
  if (patch.title !== undefined) {
    if (!patch.title.trim()) throw new CairnError('INVALID_INPUT', `Cannot edit ${id}: the title would be empty`, { details: { id } });
    out.title = patch.title.trim();
  }
  if (patch.content !== undefined) {
    if (!patch.content.trim()) throw new CairnError('INVALID_INPUT', `Cannot edit ${id}: the content would be empty`, { details: { id } });
    out.content = patch.content.trim();
  }
  if (patch.keywords !== undefined) out.keywords = union([], patch.keywords.map((k) => k.trim()).filter(Boolean));
  if (patch.category !== undefined) {
    if (!MemoryCategory.safeParse(patch.category).success) {
      throw new CairnError('INVALID_INPUT', `Cannot edit ${id}: unknown category "${patch.category}" (one of ${MemoryCategory.options.join(', ')})`, { details: { id } });
    }
    out.category = patch.category;
  }
  return out;
}

function sameFields(a: LongTermMemory, b: LongTermMemory): boolean {
  return a.title === b.title && a.content === b.content && a.category === b.category && JSON.stringify(a.keywords) === JSON.stringify(b.keywords);
}
