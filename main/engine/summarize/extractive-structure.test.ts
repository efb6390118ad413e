import { describe, expect, it } from 'vitest';
import { cleanInline, htmlToMarkdown, parseStructure, sourceKindOf } from './extractive-structure.js';

describe('parseStructure (markdown)', () => {
  it('builds the heading outline with prose under each heading', () => {
    const doc = parseStructure('Intro line.\n\n# Title\n\nLead text.\n\n## Part A\n\n- item one\n- item two\n\nSetext\n------\n\nBody.\n', 'markdown');
    expect(doc.title).toBe('Title');
    expect(doc.sections.map((s) => [s.level, s.heading ?? null, s.blocks.map((b) => (b.item ? `* ${b.text}` : b.text))])).toEqual([
      [0, null, ['Intro line.']],
      [1, 'Title', ['Lead text.']],
      [2, 'Part A', ['* item one', '* item two']],
      [2, 'Setext', ['Body.']],
    ]);
  });

  it('skips fenced code, tables, comments and front matter, keeping its title', () => {
    const doc = parseStructure('---\ntitle: "Handbook"\n---\n<!-- hidden\nstill hidden -->\n```js\n# not a heading\n```\n| a | b |\n|---|---|\n| 1 | 2 |\n\nReal text.\n', 'markdown');
    expect(doc.title).toBe('Handbook');
    expect(doc.sections).toEqual([{ level: 0, blocks: [{ text: 'Real text.', item: false }] }]);
  });
});

describe('parseStructure (code)', () => {
  it('reads comments and docstrings, skips license headers and preprocessor lines', () => {
    const doc = parseStructure('// Copyright 2024 ACME. All rights reserved.\n#include <stdio.h>\n/**\n * Sends a packet.\n * @param p the packet\n */\nint send(int p);\nfunc (s *Sender) Send() {}\n', 'code');
    expect(doc.sections[0]?.blocks.map((b) => b.text)).toEqual(['Sends a packet. p the packet']);
    expect(doc.definitions).toEqual(['Send']);
  });
});

describe('helpers', () => {
  it('removes inline Markdown and keeps snake_case names', () => {
    expect(cleanInline('See **the [runbook](ops.md)** and `fogctl` for *details* on station_id_7 ![img](x.png)')).toBe('See the runbook and fogctl for details on station_id_7');
  });

  it('turns HTML headings, paragraphs and list items into Markdown', () => {
    const markdown = htmlToMarkdown('<h2>Fix</h2><p>A &amp; B</p><ul><li>one</li></ul><script>x()</script>');
    expect(markdown.trim().replace(/\n{3,}/g, '\n\n')).toBe('## Fix\n\nA & B\n\n- one');
  });

  it('maps parser format names to how the text is read', () => {
    expect(sourceKindOf('markdown', '')).toBe('markdown');
    expect(sourceKindOf('python', '')).toBe('code');
    expect(sourceKindOf('text', '# Heading\nbody')).toBe('markdown');
    expect(sourceKindOf('text', 'plain')).toBe('text');
    expect(sourceKindOf(undefined, 'plain')).toBe('text');
    expect(sourceKindOf('html', '')).toBe('html');
  });
});
