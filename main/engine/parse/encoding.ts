/**
 * Decoding source bytes into text. Cairn reads UTF-8 (with or without a byte-order mark) and
 * UTF-16 with a byte-order mark; everything else is refused with the byte offset of the first
 * sequence that does not decode, so a person can find and fix it.
 */
import { CairnError } from '../../../shared/errors.js';

export type TextEncodingName = 'utf-8' | 'utf-8-bom' | 'utf-16le' | 'utf-16be';

export interface DecodedText {
  text: string;
  encoding: TextEncodingName;
}

/**
 * Decodes a file's bytes, strictly.
 *
 * @example
 * decodeText(new Uint8Array([0xef, 0xbb, 0xbf, 0x68, 0x69]), 'notes.txt') // { text: 'hi', encoding: 'utf-8-bom' }
 * decodeText(new Uint8Array([0x63, 0x61, 0x66, 0xe9]), 'latin1.txt') // throws UNSUPPORTED_ENCODING at byte 3
 */
export function decodeText(bytes: Uint8Array, path: string): DecodedText {
  const [b0, b1, b2, b3] = bytes;
  if (b0 === 0xef && b1 === 0xbb && b2 === 0xbf) {
    return { text: decodeUtf8(bytes.subarray(3), path, 3), encoding: 'utf-8-bom' };
  }
  if (b0 === 0xff && b1 === 0xfe) {
    if (b2 === 0 && b3 === 0) refuse(path, 0, 'UTF-32 (little-endian byte-order mark) is not supported');
    return { text: decodeUtf16(bytes, path, 'utf-16le'), encoding: 'utf-16le' };
  }
  if (b0 === 0xfe && b1 === 0xff) {
    return { text: decodeUtf16(bytes, path, 'utf-16be'), encoding: 'utf-16be' };
  }
  if (b0 === 0 && b1 === 0 && b2 === 0xfe && b3 === 0xff) refuse(path, 0, 'UTF-32 (big-endian byte-order mark) is not supported');
  return { text: decodeUtf8(bytes, path, 0), encoding: 'utf-8' };
}

function refuse(path: string, offset: number, reason: string): never {
  throw new CairnError('UNSUPPORTED_ENCODING', `${path}: ${reason} (at byte ${offset})`, { details: { path, offset } });
}

function decodeUtf8(bytes: Uint8Array, path: string, base: number): string {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    const offset = firstInvalidUtf8(bytes);
    refuse(path, base + offset, 'not valid UTF-8 (only UTF-8 and UTF-16 with a byte-order mark are supported)');
  }
  const nul = text.indexOf('\0');
  if (nul !== -1) {
    // NUL is valid UTF-8 but never appears in text: this is UTF-16 without a byte-order mark or binary data.
    const offset = base + new TextEncoder().encode(text.slice(0, nul)).length;
    refuse(path, offset, 'contains a NUL byte (UTF-16 without a byte-order mark, or not a text file)');
  }
  return text;
}

function decodeUtf16(bytes: Uint8Array, path: string, encoding: 'utf-16le' | 'utf-16be'): string {
  if (bytes.length % 2 !== 0) refuse(path, bytes.length - 1, `truncated ${encoding.toUpperCase()}: odd number of bytes`);
  try {
    return new TextDecoder(encoding, { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    refuse(path, firstLoneSurrogate(bytes, encoding === 'utf-16le'), `not valid ${encoding.toUpperCase()}: unpaired surrogate`);
  }
}

/** Byte offset of the first ill-formed sequence (Unicode table 3-7), or bytes.length if none. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i += 1;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) lo = 0xa0;
      if (b === 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) lo = 0x90;
      if (b === 0xf4) hi = 0x8f;
    } else return i;
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined) return i;
      if (k === 1 ? c < lo || c > hi : c < 0x80 || c > 0xbf) return i;
    }
    i += need + 1;
  }
  return n;
}

function firstLoneSurrogate(bytes: Uint8Array, littleEndian: boolean): number {
  const unit = (i: number) => (littleEndian ? bytes[i]! | (bytes[i + 1]! << 8) : (bytes[i]! << 8) | bytes[i + 1]!);
  for (let i = 0; i + 1 < bytes.length; i += 2) {
    const u = unit(i);
    if (u >= 0xdc00 && u <= 0xdfff) return i;
    if (u >= 0xd800 && u <= 0xdbff) {
      if (i + 3 >= bytes.length) return i;
      const next = unit(i + 2);
      if (next < 0xdc00 || next > 0xdfff) return i;
      i += 2;
    }
  }
  return bytes.length;
}
