/**
 * Tells text from binary by the first bytes of a file, never by its name: a `.txt` full of NUL
 * bytes is binary, a `Makefile` is text. PDFs are binary on disk but are documents Cairn parses,
 * so they pass. Text in a legacy 8-bit encoding (Latin-1, Shift-JIS...) also passes: the parser
 * reports it as `unsupported-encoding`, which tells the user more than "binary" would.
 */
import { isBinaryFileSync } from 'isbinaryfile';

export type SniffResult =
  | { kind: 'text'; encoding?: 'utf-8-bom' | 'utf-16le' | 'utf-16be' | 'utf-32le' | 'utf-32be' }
  | { kind: 'document'; format: 'pdf' }
  /** `format` names the file type when its magic number is known, e.g. "PNG image". */
  | { kind: 'binary'; format: string | null; why: string };

interface Signature {
  format: string;
  offset: number;
  bytes: Uint8Array;
  /**
   * A signature with a byte no text has is proof by itself; one that is plain ASCII (`GIF89a`,
   * `MZ`) could begin a text file, so it only names content already found to be binary.
   */
  strong: boolean;
}

function sig(format: string, magic: string, offset = 0): Signature {
  const bytes = new Uint8Array(Buffer.from(magic, 'latin1'));
  const strong = bytes.some((b) => (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d) || b > 0x7e);
  return { format, offset, bytes, strong };
}

const SIGNATURES: readonly Signature[] = [
  sig('PNG image', '\x89PNG\r\n\x1a\n'),
  sig('JPEG image', '\xff\xd8\xff'),
  sig('GIF image', 'GIF87a'),
  sig('GIF image', 'GIF89a'),
  sig('TIFF image', 'II*\x00'),
  sig('TIFF image', 'MM\x00*'),
  sig('ICO icon', '\x00\x00\x01\x00'),
  sig('BMP image', 'BM'),
  sig('Photoshop image', '8BPS'),
  sig('ZIP archive', 'PK\x03\x04'),
  sig('ZIP archive', 'PK\x05\x06'),
  sig('ZIP archive', 'PK\x07\x08'),
  sig('gzip data', '\x1f\x8b'),
  sig('bzip2 data', 'BZh'),
  sig('xz data', '\xfd7zXZ\x00'),
  sig('Zstandard data', '\x28\xb5\x2f\xfd'),
  sig('LZ4 data', '\x04\x22\x4d\x18'),
  sig('7-Zip archive', '7z\xbc\xaf\x27\x1c'),
  sig('RAR archive', 'Rar!\x1a\x07'),
  sig('tar archive', 'ustar', 257),
  sig('ar archive (.deb, .a)', '!<arch>\n'),
  sig('RPM package', '\xed\xab\xee\xdb'),
  sig('ELF executable', '\x7fELF'),
  sig('Mach-O binary', '\xfe\xed\xfa\xce'),
  sig('Mach-O binary', '\xfe\xed\xfa\xcf'),
  sig('Mach-O binary', '\xce\xfa\xed\xfe'),
  sig('Mach-O binary', '\xcf\xfa\xed\xfe'),
  sig('Windows PE executable', 'MZ'),
  sig('WebAssembly module', '\x00asm'),
  sig('Dalvik executable', 'dex\n'),
  sig('SQLite database', 'SQLite format 3\x00'),
  sig('OLE compound document (.doc, .xls, .msi)', '\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1'),
  sig('HDF5 data', '\x89HDF\r\n\x1a\n'),
  sig('NumPy array', '\x93NUMPY'),
  sig('Parquet data', 'PAR1'),
  sig('Apache Arrow data', 'ARROW1'),
  sig('Git pack', 'PACK'),
  sig('macOS folder metadata (.DS_Store)', '\x00\x00\x00\x01Bud1'),
  sig('MP3 audio', 'ID3'),
  sig('Ogg media', 'OggS'),
  sig('FLAC audio', 'fLaC'),
  sig('MIDI audio', 'MThd'),
  sig('Matroska/WebM video', '\x1a\x45\xdf\xa3'),
  sig('ISO media (MP4, MOV, HEIC)', 'ftyp', 4),
  sig('WebP image', 'WEBP', 8),
  sig('WAV audio', 'WAVE', 8),
  sig('AVI video', 'AVI ', 8),
  sig('WOFF font', 'wOFF'),
  sig('WOFF2 font', 'wOF2'),
  sig('TrueType font', '\x00\x01\x00\x00'),
  sig('OpenType font', 'OTTO'),
  sig('GGUF model', 'GGUF'),
];

const PDF = sig('PDF', '%PDF-');
/** The head is 8 KiB; this share of C0 control characters (other than whitespace and ESC) means binary. */
const MAX_CONTROL_RATIO = 0.1;

/**
 * Classifies a file by its head (the first bytes, up to 8 KiB).
 *
 * @example
 * sniffHead(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])); // { kind: 'binary', format: 'PNG image', ... }
 * sniffHead(new TextEncoder().encode('# Title\n')); // { kind: 'text' }
 */
export function sniffHead(head: Uint8Array): SniffResult {
  if (head.length === 0) return { kind: 'text' };
  if (startsWith(head, PDF)) return { kind: 'document', format: 'pdf' };

  const bom = byteOrderMark(head);
  if (bom === 'utf-8-bom') return { kind: 'text', encoding: bom };
  if (bom !== null) {
    const width = bom.startsWith('utf-32') ? 4 : 2;
    const controls = countWideControls(head, width, bom.endsWith('le'));
    if (controls / Math.max(1, Math.floor((head.length - width) / width)) > MAX_CONTROL_RATIO) {
      return { kind: 'binary', format: null, why: `starts with a ${bom.toUpperCase()} byte-order mark but is not text` };
    }
    return { kind: 'text', encoding: bom };
  }

  const strong = cafeBabe(head) ?? SIGNATURES.find((s) => s.strong && startsWith(head, s))?.format;
  if (strong !== undefined) return { kind: 'binary', format: strong, why: strong };
  const known = SIGNATURES.find((s) => !s.strong && startsWith(head, s));

  const format = known?.format ?? null;
  const nul = head.indexOf(0);
  if (nul >= 0) return { kind: 'binary', format, why: format ?? `a NUL byte at offset ${nul}` };
  const controls = countControls(head);
  if (controls / head.length > MAX_CONTROL_RATIO) {
    return { kind: 'binary', format, why: format ?? `${Math.round((100 * controls) / head.length)}% control characters` };
  }
  // isbinaryfile also counts bytes that are not valid UTF-8 as suspicious, which flags a short
  // Latin-1 note as binary; it only decides when a control character backs it up.
  if (controls > 0 && isBinaryFileSync(Buffer.from(head.buffer, head.byteOffset, head.byteLength), head.length)) {
    return { kind: 'binary', format, why: format ?? 'control characters and invalid UTF-8' };
  }
  return { kind: 'text' };
}

/** "binary content (PNG image)": the detail of a `binary` skip. */
export function describeBinary(result: Extract<SniffResult, { kind: 'binary' }>): string {
  return `binary content (${result.why})`;
}

function startsWith(head: Uint8Array, s: Signature): boolean {
  if (head.length < s.offset + s.bytes.length) return false;
  for (let i = 0; i < s.bytes.length; i++) if (head[s.offset + i] !== s.bytes[i]) return false;
  return true;
}

/** 0xCAFEBABE opens both Java classes and universal Mach-O binaries; the next word tells them apart. */
function cafeBabe(h: Uint8Array): string | undefined {
  if (h.length < 8 || h[0] !== 0xca || h[1] !== 0xfe || h[2] !== 0xba || h[3] !== 0xbe) return undefined;
  // A universal binary counts its architectures there (a handful); a class file has its version (45 and up).
  const word = ((h[4]! << 24) | (h[5]! << 16) | (h[6]! << 8) | h[7]!) >>> 0;
  return word < 30 ? 'Mach-O universal binary' : 'Java class file';
}

type Bom = 'utf-8-bom' | 'utf-16le' | 'utf-16be' | 'utf-32le' | 'utf-32be';

function byteOrderMark(h: Uint8Array): Bom | null {
  if (h[0] === 0xef && h[1] === 0xbb && h[2] === 0xbf) return 'utf-8-bom';
  // UTF-32 LE's mark starts with UTF-16 LE's, so it is tested first.
  if (h[0] === 0xff && h[1] === 0xfe && h[2] === 0 && h[3] === 0) return 'utf-32le';
  if (h[0] === 0 && h[1] === 0 && h[2] === 0xfe && h[3] === 0xff) return 'utf-32be';
  if (h[0] === 0xff && h[1] === 0xfe) return 'utf-16le';
  if (h[0] === 0xfe && h[1] === 0xff) return 'utf-16be';
  return null;
}

function isControl(c: number): boolean {
  // Tab, LF, VT, FF, CR and ESC (ANSI colours in logs) are at home in text.
  return c < 0x20 && (c < 0x09 || c > 0x0d) && c !== 0x1b;
}

function countControls(head: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < head.length; i++) if (isControl(head[i]!)) n++;
  return n;
}

function countWideControls(head: Uint8Array, width: number, littleEndian: boolean): number {
  let n = 0;
  for (let i = width; i + width <= head.length; i += width) {
    let unit = 0;
    for (let b = 0; b < width; b++) unit = unit * 256 + head[littleEndian ? i + width - 1 - b : i + b]!;
    if (isControl(unit)) n++;
  }
  return n;
}
