/**
 * Properties of splitDocument over many seeded, generated documents (English, Chinese, mixed;
 * LF, CRLF and mixed line endings; ATX and setext headings at mixed depths; long paragraphs;
 * single huge lines; code fences holding '#' lines; tables, lists, front matter):
 * lossless, every leaf within maxTokens, names unique and sorted in document order, line ranges
 * contiguous and covering the document, code fences never cut unless they alone are too big.
 */
import { describe, expect, it } from 'vitest';
import { splitDocument } from '../../main/engine/parse/split.js';
import { countTokens } from '../../main/lib/tokens.js';
import type { ParsedNode } from '../../main/engine/parse/types.js';
import { prng } from '../support/prng.js';

const EN_WORDS = 'the station sends a packet every ten minutes and the base server stores it while forecasts read recent windows from storage quickly battery solar panel wind pressure'.split(' ');
const ZH_CHUNKS = ['观测站', '每十分钟', '发送一个数据包', '基站服务器', '把它写入存储', '预报程序', '读取最近的窗口', '电池电压', '太阳能板', '风速', '气压', '潮位'];

interface Generated {
  text: string;
  /** Fenced code blocks [start, end) in the text, with whether they are closed. */
  fences: Array<{ start: number; end: number; closed: boolean }>;
}

function generate(seed: number): Generated {
  const rnd = prng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rnd() * items.length)]!;
  const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
  const language = pick(['en', 'zh', 'mixed'] as const);
  const eolStyle = pick(['lf', 'crlf', 'mixed'] as const);
  const eol = () => (eolStyle === 'lf' ? '\n' : eolStyle === 'crlf' ? '\r\n' : pick(['\n', '\r\n', '\n']));

  const sentence = (): string => {
    const zh = language === 'zh' || (language === 'mixed' && rnd() < 0.5);
    if (zh) {
      const body = Array.from({ length: int(2, 6) }, () => pick(ZH_CHUNKS)).join(pick(['', '，']));
      return body + pick(['。', '！', '？', '。']);
    }
    const words = Array.from({ length: int(4, 18) }, () => pick(EN_WORDS));
    const text = words.join(' ');
    return `${text[0]!.toUpperCase()}${text.slice(1)}${pick(['.', '.', '!', '?'])}${pick([' ', ' ', '  '])}`;
  };
  const title = (): string => {
    const zh = language === 'zh' || (language === 'mixed' && rnd() < 0.5);
    return zh ? `${pick(ZH_CHUNKS)}${pick(ZH_CHUNKS)}` : Array.from({ length: int(1, 5) }, () => pick(EN_WORDS)).join(' ').replace(/^./, (c) => c.toUpperCase());
  };

  let text = '';
  const fences: Generated['fences'] = [];
  const line = (content: string) => {
    text += content + (rnd() < 0.1 ? '  ' : '') + eol();
  };
  const blank = () => {
    for (let i = int(1, 3); i > 0; i--) text += (rnd() < 0.2 ? ' ' : '') + eol();
  };

  if (rnd() < 0.2) {
    line('---');
    line(`title: ${title()}`);
    line('tags: [a, b]');
    line('---');
  }
  if (rnd() < 0.5) {
    line(sentence() + sentence());
    blank();
  }
  const elements = int(3, 60);
  for (let e = 0; e < elements; e++) {
    const kind = rnd();
    if (kind < 0.25) {
      line(`${'#'.repeat(int(1, 6))} ${title()}${rnd() < 0.1 ? ' ##' : ''}`);
      blank();
    } else if (kind < 0.32) {
      line(title());
      line(rnd() < 0.5 ? '=====' : '-----');
      blank();
    } else if (kind < 0.6) {
      // A paragraph, wrapped or on one line.
      const sentences = Array.from({ length: int(1, 25) }, sentence);
      if (rnd() < 0.5) for (const s of sentences) line(s.trimEnd());
      else line(sentences.join(''));
      blank();
    } else if (kind < 0.72) {
      const start = text.length;
      const marker = rnd() < 0.8 ? '```' : '~~~';
      line(`${marker}${pick(['', 'python', 'bash', 'ts'])}`);
      const big = rnd() < 0.15;
      for (let i = big ? int(200, 600) : int(1, 30); i > 0; i--) {
        line(pick(['# a comment that looks like a heading', '## not a heading either', 'x = compute(window, station)', '', 'Title', '====', 'print("done")']));
      }
      const closed = rnd() < 0.97 || e < elements - 1;
      if (closed) line(marker);
      fences.push({ start, end: text.length, closed });
      blank();
    } else if (kind < 0.8) {
      for (let i = int(1, 8); i > 0; i--) line(`- ${sentence().trim()}`);
      blank();
    } else if (kind < 0.86) {
      line('| a | b |');
      line('|---|---|');
      for (let i = int(1, 12); i > 0; i--) line(`| ${title()} | ${sentence().trim()} |`);
      blank();
    } else if (kind < 0.9) {
      // A single huge line: with spaces, or one unbroken run.
      const size = int(2_000, 40_000);
      if (rnd() < 0.5) line(Array.from({ length: Math.ceil(size / 6) }, () => pick(EN_WORDS)).join(' '));
      else line(Array.from({ length: size }, () => pick(['a', 'b', 'c', '中', '文', 'é'])).join(''));
      blank();
    } else {
      line(sentence());
      if (rnd() < 0.5) text += eol();
    }
  }
  if (rnd() < 0.3) text = text.replace(/(\r\n|\n)+$/, '');
  for (const fence of fences) fence.end = Math.min(fence.end, text.length);
  return { text, fences };
}

interface Leaf {
  content: string;
  lines: [number, number];
  tokens: number;
}

function leavesOf(node: ParsedNode, out: Leaf[] = []): Leaf[] {
  if (node.kind === 'file') out.push({ content: node.content, lines: node.meta.lines!, tokens: node.meta.tokens });
  else for (const child of node.children) leavesOf(child, out);
  return out;
}

function lineCount(text: string): number {
  const breaks = text.match(/\r\n|\r|\n/g)?.length ?? 0;
  return /(\r\n|\r|\n)$/.test(text) || text === '' ? Math.max(1, breaks) : breaks + 1;
}

function checkNames(node: ParsedNode, extension: string): void {
  if (node.kind !== 'dir') return;
  const names = node.children.map((child) => child.name);
  expect(new Set(names).size).toBe(names.length);
  expect([...names].sort()).toEqual(names);
  const width = Math.max(2, String(names.length).length);
  node.children.forEach((child, index) => {
    const prefix = String(index + 1).padStart(width, '0');
    const pattern = child.kind === 'dir' ? new RegExp(`^${prefix}-[\\p{L}\\p{N}\\p{M}-]{1,60}$`, 'u') : new RegExp(`^${prefix}-[\\p{L}\\p{N}\\p{M}-]{1,60}\\${extension}$`, 'u');
    expect(child.name).toMatch(pattern);
    checkNames(child, extension);
  });
}

function checkDirLines(node: ParsedNode): void {
  if (node.kind !== 'dir') return;
  const first = node.children[0]!;
  const last = node.children.at(-1)!;
  expect(node.meta.lines).toEqual([first.meta.lines![0], last.meta.lines![1]]);
  expect(node.children.length).toBeGreaterThan(1);
  node.children.forEach(checkDirLines);
}

function checkProperties(text: string, node: ParsedNode, max: number, extension: string): Leaf[] {
  const leaves = leavesOf(node);
  // Lossless, byte for byte.
  expect(leaves.map((leaf) => leaf.content).join('')).toBe(text);
  // Within the budget, and the recorded count is the real one.
  for (const leaf of leaves) {
    expect(leaf.tokens).toBe(countTokens(leaf.content));
    expect(leaf.tokens).toBeLessThanOrEqual(max);
    expect(leaf.content.length).toBeGreaterThan(text.length === 0 ? -1 : 0);
  }
  // Line ranges: contiguous, in order, covering the document.
  expect(leaves[0]!.lines[0]).toBe(1);
  expect(leaves.at(-1)!.lines[1]).toBe(lineCount(text));
  for (let i = 1; i < leaves.length; i++) {
    const previous = leaves[i - 1]!;
    const endsLine = /(\r\n|\r|\n)$/.test(previous.content);
    expect(leaves[i]!.lines[0]).toBe(previous.lines[1] + (endsLine ? 1 : 0));
  }
  checkNames(node, extension);
  checkDirLines(node);
  return leaves;
}

describe('splitDocument properties (seeded generated documents)', () => {
  const seeds = Array.from({ length: 120 }, (_, i) => 1000 + i * 7919);

  it.each(seeds)('markdown document from seed %i', (seed) => {
    const { text, fences } = generate(seed);
    const rnd = prng(seed ^ 0x5eed);
    const max = [64, 128, 256, 512, 1024][Math.floor(rnd() * 5)]!;
    const min = Math.floor(max * [0, 0.25, 0.5][Math.floor(rnd() * 3)]!);
    const node = splitDocument(text, { name: 'doc.md', maxTokens: max, minTokens: min, format: 'markdown' });
    expect(node.name).toBe('doc.md');
    const total = countTokens(text);
    expect(node.meta.tokens).toBe(total);
    if (total <= max) expect(node.kind).toBe('file');
    else expect(node.kind).toBe('dir');
    const leaves = checkProperties(text, node, max, '.md');

    // No cut falls inside a closed code fence that fits the budget on its own.
    const cuts = new Set<number>();
    let offset = 0;
    for (const leaf of leaves) cuts.add((offset += leaf.content.length));
    for (const fence of fences) {
      if (!fence.closed || countTokens(text.slice(fence.start, fence.end)) > max - 8) continue;
      for (const cut of cuts) {
        if (cut > fence.start && cut < fence.end) expect.fail(`seed ${seed}: cut at ${cut} inside the code fence [${fence.start}, ${fence.end})`);
      }
    }
  });

  it.each(seeds.slice(0, 40))('text document from seed %i', (seed) => {
    const { text } = generate(seed);
    const max = [64, 256, 1024][seed % 3]!;
    const node = splitDocument(text, { name: 'notes.txt', maxTokens: max, minTokens: max / 2, format: 'text' });
    checkProperties(text, node, max, '.txt');
  });
});
