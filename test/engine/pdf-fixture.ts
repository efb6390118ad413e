/**
 * A tiny PDF writer for tests: real PDF 1.4 syntax (catalog, page tree, pages, a Helvetica
 * Type 1 font, content streams, a cross-reference table and a trailer), with text lines at
 * the font sizes a test chooses, so headings can be told apart by size.
 */
import { prng } from '../support/prng.js';

export interface PdfLine {
  text: string;
  /** Font size in points. */
  size: number;
  /** Extra space above the line, in points (a paragraph break). */
  gapBefore?: number;
}

export interface PdfOptions {
  /** The document title in the Info dictionary. */
  title?: string;
  /** Adds an /Encrypt dictionary whose password nobody knows: readers must ask for one. */
  encrypted?: boolean;
}

const PAGE_WIDTH = 612;
const PAGE_HEIGHT = 792;
const MARGIN = 72;

/** Builds a PDF with one page per entry of `pages`, each page a list of lines from the top. */
export function buildPdf(pages: PdfLine[][], options: PdfOptions = {}): Uint8Array {
  const objects: string[] = [];
  const add = (body: string): number => {
    objects.push(body);
    return objects.length;
  };
  const catalog = add('');
  const pageTree = add('');
  const font = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  const kids: number[] = [];
  for (const lines of pages) {
    const stream = contentStream(lines);
    const contents = add(`<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`);
    kids.push(
      add(
        `<< /Type /Page /Parent ${pageTree} 0 R /MediaBox [0 0 ${PAGE_WIDTH} ${PAGE_HEIGHT}] ` +
          `/Resources << /Font << /F1 ${font} 0 R >> >> /Contents ${contents} 0 R >>`,
      ),
    );
  }
  objects[catalog - 1] = `<< /Type /Catalog /Pages ${pageTree} 0 R >>`;
  objects[pageTree - 1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`;
  const info = add(`<< /Producer (cairn pdf-fixture)${options.title ? ` /Title (${escapePdfString(options.title)})` : ''} >>`);
  const encrypt = options.encrypted
    ? add(`<< /Filter /Standard /V 1 /R 2 /Length 40 /P -4 /O <${'ab'.repeat(32)}> /U <${'cd'.repeat(32)}> >>`)
    : undefined;

  let out = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) out += `${String(offset).padStart(10, '0')} 00000 n \n`;
  const id = `<${'0123456789abcdef'.repeat(2)}>`;
  out +=
    `trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R /Info ${info} 0 R /ID [${id} ${id}]` +
    `${encrypt ? ` /Encrypt ${encrypt} 0 R` : ''} >>\nstartxref\n${xref}\n%%EOF\n`;
  // Every character above is Latin-1, so one character is one byte and the offsets hold.
  return Uint8Array.from(out, (ch) => ch.charCodeAt(0));
}

function contentStream(lines: PdfLine[]): string {
  const ops: string[] = [];
  let y = PAGE_HEIGHT - MARGIN;
  for (const line of lines) {
    y -= (line.gapBefore ?? 0) + line.size * 1.25;
    ops.push(`BT /F1 ${line.size} Tf ${MARGIN} ${y.toFixed(2)} Td (${escapePdfString(line.text)}) Tj ET`);
  }
  return ops.join('\n');
}

function escapePdfString(text: string): string {
  if (/[^\x20-\x7e]/.test(text)) throw new Error(`pdf-fixture writes ASCII text only: ${JSON.stringify(text)}`);
  return text.replace(/[\\()]/g, (ch) => `\\${ch}`);
}

/** Seeded lorem-like sentences, so fixtures are long without being repetitive. */
export function fillerSentences(seed: number, count: number): string[] {
  const words = ['station', 'uplink', 'storm', 'sensor', 'battery', 'antenna', 'relay', 'window', 'orbit', 'signal', 'backup', 'review', 'winter', 'channel', 'latency', 'field'];
  const next = prng(seed);
  const sentences: string[] = [];
  for (let i = 0; i < count; i++) {
    const length = 6 + Math.floor(next() * 8);
    const picked = Array.from({ length }, () => words[Math.floor(next() * words.length)]!);
    const sentence = picked.join(' ');
    sentences.push(`${sentence[0]!.toUpperCase()}${sentence.slice(1)}.`);
  }
  return sentences;
}
