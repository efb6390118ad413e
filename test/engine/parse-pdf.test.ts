/**
 * The PDF parser on real PDF files written by test/engine/pdf-fixture.ts into a temp folder.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CairnError } from '../../shared/errors.js';
import { parseFile } from '../../main/engine/parse/registry.js';
import type { ParsedFile, ParsedNode } from '../../main/engine/parse/types.js';
import { buildPdf, fillerSentences, type PdfLine } from './pdf-fixture.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cairn-parse-pdf-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function parsePdfFile(name: string, bytes: Uint8Array, maxTokens = 1024, minTokens = 512): Promise<ParsedFile> {
  const path = join(dir, name);
  await writeFile(path, bytes);
  return parseFile({ path, relPath: `manuals/${name}`, bytes: new Uint8Array(await readFile(path)), split: { maxTokens, minTokens }, codeSummaryMode: 'ast' });
}

async function failure(name: string, bytes: Uint8Array): Promise<CairnError> {
  try {
    await parsePdfFile(name, bytes);
  } catch (error) {
    if (CairnError.is(error)) return error;
    throw error;
  }
  throw new Error(`${name} parsed without an error`);
}

function leaves(node: ParsedNode): Array<Extract<ParsedNode, { kind: 'file' }>> {
  return node.kind === 'file' ? [node] : node.children.flatMap(leaves);
}

const body = (seed: number, count: number): PdfLine[] => fillerSentences(seed, count).map((text, i) => ({ text, size: 11, gapBefore: i > 0 && i % 4 === 0 ? 9 : 0 }));

const manual = buildPdf(
  [
    [{ text: 'Station Manual', size: 24 }, { text: 'Overview', size: 16, gapBefore: 12 }, ...body(1, 12), { text: 'Power budget', size: 13, gapBefore: 10 }, ...body(2, 10)],
    [{ text: 'Uplink', size: 16 }, ...body(3, 14), { text: 'Antenna cable', size: 13, gapBefore: 10 }, ...body(4, 10)],
    [...body(5, 8), { text: 'Maintenance', size: 16, gapBefore: 12 }, ...body(6, 16)],
  ],
  { title: 'Tidewater Station Manual' },
);

describe('PDF parser', () => {
  it('rebuilds headings from font sizes, keeps every page and names the title', async () => {
    const parsed = await parsePdfFile('station-manual.pdf', manual, 100_000);
    expect(parsed.parserName).toBe('pdf');
    expect(parsed.sourceFormat).toBe('pdf');
    expect(parsed.warnings).toEqual([]);
    const node = parsed.node;
    expect(node.kind).toBe('file');
    if (node.kind !== 'file') return;
    expect(node.name).toBe('station-manual.pdf');
    expect(node.meta.title).toBe('Tidewater Station Manual');
    expect(node.meta.pages).toEqual([1, 3]);
    const headings = node.content.split('\n').filter((line) => line.startsWith('#'));
    expect(headings).toEqual(['# Station Manual', '## Overview', '### Power budget', '## Uplink', '### Antenna cable', '## Maintenance']);
    expect(node.content).toContain(fillerSentences(3, 1)[0]);
    expect(node.content).toContain(fillerSentences(6, 16)[15]);
    // Paragraph gaps become blank lines; lines of one paragraph stay together.
    expect(node.content).toMatch(/\.\n\n[A-Z]/);
    expect(parsed.tokens).toBe(node.meta.tokens);
  });

  it('splits a long PDF into sections that record the pages they come from', async () => {
    const whole = await parsePdfFile('station-manual.pdf', manual, 100_000);
    const parsed = await parsePdfFile('station-manual.pdf', manual, 160, 60);
    const node = parsed.node;
    expect(node.kind).toBe('dir');
    const parts = leaves(node);
    expect(parts.map((part) => part.content).join('')).toBe((whole.node as { content: string }).content);
    expect(parts[0]!.meta.pages![0]).toBe(1);
    expect(parts.at(-1)!.meta.pages![1]).toBe(3);
    for (const part of parts) {
      expect(part.meta.tokens).toBeLessThanOrEqual(160);
      const [first, last] = part.meta.pages!;
      expect(first).toBeLessThanOrEqual(last);
    }
    const uplink = parts.find((part) => part.content.startsWith('## Uplink') || part.content.includes('\n## Uplink'));
    expect(uplink?.meta.pages?.[0]).toBe(2);
    const maintenance = leaves(node).find((part) => part.content.includes('## Maintenance'));
    expect(maintenance?.meta.pages?.[1]).toBe(3);
  });

  it('finds numbered headings in a PDF set in one size', async () => {
    const plain = buildPdf([
      [
        { text: '1 Introduction', size: 11 },
        ...body(7, 6),
        { text: '2 Installation', size: 11, gapBefore: 12 },
        ...body(8, 5),
        { text: '2.1 Mounting the mast', size: 11, gapBefore: 12 },
        ...body(9, 5),
      ],
    ]);
    const parsed = await parsePdfFile('plain.pdf', plain, 100_000);
    const content = (parsed.node as { content: string }).content;
    expect(content.split('\n').filter((line) => line.startsWith('#'))).toEqual(['# 1 Introduction', '# 2 Installation', '## 2.1 Mounting the mast']);
  });

  it('warns about pages without a text layer', async () => {
    const parsed = await parsePdfFile('scan.pdf', buildPdf([[{ text: 'Cover', size: 20 }, ...body(10, 3)], []]), 100_000);
    expect(parsed.warnings).toEqual(['page 2 has no text layer (a scanned image?)']);
    expect(parsed.node.meta.pages).toEqual([1, 1]);
  });

  it('refuses a corrupt PDF naming the file and the reason', async () => {
    const corrupt = Uint8Array.from(manual);
    for (let i = 15; i < corrupt.length - 40; i++) corrupt[i] = (i * 7919) % 251;
    const error = await failure('corrupt.pdf', corrupt);
    expect(error.code).toBe('PARSE_FAILED');
    expect(error.message).toMatch(/^manuals\/corrupt\.pdf: the PDF is corrupt and cannot be read/);
  });

  it('refuses a truncated PDF, saying it is truncated', async () => {
    const error = await failure('truncated.pdf', manual.subarray(0, Math.floor(manual.length / 3)));
    expect(error.code).toBe('PARSE_FAILED');
    expect(error.message).toMatch(/^manuals\/truncated\.pdf: .*truncated/);
  });

  it('refuses an encrypted PDF, saying it needs a password', async () => {
    const error = await failure('secret.pdf', buildPdf([[{ text: 'Secret', size: 12 }]], { encrypted: true }));
    expect(error.code).toBe('PARSE_FAILED');
    expect(error.message).toBe('manuals/secret.pdf: the PDF is encrypted and needs a password');
  });

  it('refuses a .pdf file that is not a PDF', async () => {
    const error = await failure('fake.pdf', new TextEncoder().encode('just some text, no header'));
    expect(error.code).toBe('PARSE_FAILED');
    expect(error.message).toBe('manuals/fake.pdf: not a PDF: no %PDF- header in its first 1024 bytes');
  });
});
