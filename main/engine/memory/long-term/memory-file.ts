/**
 * One memory as a ContextFS file node: `ctx://user/memories/{category}/{id}.md`, a Markdown page
 * a person can read (title, content, keywords, the messages it came from) and its
 * `{id}.md.meta.json` with the node's L0/L1, its provenance and the full LongTermMemory, so the
 * memory reads back exactly as it was written even if someone edits the page by hand.
 */
import { CairnError } from '../../../../shared/errors.js';
import { LongTermMemory, type MemoryCategory } from '../../../../shared/types/memory.js';
import type { NodeMeta } from '../../../../shared/types/node.js';
import { sha256 } from '../../util/hash.js';

export const MEMORIES_ROOT = 'ctx://user/memories/';

/** Ids are `mem_` and 16 hex digits (see memoryId); anything else cannot name a memory file. */
const ID = /^mem_[0-9a-f]{16}(?:_[0-9]+)?$/;

export function assertMemoryId(id: string): void {
  if (!ID.test(id)) throw new CairnError('INVALID_INPUT', `"${id}" is not a memory id (ids look like mem_0123456789abcdef)`, { details: { id } });
}

export function categoryUri(category: MemoryCategory): string {
  return `${MEMORIES_ROOT}${category}/`;
}

export function memoryUri(category: MemoryCategory, id: string): string {
  return `${categoryUri(category)}${id}.md`;
}

/**
 * A stable id: the same category, title (compared as words, case and punctuation aside) and
 * first message always give the same id, so re-running an extraction finds its own memories.
 */
export function memoryId(category: MemoryCategory, title: string, firstMessageId: string, attempt = 0): string {
  const words = title.normalize('NFKC').toLowerCase().match(/[\p{L}\p{N}]+/gu)?.join(' ') ?? '';
  const base = `mem_${sha256(`${category}\n${words}\n${firstMessageId}`).slice(0, 16)}`;
  return attempt === 0 ? base : `${base}_${attempt}`;
}

/** The page a person reads. */
export function renderMemory(memory: LongTermMemory): string {
  const lines = [`# ${memory.title}`, '', memory.content.trim(), ''];
  if (memory.keywords.length > 0) lines.push(`Keywords: ${memory.keywords.join(', ')}`);
  const from = memory.conversation_id ? ` (conversation ${memory.conversation_id})` : '';
  lines.push(`Provenance: messages ${memory.message_ids.join(', ')}${from}`);
  return lines.join('\n') + '\n';
}

/** One line for listings and the DAG: the title, and the first sentence when it says more. */
export function memoryAbstract(memory: LongTermMemory): string {
  const title = memory.title.replace(/\s+/g, ' ').trim();
  const first = memory.content.replace(/\s+/g, ' ').trim().split(/(?<=[.!?。！？])\s*/u)[0] ?? '';
  const line = first && !title.toLowerCase().includes(first.toLowerCase().replace(/[.!?。！？]$/u, '')) ? `${title}: ${first}` : title;
  const chars = [...line];
  return chars.length <= 200 ? line : `${chars.slice(0, 199).join('')}…`;
}

export function memoryMeta(memory: LongTermMemory, uri: string, content: string): NodeMeta {
  return {
    uri,
    kind: 'file',
    context_type: 'memory',
    category: memory.category,
    content_hash: sha256(content),
    bytes: Buffer.byteLength(content),
    provenance: { message_ids: memory.message_ids },
    abstract: memoryAbstract(memory),
    overview: memory.content.length <= 4000 ? memory.content : `${memory.content.slice(0, 3999)}…`,
    // The store wrote the L0/L1 itself; the DAG must not summarize the page again.
    summary_status: 'done',
    summary_reason: 'memory',
    created_at: memory.created_at,
    updated_at: memory.updated_at,
    memory,
  };
}

/** The memory kept in a node's meta, or null when the node is not a memory. */
export function memoryOfMeta(meta: NodeMeta | null): LongTermMemory | null {
  const raw = (meta as { memory?: unknown } | null)?.memory;
  if (raw === undefined) return null;
  const parsed = LongTermMemory.safeParse(raw);
  if (!parsed.success) throw new CairnError('PARSE_FAILED', `Corrupt memory in the metadata of ${meta?.uri}: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}
