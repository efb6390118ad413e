/**
 * JSONL: one message per line, `{role, text | content, id?, speaker?, timestamp?, session_id?}`.
 * Lines with a `session_id` split the conversation into sessions, in order of first appearance;
 * lines without one belong to session `s1`. Blank lines are skipped; errors name the line.
 */
import { baseId, importError, knownRole, textOf, type DraftConversation, type DraftSession } from './draft.js';

export function readJsonl(text: string, file: string): DraftConversation {
  const sessions = new Map<string, DraftSession>();
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i += 1) {
    const line = (lines[i] as string).trim();
    if (line.length === 0) continue;
    const lineNo = i + 1;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw importError('PARSE_FAILED', file, `invalid JSON (${(error as Error).message})`, lineNo);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw importError('INVALID_INPUT', file, 'expected a JSON object per line', lineNo);
    const m = value as Record<string, unknown>;
    const role = typeof m.role === 'string' ? knownRole(m.role) : undefined;
    if (!role) throw importError('INVALID_INPUT', file, `missing or unknown "role" (${JSON.stringify(m.role ?? null)})`, lineNo);
    const body = textOf(m.text ?? m.content);
    if (body === undefined) throw importError('INVALID_INPUT', file, 'missing "text" or "content"', lineNo);
    const sessionId = typeof m.session_id === 'string' && m.session_id ? m.session_id : typeof m.session_id === 'number' ? String(m.session_id) : 's1';
    let session = sessions.get(sessionId);
    if (!session) {
      session = { id: sessionId, messages: [] };
      sessions.set(sessionId, session);
    }
    session.messages.push({
      ...(typeof m.id === 'string' && m.id ? { id: m.id } : typeof m.id === 'number' ? { id: String(m.id) } : {}),
      role,
      ...(typeof m.speaker === 'string' ? { speaker: m.speaker } : {}),
      text: body,
      ...(typeof m.timestamp === 'string' ? { timestamp: m.timestamp } : {}),
    });
  }
  if (sessions.size === 0) throw importError('INVALID_INPUT', file, 'no messages (the file is empty)');
  return { id: baseId(file), sessions: [...sessions.values()] };
}
