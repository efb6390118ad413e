import { describe, expect, it } from 'vitest';
import { CairnError } from '../../../shared/errors.js';
import { LineIndex, plainTitle, sectionName, slugify, splitDocument, type SplitDocumentOptions } from './split.js';
import { countTokens } from '../../lib/tokens.js';
import type { ParsedNode } from './types.js';

const md = (maxTokens: number, minTokens = Math.floor(maxTokens / 2)): SplitDocumentOptions => ({ name: 'doc.md', maxTokens, minTokens, format: 'markdown' });

function leaves(node: ParsedNode): Array<Extract<ParsedNode, { kind: 'file' }>> {
  return node.kind === 'file' ? [node] : node.children.flatMap(leaves);
}

function joined(node: ParsedNode): string {
  return leaves(node).map((leaf) => leaf.content).join('');
}

function dir(node: ParsedNode): Extract<ParsedNode, { kind: 'dir' }> {
  if (node.kind !== 'dir') throw new Error(`${node.name} is a file`);
  return node;
}

/** About `tokens` tokens of English prose, in sentences. */
function prose(tokens: number, seed = 1): string {
  const words = ['tide', 'station', 'packet', 'window', 'battery', 'signal', 'harbour', 'forecast', 'sensor', 'mast'];
  const out: string[] = [];
  let count = 0;
  let i = seed;
  while (count < tokens) {
    const sentence = Array.from({ length: 8 }, () => words[(i = (i * 7 + 3) % 10)]).join(' ');
    out.push(`${sentence[0]!.toUpperCase()}${sentence.slice(1)}.`);
    count += 9;
  }
  return out.join(' ');
}

describe('splitDocument', () => {
  it('keeps a document within maxTokens as one file named after the source', () => {
    const text = '# Guide\n\nShort.\n';
    const node = splitDocument(text, md(1024));
    expect(node).toEqual({ kind: 'file', name: 'doc.md', content: text, meta: { tokens: countTokens(text), lines: [1, 3], title: 'Guide' } });
  });

  it('splits a larger document at its headings into a directory of sections in document order', () => {
    const text = `Intro line.\n\n# Introduction\n\n${prose(300)}\n\n# Installing Cairn\n\n${prose(300, 2)}\n\n# Usage\n\n${prose(300, 3)}\n`;
    const node = dir(splitDocument(text, md(400, 100)));
    expect(node.name).toBe('doc.md');
    expect(node.children.map((child) => child.name)).toEqual(['01-introduction.md', '02-installing-cairn.md', '03-usage.md']);
    // The text before the first heading is small: it merged into the first section.
    expect((node.children[0] as { content: string }).content.startsWith('Intro line.\n\n# Introduction')).toBe(true);
    expect(node.children.map((child) => child.meta.title)).toEqual(['Introduction', 'Installing Cairn', 'Usage']);
    expect(joined(node)).toBe(text);
    expect(node.meta.title).toBe('Introduction');
  });

  it('merges sections under minTokens with their neighbours, keeping each within maxTokens', () => {
    const text = Array.from({ length: 12 }, (_, i) => `## Part ${i}\n\n${prose(40, i)}\n\n`).join('');
    const node = dir(splitDocument(text, md(200, 100)));
    const parts = leaves(node);
    expect(parts.length).toBeLessThan(12);
    for (const part of parts) expect(part.meta.tokens).toBeLessThanOrEqual(200);
    for (const part of parts.slice(0, -1)) expect(part.meta.tokens).toBeGreaterThanOrEqual(100);
    expect(parts[0]!.name).toBe('01-part-0.md');
    expect(joined(node)).toBe(text);
  });

  it('turns a section over maxTokens into a sub-directory cut at its sub-headings', () => {
    const text = `# Guide\n\n${prose(150)}\n\n## Usage\n\nHow to use it.\n\n### Reading\n\n${prose(150, 2)}\n\n### Writing\n\n${prose(150, 3)}\n\n## Help\n\n${prose(150, 4)}\n`;
    const node = dir(splitDocument(text, md(200, 50)));
    expect(node.children.map((child) => child.name)).toEqual(['01-guide.md', '02-usage', '03-help.md']);
    const usage = dir(node.children[1]!);
    expect(usage.meta.title).toBe('Usage');
    // "## Usage\n\nHow to use it." is small and merged into the first sub-section; a leaf is named after its first heading.
    expect(usage.children.map((child) => child.name)).toEqual(['01-usage.md', '02-writing.md']);
    expect((usage.children[0] as { content: string }).content.startsWith('## Usage\n\nHow to use it.\n\n### Reading')).toBe(true);
    expect(joined(node)).toBe(text);
  });

  it('splits a section without sub-headings by paragraphs, then sentences, then token windows', () => {
    const paragraphs = `# Notes\n\n${Array.from({ length: 6 }, (_, i) => prose(80, i)).join('\n\n')}\n`;
    const byParagraph = dir(splitDocument(paragraphs, md(200, 100)));
    const paragraphLeaves = leaves(byParagraph);
    expect(paragraphLeaves.length).toBeGreaterThan(2);
    for (const leaf of paragraphLeaves) expect(leaf.meta.tokens).toBeLessThanOrEqual(200);
    // Cut at blank lines: every leaf but the last ends with one.
    for (const leaf of paragraphLeaves.slice(0, -1)) expect(leaf.content.endsWith('.\n\n')).toBe(true);
    expect(joined(byParagraph)).toBe(paragraphs);

    const oneParagraph = `# Notes\n\n${prose(900)}\n`;
    const bySentence = leaves(splitDocument(oneParagraph, md(200, 100)));
    expect(bySentence.length).toBeGreaterThan(4);
    for (const leaf of bySentence.slice(0, -1)) expect(leaf.content).toMatch(/\. $/);
    expect(bySentence.map((leaf) => leaf.content).join('')).toBe(oneParagraph);

    const noBreaks = `${'潮汐观测站电池电压太阳能板'.repeat(400)}`;
    const byWindow = leaves(splitDocument(noBreaks, md(300, 100)));
    expect(byWindow.length).toBeGreaterThan(3);
    for (const leaf of byWindow) expect(countTokens(leaf.content)).toBeLessThanOrEqual(300);
    expect(byWindow.map((leaf) => leaf.content).join('')).toBe(noBreaks);
  });

  it('cuts Chinese text after 。！？', () => {
    const text = Array.from({ length: 200 }, (_, i) => `第${i}个观测站每十分钟发送一个数据包${['。', '！', '？'][i % 3]}`).join('');
    const parts = leaves(splitDocument(text, { ...md(300, 100), format: 'text' }));
    expect(parts.length).toBeGreaterThan(2);
    for (const part of parts.slice(0, -1)) expect(part.content).toMatch(/[。！？]$/);
    // No headings: each part is named by its first words (16 Chinese characters fill the 32 columns).
    expect(parts.map((part) => part.name)[0]).toBe('01-第0个观测站每十分钟发送一个数据.txt');
  });

  it('never cuts inside a fenced code block that fits, and ignores # lines inside it', () => {
    const code = `\`\`\`bash\n${Array.from({ length: 30 }, (_, i) => `# step ${i}\necho "${i}"`).join('\n')}\n\`\`\`\n`;
    const text = `# Setup\n\n${prose(120)}\n\n${code}\n${prose(120, 5)}\n`;
    const node = splitDocument(text, md(Math.max(countTokens(code) + 20, 200), 50));
    const parts = leaves(node);
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.some((part) => part.content.includes(code))).toBe(true);
    // "# step 0" inside the fence is code, not a heading.
    expect(parts.map((part) => part.meta.title).filter((title) => /^step \d+$/.test(title ?? ''))).toEqual([]);
    expect(joined(node)).toBe(text);
  });

  it('cuts a code block over maxTokens at line ends', () => {
    const code = `\`\`\`python\n${Array.from({ length: 400 }, (_, i) => `value_${i} = compute(${i})`).join('\n')}\n\`\`\`\n`;
    const parts = leaves(splitDocument(`# Big\n\n${code}`, md(256, 100)));
    expect(parts.length).toBeGreaterThan(3);
    for (const part of parts.slice(0, -1)) expect(part.content.endsWith('\n')).toBe(true);
  });

  it('reads setext headings and keeps CRLF, trailing spaces and front matter byte for byte', () => {
    const text = [
      '---',
      'title: Handbook',
      '---',
      'Preface text.   ',
      '',
      'Handbook',
      '========',
      '',
      prose(150),
      '',
      'Before you go',
      '-------------',
      '',
      prose(150, 2),
      '',
    ].join('\r\n');
    const node = dir(splitDocument(text, md(200, 20)));
    // "Handbook ===" is a level-1 heading and "Before you go ---" a level-2 one inside it.
    expect(node.children.map((child) => child.name)).toEqual(['01-title-handbook-preface-text.md', '02-handbook']);
    const handbook = dir(node.children[1]!);
    expect(handbook.children.map((child) => [child.name, child.meta.title, child.meta.lines])).toEqual([
      ['01-handbook.md', 'Handbook', [6, 10]],
      ['02-before-you-go.md', 'Before you go', [11, 14]],
    ]);
    expect(node.children[0]!.meta.lines).toEqual([1, 5]);
    expect((node.children[0] as { content: string }).content).toBe('---\r\ntitle: Handbook\r\n---\r\nPreface text.   \r\n\r\n');
    expect(joined(node)).toBe(text);
  });

  it('reads underlined and overlined titles of plain text as headings, levels in the order the marks appear', () => {
    const txt = (maxTokens: number): SplitDocumentOptions => ({ name: 'notes.txt', maxTokens, minTokens: 0, format: 'text' });
    const text = ['=============', ' Field notes', '=============', '', 'Setup', '~~~~~', '', prose(150), '', 'Uplink checks', '~~~~~~~~~~~~~', prose(150, 2), ''].join('\n');
    expect(splitDocument(text, txt(10_000)).meta.title).toBe('Field notes');
    const node = dir(splitDocument(text, txt(200)));
    expect(node.children.map((child) => [child.name, child.meta.title])).toEqual([
      ['01-field-notes.txt', 'Field notes'],
      ['02-setup.txt', 'Setup'],
      ['03-uplink-checks.txt', 'Uplink checks'],
    ]);
    expect(joined(node)).toBe(text);
  });

  it('reads AsciiDoc "== Title" and Markdown-like "## Title" lines of plain text as headings, not listings or root prompts', () => {
    const txt = (maxTokens: number): SplitDocumentOptions => ({ name: 'guide.txt', maxTokens, minTokens: 0, format: 'text' });
    const adoc = ['= Field guide', '', prose(20), '', '== Setup', prose(150), '', '----', '== not a heading inside a listing', '----', '', '== Uplink checks ==', '', prose(150, 2), ''].join('\n');
    expect(splitDocument(adoc, txt(10_000)).meta.title).toBe('Field guide');
    const node = dir(splitDocument(adoc, txt(200)));
    expect(node.children.map((child) => child.meta.title)).toEqual(['Field guide', 'Setup', 'Uplink checks']);
    expect(joined(node)).toBe(adoc);
    const atx = ['# Relay notes', '', prose(150), '', '## Wiring', '', prose(150, 2), ''].join('\n');
    expect(dir(splitDocument(atx, txt(200))).children.map((child) => child.meta.title)).toEqual(['Relay notes', 'Wiring']);
    // A root prompt, a shell comment above its command, a tab-separated stamp, a statement.
    for (const text of ['# dpkg-divert --rename --add /usr/lib/x\n\nMore.', '# install the relay\nmake install\n\nMore.', '#\t@(#)README\t5.1\n\nMore.', '== x == y\n\nMore.', '#!/bin/sh\n# Completion examples\n#\n\n# final default is filename completion\n\ncomplete -f x\n']) {
      expect(splitDocument(text, txt(10_000)).meta.title).toBeUndefined();
    }
  });

  it('does not read rules, list items, table rules or front matter of plain text as headings', () => {
    const txt: SplitDocumentOptions = { name: 'notes.txt', maxTokens: 10_000, minTokens: 0, format: 'text' };
    // A rule under the last line of a paragraph, under a much longer line, under a list item, and a simple table.
    const cases = [
      `${prose(20)}\nand the last line\n-----------------\n\nMore.`,
      'The battery pack is swapped every second week by the field crew\n----\n\nMore.',
      '- first item\n------------\n\nMore.',
      '=====  =====\nName   Value\n=====  =====\n\nMore.',
      '---\ntitle: x\n---\n\nMore.',
      // AsciiDoc: one-line listings, a block attribute over an example block, a directive, an indented code line.
      '----\n$ make\n----\n\nMore.',
      '------------------------------------------------\n$ git bisect good\n------------------------------------------------\n\nMore.',
      '[NOTE]\n====\nA note.\n====\n\nMore.',
      'ifdef::git-rev-list[]\n-----------------------------------------------------------------------\n\nMore.',
      ' \tif (mkdir(".git", 0755) < 0) {\n------------------------------------------------\n\nMore.',
    ];
    for (const text of cases) expect(splitDocument(text, txt).meta.title).toBeUndefined();
  });

  it('does not read a --- line under front matter text as a setext heading', () => {
    const text = `---\ntitle: x\nlayout: page\n---\n\n# Real\n\n${prose(300)}\n`;
    const node = dir(splitDocument(text, md(200, 0)));
    expect(node.children.every((child) => child.meta.title !== 'title: x layout: page')).toBe(true);
    expect(joined(node)).toBe(text);
  });

  it('names sections readably: zero-padded to the count, slugs of the heading, else of the first words, else "part"', () => {
    expect(sectionName(0, 3, 'Installing Cairn', '.md')).toBe('01-installing-cairn.md');
    expect(sectionName(4, 120, '快速入门 Quick start!', '.md')).toBe('005-快速入门-quick-start.md');
    expect(sectionName(2, 9, undefined, '.txt')).toBe('03-part.txt');
    expect(sectionName(2, 9, undefined, '.txt', '  ---  \n\n')).toBe('03-part.txt');
    expect(sectionName(2, 9, undefined, '.txt', 'The uplink retries [three times](x.md), then **waits** for the next window.')).toBe('03-the-uplink-retries-three-times.txt');
    expect(sectionName(1, 9, '***', null)).toBe('02-part');
    expect(sectionName(1, 9, '***', '.md', '***\n\nBattery swap')).toBe('02-battery-swap.md');
    expect(sectionName(9, 10, 'Usage', null)).toBe('10-usage');
    expect(slugify('A'.repeat(100))).toHaveLength(60);
    expect(slugify(`${'word '.repeat(11)}end`)).toBe('word-word-word-word-word-word-word-word-word-word-word-end');
    expect(slugify(`${'ab '.repeat(30)}`)).not.toMatch(/-$/);
    // Long headings stop at a word end within 60 columns.
    expect(slugify('Configuring the uplink modem when the harbour network is down for maintenance')).toBe('configuring-the-uplink-modem-when-the-harbour-network-is');
  });

  it('folds Latin letters to ASCII and keeps other scripts, Chinese counting two columns a character', () => {
    expect(slugify('Café résumé')).toBe('cafe-resume');
    expect(slugify('Straße, Ærø & Łódź')).toBe('strasse-aero-lodz');
    expect(slugify('İstanbul Ｆｕｌｌｗｉｄｔｈ')).toBe('istanbul-fullwidth');
    expect(slugify('Установка и настройка')).toBe('установка-и-настройка');
    expect(slugify('はじめに：ガイド')).toBe('はじめに-ガイド');
    expect(slugify('설치 방법')).toBe('설치-방법');
    expect(slugify('नमस्ते दुनिया')).toBe('नमस्ते-दुनिया');
    expect(slugify('第三章 配置')).toBe('第三章-配置');
    // NFD input gives the same name as NFC.
    expect(slugify('Cafe\u0301')).toBe(slugify('Caf\u00e9'));
    // A long Chinese heading (no spaces) is cut inside, at 30 characters.
    expect(slugify('潮汐站'.repeat(20))).toBe('潮汐站'.repeat(10));
  });

  it('names the sections of a real document from its headings, Chinese and repeated ones included', () => {
    const sections = ['Overview', '快速入门', 'FAQ', 'Configuration', 'FAQ', 'Überblick: Setup & Teardown'];
    const text = `# Station manual\n\n${prose(30)}\n\n${sections.map((title, i) => `## ${title}\n\n${prose(150, i + 2)}\n\n`).join('')}`;
    const node = dir(splitDocument(text, md(200, 50)));
    // The short introduction merged with "Overview" into the first section, named by its first heading.
    expect(node.children.map((child) => child.name)).toEqual(['01-station-manual.md', '02-快速入门.md', '03-faq.md', '04-configuration.md', '05-faq.md', '06-uberblick-setup-teardown.md']);
    expect(new Set(node.children.map((child) => child.name)).size).toBe(node.children.length);
    expect(joined(node)).toBe(text);
    // The same text always gets the same names.
    expect(dir(splitDocument(text, md(200, 50))).children.map((child) => child.name)).toEqual(node.children.map((child) => child.name));
  });

  it('names the parts of a document without headings by their first words, with the extension asked for', () => {
    const paragraphs = ['Tide gauge readings', 'Battery swap notes', 'Uplink failures in May'].map((lead, i) => `${lead}. ${prose(150, i + 1)}`).join('\n\n');
    const node = dir(splitDocument(paragraphs, { ...md(200, 100), format: 'text', extension: '.rst' }));
    expect(node.children.map((child) => child.name)).toEqual(['01-tide-gauge-readings-tide-window.rst', '02-battery-swap-notes-forecast.rst', '03-uplink-failures-in-may-battery.rst']);
  });

  it('takes titles without inline Markdown', () => {
    expect(plainTitle('The [`range()`](../library/stdtypes.html#range "range") Function')).toBe('The range() Function');
    expect(plainTitle('**Install** _now_')).toBe('Install now');
  });

  it('treats marked-unfriendly input as text and still splits losslessly', () => {
    const text = `${'\r'.repeat(5)}# A\r${prose(300)}\r\r# B\r${prose(300, 3)}\r`;
    const node = splitDocument(text, md(200, 50));
    expect(joined(node)).toBe(text);
    for (const leaf of leaves(node)) expect(leaf.meta.tokens).toBeLessThanOrEqual(200);
  });

  it('rejects impossible options', () => {
    expect(() => splitDocument('x', md(0))).toThrow(CairnError);
  });
});

describe('LineIndex', () => {
  it('numbers lines across LF, CRLF and CR', () => {
    const lines = new LineIndex('a\r\nb\nc\rd');
    expect([0, 1, 2, 3, 4, 5, 6, 7].map((offset) => lines.lineOf(offset))).toEqual([1, 1, 1, 2, 2, 3, 3, 4]);
    expect(lines.range(0, 8)).toEqual([1, 4]);
    expect(new LineIndex('').range(0, 0)).toEqual([1, 1]);
  });
});
