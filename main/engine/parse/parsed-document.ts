/**
 * The part every document parser shares: split the (converted) text and wrap it as a ParsedFile.
 */
import { splitDocument } from './split.js';
import type { ParsedFile, ParseInput } from './types.js';

export interface DocumentFileInput {
  /** The decoded text, or the Markdown a converter made of the source. */
  text: string;
  input: ParseInput;
  parserName: string;
  sourceFormat: string;
  format: 'markdown' | 'text';
  /** Cut oversized paragraphs at line ends instead of sentence ends (logs, CSV). */
  paragraphCuts?: 'sentences' | 'lines';
  /** The document's own title (an HTML <title>, PDF metadata); else the first heading is used. */
  title?: string;
  warnings?: string[];
}

export function documentFile(args: DocumentFileInput): ParsedFile {
  const node = splitDocument(args.text, {
    name: fileName(args.input.relPath),
    maxTokens: args.input.split.maxTokens,
    minTokens: args.input.split.minTokens,
    format: args.format,
    ...(args.paragraphCuts ? { paragraphCuts: args.paragraphCuts } : {}),
  });
  if (args.title) node.meta.title = args.title;
  return {
    node,
    parserName: args.parserName,
    sourceFormat: args.sourceFormat,
    tokens: node.meta.tokens,
    parseMs: 0,
    warnings: args.warnings ?? [],
  };
}

/** The last segment of a POSIX relative path: `notes/guide.md` -> `guide.md`. */
export function fileName(relPath: string): string {
  const trimmed = relPath.replace(/\/+$/, '');
  return trimmed.slice(trimmed.lastIndexOf('/') + 1) || trimmed;
}

/** Lower-case extension with its dot (`.md`), or '' when the name has none (`Makefile`, `.bashrc`). */
export function extensionOf(relPath: string): string {
  const name = fileName(relPath);
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot).toLowerCase() : '';
}
