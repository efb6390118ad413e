/**
 * Reads what an export carries out of a workspace: memories and their history, conversations,
 * their stored analyses, and the ContextFS nodes of the resources, agent and user scopes (memory
 * pages and conversations travel as data, not as nodes).
 */
import { lstat, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CairnError } from '../../../shared/errors.js';
import { ABSTRACT_FILE, META_FILE, OVERVIEW_FILE, childUri, isSidecarName } from '../../../shared/uri.js';
import { MemoryCategory, type LongTermMemory } from '../../../shared/types/memory.js';
import type { ContextFS } from '../tree/context-fs.js';
import { MEMORIES_ROOT } from '../memory/long-term/memory-file.js';
import type { ContextFsMemoryStore } from '../memory/long-term/store.js';
import { ANALYSIS_FILE, listConversations, readConversation } from '../memory/sessions/workspace-store.js';
import type { AnalysisEntry, ExportData, NodeRecord, PortableScope } from './format.js';
import { compareNatural } from '../../../shared/natural-sort.js';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export async function collectExport(
  fs: ContextFS,
  memories: () => Promise<ContextFsMemoryStore>,
  scope: PortableScope | null,
  now: string,
  options: { nodes: boolean },
): Promise<ExportData> {
  const data: ExportData = { exported_at: now, scope, memories: [], history: [], conversations: [], analyses: [], nodes: [] };
  const wants = (s: PortableScope) => scope === null || scope === s;
  if (wants('user')) {
    const store = await memories();
    const all: LongTermMemory[] = [];
    for (const category of MemoryCategory.options) all.push(...(await store.list({ category, limit: Number.MAX_SAFE_INTEGER })));
    data.memories = all.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    data.history = await store.history();
  }
  if (wants('session')) {
    for (const stored of await listConversations(fs)) {
      const { uri, conversation } = await readConversation(fs, stored.uri);
      data.conversations.push(conversation);
      const analysisUri = `${uri}${ANALYSIS_FILE}`;
      if ((await fs.kindOf(analysisUri)) !== 'file') continue;
      const raw = parseJson(await fs.readFileContent(analysisUri), analysisUri) as Record<string, unknown>;
      const meta = (await fs.readMeta(analysisUri)) as { cache_key?: unknown } | null;
      data.analyses.push({ ...raw, conversation_id: conversation.id, cache_key: typeof meta?.cache_key === 'string' ? meta.cache_key : null } as AnalysisEntry);
    }
  }
  for (const s of ['resources', 'agent', 'user'] as const) {
    if (options.nodes && wants(s)) await collectNodes(fs, `ctx://${s}/`, data.nodes);
  }
  return data;
}

/** The nodes under a directory, depth first in natural name order (as `ls` lists them); memory pages are left to the memory records. */
async function collectNodes(fs: ContextFS, dirUri: string, out: NodeRecord[]): Promise<void> {
  if (dirUri === MEMORIES_ROOT) return;
  const path = fs.pathOf(dirUri);
  let names: string[];
  try {
    names = (await readdir(path)).sort(compareNatural);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const node: NodeRecord = { uri: dirUri, kind: 'dir' };
  const abstract = await readOptional(join(path, ABSTRACT_FILE));
  const overview = await readOptional(join(path, OVERVIEW_FILE));
  const meta = await readOptional(join(path, META_FILE));
  if (abstract !== null) node.abstract = abstract;
  if (overview !== null) node.overview = overview;
  if (meta !== null) node.meta = parseJson(meta, join(path, META_FILE)) as Record<string, unknown>;
  out.push(node);
  for (const name of names) {
    if (isSidecarName(name)) continue;
    const info = await lstat(join(path, name));
    if (info.isDirectory()) await collectNodes(fs, childUri(dirUri, name, true), out);
    else if (info.isFile()) {
      const uri = childUri(dirUri, name, false);
      const bytes = await readFile(join(path, name));
      const file: NodeRecord = { uri, kind: 'file', ...textOrBase64(bytes) };
      const fileMeta = await readOptional(fs.metaPathOf(uri, 'file'));
      if (fileMeta !== null) file.meta = parseJson(fileMeta, fs.metaPathOf(uri, 'file')) as Record<string, unknown>;
      out.push(file);
    }
  }
}

/** A workspace file damaged on disk (a hand edit, a full disk) stops the export naming the file. */
function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CairnError('PARSE_FAILED', `${where} is damaged (invalid JSON: ${(error as Error).message}); fix or remove it, then export again`, { details: { file: where } });
  }
}

function textOrBase64(bytes: Uint8Array): { content: string; encoding: 'utf8' | 'base64' } {
  try {
    return { content: utf8.decode(bytes), encoding: 'utf8' };
  } catch {
    return { content: Buffer.from(bytes).toString('base64'), encoding: 'base64' };
  }
}

async function readOptional(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
