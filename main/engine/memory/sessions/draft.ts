/**
 * What every format reader produces before ids are filled in and the result is validated: the
 * readers stay small because the id rule, the duplicate check and the schema live here once.
 */
import { CairnError } from '../../../../shared/errors.js';
import { Conversation, type Role } from '../../../../shared/types/memory.js';

export type ImportFormat = 'cairn' | 'jsonl' | 'markdown' | 'chatgpt' | 'claude';
export const IMPORT_FORMATS: readonly ImportFormat[] = ['cairn', 'jsonl', 'markdown', 'chatgpt', 'claude'];

export interface DraftMessage {
  /** Kept when the file carries one; otherwise `{session}:{n}` is assigned. */
  id?: string;
  role: Role;
  speaker?: string;
  text: string;
  timestamp?: string;
}

export interface DraftSession {
  id: string;
  started_at?: string;
  messages: DraftMessage[];
}

export interface DraftConversation {
  id: string;
  title?: string;
  sessions: DraftSession[];
}

/** Where an input came from, for error messages: the file name and, for JSONL, the line. */
export function importError(code: 'INVALID_INPUT' | 'PARSE_FAILED', file: string, reason: string, line?: number): CairnError {
  const where = line === undefined ? file : `${file}:${line}`;
  return new CairnError(code, `${where}: ${reason}`, { details: { file, ...(line === undefined ? {} : { line }) } });
}

const ROLE_ALIASES: Record<string, Role> = {
  user: 'user',
  human: 'user',
  me: 'user',
  you: 'user',
  用户: 'user',
  我: 'user',
  assistant: 'assistant',
  ai: 'assistant',
  bot: 'assistant',
  model: 'assistant',
  gpt: 'assistant',
  chatgpt: 'assistant',
  claude: 'assistant',
  助手: 'assistant',
  system: 'system',
  tool: 'tool',
  function: 'tool',
};

/** The Cairn role for a role or speaker name a file uses, or undefined when it is not one we know. */
export function knownRole(name: string): Role | undefined {
  return ROLE_ALIASES[name.trim().toLowerCase()];
}

/** The text of a message given as a string or as an array of `{type: 'text', text}` parts (other parts are dropped). */
export function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) return undefined;
  const parts: string[] = [];
  for (const part of value) {
    if (typeof part === 'string') parts.push(part);
    else if (part && typeof part === 'object' && (part as { type?: unknown }).type === 'text' && typeof (part as { text?: unknown }).text === 'string') {
      parts.push((part as { text: string }).text);
    }
  }
  return parts.join('\n\n');
}

export function epochToIso(seconds: unknown): string | undefined {
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds <= 0) return undefined;
  return new Date(Math.round(seconds * 1000)).toISOString();
}

/** The file name without directories or extension, as a fallback conversation id. */
export function baseId(file: string): string {
  const name = file.split(/[\\/]/).pop() ?? file;
  const stem = name.replace(/\.[^.]+$/, '');
  return stem.length > 0 ? stem : 'conversation';
}

/**
 * Fills missing message ids with `{session}:{n}` (n is the 1-based position in the session),
 * defaults `started_at` to the first timestamp, refuses duplicate ids and validates the schema.
 */
export function finishConversation(draft: DraftConversation, file: string, format: ImportFormat, sourcePath?: string): Conversation {
  const seen = new Set<string>();
  const sessions = draft.sessions.map((session) => {
    const messages = session.messages.map((message, index) => {
      const id = message.id ?? `${session.id}:${index + 1}`;
      if (seen.has(id)) throw importError('INVALID_INPUT', file, `duplicate message id "${id}" in conversation "${draft.id}"`);
      seen.add(id);
      return { ...message, id };
    });
    const started_at = session.started_at ?? messages.find((m) => m.timestamp)?.timestamp;
    return { id: session.id, ...(started_at ? { started_at } : {}), messages };
  });
  const candidate = {
    id: draft.id,
    ...(draft.title ? { title: draft.title } : {}),
    sessions,
    source_format: format,
    ...(sourcePath ? { source_path: sourcePath } : {}),
  };
  const parsed = Conversation.safeParse(candidate);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw importError('INVALID_INPUT', file, `not a valid conversation: ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}
