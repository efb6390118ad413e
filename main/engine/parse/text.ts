/**
 * Plain text and text-like formats no other parser claims: split at blank lines, then sentences
 * (or line ends, for formats with one record per line).
 */
import { decodeText } from './encoding.js';
import { documentFile, extensionOf } from './parsed-document.js';
import type { Parser } from './types.js';

// Formats with one record per line: a cut belongs at a line end, never at a full stop inside a record.
const LINE_RECORDS = new Set(['.log', '.csv', '.tsv', '.srt', '.vtt']);

/**
 * @example
 * const parsed = await textParser.parse({ path, relPath: 'notes/todo.txt', bytes, split, codeSummaryMode: 'ast' });
 */
export const textParser: Parser = {
  name: 'text',
  format: 'text',
  extensions: [
    '.txt', '.text', '.rst', '.rest', '.org', '.adoc', '.asciidoc', '.asc', '.log', '.csv', '.tsv',
    '.tex', '.bib', '.srt', '.vtt', '.nfo', '.me', '.1st', '.textile', '.wiki', '.pod',
  ],
  async parse(input) {
    const { text, warning } = decodeText(input.bytes, input.relPath);
    const paragraphCuts = LINE_RECORDS.has(extensionOf(input.relPath)) ? 'lines' : 'sentences';
    return documentFile({ text, input, parserName: 'text', sourceFormat: 'text', format: 'text', keepExtension: true, paragraphCuts, warnings: warning ? [warning] : [] });
  },
};
