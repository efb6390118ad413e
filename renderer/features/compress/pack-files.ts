/**
 * What the Compression view hands out of a context pack: its Markdown to copy or save (the text
 * `cairn context` prints), the whole pack as JSON (what `cairn context --json` prints), under a
 * file name that says what and when, and the tokens it used against those it gathered.
 */
import type { ContextPack } from '../../stores/compress-store';

export interface PackFile {
  name: string;
  /** MIME type for the download. */
  type: string;
  text: string;
}

/** A file-name-safe slug of the query: letters and digits of any script, at most 40 characters. */
function slug(query: string): string {
  const words = query
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
  return [...words].slice(0, 40).join('').replace(/-+$/, '') || 'pack';
}

const two = (n: number) => String(n).padStart(2, '0');

/** `cairn-context-20261201-120000-why-did-the-pods.md`, in local time. */
export function packFileName(pack: Pick<ContextPack, 'query'>, now: Date, extension: 'md' | 'json'): string {
  const stamp = `${now.getFullYear()}${two(now.getMonth() + 1)}${two(now.getDate())}-${two(now.getHours())}${two(now.getMinutes())}${two(now.getSeconds())}`;
  return `cairn-context-${stamp}-${slug(pack.query)}.${extension}`;
}

export function packMarkdownFile(pack: ContextPack, now: Date): PackFile {
  return { name: packFileName(pack, now, 'md'), type: 'text/markdown;charset=utf-8', text: pack.markdown };
}

export function packJsonFile(pack: ContextPack, now: Date): PackFile {
  return { name: packFileName(pack, now, 'json'), type: 'application/json;charset=utf-8', text: `${JSON.stringify(pack, null, 2)}\n` };
}

export interface PackTokens {
  /** Tokens of every block gathered for the query, before compression. */
  before: number;
  /** Tokens of the pack's text (references and legend included). */
  after: number;
  /** before − after, never below 0 (a tiny pack's legend can outweigh what it left out). */
  saved: number;
  /** saved as a whole percentage of before. */
  percent: number;
}

export function packTokens(pack: Pick<ContextPack, 'result' | 'tokens'>): PackTokens {
  const before = pack.result.original_tokens;
  const saved = Math.max(0, before - pack.tokens);
  return { before, after: pack.tokens, saved, percent: before > 0 ? Math.round((100 * saved) / before) : 0 };
}
