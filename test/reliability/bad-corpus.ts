/**
 * Generates the bad-input corpus of issue 10 into a folder: files that are wrong in every way a
 * real folder can be wrong, each listed with what the ingest must do with it (skip it with a
 * reason, or keep it). Unreadable files and folders need a non-root user and are covered by
 * test/engine/scan-unreadable.test.ts.
 */
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildPdf } from '../engine/pdf-fixture.js';

export interface Expectation {
  /** Path relative to the corpus root (POSIX separators). */
  path: string;
  /** The skip reason the ingest must report, or 'kept' when the file must become a node. */
  outcome: 'kept' | 'binary' | 'too-large' | 'symlink-loop' | 'broken-symlink' | 'unsupported-encoding' | 'parse-error' | 'empty' | 'symlink-outside';
  what: string;
}

/** Bytes that are not text in any encoding: NULs and high bytes in no order. */
function noise(length: number, seed: number): Buffer {
  const out = Buffer.alloc(length);
  let x = seed;
  for (let i = 0; i < length; i += 1) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    out[i] = i % 7 === 0 ? 0 : x & 0xff;
  }
  return out;
}

/** Writes the corpus under `root` and returns what must happen to each file. `maxFileBytes` is the ingest's size limit. */
export async function writeBadCorpus(root: string, options: { maxFileBytes: number; depth?: number }): Promise<Expectation[]> {
  const expect: Expectation[] = [];
  const file = async (path: string, data: string | Buffer, outcome: Expectation['outcome'], what: string) => {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), data);
    expect.push({ path, outcome, what });
  };

  await file('good/readme.md', '# A good note\n\nIt sits among bad files and must survive them.\n', 'kept', 'an ordinary Markdown file');
  await file('binary/notes.md', noise(4096, 1), 'binary', 'binary bytes named .md');
  await file('binary/data.txt', Buffer.concat([Buffer.from('starts like text\n'), noise(2048, 2)]), 'binary', 'text head, binary body, named .txt');
  await file('huge/big.md', '# Big\n\n' + 'x'.repeat(options.maxFileBytes + 1024), 'too-large', 'larger than the size limit');
  await file('encoding/latin1.txt', Buffer.from('Caf\xe9 cr\xe8me br\xfbl\xe9e, na\xefve fa\xe7ade.\n'.repeat(20), 'latin1'), 'kept', 'Latin-1 text (read as Windows-1252, with a warning naming the first byte that is not UTF-8)');
  await file('encoding/broken-utf8.md', Buffer.concat([Buffer.from('# Broken\n\nvalid start, déjà vu '), Buffer.from([0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1]), Buffer.from(' valid end\n')]), 'unsupported-encoding', 'invalid UTF-8 sequences among valid UTF-8 characters (damaged UTF-8, refused with the byte offset)');
  await file('encoding/utf16le-bom.txt', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('UTF-16 with a byte order mark.\n'.repeat(10), 'utf16le')]), 'kept', 'UTF-16LE with BOM');
  await file('encoding/utf16be-bom.md', Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('# UTF-16BE\n\nBig-endian text.\n'.repeat(10), 'utf16le').swap16()]), 'kept', 'UTF-16BE with BOM');
  await file('empty/nothing.md', '', 'kept', 'an empty file (an empty node)');
  await file('empty/blank.txt', '   \n\n\t\n', 'kept', 'whitespace only');
  await file('pdf/corrupt.pdf', Buffer.concat([Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >>\n'), noise(512, 3)]), 'parse-error', 'a PDF with a valid header and garbage after');
  await file('pdf/truncated.pdf', Buffer.from(buildPdf([[{ text: 'Cut short', size: 12 }]])).subarray(0, 200), 'parse-error', 'a PDF cut off mid-file');
  await file('pdf/encrypted.pdf', Buffer.from(buildPdf([[{ text: 'Secret', size: 12 }]], { encrypted: true })), 'parse-error', 'an encrypted PDF');
  await file('markdown/headings.md', Array.from({ length: 10_000 }, (_, i) => `# Heading ${i}\n\nline ${i}\n`).join('\n'), 'kept', '10,000 headings');
  await file('markdown/long-line.md', '# One line\n\n' + 'word '.repeat(220_000) + '\n', 'kept', 'a 1 MB line');
  await file('markdown/nested.md', '> '.repeat(500) + 'deep quote\n\n' + '- '.repeat(300) + 'deep list\n\n' + '['.repeat(2000) + ']'.repeat(2000) + '\n', 'kept', 'pathological nesting');
  await file('html/unclosed.html', '<html><body>' + '<div>'.repeat(5000) + 'text' + '\n', 'kept', 'HTML with 5,000 unclosed divs (its text kept)');
  await file('code/broken.py', 'def broken(:\n    return ((((\nclass\n', 'kept', 'Python that does not parse');
  await file('odd/ünïcødé 文件.md', '# Unicode name\n\nok\n', 'kept', 'unicode file name');
  await file('odd/-leading-dash.md', '# Leading dash\n\nok\n', 'kept', 'a name starting with a dash');
  await file('odd/line\nbreak.md', '# Newline in the name\n\nok\n', 'kept', 'a newline in the file name');
  await file('odd/spaces   and\ttab.txt', 'tabs and spaces\n', 'kept', 'spaces and a tab in the name');

  // Symlinks: a loop back to an ancestor, a dangling link, a link out of the folder.
  await mkdir(join(root, 'links'), { recursive: true });
  await symlink('..', join(root, 'links/loop'));
  expect.push({ path: 'links/loop', outcome: 'symlink-loop', what: 'a link to its own ancestor' });
  await symlink('does-not-exist.md', join(root, 'links/dangling.md'));
  expect.push({ path: 'links/dangling.md', outcome: 'broken-symlink', what: 'a link to nothing' });
  await symlink('/etc/hostname', join(root, 'links/outside.txt'));
  expect.push({ path: 'links/outside.txt', outcome: 'symlink-outside', what: 'a link out of the folder' });

  // A very deep tree with a file at the bottom.
  const depth = options.depth ?? 120;
  const deep = Array.from({ length: depth }, (_, i) => `d${i}`).join('/');
  await file(`${deep}/bottom.md`, '# Bottom\n\nFound at the bottom of a deep tree.\n', 'kept', `a file ${depth} folders deep`);
  return expect;
}
