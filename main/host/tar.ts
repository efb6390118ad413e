/**
 * A folder as a tar stream (POSIX ustar, with pax headers for names over 100 bytes and files over
 * 8 GiB), so a browser can download a folder export as one file without a zip dependency: `tar -xf`
 * (GNU tar, bsdtar, Windows 10+ tar, 7-Zip) unpacks it. Only directories and regular files are
 * written; links are left out, as the exports never contain any.
 *
 * @example
 * Readable.from(tarEntries('/tmp/x/cairn-export', 'cairn-export')).pipe(createGzip()).pipe(res);
 */
import { createReadStream } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

const BLOCK = 512;
/** The largest size the 11 octal digits of a ustar header hold. */
const MAX_USTAR_SIZE = 0o77777777777;

/** The tar stream of `dir`, its entries named under `root/` (one folder when unpacked). */
export async function* tarEntries(dir: string, root: string): AsyncGenerator<Buffer> {
  yield* entriesOf(dir, root);
  // The end of the archive: two zero blocks.
  yield Buffer.alloc(2 * BLOCK);
}

async function* entriesOf(dir: string, name: string): AsyncGenerator<Buffer> {
  const info = await lstat(dir);
  yield* header(`${name}/`, { type: '5', mode: 0o755, size: 0, mtime: info.mtime });
  for (const child of (await readdir(dir)).sort()) {
    const path = join(dir, child);
    const childInfo = await lstat(path);
    if (childInfo.isDirectory()) yield* entriesOf(path, `${name}/${child}`);
    else if (childInfo.isFile()) {
      yield* header(`${name}/${child}`, { type: '0', mode: 0o644, size: childInfo.size, mtime: childInfo.mtime });
      let written = 0;
      for await (const chunk of createReadStream(path)) {
        const bytes = chunk as Buffer;
        // The header promised `size` bytes: a file that grew meanwhile is cut there.
        const part = bytes.subarray(0, Math.max(0, childInfo.size - written));
        written += part.length;
        if (part.length > 0) yield part;
      }
      // A file that shrank meanwhile is padded to the size the header promised.
      if (written < childInfo.size) yield Buffer.alloc(childInfo.size - written);
      const pad = (BLOCK - (childInfo.size % BLOCK)) % BLOCK;
      if (pad > 0) yield Buffer.alloc(pad);
    }
  }
}

interface EntryFields {
  /** '0' a file, '5' a directory, 'x' a pax header. */
  type: '0' | '5' | 'x';
  mode: number;
  size: number;
  mtime: Date;
}

/** The header block of one entry, preceded by a pax header when the name or size does not fit. */
function* header(name: string, fields: EntryFields): Generator<Buffer> {
  const records: string[] = [];
  const nameBytes = Buffer.from(name, 'utf8');
  if (nameBytes.length > 100) records.push(paxRecord('path', name));
  if (fields.size > MAX_USTAR_SIZE) records.push(paxRecord('size', String(fields.size)));
  if (records.length > 0) {
    const body = Buffer.from(records.join(''), 'utf8');
    yield block('PaxHeader', { type: 'x', mode: 0o644, size: body.length, mtime: fields.mtime });
    yield body;
    yield Buffer.alloc((BLOCK - (body.length % BLOCK)) % BLOCK);
  }
  yield block(nameBytes.length > 100 ? truncateUtf8(name, 100) : name, { ...fields, size: Math.min(fields.size, MAX_USTAR_SIZE) });
}

/** One pax record, `"<length> <key>=<value>\n"`, its length counting its own digits. */
function paxRecord(key: string, value: string): string {
  const rest = ` ${key}=${value}\n`;
  const restBytes = Buffer.byteLength(rest);
  let length = restBytes + String(restBytes).length;
  // Adding the digits can carry into one more digit (a 98-byte record is "100 ...").
  if (String(length).length !== String(restBytes).length) length = restBytes + String(length).length;
  return `${length}${rest}`;
}

function block(name: string, fields: EntryFields): Buffer {
  const out = Buffer.alloc(BLOCK);
  out.write(name, 0, 100, 'utf8');
  octal(out, 100, 8, fields.mode);
  octal(out, 108, 8, 0); // uid
  octal(out, 116, 8, 0); // gid
  octal(out, 124, 12, fields.size);
  octal(out, 136, 12, Math.floor(fields.mtime.getTime() / 1000));
  out.write(fields.type, 156, 1, 'latin1');
  out.write('ustar\u000000', 257, 8, 'latin1');
  // The checksum is summed with its own field as spaces.
  out.fill(0x20, 148, 156);
  let sum = 0;
  for (const byte of out) sum += byte;
  out.write(`${sum.toString(8).padStart(6, '0')}\u0000 `, 148, 8, 'latin1');
  return out;
}

function octal(out: Buffer, offset: number, length: number, value: number): void {
  out.write(`${value.toString(8).padStart(length - 1, '0')}\u0000`, offset, length, 'latin1');
}

/** The longest prefix of `text` that fits in `bytes` UTF-8 bytes without splitting a character. */
function truncateUtf8(text: string, bytes: number): string {
  let out = '';
  for (const char of text) {
    if (Buffer.byteLength(out + char) > bytes) break;
    out += char;
  }
  return out;
}
