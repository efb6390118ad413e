import { execFileSync, spawnSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tarEntries } from './tar.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cairn-tar-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Every file under `root`, relative path → content. */
async function filesOf(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (path: string) => {
    for (const entry of await readdir(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) await walk(full);
      else out[relative(root, full)] = await readFile(full, 'base64');
    }
  };
  await walk(root);
  return out;
}

describe('tarEntries', () => {
  it('writes a folder that GNU tar unpacks as it was: long and non-ASCII names, empty and block-sized files, empty folders', async () => {
    const source = join(dir, 'source');
    const deep = join(source, 'a-rather-long-folder-name-for-a-context-tree', 'with-nested-sections-of-a-split-document', 'and-one-more-level');
    await mkdir(deep, { recursive: true });
    await mkdir(join(source, 'empty'));
    await writeFile(join(deep, 'a-file-whose-name-alone-takes-more-than-fifty-bytes-to-write.md'), '# deep\n');
    await writeFile(join(source, '笔记 – naïve.md'), 'unicode name\n');
    await writeFile(join(source, 'empty.txt'), '');
    await writeFile(join(source, 'block.bin'), Buffer.alloc(512, 7));
    await writeFile(join(source, 'odd.bin'), Buffer.from(Array.from({ length: 70_001 }, (_, i) => i % 251)));

    const archive = join(dir, 'out.tar.gz');
    await pipeline(Readable.from(tarEntries(source, 'export')), createGzip(), createWriteStream(archive));
    const out = join(dir, 'out');
    await mkdir(out);
    const unpacked = spawnSync('tar', ['-xzf', archive, '-C', out], { encoding: 'utf8' });
    expect(unpacked.status, unpacked.stderr).toBe(0);
    // No complaint about a header, a checksum or a pax record.
    expect(unpacked.stderr).toBe('');

    expect(await readdir(out)).toEqual(['export']);
    expect(await filesOf(join(out, 'export'))).toEqual(await filesOf(source));
    expect(await readdir(join(out, 'export', 'empty'))).toEqual([]);
    // The listing names every entry in full (the long ones through pax headers).
    const listing = execFileSync('tar', ['-tzf', archive], { encoding: 'utf8' }).trim().split('\n');
    expect(listing).toContain('export/a-rather-long-folder-name-for-a-context-tree/with-nested-sections-of-a-split-document/and-one-more-level/a-file-whose-name-alone-takes-more-than-fifty-bytes-to-write.md');
    expect(listing).toContain('export/笔记 – naïve.md');
    expect(listing.some((name) => name.includes('PaxHeader'))).toBe(false);
  });
});
