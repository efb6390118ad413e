/**
 * Cairn's own conversation JSON (docs/ARCHITECTURE.md#conversations): one conversation, an array of them, or
 * `{conversations: [...]}`. Role names are normalized and `content` is accepted for `text`, so
 * hand-written files need not be exact; missing message ids are filled in by finishConversation.
 */
import { baseId, importError, knownRole, textOf, type DraftConversation, type DraftMessage, type DraftSession } from './draft.js';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether parsed JSON looks like Cairn conversation JSON (used by the detector). */
export function looksLikeCairn(json: unknown): boolean {
  const first = Array.isArray(json) ? json[0] : isRecord(json) && Array.isArray(json.conversations) ? json.conversations[0] : json;
  return isRecord(first) && Array.isArray(first.sessions);
}

export function readCairnJson(json: unknown, file: string): DraftConversation[] {
  const list = Array.isArray(json) ? json : isRecord(json) && Array.isArray(json.conversations) ? json.conversations : [json];
  return list.map((raw, c) => {
    const where = list.length > 1 ? `conversation ${c + 1}: ` : '';
    if (!isRecord(raw) || !Array.isArray(raw.sessions)) throw importError('INVALID_INPUT', file, `${where}expected an object with a "sessions" array`);
    const sessions: DraftSession[] = raw.sessions.map((session, s) => {
      if (!isRecord(session) || !Array.isArray(session.messages)) throw importError('INVALID_INPUT', file, `${where}session ${s + 1}: expected an object with a "messages" array`);
      const id = typeof session.id === 'string' && session.id ? session.id : `s${s + 1}`;
      const messages: DraftMessage[] = session.messages.map((m, i) => {
        const at = `${where}session "${id}" message ${i + 1}`;
        if (!isRecord(m)) throw importError('INVALID_INPUT', file, `${at}: expected an object`);
        const role = typeof m.role === 'string' ? knownRole(m.role) : undefined;
        if (!role) throw importError('INVALID_INPUT', file, `${at}: missing or unknown "role" (${JSON.stringify(m.role ?? null)})`);
        const text = textOf(m.text ?? m.content);
        if (text === undefined) throw importError('INVALID_INPUT', file, `${at}: missing "text"`);
        return {
          ...(typeof m.id === 'string' && m.id ? { id: m.id } : {}),
          role,
          ...(typeof m.speaker === 'string' ? { speaker: m.speaker } : {}),
          text,
          ...(typeof m.timestamp === 'string' ? { timestamp: m.timestamp } : {}),
        };
      });
      return { id, ...(typeof session.started_at === 'string' ? { started_at: session.started_at } : {}), messages };
    });
    const id = typeof raw.id === 'string' && raw.id ? raw.id : list.length > 1 ? `${baseId(file)}-${c + 1}` : baseId(file);
    return { id, ...(typeof raw.title === 'string' ? { title: raw.title } : {}), sessions };
  });
}
