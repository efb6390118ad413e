import { describe, expect, it } from 'vitest';
import { CairnError } from '../../../shared/errors.js';
import { decodeText, firstInvalidUtf8 } from './encoding.js';

const TEXT = 'Tide 潮汐 ✓ 😀\r\nline two\n';

function utf16(text: string, littleEndian: boolean): Uint8Array {
  const out = new Uint8Array(2 + text.length * 2);
  out.set(littleEndian ? [0xff, 0xfe] : [0xfe, 0xff]);
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    out[2 + i * 2] = littleEndian ? unit & 0xff : unit >> 8;
    out[3 + i * 2] = littleEndian ? unit >> 8 : unit & 0xff;
  }
  return out;
}

function refusal(bytes: Uint8Array): CairnError {
  try {
    decodeText(bytes, 'docs/notes.txt');
  } catch (error) {
    if (CairnError.is(error)) return error;
    throw error;
  }
  throw new Error('decodeText accepted the bytes');
}

describe('decodeText', () => {
  it('reads UTF-8 without a byte-order mark as is', () => {
    expect(decodeText(new TextEncoder().encode(TEXT), 'a.txt')).toEqual({ text: TEXT, encoding: 'utf-8' });
  });

  it('strips the UTF-8 byte-order mark', () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(TEXT)]);
    expect(decodeText(bytes, 'a.txt')).toEqual({ text: TEXT, encoding: 'utf-8-bom' });
  });

  it('reads UTF-16 LE and BE with their byte-order marks, surrogate pairs included', () => {
    expect(decodeText(utf16(TEXT, true), 'a.txt')).toEqual({ text: TEXT, encoding: 'utf-16le' });
    expect(decodeText(utf16(TEXT, false), 'a.txt')).toEqual({ text: TEXT, encoding: 'utf-16be' });
  });

  it('reads an empty file as empty UTF-8 text', () => {
    expect(decodeText(new Uint8Array(0), 'empty.md')).toEqual({ text: '', encoding: 'utf-8' });
  });

  it('refuses Latin-1 naming the file and the offset of the first bad byte', () => {
    const bytes = new Uint8Array([...new TextEncoder().encode('caf'), 0xe9, 0x20, 0x6f, 0x6b]);
    const error = refusal(bytes);
    expect(error.code).toBe('UNSUPPORTED_ENCODING');
    expect(error.message).toContain('docs/notes.txt');
    expect(error.message).toContain('at byte 3');
    expect(error.details).toEqual({ path: 'docs/notes.txt', offset: 3 });
  });

  it('counts the offset past a byte-order mark and valid multi-byte characters', () => {
    const valid = new TextEncoder().encode('潮汐');
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...valid, 0xc3, 0x28]);
    expect(refusal(bytes).details?.offset).toBe(3 + valid.length);
  });

  it('refuses UTF-16 without a byte-order mark (NUL bytes)', () => {
    const noBom = utf16('hello', true).subarray(2);
    const error = refusal(noBom);
    expect(error.code).toBe('UNSUPPORTED_ENCODING');
    expect(error.message).toMatch(/NUL byte.*at byte 1/);
  });

  it('refuses truncated UTF-16 and unpaired surrogates', () => {
    const odd = utf16('abc', true).subarray(0, 7);
    expect(refusal(odd).message).toMatch(/odd number of bytes/);
    const lone = new Uint8Array([0xff, 0xfe, 0x61, 0x00, 0x00, 0xd8, 0x62, 0x00]);
    const error = refusal(lone);
    expect(error.message).toMatch(/unpaired surrogate/);
    expect(error.details?.offset).toBe(4);
  });

  it('refuses UTF-32', () => {
    expect(refusal(new Uint8Array([0xff, 0xfe, 0, 0, 0x61, 0, 0, 0])).message).toMatch(/UTF-32/);
  });
});

describe('firstInvalidUtf8', () => {
  it.each([
    ['overlong encoding', [0x41, 0xc0, 0xaf], 1],
    ['encoded surrogate', [0x41, 0x42, 0xed, 0xa0, 0x80], 2],
    ['code point above U+10FFFF', [0xf4, 0x90, 0x80, 0x80], 0],
    ['truncated sequence at the end', [0x41, 0xe6, 0xbd], 1],
    ['stray continuation byte', [0x80], 0],
  ])('finds a %s', (_label, bytes, offset) => {
    expect(firstInvalidUtf8(new Uint8Array(bytes))).toBe(offset);
  });

  it('returns the length for valid UTF-8', () => {
    const bytes = new TextEncoder().encode(TEXT);
    expect(firstInvalidUtf8(bytes)).toBe(bytes.length);
  });
});
