/**
 * Reads a conversation file in any supported format into Cairn conversations.
 *
 * @example
 * const [conversation] = await importConversations('/data/chat.jsonl');
 * const exports = await importConversations({ bytes, name: 'conversations.json' }, { format: 'chatgpt' });
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { CairnError } from '../../../../shared/errors.js';
import type { Conversation } from '../../../../shared/types/memory.js';
import { decodeText } from '../../parse/encoding.js';
import { readCairnJson } from './cairn-json.js';
import { readChatGpt } from './chatgpt.js';
import { readClaude } from './claude.js';
import { detectFormat } from './detect.js';
import { finishConversation, importError, type DraftConversation, type ImportFormat } from './draft.js';
import { readJsonl } from './jsonl.js';
import { readMarkdownChat } from './markdown-chat.js';

export type ImportInput = string | { bytes: Uint8Array | string; name: string };

export interface ImportOptions {
  /** Skip detection and read the input as this format. */
  format?: ImportFormat;
  /** Told what was assumed about the file (a legacy encoding), with the file named. */
  onWarning?(message: string): void;
}

function parseJson(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw importError('PARSE_FAILED', file, `invalid JSON (${(error as Error).message})`);
  }
}

/** Parses text already in memory; `file` names it in errors and supplies fallback ids. */
export function parseConversations(text: string, file: string, options: ImportOptions = {}, sourcePath?: string): Conversation[] {
  if (text.trim().length === 0) throw importError('INVALID_INPUT', file, 'the file is empty');
  const detected = options.format ? { format: options.format, json: undefined } : detectFormat(text, file);
  const json = () => detected.json ?? parseJson(text, file);
  let drafts: DraftConversation[];
  switch (detected.format) {
    case 'cairn':
      drafts = readCairnJson(json(), file);
      break;
    case 'chatgpt':
      drafts = readChatGpt(json(), file);
      break;
    case 'claude':
      drafts = readClaude(json(), file);
      break;
    case 'jsonl':
      drafts = [readJsonl(text, file)];
      break;
    case 'markdown':
      drafts = [readMarkdownChat(text, file)];
      break;
    default:
      throw importError('INVALID_INPUT', file, `unknown format "${String(detected.format)}"`);
  }
  return drafts.map((draft) => finishConversation(draft, file, detected.format, sourcePath));
}

/** Reads a file (by path) or bytes with a name, detects the format and returns its conversations. */
export async function importConversations(input: ImportInput, options: ImportOptions = {}): Promise<Conversation[]> {
  if (typeof input === 'string') {
    const path = resolve(input);
    let bytes: Uint8Array;
    try {
      bytes = await readFile(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'NOT_FOUND' : 'IO_ERROR';
      throw new CairnError(code, `${path}: cannot read the file (${(error as Error).message})`, { cause: error, details: { file: path } });
    }
    return parseConversations(decoded(bytes, path, options), path, options, path);
  }
  const text = typeof input.bytes === 'string' ? input.bytes : decoded(input.bytes, input.name, options);
  return parseConversations(text, input.name, options);
}

function decoded(bytes: Uint8Array, file: string, options: ImportOptions): string {
  const { text, warning } = decodeText(bytes, file);
  if (warning) options.onWarning?.(`${file}: ${warning}`);
  return text;
}
