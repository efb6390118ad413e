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

  it("takes a doc's first sentence across its lines, or the whole doc, without tool directives", () => {
    expect(docFromLines(['Package net provides a portable interface for network I/O, including', 'TCP/IP, UDP, domain name resolution, and Unix domain sockets.', '', 'Although the package…'], 'first-sentence')).toBe(
      'Package net provides a portable interface for network I/O, including TCP/IP, UDP, domain name resolution, and Unix domain sockets.',
    );
    expect(docFromLines(['Dial connects to the address on the named network. See func Dial for', 'a description of the network and address parameters.'], 'first-sentence')).toBe('Dial connects to the address on the named network.');
    expect(docFromLines(['Parse parses a URL, e.g. the one in net.Conn, v1.2 style. It returns'], 'first-sentence')).toBe('Parse parses a URL, e.g. the one in net.Conn, v1.2 style.');
    expect(docFromLines(['解析配置文件。然后返回结果'], 'first-sentence')).toBe('解析配置文件。');
    const lines = ['eslint-disable-next-line no-console', '', 'Sends a batch.', '', 'Retries twice.', ''];
    expect(docFromLines(lines, 'first-sentence')).toBe('Sends a batch.');
    expect(docFromLines(lines, 'full')).toBe('Sends a batch.\n\nRetries twice.');
    expect(docFromLines(['@ts-ignore'], 'full')).toBeNull();
    expect(docFromLines(['x'.repeat(500)], 'first-sentence')).toHaveLength(240);
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
