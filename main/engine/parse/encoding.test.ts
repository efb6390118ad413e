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

  it('reads Latin-1 text as Windows-1252, with a warning naming the first byte that was not UTF-8', () => {
    const bytes = new Uint8Array([...new TextEncoder().encode('caf'), 0xe9, 0x20, 0x6f, 0x6b, 0x20, 0x80, 0x0a]);
    const decoded = decodeText(bytes, 'docs/notes.txt');
    expect(decoded.text).toBe('café ok €\n');
    expect(decoded.encoding).toBe('windows-1252');
    expect(decoded.warning).toMatch(/byte 3.*Windows-1252/);
    // UTF-8 text carries no warning.
    expect(decodeText(new TextEncoder().encode('café'), 'a.txt').warning).toBeUndefined();
  });

  it('refuses UTF-8 damaged among valid characters, naming the file and the offset of the first bad byte', () => {
    const bytes = new Uint8Array([...new TextEncoder().encode('café '), 0xe9, 0x20, 0x6f, 0x6b]);
    const error = refusal(bytes);
    expect(error.code).toBe('UNSUPPORTED_ENCODING');
    expect(error.message).toContain('docs/notes.txt');
    expect(error.message).toContain('at byte 6');
    expect(error.details).toEqual({ path: 'docs/notes.txt', offset: 6 });
  });

  it('refuses 8-bit bytes among control characters: binary data, not legacy text', () => {
    const bytes = new Uint8Array([0x68, 0x69, 0x01, 0x02, 0xe9, 0x03]);
    expect(refusal(bytes).code).toBe('UNSUPPORTED_ENCODING');
  });

  it('follows an encoding the file declares when its bytes are not UTF-8, and UTF-8 when they are', () => {
    // "Grüße" in ISO-8859-2 (Central European): ü is 0xfc, ß is 0xdf.
    const latin2 = new Uint8Array([0x47, 0x72, 0xfc, 0xdf, 0x65]);
    expect(decodeText(latin2, 'page.html', { declared: 'iso-8859-2' })).toEqual({ text: 'Grüße', encoding: 'iso-8859-2' });
    const utf8 = new TextEncoder().encode('Grüße');
    expect(decodeText(utf8, 'page.html', { declared: 'iso-8859-1' })).toEqual({ text: 'Grüße', encoding: 'utf-8' });
    // An unknown label is ignored: the bytes decide.
    expect(decodeText(latin2, 'page.html', { declared: 'no-such-charset' }).encoding).toBe('windows-1252');
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
