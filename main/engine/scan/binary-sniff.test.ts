import { describe, expect, it } from 'vitest';
import { describeBinary, sniffHead } from './binary-sniff.js';

const bytes = (...parts: (string | number[])[]) =>
  new Uint8Array(Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p)))));
const detail = (head: Uint8Array) => {
  const r = sniffHead(head);
  return r.kind === 'binary' ? describeBinary(r) : r.kind;
};

describe('sniffHead', () => {
  it('takes empty files, UTF-8, legacy 8-bit text and ANSI-coloured logs as text', () => {
    expect(sniffHead(new Uint8Array()).kind).toBe('text');
    expect(sniffHead(new TextEncoder().encode('# Titre\n\nCafé, 東京, 😀\n')).kind).toBe('text');
    expect(sniffHead(bytes('caf', [0xe9], '\n')).kind).toBe('text');
    expect(sniffHead(bytes('\x1b[31mred\x1b[0m\tok\f\n')).kind).toBe('text');
  });

  it('takes text behind a byte-order mark as text, and tells which', () => {
    const utf16le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Hello, world\n', 'utf16le')]);
    expect(sniffHead(new Uint8Array(utf16le))).toEqual({ kind: 'text', encoding: 'utf-16le' });
    const utf16be = Buffer.from(Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('Hi\n', 'utf16le')]).map((_, i, a) => (i < 2 ? a[i]! : a[i % 2 === 0 ? i + 1 : i - 1]!)));
    expect(sniffHead(new Uint8Array(utf16be))).toEqual({ kind: 'text', encoding: 'utf-16be' });
    expect(sniffHead(bytes([0xef, 0xbb, 0xbf], 'x'))).toEqual({ kind: 'text', encoding: 'utf-8-bom' });
    expect(sniffHead(bytes([0xff, 0xfe, 0, 0], [0x41, 0, 0, 0]))).toEqual({ kind: 'text', encoding: 'utf-32le' });
  });

  it('does not let a byte-order mark pass binary content', () => {
    expect(sniffHead(bytes([0xff, 0xfe], Array.from({ length: 64 }, (_, i) => (i % 2 === 0 ? 1 : 0)))).kind).toBe('binary');
  });

  it('passes PDFs as documents', () => {
    expect(sniffHead(bytes('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n'))).toEqual({ kind: 'document', format: 'pdf' });
  });

  it('names binary formats by their magic number', () => {
    expect(detail(bytes([0x89], 'PNG\r\n\x1a\n', [0, 0, 0, 13], 'IHDR'))).toBe('binary content (PNG image)');
    expect(detail(bytes([0xff, 0xd8, 0xff, 0xe0]))).toBe('binary content (JPEG image)');
    expect(detail(bytes('GIF89a', [1, 0, 1, 0, 0x80, 0]))).toBe('binary content (GIF image)');
    expect(detail(bytes('PK\x03\x04', [20, 0, 0, 0]))).toBe('binary content (ZIP archive)');
    expect(detail(bytes([0x1f, 0x8b, 8, 0]))).toBe('binary content (gzip data)');
    expect(detail(bytes('\x7fELF', [2, 1, 1, 0]))).toBe('binary content (ELF executable)');
    expect(detail(bytes([0xcf, 0xfa, 0xed, 0xfe]))).toBe('binary content (Mach-O binary)');
    expect(detail(bytes('MZ', [0x90, 0, 3, 0]))).toBe('binary content (Windows PE executable)');
    expect(detail(bytes('SQLite format 3\x00', [16, 0]))).toBe('binary content (SQLite database)');
    expect(detail(bytes('\x00asm', [1, 0, 0, 0]))).toBe('binary content (WebAssembly module)');
    expect(detail(bytes([0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 61]))).toBe('binary content (Java class file)');
    expect(detail(bytes([0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 2]))).toBe('binary content (Mach-O universal binary)');
    expect(detail(bytes('RIFF', [0x24, 0, 0, 0], 'WEBPVP8 '))).toBe('binary content (WebP image)');
  });

  it('does not call text binary because it begins like a format', () => {
    expect(sniffHead(bytes('GIF89a is the animated flavour.\n')).kind).toBe('text');
    expect(sniffHead(bytes('MZ: notes on the DOS header\n')).kind).toBe('text');
  });

  it('finds unnamed binary content by NUL bytes and control characters anywhere in the head', () => {
    const late = new Uint8Array(8192).fill(0x61);
    late[6000] = 0;
    expect(detail(late)).toBe('binary content (a NUL byte at offset 6000)');
    expect(sniffHead(bytes('ab', [1, 2, 3, 4, 5, 6], 'cdefgh')).kind).toBe('binary');
  });
});
