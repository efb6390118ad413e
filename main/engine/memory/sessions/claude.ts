/**
 * The Claude export (`conversations.json`): an array of `{uuid, name, chat_messages}` where each
 * message has a `uuid`, a `sender` (human | assistant), `text` and/or `content` parts, and
 * `created_at`. Text parts of `content` win over `text` when both are present (newer exports put
 * the full message in `content` and may leave `text` empty); tool parts are dropped.
 */
import { baseId, importError, knownRole, textOf, type DraftConversation, type DraftMessage } from './draft.js';

export function looksLikeClaude(json: unknown): boolean {
  const first = Array.isArray(json) ? json[0] : json;
  return typeof first === 'object' && first !== null && Array.isArray((first as { chat_messages?: unknown }).chat_messages);
}

export function readClaude(json: unknown, file: string): DraftConversation[] {
  const list = Array.isArray(json) ? json : [json];
  return list.map((raw, c) => {
    const conv = raw as { uuid?: unknown; name?: unknown; chat_messages?: unknown };
    if (typeof conv !== 'object' || conv === null || !Array.isArray(conv.chat_messages)) {
      throw importError('INVALID_INPUT', file, `conversation ${c + 1}: expected an object with a "chat_messages" array`);
    }
    const id = typeof conv.uuid === 'string' && conv.uuid ? conv.uuid : `${baseId(file)}-${c + 1}`;
    const messages: DraftMessage[] = [];
    conv.chat_messages.forEach((m: Record<string, unknown>, i: number) => {
      const role = typeof m?.sender === 'string' ? knownRole(m.sender) : undefined;
      if (!role) throw importError('INVALID_INPUT', file, `conversation "${id}" message ${i + 1}: unknown sender ${JSON.stringify(m?.sender ?? null)}`);
      const fromContent = Array.isArray(m.content) ? textOf(m.content) : undefined;
      const text = (fromContent && fromContent.trim() ? fromContent : typeof m.text === 'string' ? m.text : '').trim();
      if (text.length === 0) return;
      messages.push({
        ...(typeof m.uuid === 'string' && m.uuid ? { id: m.uuid } : {}),
        role,
        text,
        ...(typeof m.created_at === 'string' ? { timestamp: m.created_at } : {}),
      });
    });
    return { id, ...(typeof conv.name === 'string' && conv.name ? { title: conv.name } : {}), sessions: [{ id, messages }] };
  });
}
