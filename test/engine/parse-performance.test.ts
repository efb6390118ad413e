/**
 * Performance sanity: inputs that a quadratic step would turn into minutes. The bound is vitest's
 * test timeout, not a timed assertion; the times are printed for the record.
 */
import { describe, expect, it } from 'vitest';
import { parseFile } from '../../main/engine/parse/registry.js';
import { splitDocument } from '../../main/engine/parse/split.js';
import type { ParsedNode } from '../../main/engine/parse/types.js';

function leaves(node: ParsedNode): Array<Extract<ParsedNode, { kind: 'file' }>> {
  return node.kind === 'file' ? [node] : node.children.flatMap(leaves);
}

function timed<T>(label: string, run: () => T): T {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const result = run();
  const used = process.cpuUsage(cpu);
  console.info(`${label}: ${Math.round(performance.now() - started)} ms wall, ${Math.round((used.user + used.system) / 1000)} ms cpu`);
  return result;
}

const WORDS = ['tide', 'station', 'packet', 'window', 'battery', 'signal', 'harbour', 'forecast', 'sensor', 'mast', '潮汐', '观测站'];

describe('splitting large inputs', () => {
  it('splits a document with 10,000 headings', () => {
    const text = Array.from({ length: 10_000 }, (_, i) => `${'#'.repeat(1 + (i % 3))} Heading ${i}\n\nSection ${i} of the handbook: ${WORDS[i % WORDS.length]} and ${WORDS[(i * 7) % WORDS.length]} notes.\n\n`).join('');
    const node = timed(`10,000 headings (${(text.length / 1e6).toFixed(2)} MB)`, () => splitDocument(text, { name: 'big.md', maxTokens: 1024, minTokens: 512, format: 'markdown' }));
    const parts = leaves(node);
    expect(parts.map((part) => part.content).join('')).toBe(text);
    expect(parts.length).toBeGreaterThan(100);
    for (const part of parts) expect(part.meta.tokens).toBeLessThanOrEqual(1024);
  });

  it('splits a 1 MB single line of words', () => {
    const text = Array.from({ length: 170_000 }, (_, i) => WORDS[(i * 13) % WORDS.length]).join(' ');
    expect(text.length).toBeGreaterThan(1_000_000);
    const node = timed('1 MB line of words', () => splitDocument(text, { name: 'line.md', maxTokens: 1024, minTokens: 512, format: 'markdown' }));
    const parts = leaves(node);
    expect(parts.map((part) => part.content).join('')).toBe(text);
    for (const part of parts) {
      expect(part.meta.tokens).toBeLessThanOrEqual(1024);
      expect(part.meta.lines).toEqual([1, 1]);
    }
  });

  it('splits a 1 MB single line without spaces or sentence ends', () => {
    let seed = 42;
    const text = Array.from({ length: 1_000_000 }, () => 'abcdefghijklmnopqrstuvwxyz0123456789+/'[(seed = (seed * 16807) % 2147483647) % 38]).join('');
    const node = timed('1 MB line without spaces', () => splitDocument(text, { name: 'blob.txt', maxTokens: 1024, minTokens: 512, format: 'text' }));
    const parts = leaves(node);
    expect(parts.map((part) => part.content).join('')).toBe(text);
    for (const part of parts) expect(part.meta.tokens).toBeLessThanOrEqual(1024);
  });

  it('parses a 2 MB Markdown file through the registry', async () => {
    const section = (i: number) => `## Part ${i}\n\n${Array.from({ length: 30 }, (_, k) => `${WORDS[(i + k) % WORDS.length]} ${WORDS[(i * k) % WORDS.length]} line ${k}.`).join(' ')}\n\n\`\`\`python\n# step ${i}\nrun(${i})\n\`\`\`\n\n`;
    const text = `# Manual\n\n${Array.from({ length: 3_000 }, (_, i) => section(i)).join('')}`;
    const bytes = new TextEncoder().encode(text);
    const started = performance.now();
    const parsed = await parseFile({ path: '/virtual/manual.md', relPath: 'manual.md', bytes, split: { maxTokens: 1024, minTokens: 512 }, codeSummaryMode: 'ast' });
    console.info(`2 MB Markdown through parseFile: ${Math.round(performance.now() - started)} ms wall, parseMs ${parsed.parseMs}`);
    expect(leaves(parsed.node).map((part) => part.content).join('')).toBe(text);
  });
});
