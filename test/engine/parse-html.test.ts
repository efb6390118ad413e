/**
 * The HTML parser on real pages of the Python 3.11 documentation (test/fixtures/docs/python-doc,
 * see test/fixtures/docs/python-doc/NOTICE.md): Sphinx pages with a navigation bar, a sidebar, a
 * footer, highlighted code and tables.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseFile } from '../../main/engine/parse/registry.js';
import type { ParsedFile, ParsedNode } from '../../main/engine/parse/types.js';

const DOCS = join(import.meta.dirname, '../fixtures/docs/python-doc');

// Text of the Sphinx navigation, sidebar and footer, present in every raw page.
const BOILERPLATE = ['Previous topic', 'Next topic', 'This Page', 'Quick search', 'Navigation', 'Report a Bug', 'Show Source', 'Copyright', 'Table of Contents'];

async function parsePage(name: string, maxTokens = 1024, minTokens = 512): Promise<{ raw: string; parsed: ParsedFile; markdown: string }> {
  const path = join(DOCS, name);
  const bytes = new Uint8Array(await readFile(path));
  const parsed = await parseFile({ path, relPath: `python-doc/${name}`, bytes, split: { maxTokens, minTokens }, codeSummaryMode: 'ast' });
  return { raw: new TextDecoder().decode(bytes), parsed, markdown: leaves(parsed.node).map((leaf) => leaf.content).join('') };
}

function leaves(node: ParsedNode): Array<Extract<ParsedNode, { kind: 'file' }>> {
  return node.kind === 'file' ? [node] : node.children.flatMap(leaves);
}

function titles(node: ParsedNode): string[] {
  return [node.meta.title ?? '', ...(node.kind === 'dir' ? node.children.flatMap(titles) : [])];
}

describe('HTML parser on the Python documentation', () => {
  it('turns json.html into sections of Markdown without the navigation', async () => {
    const { raw, parsed, markdown } = await parsePage('json.html');
    expect(parsed.parserName).toBe('html');
    expect(parsed.sourceFormat).toBe('html');
    expect(parsed.node.name).toBe('json.html');
    expect(parsed.node.kind).toBe('dir');
    expect(parsed.node.meta.title).toBe('json — JSON encoder and decoder');

    for (const text of BOILERPLATE) {
      expect(raw).toContain(text);
      expect(markdown).not.toContain(text);
    }
    expect(markdown).not.toContain('¶');

    expect(markdown.startsWith('# json — JSON encoder and decoder\n')).toBe(true);
    for (const heading of ['## Basic Usage', '## Encoders and Decoders', '### Character Encodings', '## Command Line Interface', '### Command line options']) {
      expect(markdown).toContain(`\n${heading}\n`);
    }
    expect(titles(parsed.node)).toEqual(expect.arrayContaining(['Basic Usage', 'Exceptions']));

    // Code keeps its language and its text, unescaped.
    expect(markdown).toContain("```python\n>>> import json\n>>> json.dumps(['foo', {'bar': ('baz', None, 1.0, 2)}])\n");
    expect(markdown).toMatch(/```shell-session\n\$ echo '\{"json":"obj"\}' \| python -m json\.tool\n/);

    // The conversion tables are GFM pipe tables.
    expect(markdown).toContain('| JSON | Python |\n| --- | --- |\n| object | dict |\n| array | list |');
    expect(markdown).toContain('| Python | JSON |\n| --- | --- |\n| dict | object |\n| list, tuple | array |');

    for (const leaf of leaves(parsed.node)) expect(leaf.meta.tokens).toBeLessThanOrEqual(1024);
  });

  it('keeps the type-code table of array.html', async () => {
    const { markdown } = await parsePage('array.html');
    expect(markdown).toContain('| Type code | C Type | Python Type | Minimum size in bytes | Notes |\n| --- | --- | --- | --- | --- |\n');
    expect(markdown).toContain("| `'d'` | double | float | 8 |  |");
    for (const text of BOILERPLATE) expect(markdown).not.toContain(text);
  });

  it('splits the control-flow tutorial at its numbered headings', async () => {
    const { parsed, markdown } = await parsePage('controlflow.html', 1024, 512);
    expect(parsed.node.meta.title).toBe('4. More Control Flow Tools');
    expect(markdown).toContain('\n## 4.1. `if` Statements\n');
    expect(markdown).toContain('```python\n>>> x = int(input("Please enter an integer: "))\n');
    const names = parsed.node.kind === 'dir' ? parsed.node.children.map((child) => child.name) : [];
    expect(names[0]).toMatch(/^01-4-more-control-flow-tools(\.md)?$/);
    expect(names.some((name) => /^\d\d-4-8-more-on-defining-functions$/.test(name))).toBe(true);
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
