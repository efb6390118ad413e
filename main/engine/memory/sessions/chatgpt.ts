/**
 * The ChatGPT export (`conversations.json`): an array of conversations, each a tree of nodes in
 * `mapping` (an edited message or a regenerated answer starts a branch). The conversation as the
 * user last saw it is the path from the root to `current_node`; other branches are left out.
 * Hidden system messages, empty messages and non-text parts (images, tool payloads) are dropped.
 */
import type { Role } from '../../../../shared/types/memory.js';
import { baseId, epochToIso, importError, knownRole, type DraftConversation, type DraftMessage } from './draft.js';

interface ChatGptNode {
  id?: string;
  parent?: string | null;
  children?: string[];
  message?: {
    id?: string;
    author?: { role?: string; name?: string | null };
    create_time?: number | null;
    content?: { content_type?: string; parts?: unknown[]; text?: string };
    metadata?: { is_visually_hidden_from_conversation?: boolean };
  } | null;
}

export function looksLikeChatGpt(json: unknown): boolean {
  const first = Array.isArray(json) ? json[0] : json;
  return typeof first === 'object' && first !== null && typeof (first as { mapping?: unknown }).mapping === 'object';
}

/** Node ids from the root to `current_node`, or along the last children when it is missing. */
function currentPath(mapping: Record<string, ChatGptNode>, currentNode: unknown): string[] {
  const path: string[] = [];
  const seen = new Set<string>();
  if (typeof currentNode === 'string' && mapping[currentNode]) {
    for (let id: string | null | undefined = currentNode; id && mapping[id] && !seen.has(id); id = mapping[id]?.parent) {
      seen.add(id);
      path.push(id);
    }
    return path.reverse();
  }
  let id: string | undefined = Object.keys(mapping).find((key) => !mapping[key]?.parent);
  while (id && mapping[id] && !seen.has(id)) {
    seen.add(id);
    path.push(id);
    id = mapping[id]?.children?.at(-1);
  }
  return path;
}

function nodeText(content: NonNullable<ChatGptNode['message']>['content']): string {
  if (!content) return '';
  if (Array.isArray(content.parts)) return content.parts.filter((part): part is string => typeof part === 'string').join('\n\n').trim();
  return typeof content.text === 'string' ? content.text.trim() : '';
}

export function readChatGpt(json: unknown, file: string): DraftConversation[] {
  const list = Array.isArray(json) ? json : [json];
  return list.map((raw, c) => {
    const conv = raw as { id?: unknown; conversation_id?: unknown; title?: unknown; mapping?: unknown; current_node?: unknown };
    if (typeof conv !== 'object' || conv === null || typeof conv.mapping !== 'object' || conv.mapping === null) {
      throw importError('INVALID_INPUT', file, `conversation ${c + 1}: expected an object with a "mapping" of message nodes`);
    }
    const mapping = conv.mapping as Record<string, ChatGptNode>;
    const id = typeof conv.id === 'string' ? conv.id : typeof conv.conversation_id === 'string' ? conv.conversation_id : `${baseId(file)}-${c + 1}`;
    const messages: DraftMessage[] = [];
    for (const nodeId of currentPath(mapping, conv.current_node)) {
      const message = mapping[nodeId]?.message;
      if (!message || message.metadata?.is_visually_hidden_from_conversation) continue;
      const text = nodeText(message.content);
      if (text.length === 0) continue;
      const role: Role = knownRole(message.author?.role ?? '') ?? 'user';
      const timestamp = epochToIso(message.create_time);
      messages.push({
        id: message.id ?? nodeId,
        role,
        ...(message.author?.name ? { speaker: message.author.name } : {}),
        text,
        ...(timestamp ? { timestamp } : {}),
      });
    }
    return { id, ...(typeof conv.title === 'string' && conv.title ? { title: conv.title } : {}), sessions: [{ id, messages }] };
  });
}
