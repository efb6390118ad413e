import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFileAtomic } from './atomic-write.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cairn-atomic-'));
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

describe('writeFileAtomic', () => {
  it('replaces a file whole and leaves no temp file behind', async () => {
    const path = join(dir, 'meta.json');
    await writeFileAtomic(path, 'first');
    await writeFileAtomic(path, 'second', { durable: true });
    expect(await readFile(path, 'utf8')).toBe('second');
    expect(await readdir(dir)).toEqual(['meta.json']);
  });

  it('makes missing folders, and many writes at once into one folder all land', async () => {
    const deep = join(dir, 'a', 'b');
    await Promise.all(Array.from({ length: 50 }, (_, i) => writeFileAtomic(join(deep, `f${i}.txt`), String(i))));
    const names = await readdir(deep);
    expect(names.sort()).toEqual(Array.from({ length: 50 }, (_, i) => `f${i}.txt`).sort());
    expect(await readFile(join(deep, 'f7.txt'), 'utf8')).toBe('7');
  });

  it('fails when the target cannot be written, without leaving its temp file', async () => {
    await writeFileAtomic(join(dir, 'taken', 'x'), 'x');
    // The target is a non-empty directory: the rename fails.
    await expect(writeFileAtomic(join(dir, 'taken'), 'y')).rejects.toThrow();
    expect((await readdir(dir)).filter((n) => n.startsWith('.cairn-tmp-'))).toEqual([]);
  });

  // Small writes are synchronous, larger ones go through the thread pool: both keep the guarantees.
  it('keeps the same guarantees for a write too large to make synchronously', async () => {
    const large = 'x'.repeat(200_000);
    const path = join(dir, 'new', 'content.txt');
    await writeFileAtomic(path, large);
    expect(await readFile(path, 'utf8')).toBe(large);
    await writeFileAtomic(join(dir, 'taken', 'x'), 'x');
    await expect(writeFileAtomic(join(dir, 'taken'), large)).rejects.toThrow();
    expect((await readdir(dir)).filter((n) => n.startsWith('.cairn-tmp-'))).toEqual([]);
    expect(await readdir(join(dir, 'new'))).toEqual(['content.txt']);
  });
});
