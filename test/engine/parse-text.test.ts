/**
 * Plain text files through the registry: real documents whose title and sections are
 * underlined headings (git's release notes, /usr/share/doc/git/RelNotes/1.6.0.txt) or AsciiDoc
 * "== Title" lines under "[[anchor]]" lines (/usr/share/doc/git-doc/ToolsForGit.txt).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseFile } from '../../main/engine/parse/registry.js';
import type { ParsedFile, ParsedNode } from '../../main/engine/parse/types.js';

const RELNOTES = join(import.meta.dirname, '../fixtures/docs/text/1.6.0.txt');
const TOOLS = join(import.meta.dirname, '../fixtures/docs/text/ToolsForGit.txt');

async function parse(maxTokens: number, minTokens: number, path = RELNOTES): Promise<ParsedFile> {
  const bytes = new Uint8Array(await readFile(path));
  return parseFile({ path, relPath: `docs/${path.split('/').at(-1)!}`, bytes, split: { maxTokens, minTokens }, codeSummaryMode: 'ast' });
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

  it('splits AsciiDoc at its "== Title" lines, each section opening with its anchor', async () => {
    const parsed = await parse(120, 0, TOOLS);
    const node = parsed.node;
    if (node.kind !== 'dir') throw new Error('expected ToolsForGit.txt to split');
    expect(node.meta.title).toBe('Tools for developing Git');
    expect(node.children.map((child) => child.meta.title)).toEqual(['Tools for developing Git', 'Summary', 'Table of contents']);
    const contents = node.children[2]!;
    expect(contents.name).toBe('03-table-of-contents');
    if (contents.kind !== 'dir') throw new Error('expected its long section to split at its "===" lines');
    expect(contents.children.map((child) => child.meta.title)).toEqual(['Table of contents', 'Visual Studio Code (VS Code)', 'Emacs']);
    expect(text(contents.children[1]!).startsWith('[[vscode]]\n=== Visual Studio Code (VS Code)\n')).toBe(true);
    expect(text(node)).toBe(await readFile(TOOLS, 'utf8'));
  });
});
