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
  /**
   * Name the sections with the source file's own extension (`.rst` sections of a `.rst` file).
   * Off for converted formats (HTML, PDF), whose sections are Markdown (`.md`).
   */
  keepExtension?: boolean;
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
    ...(args.keepExtension ? sectionExtension(args.input.relPath) : {}),
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

/** The source's extension for its sections, when it is a plain one (`.md`, `.rst`, `.log`); otherwise the format's default. */
function sectionExtension(relPath: string): { extension?: string } {
  const extension = extensionOf(relPath);
  return /^\.[a-z0-9_+-]{1,16}$/.test(extension) ? { extension } : {};
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
