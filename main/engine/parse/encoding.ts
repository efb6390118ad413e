/**
 * Decoding source bytes into text. Cairn reads UTF-8 (with or without a byte-order mark), UTF-16
 * with a byte-order mark, an encoding the file declares (an HTML page's charset), and legacy 8-bit
 * text: a file that is not UTF-8 and holds no UTF-8 multi-byte character at all is read as
 * Windows-1252 (which covers Latin-1), with a warning naming the first byte that was not UTF-8.
 * Old READMEs, AUTHORS files and changelogs are often Latin-1, and refusing them lost the whole
 * file for an accented name. What is refused, with the byte offset of the first sequence that does
 * not decode: UTF-8 with broken sequences among valid ones (corrupt, and Windows-1252 would garble
 * its real characters), NUL bytes or control characters (binary), UTF-32.
 */
import { CairnError } from '../../../shared/errors.js';

export type TextEncodingName = 'utf-8' | 'utf-8-bom' | 'utf-16le' | 'utf-16be' | 'windows-1252' | (string & {});

export interface DecodedText {
  text: string;
  encoding: TextEncodingName;
  /** Set when the text was not read as UTF-8 or UTF-16: what was assumed, for the file's warnings. */
  warning?: string;
}

export interface DecodeOptions {
  /** The encoding the file itself declares (an HTML `<meta charset>`), a WHATWG label. */
  declared?: string | null;
}

/**
 * Decodes a file's bytes, strictly.
 *
 * @example
 * decodeText(new Uint8Array([0xef, 0xbb, 0xbf, 0x68, 0x69]), 'notes.txt') // { text: 'hi', encoding: 'utf-8-bom' }
 * decodeText(new Uint8Array([0x63, 0x61, 0x66, 0xe9]), 'latin1.txt') // { text: 'café', encoding: 'windows-1252', warning: 'not UTF-8 (byte 3) …' }
 */
export function decodeText(bytes: Uint8Array, path: string, options: DecodeOptions = {}): DecodedText {
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
  // Valid UTF-8 is read as UTF-8 even against a declaration: pages that declare Latin-1 and are
  // saved as UTF-8 are common, the other way round (Latin-1 text that is valid UTF-8) nearly never.
  const utf8 = strictUtf8(bytes);
  if (utf8 !== null) return { text: withoutNul(utf8, path, 0), encoding: 'utf-8' };
  const invalidAt = firstInvalidUtf8(bytes);
  const declared = declaredDecoder(options.declared);
  if (declared) {
    const text = declared.encoding === 'windows-1252' ? decodeWindows1252(bytes) : declared.decode(bytes);
    return { text: withoutNul(text, path, 0), encoding: declared.encoding };
  }
  if (isLegacy8Bit(bytes)) {
    return {
      text: decodeWindows1252(bytes),
      encoding: 'windows-1252',
      warning: `not UTF-8 (byte ${invalidAt}) and no UTF-8 character in it: read as Windows-1252 (Latin-1)`,
    };
  }
  refuse(path, invalidAt, NOT_UTF8);
}

const NOT_UTF8 = 'not valid UTF-8, and not 8-bit text either (UTF-8 with broken sequences, or binary data)';

/** The bytes as UTF-8, or null when they are not valid UTF-8. */
function strictUtf8(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return null;
  }
}

/** Windows-1252's characters for bytes 0x80–0x9F; the other bytes are their Latin-1 code points. */
const WINDOWS_1252_HIGH = '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

/**
 * Windows-1252, by hand: Node 20's TextDecoder('windows-1252') decodes ISO-8859-1, turning the
 * curly quotes, dashes and euro sign of 0x80–0x9F into invisible C1 control characters.
 */
function decodeWindows1252(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    .toString('latin1')
    .replace(/[\x80-\x9f]/g, (c) => WINDOWS_1252_HIGH[c.charCodeAt(0) - 0x80]!);
}

/**
 * A TextDecoder for a declared encoding other than UTF-8/UTF-16 (those are read as above), or
 * null when there is none or the label is unknown (then the bytes decide, as without one).
 */
function declaredDecoder(label: string | null | undefined): InstanceType<typeof TextDecoder> | null {
  if (!label) return null;
  let decoder: InstanceType<typeof TextDecoder>;
  try {
    decoder = new TextDecoder(label.trim(), { fatal: false });
  } catch {
    return null;
  }
  return decoder.encoding === 'utf-8' || decoder.encoding.startsWith('utf-16') ? null : decoder;
}

/**
 * True when bytes that are not UTF-8 look like 8-bit text: no NUL or other control character but
 * tab, line feed, form feed, carriage return and escape, and not one well-formed UTF-8
 * multi-byte sequence (a file that has some is UTF-8 with damage, not another encoding).
 */
function isLegacy8Bit(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0c && b !== 0x0d && b !== 0x1b) return false;
    if (b >= 0xc2 && b <= 0xf4 && wellFormedSequenceAt(bytes, i)) return false;
  }
  return true;
}

function wellFormedSequenceAt(bytes: Uint8Array, i: number): boolean {
  const length = sequenceLength(bytes[i]!);
  return length <= bytes.length - i && firstInvalidUtf8(bytes.subarray(i, i + length)) === length;
}

function sequenceLength(lead: number): number {
  return lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
}

function refuse(path: string, offset: number, reason: string): never {
  throw new CairnError('UNSUPPORTED_ENCODING', `${path}: ${reason} (at byte ${offset})`, { details: { path, offset } });
}

/** UTF-8 after a byte-order mark (which says UTF-8: no other encoding is tried). */
function decodeUtf8(bytes: Uint8Array, path: string, base: number): string {
  const text = strictUtf8(bytes);
  if (text === null) refuse(path, base + firstInvalidUtf8(bytes), 'not valid UTF-8 after a UTF-8 byte-order mark');
  return withoutNul(text, path, base);
}

function withoutNul(text: string, path: string, base: number): string {
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
