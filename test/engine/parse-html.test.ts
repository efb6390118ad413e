/**
 * The HTML parser on real pages of the CMake 3.25 documentation (see
 * test/fixtures/docs/cmake-doc/NOTICE.md): Sphinx pages with a navigation bar, a sidebar, a
 * footer, a page table of contents, headings that link back to it, highlighted code and tables.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseFile } from '../../main/engine/parse/registry.js';
import type { ParsedFile, ParsedNode } from '../../main/engine/parse/types.js';

const DOCS = join(import.meta.dirname, '../fixtures/docs/cmake-doc');

// Text of the Sphinx navigation, sidebar and footer, present in every raw page.
const BOILERPLATE = ['Previous topic', 'Next topic', 'This Page', 'Quick search', 'Navigation', 'Show Source', 'Copyright', 'Table of Contents'];

async function parsePage(name: string, maxTokens = 1024, minTokens = 512): Promise<{ raw: string; parsed: ParsedFile; markdown: string }> {
  const path = join(DOCS, name);
  const bytes = new Uint8Array(await readFile(path));
  const parsed = await parseFile({ path, relPath: `cmake-doc/${name}`, bytes, split: { maxTokens, minTokens }, codeSummaryMode: 'ast' });
  return { raw: new TextDecoder().decode(bytes), parsed, markdown: leaves(parsed.node).map((leaf) => leaf.content).join('') };
}

function leaves(node: ParsedNode): Array<Extract<ParsedNode, { kind: 'file' }>> {
  return node.kind === 'file' ? [node] : node.children.flatMap(leaves);
}

function titles(node: ParsedNode): string[] {
  return [node.meta.title ?? '', ...(node.kind === 'dir' ? node.children.flatMap(titles) : [])];
}

describe('HTML parser on the CMake documentation', () => {
  it('turns cmake-language(7) into sections of Markdown without the navigation or the page contents', async () => {
    const { raw, parsed, markdown } = await parsePage('cmake-language.7.html');
    expect(parsed.parserName).toBe('html');
    expect(parsed.sourceFormat).toBe('html');
    expect(parsed.node.name).toBe('cmake-language.7.html');
    expect(parsed.node.kind).toBe('dir');
    expect(parsed.node.meta.title).toBe('cmake-language(7)');

    for (const text of BOILERPLATE) {
      expect(raw).toContain(text);
      expect(markdown).not.toContain(text);
    }
    expect(markdown).not.toContain('¶');
    // The page's own contents list is navigation: the sections follow.
    expect(raw).toContain('<div class="contents topic" id="contents">');
    expect(markdown).not.toContain('- [Organization](#organization)');

    // Headings that link back to the contents (toc-backref) are plain titles.
    expect(markdown.startsWith('# cmake-language(7)\n')).toBe(true);
    for (const heading of ['## Organization', '### Directories', '## Syntax', '#### Bracket Argument', '## Control Structures', '## Lists']) {
      expect(markdown).toContain(`\n${heading}\n`);
    }
    expect(markdown).not.toMatch(/^#+ \[/m);
    expect(titles(parsed.node)).toEqual(expect.arrayContaining(['Syntax', 'Control Structures', 'Lists']));
    for (const title of titles(parsed.node)) expect(title).not.toMatch(/[¶[\]]/);

    // Code keeps its language and its text; the grammar blocks have none.
    expect(markdown).toContain('```cmake\nadd_executable(hello world.c)\n```');
    expect(markdown).toContain("```\nfile         ::=  file_element*\n");

    for (const leaf of leaves(parsed.node)) expect(leaf.meta.tokens).toBeLessThanOrEqual(1024);
  });

  it('keeps the platform table of cmake-toolchains(7) as a pipe table', async () => {
    const { markdown } = await parsePage('cmake-toolchains.7.html');
    expect(markdown).toContain('| OS | CMAKE\\_SYSTEM\\_NAME | Device SDK (default) | Simulator SDK |\n| --- | --- | --- | --- |\n| iOS | iOS | iphoneos | iphonesimulator |');
    // A `# comment` inside a code block stays code.
    expect(markdown).toContain('```cmake\n# CMakeLists.txt\ncmake_minimum_required(VERSION 3.14)\n');
    for (const text of BOILERPLATE) expect(markdown).not.toContain(text);
  });

  it('splits the if() command page at its headings', async () => {
    const { parsed, markdown } = await parsePage('if.html', 1024, 512);
    expect(parsed.node.meta.title).toBe('if');
    expect(markdown).toContain('\n## Condition Syntax\n');
    expect(markdown).toContain('```cmake\nif(<condition>)\n  <commands>\n');
    const names = parsed.node.kind === 'dir' ? parsed.node.children.map((child) => child.name) : [];
    expect(names[0]).toMatch(/^01-if(\.md)?$/);
    expect(names).toEqual(expect.arrayContaining([expect.stringMatching(/^\d\d-condition-syntax(\.md)?$/), expect.stringMatching(/^\d\d-variable-expansion(\.md)?$/)]));
    for (const text of BOILERPLATE) expect(markdown).not.toContain(text);
  });
});

describe('HTML in a legacy encoding', () => {
  const latin1Page = (declaration: string) =>
    Buffer.concat([
      Buffer.from(`<html><head>${declaration}<title>Caf\xe9</title></head><body><h1>Caf\xe9 cr\xe8me</h1><p>Cr\xe8me br\xfbl\xe9e \x96 na\xefve fa\xe7ade, \x80 5.</p></body></html>`, 'latin1'),
    ]);

  it("follows the page's declared charset, from a meta tag or its http-equiv form", async () => {
    for (const declaration of ['<meta charset="ISO-8859-1">', '<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">']) {
      const bytes = new Uint8Array(latin1Page(declaration));
      const parsed = await parseFile({ path: '/x/news.html', relPath: 'news.html', bytes, split: { maxTokens: 1024, minTokens: 512 }, codeSummaryMode: 'ast' });
      const markdown = leaves(parsed.node).map((leaf) => leaf.content).join('');
      // ISO-8859-1 is read as browsers read it, as Windows-1252: 0x96 is an en dash, 0x80 the euro sign.
      expect(markdown).toContain('Crème brûlée – naïve façade, € 5.');
      expect(parsed.warnings.join('\n')).not.toMatch(/Windows-1252/);
    }
  });

  it('reads an undeclared Latin-1 page as Windows-1252 and says so', async () => {
    const bytes = new Uint8Array(latin1Page(''));
    const parsed = await parseFile({ path: '/x/news.html', relPath: 'news.html', bytes, split: { maxTokens: 1024, minTokens: 512 }, codeSummaryMode: 'ast' });
    expect(leaves(parsed.node).map((leaf) => leaf.content).join('')).toContain('Crème brûlée');
    expect(parsed.warnings.join('\n')).toMatch(/Windows-1252/);
  });
});
