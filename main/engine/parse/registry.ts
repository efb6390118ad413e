/**
 * The parser registry: picks a parser for a file by its content first where the content is
 * unmistakable (`%PDF-`, an HTML document, a shebang), then by extension and file name, with
 * plain text for any other text file; runs it, times it and gives every failure a stable code.
 */
import { CairnError, errorMessage } from '../../../shared/errors.js';
import { CODE_FILE_NAMES, codeParser } from './code.js';
import { htmlParser } from './html.js';
import { markdownParser } from './markdown.js';
import { extensionOf, fileName } from './parsed-document.js';
import { hasPdfHeader, pdfParser } from './pdf.js';
import { textParser } from './text.js';
import type { ParsedFile, ParseInput, Parser } from './types.js';
import { addIngestFileSummaries } from '../summarize/ingest-file-summaries.js';

const PARSERS: readonly Parser[] = [markdownParser, htmlParser, pdfParser, codeParser, textParser];

const BY_EXTENSION = new Map<string, Parser>();
for (const parser of PARSERS) for (const extension of parser.extensions) BY_EXTENSION.set(extension, parser);

/** How many bytes of a file `parserFor` looks at. */
export const SNIFF_BYTES = 1024;

/** Every parser, in the order the registry prefers them. */
export function listParsers(): readonly Parser[] {
  return PARSERS;
}

/**
 * The parser for a file, from its path and its first bytes (SNIFF_BYTES are enough).
 *
 * @example
 * parserFor('docs/guide.md', head).name // 'markdown'
 * parserFor('scripts/deploy', utf8('#!/bin/sh\n...')).name // 'code'
 * parserFor('download.bin', utf8('%PDF-1.7...')).name // 'pdf'
 */
export function parserFor(relPath: string, head: Uint8Array): Parser {
  if (hasPdfHeader(head)) return pdfParser;
  const byName = CODE_FILE_NAMES.has(fileName(relPath).toLowerCase()) ? codeParser : undefined;
  const byExtension = byName ?? BY_EXTENSION.get(extensionOf(relPath));
  // Content decides for files without a telling name, and for plain text that is really HTML or a script.
  if (byExtension === undefined || byExtension === textParser || byExtension === pdfParser) {
    const start = sniffText(head);
    if (/^<!doctype\s+html[\s>]|^<html[\s>]/i.test(start)) return htmlParser;
    if (byExtension !== pdfParser && start.startsWith('#!')) return codeParser;
  }
  return byExtension ?? textParser;
}

/** The start of the file as text, past a byte-order mark and leading white space and comments. */
function sniffText(head: Uint8Array): string {
  let bytes = head.subarray(0, SNIFF_BYTES);
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
  const text = new TextDecoder('utf-8').decode(bytes);
  if (text.startsWith('#!')) return text;
  return text.replace(/^(?:\s|<!--[\s\S]*?-->|<\?xml[^>]*\?>)*/, '');
}

/**
 * Parses one file: picks the parser, decodes, converts, splits and measures the time taken.
 * Failures are CairnErrors naming the file: UNSUPPORTED_ENCODING for text that is not UTF-8 or
 * UTF-16 with a byte-order mark, PARSE_FAILED for everything else.
 *
 * @example
 * const parsed = await parseFile({ path: '/src/docs/guide.md', relPath: 'docs/guide.md', bytes, split: { maxTokens: 1024, minTokens: 512 }, codeSummaryMode: 'ast' });
 * parsed.parserName // 'markdown'
 */
export async function parseFile(input: ParseInput): Promise<ParsedFile> {
  const started = performance.now();
  const parser = parserFor(input.relPath, input.bytes.subarray(0, SNIFF_BYTES));
  let parsed: ParsedFile;
  try {
    parsed = await parser.parse(input);
  } catch (error) {
    if (CairnError.is(error)) {
      if (error.message.includes(input.relPath)) throw error;
      throw new CairnError(error.code, `${input.relPath}: ${error.message}`, { cause: error, details: error.details });
    }
    throw new CairnError('PARSE_FAILED', `${input.relPath}: ${parser.name} parser failed: ${errorMessage(error)}`, { cause: error, details: { parser: parser.name } });
  }
  // Offline summaries belong to the parse: they run on the same worker, on the text just made.
  if (input.fileSummaries) parsed = addIngestFileSummaries(parsed, input.fileSummaries.name);
  return { ...parsed, parseMs: Math.round((performance.now() - started) * 10) / 10 };
}
