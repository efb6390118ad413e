/**
 * PDF: the text layer of every page (pdf.js, bundled by unpdf) rebuilt into Markdown: lines from
 * text positions, paragraphs from vertical gaps, headings from font sizes larger than the body
 * text (or, in a PDF set in one size, from numbered heading lines). Each node records the pages
 * its text came from.
 */
import { getDocumentProxy } from 'unpdf';
import { CairnError, errorMessage } from '../../../shared/errors.js';
import { documentFile } from './parsed-document.js';
import type { ParsedNode, Parser } from './types.js';

/** One line of text on a page, in reading order. */
export interface PdfTextLine {
  text: string;
  /** Font size in points (the largest on the line). */
  size: number;
  /** True when a paragraph starts here: the page's first line, after a gap, or after a jump in position. */
  breakBefore: boolean;
}

export interface PdfPageText {
  lines: PdfTextLine[];
}

// pdf.js VerbosityLevel.ERRORS: keeps "Warning: Indexing all PDF objects" and friends off stderr.
const PDF_ERRORS_ONLY = 0;
const HEADING_SCALE = 1.15;
const MAX_HEADING_CHARS = 150;

/**
 * @example
 * const parsed = await pdfParser.parse({ path, relPath: 'manual.pdf', bytes, split, codeSummaryMode: 'ast' });
 * parsed.node.meta.pages // [1, 12]
 */
export const pdfParser: Parser = {
  name: 'pdf',
  format: 'pdf',
  extensions: ['.pdf'],
  async parse(input) {
    const { pages, title, warnings } = await readPdf(input.bytes, input.relPath);
    const { markdown, pageStartLines } = pdfToMarkdown(pages);
    const parsed = documentFile({ text: markdown, input, parserName: 'pdf', sourceFormat: 'pdf', format: 'markdown', title, warnings });
    assignPages(parsed.node, pageStartLines);
    return parsed;
  },
};

/** True when `%PDF-` appears in the first 1024 bytes (where the specification lets it sit). */
export function hasPdfHeader(bytes: Uint8Array): boolean {
  const head = bytes.subarray(0, 1024);
  for (let i = 0; i + 5 <= head.length; i++) {
    if (head[i] === 0x25 && head[i + 1] === 0x50 && head[i + 2] === 0x44 && head[i + 3] === 0x46 && head[i + 4] === 0x2d) return true;
  }
  return false;
}

function hasEofMarker(bytes: Uint8Array): boolean {
  const tail = new TextDecoder('latin1').decode(bytes.subarray(Math.max(0, bytes.length - 1024)));
  return tail.includes('%%EOF');
}

function failed(relPath: string, reason: string, cause?: unknown): CairnError {
  return new CairnError('PARSE_FAILED', `${relPath}: ${reason}`, cause === undefined ? {} : { cause });
}

/** Reads the text of every page; throws PARSE_FAILED naming the file and the reason. */
export async function readPdf(bytes: Uint8Array, relPath: string): Promise<{ pages: PdfPageText[]; title?: string; warnings: string[] }> {
  if (!hasPdfHeader(bytes)) throw failed(relPath, 'not a PDF: no %PDF- header in its first 1024 bytes');
  const warnings: string[] = [];
  const truncated = !hasEofMarker(bytes);
  let document;
  try {
    // pdf.js may take ownership of the buffer it reads, so it gets a copy.
    document = await getDocumentProxy(bytes.slice(), { verbosity: PDF_ERRORS_ONLY });
  } catch (error) {
    const name = (error as { name?: unknown })?.name;
    if (name === 'PasswordException') throw failed(relPath, 'the PDF is encrypted and needs a password', error);
    const detail = errorMessage(error);
    if (truncated) throw failed(relPath, `the PDF is truncated (no %%EOF marker at the end) and cannot be read: ${detail}`, error);
    throw failed(relPath, `the PDF is corrupt and cannot be read: ${detail}`, error);
  }
  if (truncated) warnings.push('the file has no %%EOF marker at the end: it may be truncated, text may be missing');
  try {
    const pages: PdfPageText[] = [];
    let unreadable = 0;
    for (let number = 1; number <= document.numPages; number++) {
      try {
        const page = await document.getPage(number);
        const content = await page.getTextContent();
        const lines = pageLines(content.items);
        if (lines.length === 0) warnings.push(`page ${number} has no text layer (a scanned image?)`);
        pages.push({ lines });
        page.cleanup();
      } catch (error) {
        unreadable += 1;
        warnings.push(`page ${number} could not be read: ${errorMessage(error)}`);
        pages.push({ lines: [] });
      }
    }
    if (document.numPages > 0 && unreadable === document.numPages) {
      throw failed(relPath, `none of its ${document.numPages} pages could be read${truncated ? ' (the file looks truncated)' : ''}`);
    }
    const info = (await document.getMetadata().catch(() => undefined))?.info as { Title?: unknown } | undefined;
    const title = typeof info?.Title === 'string' ? info.Title.replace(/\s+/g, ' ').trim() : '';
    return { pages, ...(title ? { title } : {}), warnings };
  } finally {
    await document.destroy();
  }
}

interface RawItem {
  str?: string;
  transform?: number[];
  width?: number;
  hasEOL?: boolean;
}

/** Groups pdf.js text items into lines: a new line where the baseline moves or an item ends one. */
export function pageLines(items: readonly unknown[]): PdfTextLine[] {
  const lines: PdfTextLine[] = [];
  let current: { text: string; size: number; y: number; endX: number } | undefined;
  let previousY: number | undefined;
  let previousSize = 0;
  const endLine = () => {
    if (!current) return;
    const text = current.text.replace(/\s+/g, ' ').trim();
    if (text !== '') {
      const advance = previousY === undefined ? 0 : previousY - current.y;
      // A gap well over one line, or a jump upwards (a new column), starts a paragraph.
      const breakBefore = previousY === undefined || advance > 1.45 * Math.max(current.size, previousSize) || advance < -1;
      lines.push({ text, size: current.size, breakBefore });
      previousY = current.y;
      previousSize = current.size;
    }
    current = undefined;
  };
  for (const raw of items) {
    const item = raw as RawItem;
    if (typeof item.str !== 'string' || !item.transform) continue;
    const [, , c = 0, d = 0, x = 0, y = 0] = item.transform;
    const size = Math.round(Math.hypot(c, d) * 10) / 10;
    if (item.str !== '') {
      if (current && Math.abs(y - current.y) > Math.max(2, 0.5 * Math.min(size, current.size))) endLine();
      if (!current) current = { text: '', size, y, endX: x };
      const gap = x - current.endX;
      if (current.text !== '' && gap > 0.15 * size && !/\s$/.test(current.text) && !/^\s/.test(item.str)) current.text += ' ';
      current.text += item.str;
      current.size = Math.max(current.size, size);
      current.endX = x + (item.width ?? 0);
    }
    if (item.hasEOL) endLine();
  }
  endLine();
  return lines;
}

/**
 * Markdown of the pages, with headings where the font size or the numbering shows them.
 * `pageStartLines[i]` is the 1-based Markdown line where page i + 1 begins.
 */
export function pdfToMarkdown(pages: PdfPageText[]): { markdown: string; pageStartLines: number[] } {
  const levels = headingLevels(pages);
  const out: string[] = [];
  const pageStartLines: number[] = [];
  const blank = () => {
    if (out.length > 0 && out[out.length - 1] !== '') out.push('');
  };
  for (const page of pages) {
    blank();
    pageStartLines.push(out.length + 1);
    let previousHeading: { level: number; index: number } | undefined;
    for (const line of page.lines) {
      const level = levels(line);
      if (level > 0) {
        // A heading set over two lines continues the one above it.
        if (previousHeading && previousHeading.level === level && previousHeading.index === out.length - 1 && !line.breakBefore) {
          out[previousHeading.index] += ` ${line.text}`;
          continue;
        }
        blank();
        out.push(`${'#'.repeat(level)} ${line.text}`);
        previousHeading = { level, index: out.length - 1 };
        continue;
      }
      if (line.breakBefore || previousHeading?.index === out.length - 1) blank();
      previousHeading = undefined;
      out.push(escapeLine(line.text));
    }
  }
  const markdown = out.length === 0 ? '' : `${out.join('\n')}\n`;
  return { markdown, pageStartLines };
}

/** A function giving each line its heading level (0 for body text). */
function headingLevels(pages: PdfPageText[]): (line: PdfTextLine) => number {
  const charsBySize = new Map<number, number>();
  for (const page of pages) for (const line of page.lines) charsBySize.set(line.size, (charsBySize.get(line.size) ?? 0) + line.text.length);
  let body = 0;
  let most = -1;
  for (const [size, chars] of charsBySize) {
    if (chars > most) [body, most] = [size, chars];
  }
  const isHeadingText = (text: string) => text.length <= MAX_HEADING_CHARS && /\p{L}/u.test(text);
  const headingSizes = new Set<number>();
  for (const page of pages) {
    for (const line of page.lines) if (line.size >= body * HEADING_SCALE && isHeadingText(line.text)) headingSizes.add(line.size);
  }
  const ranked = [...headingSizes].sort((a, b) => b - a);
  if (ranked.length > 0) {
    return (line) => (line.size >= body * HEADING_SCALE && isHeadingText(line.text) ? Math.min(6, ranked.indexOf(line.size) + 1) : 0);
  }
  // One size throughout: numbered lines that open a paragraph ("2.1 Setup", "Chapter 3", "第二章 ...").
  return (line) => {
    if (!line.breakBefore || line.text.length > 80 || /[.,;:]$/.test(line.text)) return 0;
    const numbered = /^(\d+(?:\.\d+)*)\.?\s+\p{Lu}/u.exec(line.text);
    if (numbered) return Math.min(6, numbered[1]!.split('.').length);
    return /^(?:chapter|part|appendix)\s+\w+|^第[一二三四五六七八九十百\d]+[章节部]/iu.test(line.text) ? 1 : 0;
  };
}

/** Keeps body text from being read as Markdown structure (a heading, a rule, a fence). */
function escapeLine(text: string): string {
  return /^(?:#{1,6}(?:\s|$)|[=-]{2,}\s*$|[-+*]\s|```|~~~|>)/.test(text) ? `\\${text}` : text;
}

/** Sets meta.pages on every node from its Markdown line range. */
export function assignPages(node: ParsedNode, pageStartLines: number[]): void {
  if (pageStartLines.length === 0) return;
  const pageOf = (line: number) => {
    let lo = 0;
    let hi = pageStartLines.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (pageStartLines[mid]! <= line) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  const visit = (current: ParsedNode) => {
    if (current.meta.lines) current.meta.pages = [pageOf(current.meta.lines[0]), pageOf(current.meta.lines[1])];
    if (current.kind === 'dir') current.children.forEach(visit);
  };
  visit(node);
}
