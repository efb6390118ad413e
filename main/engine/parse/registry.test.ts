import { describe, expect, it } from 'vitest';
import { listParsers, parserFor } from './registry.js';

const utf8 = (text: string) => new TextEncoder().encode(text);

describe('parserFor', () => {
  it.each([
    ['docs/guide.md', 'Guide', 'markdown'],
    ['docs/GUIDE.MARKDOWN', 'Guide', 'markdown'],
    ['blog/post.mdx', 'Post', 'markdown'],
    ['site/index.html', '<p>x</p>', 'html'],
    ['site/page.XHTML', '<p>x</p>', 'html'],
    ['manual.pdf', '%PDF-1.7\n', 'pdf'],
    ['src/station.py', 'import os', 'code'],
    ['src/api.ts', 'export {}', 'code'],
    ['config/app.yaml', 'a: 1', 'code'],
    ['Makefile', 'all:', 'code'],
    ['CMakeLists.txt', 'project(x)', 'code'],
    ['notes/todo.txt', 'buy milk', 'text'],
    ['notes/spec.rst', 'Title\n=====', 'text'],
    ['server.log', 'started', 'text'],
    ['LICENSE', 'MIT License', 'text'],
    ['data.unknownext', 'hello', 'text'],
  ])('%s is %s by name', (path, head, expected) => {
    expect(parserFor(path, utf8(head)).name).toBe(expected);
  });

  it('sniffs content where the name says nothing or says plain text', () => {
    expect(parserFor('download', utf8('%PDF-1.4\n%...')).name).toBe('pdf');
    expect(parserFor('report.html', utf8('%PDF-1.4\n')).name).toBe('pdf');
    expect(parserFor('page', utf8('\ufeff  <!DOCTYPE html>\n<html>')).name).toBe('html');
    expect(parserFor('saved.txt', utf8('<!-- saved from url --><html lang="en">')).name).toBe('html');
    expect(parserFor('fake.pdf', utf8('<!doctype html><title>x</title>')).name).toBe('html');
    expect(parserFor('scripts/deploy', utf8('#!/usr/bin/env bash\nset -e\n')).name).toBe('code');
    expect(parserFor('bin/tool.txt', utf8('#!/usr/bin/python3\n')).name).toBe('code');
    // Markdown stays Markdown even when it opens with HTML.
    expect(parserFor('README.md', utf8('<html><p>x</p></html>')).name).toBe('markdown');
  });

  it('lists every parser once, with its extensions', () => {
    const parsers = listParsers();
    expect(parsers.map((parser) => parser.name)).toEqual(['markdown', 'html', 'pdf', 'code', 'text']);
    const all = parsers.flatMap((parser) => parser.extensions);
    expect(new Set(all).size).toBe(all.length);
    for (const extension of all) expect(extension).toMatch(/^\.[a-z0-9+_-]+$/);
  });
});
