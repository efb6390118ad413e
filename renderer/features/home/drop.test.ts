import { describe, expect, it } from 'vitest';
import { groupSkips, pathFromDrop } from './drop';

describe('pathFromDrop', () => {
  it('takes a local file:// URI from a file manager', () => {
    expect(pathFromDrop({ uriList: 'file:///home/ana/My%20Notes\r\n' })).toBe('/home/ana/My Notes');
    expect(pathFromDrop({ uriList: '# comment\nfile:///srv/data' })).toBe('/srv/data');
    expect(pathFromDrop({ uriList: 'file:///C:/Users/ana/notes' })).toBe('C:/Users/ana/notes');
  });

  it('takes an absolute path dropped as text', () => {
    expect(pathFromDrop({ text: '  /home/ana/notes ' })).toBe('/home/ana/notes');
    expect(pathFromDrop({ text: 'C:\\Users\\ana' })).toBe('C:\\Users\\ana');
    expect(pathFromDrop({ text: 'file:///tmp/x' })).toBe('/tmp/x');
  });

  it('says there is no path for plain dropped files, remote URIs and relative text', () => {
    expect(pathFromDrop({})).toBeNull();
    expect(pathFromDrop({ uriList: '', text: '' })).toBeNull();
    expect(pathFromDrop({ uriList: 'https://example.com/x' })).toBeNull();
    expect(pathFromDrop({ uriList: 'file://server/share/x' })).toBeNull();
    expect(pathFromDrop({ text: 'notes/today.md' })).toBeNull();
    expect(pathFromDrop({ text: '/a\n/b' })).toBeNull();
  });
});

describe('groupSkips', () => {
  it('groups by reason, largest group first, paths sorted', () => {
    const groups = groupSkips([
      { path: 'z.bin', reason: 'binary' },
      { path: 'node_modules', reason: 'dependency-folder' },
      { path: 'a.bin', reason: 'binary' },
    ]);
    expect(groups).toEqual([
      { reason: 'binary', skips: [{ path: 'a.bin', reason: 'binary' }, { path: 'z.bin', reason: 'binary' }] },
      { reason: 'dependency-folder', skips: [{ path: 'node_modules', reason: 'dependency-folder' }] },
    ]);
  });
});
