import { describe, expect, it } from 'vitest';
import { fallbackFolderName, filesAsFolder, folderOfInput, hostPathsOf, walkEntries } from './upload';

/** A stand-in for the browser's FileSystemEntry tree; directory readers answer in batches of `batch`. */
function fakeTree(name: string, children: Record<string, unknown>, batch = 2): FileSystemEntry {
  const entry = (entryName: string, value: unknown): FileSystemEntry => {
    if (typeof value === 'string') {
      const file = new File([value], entryName);
      return { name: entryName, isFile: true, isDirectory: false, file: (ok: (f: File) => void) => ok(file) } as unknown as FileSystemEntry;
    }
    const kids = Object.entries(value as Record<string, unknown>).map(([n, v]) => entry(n, v));
    return {
      name: entryName,
      isFile: false,
      isDirectory: true,
      createReader: () => {
        let at = 0;
        return {
          readEntries: (ok: (entries: FileSystemEntry[]) => void) => {
            const slice = kids.slice(at, at + batch);
            at += batch;
            // Asynchronous like the browser's.
            setTimeout(() => ok(slice), 0);
          },
        };
      },
    } as unknown as FileSystemEntry;
  };
  return entry(name, children);
}

describe('walkEntries', () => {
  it('walks a dropped folder to the end, calling readEntries until it answers nothing', async () => {
    const files = Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`n${i}.md`, `note ${i}`]));
    const root = fakeTree('notes', { ...files, sub: { 'a.md': 'a', deeper: { 'b.md': 'bb' } }, empty: {} }, 3);
    const folder = await walkEntries([root], 'upload-x');
    expect(folder.name).toBe('notes');
    expect(folder.files.map((f) => f.path).sort()).toEqual([...Object.keys(files), 'sub/a.md', 'sub/deeper/b.md'].sort());
    expect(await folder.files.find((f) => f.path === 'sub/deeper/b.md')!.file.text()).toBe('bb');
  });

  it('puts loose files and several folders under the fallback name', async () => {
    const folder = await walkEntries([fakeTree('a', { 'x.md': 'x' }), fakeTree('b', { 'y.md': 'y' })], 'upload-1');
    expect(folder.name).toBe('upload-1');
    expect(folder.files.map((f) => f.path).sort()).toEqual(['a/x.md', 'b/y.md']);
  });
});

describe('folderOfInput', () => {
  const picked = (path: string, text = 'x') => Object.assign(new File([text], path.split('/').at(-1)!), { webkitRelativePath: path });

  it('takes the folder name from webkitRelativePath and keeps the paths under it', () => {
    const folder = folderOfInput([picked('sample/README.md'), picked('sample/src/api.ts')], 'upload-1');
    expect(folder).toMatchObject({ name: 'sample', files: [{ path: 'README.md' }, { path: 'src/api.ts' }] });
  });

  it('falls back to a dated name for files without a folder', () => {
    const folder = folderOfInput([new File(['a'], 'a.md')], fallbackFolderName(new Date(2026, 11, 1, 9, 5)));
    expect(folder).toMatchObject({ name: 'upload-20261201-0905', files: [{ path: 'a.md' }] });
  });
});

describe('filesAsFolder', () => {
  it('puts loose files at the top of one named upload, renaming a repeated name', async () => {
    const folder = filesAsFolder([new File(['a'], 'export.json'), new File(['b'], 'chat.jsonl'), new File(['c'], 'export.json'), new File(['d'], 'export.json'), new File(['e'], 'README')], fallbackFolderName(new Date(2026, 11, 1, 14, 30), 'conversations'));
    expect(folder.name).toBe('conversations-20261201-1430');
    expect(folder.files.map((f) => f.path)).toEqual(['export.json', 'chat.jsonl', 'export (2).json', 'export (3).json', 'README']);
    expect(await folder.files[2]!.file.text()).toBe('c');
  });
});

describe('hostPathsOf', () => {
  it('joins each uploaded file to the folder the host answered with, leaving out refused files', () => {
    const files = [{ path: 'a.json' }, { path: 'sub/b.md' }, { path: 'huge.json' }];
    expect(hostPathsOf('/ws/uploads/conversations-1', files, [{ path: 'huge.json' }])).toEqual([
      { name: 'a.json', path: '/ws/uploads/conversations-1/a.json' },
      { name: 'sub/b.md', path: '/ws/uploads/conversations-1/sub/b.md' },
    ]);
  });

  it("uses a Windows host's separator", () => {
    expect(hostPathsOf('C:\\ws\\uploads\\c\\', [{ path: 'sub/b.md' }])).toEqual([{ name: 'sub/b.md', path: 'C:\\ws\\uploads\\c\\sub\\b.md' }]);
  });
});
