import { describe, expect, it } from 'vitest';
import { SNIPPET_MAX_CHARS, makeSnippet, openingHeading } from './snippet.js';

const filler = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');

describe('makeSnippet', () => {
  it('returns short texts whole, on one line', () => {
    expect(makeSnippet('Storm\n\nreview   notes', 'storm')).toBe('Storm review notes');
  });

  it('picks the window with the most distinct query terms, at most 240 characters', () => {
    const text = `${filler(80)} the uplink failed once. ${filler(40)} During the storm the uplink dropped and the antenna was reconfigured. ${filler(80)}`;
    const snippet = makeSnippet(text, 'storm uplink antenna');
    expect([...snippet].length).toBeLessThanOrEqual(SNIPPET_MAX_CHARS);
    expect(snippet).toContain('During the storm the uplink dropped and the antenna was reconfigured.');
    expect(snippet.startsWith('…')).toBe(true);
    expect(snippet.endsWith('…')).toBe(true);
  });

  it('matches through stemming', () => {
    const text = `${filler(100)} Parsers are registered by extension. ${filler(100)}`;
    expect(makeSnippet(text, 'parsing registry')).toContain('Parsers are registered');
  });

  it('finds Chinese terms and never cuts a surrogate pair', () => {
    const text = `${'这是无关的填充文字。'.repeat(40)}暴风雨期间上行链路中断，我们切换到备用频率。${'😀其他内容。'.repeat(60)}`;
    const snippet = makeSnippet(text, '链路为什么中断');
    expect(snippet).toContain('上行链路中断');
    expect([...snippet].length).toBeLessThanOrEqual(SNIPPET_MAX_CHARS);
    expect(snippet).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
  });

  it('falls back to the start of the text when nothing matches', () => {
    const text = filler(200);
    const snippet = makeSnippet(text, 'zebra');
    expect(snippet.startsWith('word0 word1')).toBe(true);
    expect(snippet.endsWith('…')).toBe(true);
    expect([...snippet].length).toBeLessThanOrEqual(SNIPPET_MAX_CHARS);
  });
});

describe('openingHeading', () => {
  it('is the heading a section opens with, as plain text', () => {
    expect(openingHeading('## Rolling *back* a `commit`\n\nUse git revert.')).toBe('Rolling back a commit');
    expect(openingHeading('\n# [Pools](pools.md) ##\ntext')).toBe('Pools');
    expect(openingHeading('连接池\n===\n\n大小')).toBe('连接池');
  });

  it('is null for text that does not open with a heading', () => {
    expect(openingHeading('Use git revert.\n\n## Later heading')).toBeNull();
    expect(openingHeading('#hashtag is not a heading')).toBeNull();
    expect(openingHeading('')).toBeNull();
    // A script's comment block (git's contrib/persistent-https/Makefile) and a notice are no titles.
    expect(openingHeading('# Copyright 2012 Google Inc. All Rights Reserved.\n#\n# Licensed under the Apache License, Version 2.0\n')).toBeNull();
    expect(openingHeading('# Build the proxy\n# and the remote helper\nall: proxy\n')).toBeNull();
    expect(openingHeading('# Copyright 2012 Google Inc.\n\nText.')).toBeNull();
    // A title over its first sub-heading is still a title.
    expect(openingHeading('# Pools\n## Sizing\ntext')).toBe('Pools');
  });
});
