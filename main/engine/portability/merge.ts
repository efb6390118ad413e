/**
 * Merges an export into a workspace without losing or duplicating anything: memories by id
 * (through the memory store, which records each one in the history), conversations through the
 * sessions store (unchanged ones are not rewritten), analyses next to their conversations, and
 * nodes one by one, skipping those whose files are already identical. Running the same import
 * twice changes nothing the second time.
 */
import { lstat, readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { CairnError } from '../../../shared/errors.js';
import { keptItem } from '../../../shared/import-kept-cause.js';
import { MemoryCategory, type LongTermMemory, type SessionAnalysis } from '../../../shared/types/memory.js';
import { ABSTRACT_FILE, FILE_META_SUFFIX, META_FILE, OVERVIEW_FILE, childUri, isSidecarName, parseCtxUri, validateSegment } from '../../../shared/uri.js';
import { NodeMeta } from '../../../shared/types/node.js';
import type { ImportResult } from '../../../shared/contracts/api.js';
import type { Clock } from '../ports/clock.js';
import type { ContextIndex } from '../ports/context-index.js';
import type { Logger } from '../ports/logger.js';
import { nodeRecords } from '../index/node-records.js';
import type { ContextFS } from '../tree/context-fs.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { MEMORIES_ROOT, memoryOfMeta } from '../memory/long-term/memory-file.js';
import type { ContextFsMemoryStore } from '../memory/long-term/store.js';
import { ANALYSIS_FILE, conversationUri, storeConversation, writeStoredAnalysis } from '../memory/sessions/workspace-store.js';
import { PORTABLE_SCOPES, canonicalJson, type ExportData, type NodeRecord } from './format.js';

export interface MergeDeps {
  fs: ContextFS;
  index: ContextIndex;
  memories: () => Promise<ContextFsMemoryStore>;
  clock: Clock;
  logger: Logger;
}

export type MergeCounts = Pick<ImportResult, 'added' | 'updated' | 'unchanged' | 'kept'>;

const zero = () => ({ memories: 0, history: 0, conversations: 0, analyses: 0, nodes: 0 });
export const emptyCounts = (): MergeCounts => ({ added: zero(), updated: zero(), unchanged: zero(), kept: [] });

type Kind = keyof ReturnType<typeof zero>;
type Status = 'added' | 'updated' | 'unchanged';

/** Merges json, jsonl or Markdown-bundle data; `source` names the import in the memory history. */
export async function mergeData(deps: MergeDeps, data: ExportData, source: string): Promise<MergeCounts> {
  const counts = emptyCounts();
  const tally = (status: Status, kind: Kind, n = 1) => void (counts[status][kind] += n);

  if (data.memories.length > 0 || data.history.length > 0) {
    const outcome = await (await deps.memories()).restore(data.memories, data.history, source);
    tally('added', 'memories', outcome.added);
    tally('updated', 'memories', outcome.updated);
    tally('unchanged', 'memories', outcome.unchanged);
    tally('added', 'history', outcome.history);
    tally('unchanged', 'history', data.history.length - outcome.history);
    counts.kept.push(...outcome.kept);
  }

  for (const conversation of data.conversations) {
    const existed = (await deps.fs.kindOf(conversationUri(conversation.id))) === 'dir';
    const outcome = await storeConversation(deps.fs, deps.index, conversation, deps.clock);
    tally(outcome.unchanged ? 'unchanged' : existed ? 'updated' : 'added', 'conversations');
  }

  for (const entry of data.analyses) {
    const { cache_key, ...analysis } = entry;
    const dir = conversationUri(entry.conversation_id);
    if ((await deps.fs.kindOf(dir)) !== 'dir') {
      counts.kept.push(keptItem(entry.conversation_id, { code: 'analysis_orphan' }));
      continue;
    }
    const uri = `${dir}${ANALYSIS_FILE}`;
    const existing = (await deps.fs.kindOf(uri)) === 'file' ? (JSON.parse(await deps.fs.readFileContent(uri)) as unknown) : null;
    const existingKey = ((await deps.fs.readMeta(uri)) as { cache_key?: unknown } | null)?.cache_key ?? null;
    if (existing !== null && canonicalJson(existing) === canonicalJson(analysis) && existingKey === cache_key) {
      tally('unchanged', 'analyses');
      continue;
    }
    // A null key never matches, so sessions:analyze computes a fresh analysis when asked.
    await writeStoredAnalysis(deps.fs, dir, analysis as unknown as SessionAnalysis, cache_key ?? '', deps.clock);
    tally(existing === null ? 'added' : 'updated', 'analyses');
  }

  const changed: Array<{ uri: string; kind: 'file' | 'dir' }> = [];
  for (const node of data.nodes) {
    const status = await mergeNode(deps.fs, node);
    if (status === 'skipped') {
      counts.kept.push(keptItem(node.uri, { code: 'node_from_records' }));
      continue;
    }
    tally(status, 'nodes');
    if (status !== 'unchanged') changed.push({ uri: node.uri, kind: node.kind });
  }
  await reindex(deps, changed);
  return counts;
}

/** Writes one node record where it differs from the workspace. */
async function mergeNode(fs: ContextFS, node: NodeRecord): Promise<Status | 'skipped'> {
  const parsed = parseCtxUri(node.uri);
  if (parsed.scope === 'temp') throw new CairnError('INVALID_INPUT', `node ${node.uri}: the temp scope is never imported`);
  if (parsed.scope === 'session' || node.uri.startsWith(MEMORIES_ROOT)) return 'skipped';
  const name = parsed.segments.at(-1);
  if (name !== undefined && isSidecarName(name)) throw new CairnError('INVALID_INPUT', `node ${node.uri}: "${name}" is reserved for ContextFS sidecar files`);
  if ((node.kind === 'dir') !== parsed.isDir) throw new CairnError('INVALID_INPUT', `node ${node.uri}: a ${node.kind} needs a URI ${node.kind === 'dir' ? 'ending' : 'not ending'} in "/"`);
  if (node.meta !== undefined) {
    const meta = NodeMeta.safeParse(node.meta);
    if (!meta.success) throw new CairnError('INVALID_INPUT', `node ${node.uri}: meta ${meta.error.issues[0]?.path.join('.')}: ${meta.error.issues[0]?.message}`);
  }
  const path = fs.pathOf(parsed);
  const before = await fs.kindOf(node.uri);
  if (before !== null && before !== node.kind) throw new CairnError('INVALID_INPUT', `node ${node.uri}: it is a ${before} in this workspace, a ${node.kind} in the export`);
  const files: Array<[string, Uint8Array | string]> = [];
  const metaText = node.meta !== undefined ? JSON.stringify(node.meta, null, 2) + '\n' : null;
  if (node.kind === 'dir') {
    if (node.abstract !== undefined) files.push([join(path, ABSTRACT_FILE), node.abstract]);
    if (node.overview !== undefined) files.push([join(path, OVERVIEW_FILE), node.overview]);
    if (metaText !== null) files.push([join(path, META_FILE), metaText]);
  } else {
    const content = node.content ?? '';
    files.push([path, node.encoding === 'base64' ? Buffer.from(content, 'base64') : content]);
    if (metaText !== null) files.push([path + FILE_META_SUFFIX, metaText]);
  }
  let wrote = false;
  if (node.kind === 'dir' && before === null) await fs.mkdir(node.uri);
  for (const [file, data] of files) wrote = (await writeIfDifferent(file, data)) || wrote;
  return before === null ? 'added' : wrote ? 'updated' : 'unchanged';
}

async function writeIfDifferent(file: string, data: Uint8Array | string): Promise<boolean> {
  const wanted = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data);
  const current = await readFile(file).catch(() => null);
  if (current && current.equals(wanted)) return false;
  await writeFileAtomic(file, wanted);
  return true;
}

/**
 * Merges a ContextFS copy file by file. Memory pages follow the memory rules (by id, the newer
 * version wins, a memory the user forgot stays forgotten) and are recorded in the history; every
 * other file is copied where it differs.
 */
export async function mergeContextFs(deps: MergeDeps, root: string, source: string): Promise<MergeCounts> {
  const counts = emptyCounts();
  const nodes = new Map<string, { kind: 'file' | 'dir'; existed: boolean; wrote: boolean }>();
  const memoryChanges: Array<{ before: LongTermMemory | null; after: LongTermMemory }> = [];
  const memoryStatus = new Map<string, 'write' | 'skip'>();
  const sourceCategories = new Set<MemoryCategory>();
  const store = await deps.memories();
  await store.reloadHistory();

  const node = async (uri: string, kind: 'file' | 'dir') => {
    let entry = nodes.get(uri);
    if (!entry) nodes.set(uri, (entry = { kind, existed: (await deps.fs.kindOf(uri)) !== null, wrote: false }));
    return entry;
  };

  /** For a memory page (by its node URI): whether to copy it, decided once from the exported meta. */
  const memoryDecision = async (uri: string, dirPath: string, name: string, category: MemoryCategory): Promise<'write' | 'skip'> => {
    const known = memoryStatus.get(uri);
    if (known) return known;
    const metaPath = join(dirPath, name + FILE_META_SUFFIX);
    const metaText = await readFile(metaPath, 'utf8').catch(() => null);
    let memory: LongTermMemory | null;
    try {
      memory = metaText === null ? null : memoryOfMeta(NodeMeta.parse(JSON.parse(metaText)));
    } catch (error) {
      throw new CairnError('INVALID_INPUT', `${metaPath}: not a memory page's metadata (${(error as Error).message.split('\n')[0]})`, { details: { file: metaPath } });
    }
    // A page without its memory in the meta is copied as a plain node.
    if (!memory) return 'write';
    sourceCategories.add(category);
    const decision = await store.restoreDecision(memory);
    let status: 'write' | 'skip' = 'skip';
    if (decision.op === 'unchanged') counts.unchanged.memories += 1;
    else if (decision.op === 'keep') counts.kept.push(keptItem(memory.id, decision.cause));
    else {
      status = 'write';
      counts[decision.current ? 'updated' : 'added'].memories += 1;
      memoryChanges.push({ before: decision.current, after: memory });
    }
    memoryStatus.set(uri, status);
    return status;
  };

  const walk = async (dirPath: string, dirUri: string): Promise<void> => {
    await node(dirUri, 'dir');
    const category = /^ctx:\/\/user\/memories\/([^/]+)\/$/.exec(dirUri)?.[1];
    const memoryCategory = category && MemoryCategory.safeParse(category).success ? (category as MemoryCategory) : null;
    for (const name of (await readdir(dirPath)).sort()) {
      if (name.startsWith('.cairn-tmp-')) continue;
      const path = join(dirPath, name);
      try {
        validateSegment(name, path);
      } catch (error) {
        throw new CairnError('INVALID_INPUT', `${path}: not a name a workspace can hold (${(error as Error).message})`, { details: { file: path } });
      }
      const info = await lstat(path);
      if (info.isDirectory()) {
        await walk(path, childUri(dirUri, name, true));
        continue;
      }
      if (!info.isFile()) {
        counts.kept.push(keptItem(path, { code: 'not_regular_file' }));
        continue;
      }
      const dirSidecar = name === ABSTRACT_FILE || name === OVERVIEW_FILE || name === META_FILE;
      const ownerName = dirSidecar ? null : name.endsWith(FILE_META_SUFFIX) ? name.slice(0, -FILE_META_SUFFIX.length) : name;
      const uri = ownerName === null ? dirUri : childUri(dirUri, ownerName, false);
      const kind = ownerName === null ? 'dir' : 'file';
      if (memoryCategory && ownerName !== null && ownerName.endsWith('.md') && (await memoryDecision(uri, dirPath, ownerName, memoryCategory)) === 'skip') continue;
      const entry = await node(uri, kind);
      // A memory folder's L0/L1 are derived from its pages: one that is already here is summarized
      // again when the import changes what it holds (`stale` below), never overwritten by the copy's.
      if (ownerName === null && dirUri.startsWith(MEMORIES_ROOT) && entry.existed) continue;
      const target = ownerName === null ? join(deps.fs.pathOf(dirUri), name) : name === ownerName ? deps.fs.pathOf(uri) : deps.fs.pathOf(uri) + FILE_META_SUFFIX;
      if (await writeIfDifferent(target, await readFile(path))) entry.wrote = true;
    }
  };

  for (const scope of PORTABLE_SCOPES) {
    const dir = join(root, scope);
    const info = await lstat(dir).catch(() => null);
    if (info?.isDirectory()) {
      await deps.fs.mkdir(`ctx://${scope}/`);
      await walk(dir, `ctx://${scope}/`);
    }
  }

  const changed: Array<{ uri: string; kind: 'file' | 'dir' }> = [];
  for (const [uri, entry] of nodes) {
    if (memoryStatus.has(uri)) continue; // counted as memories
    counts[!entry.existed ? 'added' : entry.wrote ? 'updated' : 'unchanged'].nodes += 1;
    if (!entry.existed || entry.wrote) changed.push({ uri, kind: entry.kind });
  }
  for (const change of memoryChanges) changed.push({ uri: `${MEMORIES_ROOT}${change.after.category}/${change.after.id}.md`, kind: 'file' });
  // A category folder that was already here and whose pages changed needs a new summary.
  const written = new Set(memoryChanges.map((c) => c.after.category));
  const stale = [...sourceCategories].filter((category) => nodes.get(`${MEMORIES_ROOT}${category}/`)?.existed && written.has(category));
  if (memoryChanges.length > 0 || stale.length > 0) await store.recordCopied(memoryChanges, source, stale);
  await reindex(deps, changed);
  return counts;
}

async function reindex(deps: MergeDeps, nodes: Array<{ uri: string; kind: 'file' | 'dir' }>): Promise<void> {
  for (const { uri, kind } of nodes) {
    const records = await nodeRecords(deps.fs, uri, kind).catch((error: unknown) => {
      deps.logger.warn(`Import: could not index ${uri}: ${String((error as Error)?.message ?? error)}`);
      return [];
    });
    if (records.length > 0) await deps.index.upsert(records);
  }
}
