import { describe, expect, it } from 'vitest';
import { cleanAlias, cleanParams, commentLines, dedent, docFromLines, isLicense } from './common.js';

describe('comment and text helpers', () => {
  it('strips comment markers of every style', () => {
    expect(commentLines('/**\n * First.\n *\n * Second.\n */')).toEqual(['', 'First.', '', 'Second.', '']);
    expect(commentLines('/// Rust doc')).toEqual(['Rust doc']);
    expect(commentLines('//! Crate doc')).toEqual(['Crate doc']);
    expect(commentLines('// Go doc')).toEqual(['Go doc']);
    expect(commentLines('# shell')).toEqual(['shell']);
  });

  it('takes the first line or the whole doc, without tool directives', () => {
    const lines = ['eslint-disable-next-line no-console', '', 'Sends a batch.', '', 'Retries twice.', ''];
    expect(docFromLines(lines, 'first-line')).toBe('Sends a batch.');
    expect(docFromLines(lines, 'full')).toBe('Sends a batch.\n\nRetries twice.');
    expect(docFromLines(['@ts-ignore'], 'full')).toBeNull();
    expect(docFromLines(['x'.repeat(500)], 'first-line')).toHaveLength(240);
  });

  it('dedents docstrings like inspect.cleandoc', () => {
    expect(dedent(['Summary.', '', '    Detail', '      indented'])).toEqual(['Summary.', '', 'Detail', '  indented']);
  });

  it('writes parameter lists and aliases on one line', () => {
    expect(cleanParams('(\n    self,\n    x: int = 3,\n)')).toBe('(self, x: int = 3)');
    expect(cleanAlias('(\n  event: T,\n  signal: AbortSignal,\n) => Promise<void>')).toBe('(event: T, signal: AbortSignal) => Promise<void>');
  });

  it('recognises licence headers', () => {
    expect(isLicense('Copyright 2009 The Go Authors. All rights reserved.')).toBe(true);
    expect(isLicense('SPDX-License-Identifier: MIT')).toBe(true);
    expect(isLicense('Ring buffer of sensor samples.')).toBe(false);
  });
});
