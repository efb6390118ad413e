/**
 * Which import format a file is in, from its content first and its extension second: a `.json`
 * file may hold any of the three JSON formats, and a `.txt` may be a Markdown chat or JSONL.
 */
import { looksLikeCairn } from './cairn-json.js';
import { looksLikeChatGpt } from './chatgpt.js';
import { looksLikeClaude } from './claude.js';
import { importError, type ImportFormat } from './draft.js';

export interface Detected {
  format: ImportFormat;
  /** The whole file parsed as JSON, when it is JSON (kept so large exports are parsed once). */
  json?: unknown;
}

function extension(file: string): string {
  return /\.([^./\\]+)$/.exec(file)?.[1]?.toLowerCase() ?? '';
}

function looksLikeMessage(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as { role?: unknown }).role === 'string';
}

export function detectFormat(text: string, file: string): Detected {
  const ext = extension(file);
  const head = text.trimStart();
  if (ext === 'jsonl' || ext === 'ndjson') return { format: 'jsonl' };
  if (ext === 'md' || ext === 'markdown') return { format: 'markdown' };
  // `[2024-05-08 13:56] Ana: ...` starts with a bracket too; JSON arrays start with `[{`, `["`, `[[` or `[]`.
  if (head.startsWith('{') || /^\[\s*[[{"\]]/.test(head) || ext === 'json') {
    let json: unknown;
    try {
      json = JSON.parse(head);
    } catch (error) {
      // Several JSON objects, one per line, do not parse as one document.
      const firstLine = head.split(/\r?\n/, 1)[0] ?? '';
      try {
        if (looksLikeMessage(JSON.parse(firstLine))) return { format: 'jsonl' };
      } catch {
        // Not JSONL either: report the whole-document error below.
      }
      throw importError('PARSE_FAILED', file, `invalid JSON (${(error as Error).message})`);
    }
    if (looksLikeChatGpt(json)) return { format: 'chatgpt', json };
    if (looksLikeClaude(json)) return { format: 'claude', json };
    if (looksLikeCairn(json)) return { format: 'cairn', json };
    if (looksLikeMessage(json)) return { format: 'jsonl' };
    throw importError(
      'INVALID_INPUT',
      file,
      'JSON that is not a known conversation format (expected Cairn {sessions}, a ChatGPT export with "mapping", a Claude export with "chat_messages", or one message object per line)',
    );
  }
  return { format: 'markdown' };
}
