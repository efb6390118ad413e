import { describe, expect, it } from 'vitest';
import { localPathsOfFiles, pathFromDrop, pathsFromDrop } from './drop-path';

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

describe('pathsFromDrop', () => {
  it('takes every local file of a uri-list, in order, once each', () => {
    expect(pathsFromDrop({ uriList: '# from the file manager\r\nfile:///home/ana/a.json\r\nfile:///home/ana/My%20Chats/b.jsonl\r\nfile:///home/ana/a.json\r\n' })).toEqual([
      '/home/ana/a.json',
      '/home/ana/My Chats/b.jsonl',
    ]);
    expect(pathsFromDrop({ uriList: 'file:///C:/chats/a.md' })).toEqual(['C:/chats/a.md']);
  });

  it('leaves out remote URIs and reads absolute paths dragged as text, one a line', () => {
    expect(pathsFromDrop({ uriList: 'https://example.com/a.json\nfile://server/share/b.json\nfile:///tmp/c.json' })).toEqual(['/tmp/c.json']);
    expect(pathsFromDrop({ text: '/tmp/a.json\nnotes/b.md\nC:\\chats\\c.txt' })).toEqual(['/tmp/a.json', 'C:\\chats\\c.txt']);
    expect(pathsFromDrop({})).toEqual([]);
    expect(pathsFromDrop({ uriList: '', text: 'hello' })).toEqual([]);
  });
});

describe('localPathsOfFiles', () => {
  it('takes the paths the client can tell, in order, without repeats or blanks', () => {
    const file = (name: string) => new File(['x'], name);
    const known: Record<string, string> = { a: '/home/me/a', b: '/home/me/b' };
    const pathOf = (f: File) => (f.name in known ? known[f.name]! : f.name === 'blank' ? '' : null);
    expect(localPathsOfFiles([file('b'), file('a'), file('b'), file('blank'), file('made-in-page')], pathOf)).toEqual(['/home/me/b', '/home/me/a']);
    // Browser mode: the client can tell none.
    expect(localPathsOfFiles([file('a')], () => null)).toEqual([]);
  });
});
