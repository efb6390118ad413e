import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm, readFile, symlink, writeFile, readdir, mkdir, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContextFS } from './context-fs.js';
import { CairnError } from '../../../shared/errors.js';
import type { NodeMeta } from '../../../shared/types/node.js';

let dir: string;
let outside: string;
let fs: ContextFS;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cairn-cfs-'));
  outside = await mkdtemp(join(tmpdir(), 'cairn-outside-'));
  await writeFile(join(outside, 'secret.txt'), 'top secret');
  fs = await ContextFS.open(dir);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

const meta = (uri: string, kind: 'file' | 'dir', extra: Partial<NodeMeta> = {}): NodeMeta => ({
  uri,
  kind,
  context_type: 'resource',
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  ...extra,
});

async function rejectCode(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return CairnError.is(error) ? error.code : `not a CairnError: ${String(error)}`;
  }
  return 'resolved';
}

describe('ContextFS', () => {
  it('maps URIs into the workspace and writes a plain folder a person can open', async () => {
    await fs.writeFile('ctx://resources/notes/todo.md', '# Todo\n', meta('ctx://resources/notes/todo.md', 'file', { abstract: 'A todo list' }));
    await fs.writeDirSummary('ctx://resources/notes/', { abstract: 'Notes', overview: '# Notes\n- todo' }, meta('ctx://resources/notes/', 'dir'));
    expect(await readFile(join(dir, 'resources/notes/todo.md'), 'utf8')).toBe('# Todo\n');
    expect(JSON.parse(await readFile(join(dir, 'resources/notes/todo.md.meta.json'), 'utf8')).abstract).toBe('A todo list');
    expect((await readdir(join(dir, 'resources/notes'))).sort()).toEqual(['.abstract.md', '.meta.json', '.overview.md', 'todo.md', 'todo.md.meta.json']);
  });

  it('reads each level and says why a missing level is missing', async () => {
    await fs.writeFile('ctx://resources/a.md', 'body', meta('ctx://resources/a.md', 'file', { summary_reason: 'file under 100 lines' }));
    expect(await fs.read('ctx://resources/a.md', 2)).toBe('body');
    const error = await fs.read('ctx://resources/a.md', 0).catch((e: unknown) => e as CairnError);
    expect(CairnError.is(error, 'NOT_FOUND')).toBe(true);
    expect((error as Error).message).toContain('file under 100 lines');
    await fs.writeDirSummary('ctx://resources/', { abstract: 'L0', overview: 'L1' });
    expect(await fs.read('ctx://resources/', 0)).toBe('L0');
    expect(await fs.read('ctx://resources', 1)).toBe('L1');
    expect(await rejectCode(fs.read('ctx://resources/', 2))).toBe('IS_A_DIRECTORY');
  });

  it('lists children in a stable order with sidecars hidden', async () => {
    for (const name of ['b.md', 'a.md', 'Z.md', '文档.md']) await fs.writeFile(`ctx://resources/d/${name}`, name);
    await fs.mkdir('ctx://resources/d/sub/');
    await fs.writeDirSummary('ctx://resources/d/sub/', { abstract: 'sub abstract', overview: 'o' });
    const entries = await fs.ls('ctx://resources/d/');
    expect(entries.map((e) => e.name)).toEqual(['a.md', 'b.md', 'sub', 'Z.md', '文档.md']);
    expect(entries.find((e) => e.name === 'sub')).toMatchObject({ kind: 'dir', uri: 'ctx://resources/d/sub/', abstract: 'sub abstract' });
    expect(await rejectCode(fs.ls('ctx://resources/d/a.md'))).toBe('NOT_A_DIRECTORY');
  });

  it('lists and walks release notes in natural order: 2.4.0 before 2.39.5, file9 before file10', async () => {
    for (const name of ['2.39.5.txt', '2.4.0.txt', '1.5.0.1.txt', '2.4.10.txt', 'file10.md', 'file9.md']) await fs.writeFile(`ctx://resources/notes/${name}`, name);
    await fs.mkdir('ctx://resources/notes/v10/');
    await fs.mkdir('ctx://resources/notes/v9/');
    const natural = ['1.5.0.1.txt', '2.4.0.txt', '2.4.10.txt', '2.39.5.txt', 'file9.md', 'file10.md', 'v9', 'v10'];
    expect((await fs.ls('ctx://resources/notes/')).map((e) => e.name)).toEqual(natural);
    const tree = await fs.tree('ctx://resources/notes/', 2, 100);
    expect(tree.children?.map((c) => c.name)).toEqual(natural);
    expect((await fs.tree('ctx://resources/notes/', 1, 3)).children?.map((c) => c.name)).toEqual(natural.slice(0, 3));
  });

  it('reads a split document folder at level 2 as the whole document, its sections in order', async () => {
    const doc = 'ctx://resources/guide.md/';
    const sections: [string, string][] = [
      ['01-guide.md', '# Guide\n\nIntro.\n\n'],
      ['02-usage/01-usage.md', '## Usage\n\n'],
      ['02-usage/02-running.md', '### Running\n\nRun it.\n\n'],
      ['10-faq.md', '## FAQ\n\nAsk.\n'],
      ['09-install.md', '## Install\n\nnpm i\r\n\r\n'],
    ];
    for (const [path, text] of sections) await fs.writeFile(`${doc}${path}`, text);
    await fs.writeMeta(doc, meta(doc, 'dir', { document: true }));
    await fs.writeMeta(`${doc}02-usage/`, meta(`${doc}02-usage/`, 'dir', { document: true }));
    const expected = sections[0]![1] + sections[1]![1] + sections[2]![1] + sections[4]![1] + sections[3]![1];
    expect(await fs.read(doc, 2)).toBe(expected);
    expect(await fs.read('ctx://resources/guide.md', 2)).toBe(expected);
    // A section directory of the document reads as its part of the text.
    expect(await fs.read(`${doc}02-usage/`, 2)).toBe(sections[1]![1] + sections[2]![1]);
    // A plain folder still has no content of its own.
    await fs.writeFile('ctx://resources/plain/a.md', 'A');
    expect(await rejectCode(fs.read('ctx://resources/plain/', 2))).toBe('IS_A_DIRECTORY');
  });

  it('moves and removes nodes together with their sidecars', async () => {
    await fs.writeFile('ctx://resources/x/a.md', 'A', meta('ctx://resources/x/a.md', 'file'));
    await fs.mv('ctx://resources/x/a.md', 'ctx://resources/y/b.md');
    expect(await fs.kindOf('ctx://resources/x/a.md')).toBeNull();
    expect(await fs.read('ctx://resources/y/b.md', 2)).toBe('A');
    expect((await fs.readMeta('ctx://resources/y/b.md'))?.kind).toBe('file');
    await fs.rm('ctx://resources/y/b.md');
    expect(await readdir(join(dir, 'resources/y'))).toEqual([]);
    await fs.writeFile('ctx://resources/y/c.md', 'C');
    expect(await rejectCode(fs.rm('ctx://resources/y/'))).toBe('INVALID_INPUT');
    await fs.rm('ctx://resources/y/', { recursive: true });
    expect(await fs.kindOf('ctx://resources/y/')).toBeNull();
    expect(await rejectCode(fs.rm('ctx://resources/'))).toBe('INVALID_INPUT');
  });

  it('refuses every traversal attempt and never touches files outside', async () => {
    const attempts = [
      'ctx://resources/../../' + outside.slice(1) + '/secret.txt',
      'ctx://resources//' + outside.slice(1) + '/secret.txt',
      'ctx://resources/%2e%2e/%2e%2e/secret.txt',
      'ctx://resources/..%2f..%2fsecret.txt',
      'ctx://resources/a\0/secret.txt',
      'ctx://resources/C:/secret.txt',
      'ctx://resources/..\\secret.txt',
    ];
    for (const uri of attempts) {
      expect(await rejectCode(fs.read(uri, 2)), uri).toBe('PATH_ESCAPE');
      expect(await rejectCode(fs.writeFile(uri, 'pwned')), uri).toBe('PATH_ESCAPE');
      expect(await rejectCode(fs.rm(uri, { recursive: true })), uri).toBe('PATH_ESCAPE');
    }
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('top secret');
  });

  it('refuses to follow a link planted in the workspace that leads outside', async () => {
    await mkdir(join(dir, 'resources'), { recursive: true });
    await symlink(outside, join(dir, 'resources', 'escape'));
    expect(await rejectCode(fs.read('ctx://resources/escape/secret.txt', 2))).toBe('PATH_ESCAPE');
    expect(await rejectCode(fs.ls('ctx://resources/escape/'))).toBe('PATH_ESCAPE');
  });

  it('keeps sidecar names for itself', async () => {
    expect(await rejectCode(fs.writeFile('ctx://resources/.abstract.md', 'x'))).toBe('INVALID_URI');
    expect(await rejectCode(fs.writeFile('ctx://resources/a.md.meta.json', 'x'))).toBe('INVALID_URI');
  });

  it('builds a depth- and width-limited tree', async () => {
    for (let i = 0; i < 5; i++) await fs.writeFile(`ctx://resources/t/f${i}.md`, 'x');
    await fs.writeFile('ctx://resources/t/deep/er/leaf.md', 'x');
    const tree = await fs.tree('ctx://resources/t/', 2, 3);
    expect(tree.children?.map((c) => c.name)).toEqual(['deep', 'f0.md', 'f1.md']);
    expect(tree.truncated).toBe(3);
    expect(tree.children?.[0]?.children?.[0]).toMatchObject({ name: 'er', kind: 'dir' });
    expect(tree.children?.[0]?.children?.[0]?.children).toBeUndefined();
  });

  it('gives each node of a tree its summary state from its meta', async () => {
    const now = new Date(0).toISOString();
    await fs.writeFile('ctx://resources/s/a/f.md', 'x');
    await fs.writeMeta('ctx://resources/s/', { uri: 'ctx://resources/s/', kind: 'dir', context_type: 'resource', summary_status: 'done', created_at: now, updated_at: now });
    await fs.writeMeta('ctx://resources/s/a/', { uri: 'ctx://resources/s/a/', kind: 'dir', context_type: 'resource', summary_status: 'failed', summary_reason: 'every child failed', created_at: now, updated_at: now });
    await fs.writeMeta('ctx://resources/s/a/f.md', { uri: 'ctx://resources/s/a/f.md', kind: 'file', context_type: 'resource', summary_status: 'fallback', created_at: now, updated_at: now });
    const tree = await fs.tree('ctx://resources/s/', 8, 100);
    expect(tree).toMatchObject({ summary_status: 'done' });
    expect(tree.summary_reason).toBeUndefined();
    expect(tree.children?.[0]).toMatchObject({ name: 'a', summary_status: 'failed', summary_reason: 'every child failed' });
    expect(tree.children?.[0]?.children?.[0]).toMatchObject({ name: 'f.md', summary_status: 'fallback' });
  });

  it('sweeps temp files a killed writer left when it summarizes a directory again, and keeps a live one', async () => {
    await fs.writeDirSummary('ctx://resources/docs/', { abstract: 'a', overview: 'o' });
    const docs = fs.pathOf('ctx://resources/docs/');
    await writeFile(join(docs, '.cairn-tmp-deadbeef0001'), 'half of an abstract');
    await utimes(join(docs, '.cairn-tmp-deadbeef0001'), new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));
    await writeFile(join(docs, '.cairn-tmp-live00000001'), 'being written right now');
    await fs.writeDirSummary('ctx://resources/docs/', { abstract: 'a2', overview: 'o2' });
    expect((await readdir(docs)).filter((n) => n.startsWith('.cairn-tmp-'))).toEqual(['.cairn-tmp-live00000001']);
  });

  it('lsWithMeta gives each entry with the meta read for it, and a corrupt meta as an error, not a meta', async () => {
    await fs.writeFile('ctx://resources/m/a.md', 'A', meta('ctx://resources/m/a.md', 'file', { abstract: 'About A' }));
    await fs.writeFile('ctx://resources/m/b.md', 'B');
    await writeFile(join(dir, 'resources/m/b.md.meta.json'), '{ not json');
    await fs.writeDirSummary('ctx://resources/m/sub/', { abstract: 'Sub', overview: 'Sub overview' }, meta('ctx://resources/m/sub/', 'dir', { summary_status: 'done' }));
    const listed = await fs.lsWithMeta('ctx://resources/m/');
    expect(listed.map(({ entry, meta: m, metaError }) => [entry.name, m?.abstract ?? m?.summary_status ?? null, metaError instanceof CairnError ? metaError.code : null])).toEqual([
      ['a.md', 'About A', null],
      ['b.md', null, 'PARSE_FAILED'],
      ['sub', 'done', null],
    ]);
    expect(listed.map(({ entry }) => entry)).toEqual(await fs.ls('ctx://resources/m/'));
  });

  it('readFileContent refuses a directory, a missing node and a sidecar', async () => {
    await fs.writeFile('ctx://resources/r/a.md', 'A', meta('ctx://resources/r/a.md', 'file'));
    expect(await fs.readFileContent('ctx://resources/r/a.md')).toBe('A');
    const code = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => (e as CairnError).code);
    expect(await code(fs.readFileContent('ctx://resources/r/'))).toBe('IS_A_DIRECTORY');
    expect(await code(fs.readFileContent('ctx://resources/r/missing.md'))).toBe('NOT_FOUND');
    expect(await code(fs.readFileContent('ctx://resources/r/a.md/deeper.md'))).toBe('NOT_FOUND');
    expect(await code(fs.readFileContent('ctx://resources/r/a.md.meta.json'))).toBe('NOT_FOUND');
  });
});

