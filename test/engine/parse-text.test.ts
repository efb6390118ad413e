/**
 * Plain text files through the registry: a real document whose title and sections are
 * underlined headings (git's release notes, /usr/share/doc/git/RelNotes/1.6.0.txt).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseFile } from '../../main/engine/parse/registry.js';
import type { ParsedFile, ParsedNode } from '../../main/engine/parse/types.js';

const RELNOTES = join(import.meta.dirname, '../fixtures/docs/text/1.6.0.txt');

async function parse(maxTokens: number, minTokens: number): Promise<ParsedFile> {
  const bytes = new Uint8Array(await readFile(RELNOTES));
  return parseFile({ path: RELNOTES, relPath: 'RelNotes/1.6.0.txt', bytes, split: { maxTokens, minTokens }, codeSummaryMode: 'ast' });
}

function text(node: ParsedNode): string {
  return node.kind === 'file' ? node.content : node.children.map(text).join('');
}

describe('plain text with underlined headings', () => {
  it('titles the document by its "====" heading, not its file name', async () => {
    const parsed = await parse(100_000, 0);
    expect(parsed.node.kind).toBe('file');
    expect(parsed.node.meta.title).toBe('GIT v1.6.0 Release Notes');
  });

  it('splits at its "----" headings and names the sections from them', async () => {
    const parsed = await parse(1024, 512);
    const node = parsed.node;
    if (node.kind !== 'dir') throw new Error('expected the release notes to split');
    expect(node.meta.title).toBe('GIT v1.6.0 Release Notes');
    const titled = node.children.map((child) => [child.name.replace(/\.txt$/, ''), child.meta.title]);
    // The title and the short first section merge into one part; the long sections are their own.
    expect(titled.map(([, title]) => title)).toEqual(['GIT v1.6.0 Release Notes', 'Updates since v1.5.6', 'Fixes since v1.5.6']);
    expect(titled.map(([name]) => name)).toEqual(['01-git-v1-6-0-release-notes', '02-updates-since-v1-5-6', '03-fixes-since-v1-5-6']);
    expect(text(node)).toBe(await readFile(RELNOTES, 'utf8'));
  });
});
