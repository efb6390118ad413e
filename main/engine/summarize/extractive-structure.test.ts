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

describe('cleanInline', () => {
  it('drops badges and keeps link text, whatever the destination holds', () => {
    expect(cleanInline('[![Build status](https://github.com/git/git/workflows/CI/badge.svg)](https://github.com/git/git/actions?query=branch%3Amaster) Git is fast.')).toBe('Git is fast.');
    expect(cleanInline('See the [`cmake-generator-expressions(7)`](../manual/cmake-generator-expressions.7.html#manual:cmake-generator-expressions\\(7\\) "cmake-generator-expressions(7)") manual.')).toBe(
      'See the cmake-generator-expressions(7) manual.',
    );
    expect(cleanInline('the [`User Interaction Guide`](<guide/user-interaction/index.html#guide:User Interaction Guide> "User Interaction Guide")')).toBe('the User Interaction Guide');
  });

  it('AsciiDoc and reStructuredText inline markup, escapes and entities', () => {
    expect(cleanInline('see linkgit:git-add[1] and link:howto/maintain-git.html[the howto]')).toBe('see git-add(1) and the howto');
    expect(cleanInline('Use :command:`add_executable` with :ref:`targets <Targets>`, and `the docs <https://cmake.org>`_.')).toBe('Use add_executable with targets, and the docs.');
    expect(cleanInline('add\\_executable&nbsp;and &lt;name&gt;')).toBe('add_executable and <name>');
  });
});

describe('parseStructure (plain text, AsciiDoc, reStructuredText)', () => {
  it('underlined and "==" headings; the first top-level one is the title; rules are not text', () => {
    const doc = parseStructure('Git v2.39.5 Release Notes\n=========================\n\nThis release merges up the fixes.\n\nFixes since v2.39.4\n--------------------\n\n * One fix\n   wrapped on two lines.\n * Another fix.\n\n== AsciiDoc section\n\nText.\n\n-----\n\nAfter a rule.\n', 'text');
    expect(doc.title).toBe('Git v2.39.5 Release Notes');
    expect(doc.sections.map((s) => [s.level, s.heading ?? null, s.blocks.map((b) => (b.item ? `* ${b.text}` : b.text))])).toEqual([
      [0, null, []],
      [1, 'Git v2.39.5 Release Notes', ['This release merges up the fixes.']],
      [2, 'Fixes since v2.39.4', ['* One fix wrapped on two lines.', '* Another fix.']],
      [2, 'AsciiDoc section', ['Text.', 'After a rule.']],
    ]);
  });

  it('reStructuredText overlined titles, directives and mail headers', () => {
    const doc = parseStructure('=======\nProject\n=======\n\n.. note:: hidden\n\nFrom: A Person <a@example.org>\nDate: Fri, 19 Dec 2008\nAbstract: What this is about,\n on two lines.\n\nBody.\n', 'text');
    expect(doc.title).toBe('Project');
    expect(doc.sections[1]?.blocks.map((b) => b.text)).toEqual(['What this is about, on two lines.', 'Body.']);
  });

  it('a script without an extension is read as code, an indented "# command" is not a heading', () => {
    expect(sourceKindOf('text', '#!/bin/sh\n# Says hello.\necho hello\n')).toBe('code');
    expect(sourceKindOf('text', 'Sources\n-------\n\n # apt-get install git\n\nText.\n')).toBe('text');
  });

  it("a code file's header comment is its purpose, past the licence paragraph", () => {
    const doc = parseStructure('#! /bin/bash\n#\n# bcalc - a coproc example\n#\n#   This program is free software; see the GNU General Public License.\n#\nfunction f() {\n  :\n}\n', 'code');
    expect(doc.header).toBe('bcalc - a coproc example');
    expect(doc.definitions).toEqual(['f']);
  });

  it('a header comment\'s " --- " is a dash and its "Created:" line is a field, not the purpose', () => {
    const doc = parseStructure('# arrayops.bash --- hide some of the nasty syntax for manipulating bash arrays\n# Created: 2016-07-08\n# Public domain\nf() { :; }\n', 'code');
    expect(doc.header).toBe('arrayops.bash — hide some of the nasty syntax for manipulating bash arrays Public domain');
  });
});

describe('parseStructure (AsciiDoc listings, nested emphasis, contents lists)', () => {
  it('skips listing blocks between "----" lines and indented literal paragraphs', () => {
    const doc = parseStructure('Some text that explains the example below.\n\n-------------------\n$ git diff\n--- a/sub\n+++ b/sub\n-------------------\n\n\tclean (H==M)\n\t14 yes exists keep index\n\nAfter the listing.\n', 'text');
    expect(doc.sections.flatMap((s) => s.blocks.map((b) => b.text))).toEqual(['Some text that explains the example below.', 'After the listing.']);
  });

  it('a lone "+" (AsciiDoc list continuation) ends an indented listing, which is not prose', () => {
    // A part of git-doc's diff-generate-patch.txt as the splitter cuts it: it opens inside a list item's listing.
    const doc = parseStructure('       --- a/file\n       --- a/file\n       +++ b/file\n+\nThis extended format can be useful if rename or copy detection is active.\n', 'text');
    expect(doc.sections.flatMap((s) => s.blocks.map((b) => b.text))).toEqual(['This extended format can be useful if rename or copy detection is active.']);
  });

  it('a text that is one indented listing is titled by its caption and keeps no data as prose', () => {
    const doc = parseStructure('\tInactive Branches\n\t-----------------\n\trefs/heads/master:\n\t  status : active loaded dirty\n', 'text');
    expect(doc.title).toBe('Inactive Branches');
    expect(doc.sections.flatMap((s) => s.blocks)).toEqual([]);
  });

  it('strips strong text nested in strong text (turndown writes "**Download **file**.**")', () => {
    expect(cleanInline('**Download **debhello-1.5.tar.gz**.**')).toBe('Download debhello-1.5.tar.gz.');
    expect(cleanInline('****debian/control** (template file, v=1.7):**')).toBe('debian/control (template file, v=1.7):');
  });

  it('keeps the top entries of a contents list it drops as navigation', () => {
    const doc = parseStructure('## Table of Contents\n\n- [1 Introduction](#Introduction)\n  - [1.1 What is Bash?](#What-is-Bash)\n- [2 Definitions](#Definitions)\n', 'markdown');
    expect(doc.sections.flatMap((s) => s.blocks)).toEqual([]);
    expect(doc.contents).toEqual(['1 Introduction', '2 Definitions']);
  });
});
