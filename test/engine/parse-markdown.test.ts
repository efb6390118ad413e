/**
 * Markdown and text files through the registry, from the fixtures and from variants written to a
 * temp folder (CRLF, byte-order marks, UTF-16).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFile } from '../../main/engine/parse/registry.js';
import { countTokens } from '../../main/lib/tokens.js';
import type { ParsedFile, ParsedNode } from '../../main/engine/parse/types.js';

const FIXTURES = join(import.meta.dirname, '../fixtures/docs/markdown');

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cairn-parse-md-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function parseBytes(relPath: string, bytes: Uint8Array, maxTokens = 1024, minTokens = 512): Promise<ParsedFile> {
  const path = join(dir, relPath.replace(/\//g, '_'));
  await writeFile(path, bytes);
  return parseFile({ path, relPath, bytes: new Uint8Array(await readFile(path)), split: { maxTokens, minTokens }, codeSummaryMode: 'ast' });
}

/** The tree as indented lines: `name [title] lines`. */
function outline(node: ParsedNode, depth = 0): string[] {
  const line = `${'  '.repeat(depth)}${node.name}${node.kind === 'dir' ? '/' : ''} ${node.meta.lines?.join('-')}`;
  return node.kind === 'dir' ? [line, ...node.children.flatMap((child) => outline(child, depth + 1))] : [line];
}

function leaves(node: ParsedNode): Array<Extract<ParsedNode, { kind: 'file' }>> {
  return node.kind === 'file' ? [node] : node.children.flatMap(leaves);
}

describe('Markdown files', () => {
  it('splits the English field guide at its headings, setext ones included, behind its front matter', async () => {
    const text = await readFile(join(FIXTURES, 'field-guide.md'), 'utf8');
    const parsed = await parseBytes('docs/field-guide.md', new TextEncoder().encode(text), 200, 100);
    expect(parsed.parserName).toBe('markdown');
    expect(parsed.sourceFormat).toBe('markdown');
    expect(parsed.parseMs).toBeGreaterThan(0);
    expect(parsed.tokens).toBe(countTokens(text));
    expect(outline(parsed.node)).toEqual([
      'field-guide.md/ 1-102',
      '  01-title-field-station-handbook.md 1-9',
      '  02-field-station-handbook/ 10-102',
      '    01-field-station-handbook.md 10-22',
      '    02-before-you-go.md 23-40',
      '    03-on-site/ 41-90',
      '      01-on-site.md 41-45',
      '      02-replacing-the-electronics-box/ 46-65',
      '        01-replacing-the-electronics-box.md 46-55',
      '        02-bash-connect-to-the-service-port.md 56-65',
      '      03-calibrating-the-anemometer.md 66-78',
      '      04-water-level-sensor.md 79-90',
      '    04-after-the-visit.md 91-102',
    ]);
    const parts = leaves(parsed.node);
    expect(parts.map((part) => part.content).join('')).toBe(text);
    // The front matter and the text before the first heading open the document, untouched.
    expect(parts[0]!.content.startsWith('---\ntitle: Field station handbook\nowner: operations\ntags: [stations, maintenance]\n---\n\nRead this handbook')).toBe(true);
    // '#' lines inside the fence are code: the fence sits whole in one section.
    const fence = text.slice(text.indexOf('```bash'), text.indexOf('```\n', text.indexOf('```bash') + 3) + 4);
    expect(parts.filter((part) => part.content.includes(fence))).toHaveLength(1);
    expect(parts.map((part) => part.meta.title)).not.toContain('lines starting with two hashes are comments too, not headings');
    // Trailing spaces survive.
    expect(parts[0]!.content).toContain('only briefly why.   \n');
  });

  it('gives the CRLF version of the guide the same sections and line ranges, byte for byte', async () => {
    const lf = await readFile(join(FIXTURES, 'field-guide.md'), 'utf8');
    const crlf = lf.replace(/\n/g, '\r\n');
    const [a, b] = await Promise.all([
      parseBytes('docs/field-guide.md', new TextEncoder().encode(lf), 200, 100),
      parseBytes('docs/field-guide-crlf.md', new TextEncoder().encode(crlf), 200, 100),
    ]);
    expect(outline(b.node).slice(1)).toEqual(outline(a.node).slice(1));
    const parts = leaves(b.node);
    expect(parts.map((part) => part.content).join('')).toBe(crlf);
    for (const part of parts) expect(part.content).not.toMatch(/(^|[^\r])\n/);
  });

  it('splits the Chinese guide with readable Chinese names', async () => {
    const bytes = new Uint8Array(await readFile(join(FIXTURES, 'zh-ops-guide.md')));
    const parsed = await parseBytes('docs/zh/运维手册.md', bytes, 300, 150);
    expect(parsed.node.name).toBe('运维手册.md');
    expect(parsed.node.meta.title).toBe('潮汐站运维手册');
    expect(outline(parsed.node)).toEqual([
      '运维手册.md/ 1-53',
      '  01-潮汐站运维手册.md 1-10',
      '  02-出发之前.md 11-24',
      '  03-现场操作/ 25-46',
      '    01-现场操作.md 25-42',
      '    02-校准风速计.md 43-46',
      '  04-巡检之后.md 47-53',
    ]);
    expect(leaves(parsed.node).map((part) => part.content).join('')).toBe(new TextDecoder().decode(bytes));
  });

  it('keeps a document within the budget as one file with its own name', async () => {
    const text = '# Notes\n\nOne short note.\n';
    const parsed = await parseBytes('notes/today.md', new TextEncoder().encode(text));
    expect(parsed.node).toEqual({ kind: 'file', name: 'today.md', content: text, meta: { tokens: countTokens(text), lines: [1, 3], title: 'Notes' } });
  });

  it('decodes byte-order marks (UTF-8, UTF-16 LE and BE) before splitting', async () => {
    const text = '# 标题\r\n\r\nBody text.\r\n';
    const le = new Uint8Array(2 + text.length * 2);
    const be = new Uint8Array(2 + text.length * 2);
    le.set([0xff, 0xfe]);
    be.set([0xfe, 0xff]);
    for (let i = 0; i < text.length; i++) {
      const unit = text.charCodeAt(i);
      le.set([unit & 0xff, unit >> 8], 2 + i * 2);
      be.set([unit >> 8, unit & 0xff], 2 + i * 2);
    }
    const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(text)]);
    for (const [name, bytes] of [['bom.md', bom], ['le.md', le], ['be.md', be]] as const) {
      const parsed = await parseBytes(name, bytes);
      expect((parsed.node as { content: string }).content).toBe(text);
      expect(parsed.node.meta.title).toBe('标题');
    }
  });

  it('refuses invalid UTF-8 naming the file and the byte offset', async () => {
    const bytes = new Uint8Array([...new TextEncoder().encode('# Café\n\nprix: 5'), 0xa4, 0x0a]);
    await expect(parseBytes('docs/prices.md', bytes)).rejects.toMatchObject({
      code: 'UNSUPPORTED_ENCODING',
      message: 'docs/prices.md: not valid UTF-8, and not 8-bit text either (UTF-8 with broken sequences, or binary data) (at byte 16)',
    });
  });
});

describe('Text files', () => {
  it('splits plain text by paragraphs and names its parts .txt after their first words', async () => {
    const paragraph = (i: number) => `Paragraph ${i}. ${'The tide gauge logs the water level every minute and the base keeps a year of it. '.repeat(6)}`;
    const text = `${Array.from({ length: 12 }, (_, i) => paragraph(i)).join('\n\n')}\n`;
    const parsed = await parseBytes('notes/log.txt', new TextEncoder().encode(text), 256, 128);
    expect(parsed.parserName).toBe('text');
    const node = parsed.node;
    expect(node.kind).toBe('dir');
    const parts = leaves(node);
    expect(parts.map((part) => part.content).join('')).toBe(text);
    for (const [i, part] of parts.entries()) {
      // Paragraphs stay whole: every part starts at a paragraph, and is named by its first six words.
      const first = /^Paragraph (\d+)\. /.exec(part.content)?.[1];
      expect(first).toBeDefined();
      expect(part.name).toBe(`${String(i + 1).padStart(2, '0')}-paragraph-${first}-the-tide-gauge-logs.txt`);
      expect(part.meta.tokens).toBeLessThanOrEqual(256);
    }
  });
});

describe('Section names', () => {
  it('keep the extension of a text format, and fall back to .txt for a file without one', async () => {
    const text = Array.from({ length: 10 }, (_, i) => `Chapter ${i + 1}\n==========\n\n${'The mast carries the anemometer and the uplink antenna. '.repeat(8)}\n`).join('\n');
    const rst = await parseBytes('docs/manual.rst', new TextEncoder().encode(text), 200, 100);
    const names = leaves(rst.node).map((part) => part.name);
    // Each "Chapter N" over a line of "=" is a heading: the section is named from it.
    expect(names[0]).toBe('01-chapter-1.rst');
    for (const name of names) expect(name).toMatch(/^\d{2}-[a-z0-9-]+\.rst$/);
    const bare = await parseBytes('docs/NOTES', new TextEncoder().encode(text), 200, 100);
    expect(leaves(bare.node).map((part) => part.name)).toEqual(names.map((name) => name.replace(/\.rst$/, '.txt')));
  });

  it('give converted formats Markdown sections', async () => {
    const body = Array.from({ length: 6 }, (_, i) => `<h2>Step ${i + 1}</h2><p>${'Open the box and check the seal before the storm season. '.repeat(12)}</p>`).join('');
    const parsed = await parseBytes('site/guide.html', new TextEncoder().encode(`<!doctype html><html><head><title>Guide</title></head><body><main>${body}</main></body></html>`), 200, 100);
    expect(parsed.parserName).toBe('html');
    const names = leaves(parsed.node).map((part) => part.name);
    expect(names.length).toBeGreaterThan(1);
    for (const name of names) expect(name).toMatch(/\.md$/);
    expect(names).toContain('02-step-2.md');
  });

  it('are the same when the same document is parsed again', async () => {
    const bytes = new Uint8Array(await readFile(join(FIXTURES, 'field-guide.md')));
    const first = await parseBytes('docs/field-guide.md', bytes, 200, 100);
    const again = await parseBytes('docs/field-guide.md', bytes, 200, 100);
    expect(outline(again.node)).toEqual(outline(first.node));
  });
});

describe('Line-record files', () => {
  it('cuts a log at line ends, never at a full stop inside a line', async () => {
    const text = Array.from({ length: 400 }, (_, i) => `2024-05-08T13:${String(i % 60).padStart(2, '0')}:00Z INFO station ${i % 14} sent packet ${i}. Uplink ok. Battery 12.${i % 10} V`).join('\n') + '\n';
    const parsed = await parseBytes('logs/uplink.log', new TextEncoder().encode(text), 300, 150);
    const parts = leaves(parsed.node);
    expect(parts.length).toBeGreaterThan(3);
    expect(parts.map((part) => part.content).join('')).toBe(text);
    for (const part of parts) expect(part.content).toMatch(/^2024-05-08T[^\n]*(\n2024-05-08T[^\n]*)*\n$/);
  });
});
