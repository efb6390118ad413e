import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { CairnError } from '../../shared/errors.js';
import type { Skip } from '../../shared/types/ingest.js';
import { memoryLogger } from '../../main/engine/ports/logger.js';
import { HEAD_BYTES, scanFolder, type ScanOptions, type ScanResult } from '../../main/engine/scan/scan-folder.js';

let tmp: string;
let root: string;

beforeEach(async () => {
  tmp = await realpath(await mkdtemp(join(tmpdir(), 'cairn-scan-')));
  root = join(tmp, 'root');
  await mkdir(root);
});
afterEach(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const OPTIONS: ScanOptions = { maxFileBytes: 1024 * 1024, followSymlinks: true };
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 16, 0, 0, 0, 16, 8, 2, 0, 0, 0]);

/** Writes `files` (relative path -> content) under `base`, making folders as needed. */
async function tree(base: string, files: Record<string, string | Buffer>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(dirname(join(base, rel)), { recursive: true });
    await writeFile(join(base, rel), content);
  }
}

const scan = (options: Partial<ScanOptions> = {}, at = root) => scanFolder(at, { ...OPTIONS, ...options });
const paths = (result: ScanResult) => result.files.map((f) => f.relPath);
const skipsOf = (result: ScanResult) => Object.fromEntries(result.skipped.map((s) => [s.path, s]));
const reasons = (result: ScanResult) => Object.fromEntries(result.skipped.map((s) => [s.path, s.reason]));

describe('scanFolder: .gitignore', () => {
  it('honours nested .gitignore files with negations, anchors and directory-only rules', async () => {
    await tree(root, {
      '.gitignore': '*.log\n!keep.log\n/only-root.txt\nbuild/\nlogs/\n',
      'a.log': 'x',
      'keep.log': 'x',
      'only-root.txt': 'x',
      'build/out.txt': 'x',
      'logs': 'a file named logs, not a folder',
      'notes.md': '# Notes\n',
      'sub/.gitignore': '!build/\n*.md\n!README.md\n/local.txt\n',
      'sub/only-root.txt': 'x',
      'sub/build/kept.txt': 'x',
      'sub/README.md': '# Sub\n',
      'sub/other.md': 'x',
      'sub/local.txt': 'x',
      'sub/deeper/local.txt': 'x',
      'sub/deeper/debug.log': 'x',
      'sub/deeper/logs/l.txt': 'x',
    });
    const result = await scan();
    expect(paths(result)).toEqual([
      '.gitignore',
      'keep.log',
      'logs',
      'notes.md',
      'sub/.gitignore',
      // Code-point order: capitals before lower case.
      'sub/README.md',
      'sub/build/kept.txt',
      'sub/deeper/local.txt',
      'sub/only-root.txt',
    ]);
    expect(result.dirs).toEqual(['', 'sub', 'sub/build', 'sub/deeper']);
    expect(result.skipped).toEqual([
      { path: 'a.log', reason: 'gitignored', detail: 'ignored by the rule "*.log" in .gitignore (line 1)' },
      { path: 'build', reason: 'gitignored', detail: 'ignored by the rule "build/" in .gitignore (line 4)' },
      { path: 'only-root.txt', reason: 'gitignored', detail: 'ignored by the rule "/only-root.txt" in .gitignore (line 3)' },
      { path: 'sub/deeper/debug.log', reason: 'gitignored', detail: 'ignored by the rule "*.log" in .gitignore (line 1)' },
      { path: 'sub/deeper/logs', reason: 'gitignored', detail: 'ignored by the rule "logs/" in .gitignore (line 5)' },
      { path: 'sub/local.txt', reason: 'gitignored', detail: 'ignored by the rule "/local.txt" in sub/.gitignore (line 4)' },
      { path: 'sub/other.md', reason: 'gitignored', detail: 'ignored by the rule "*.md" in sub/.gitignore (line 2)' },
    ]);
  });

  it('applies .git/info/exclude below the root .gitignore', async () => {
    await tree(root, {
      '.git/info/exclude': 'private.md\nshared.md\n',
      '.git/HEAD': 'ref: refs/heads/main\n',
      '.gitignore': '!shared.md\n',
      'private.md': 'x',
      'shared.md': 'x',
    });
    const result = await scan();
    expect(paths(result)).toEqual(['.gitignore', 'shared.md']);
    expect(skipsOf(result)['private.md']).toEqual({ path: 'private.md', reason: 'gitignored', detail: 'ignored by the rule "private.md" in .git/info/exclude (line 1)' });
    expect(reasons(result)['.git']).toBe('vcs-folder');
  });

  it('agrees with git itself on which files a repository ignores', async () => {
    await tree(root, {
      '.gitignore': ['*.log', '!keep.log', '/only-root.txt', 'build/', 'docs/**/*.tmp', '**/cache-*', 'a/**/z', '[abc]x.txt', '[!a-c]y.txt', '\\#hash.txt', 'trail.txt   ', '*.[oa]', 'logs/', 'deep/', '!deep/', 'out', 'name with space.txt', 'ü*.txt'].join('\n'),
      '.git/info/exclude': 'excluded-by-info.txt\n',
      'sub/.gitignore': '!build/\n*.md\n!README.md\n/local.txt\nnested/*.txt\n',
      'sub/deeper/.gitignore': '!*.md\n',
    });
    const files = [
      'a.log', 'keep.log', 'sub/keep.log', 'only-root.txt', 'sub/only-root.txt', 'build/x.txt', 'sub/build/x.txt', 'docs/a.tmp',
      'docs/x/y/b.tmp', 'docs/c.txt', 'cache-1/f.txt', 'q/cache-2.txt', 'a/z', 'a/b/c/z', 'a/zz', 'ax.txt', 'dx.txt', 'ay.txt', 'dy.txt',
      '#hash.txt', 'trail.txt', 'm.o', 'm.a', 'm.c', 'logs', 'x/logs/l.txt', 'deep/d.txt', 'out/o.txt', 'x/out', 'sub/README.md',
      'sub/other.md', 'sub/local.txt', 'sub/q/local.txt', 'sub/nested/n.txt', 'sub/nested/deeper/n.txt', 'sub/deeper/m.md',
      'excluded-by-info.txt', 'name with space.txt', 'üx.txt', 'A.LOG', 'x/build', 'plain.txt',
    ];
    await tree(root, Object.fromEntries(files.map((f) => [f, 'text\n'])));
    execFileSync('git', ['init', '-q', '--template=', root]);
    await writeFile(join(root, '.git/info/exclude'), 'excluded-by-info.txt\n');
    const git = execFileSync('git', ['-c', 'core.quotePath=off', '-c', 'core.ignorecase=false', 'ls-files', '-z', '--others', '--exclude-standard'], { cwd: root })
      .toString('utf8')
      .split('\0')
      .filter(Boolean)
      .sort();
    const ours = paths(await scan()).sort();
    expect(ours).toEqual(git);
    // A sanity check on the comparison itself: both sides did ignore things.
    expect(ours.length).toBeLessThan(files.length);
  });
});

describe('scanFolder: skipped folders', () => {
  it('skips VCS, dependency and cache folders with one skip each and never reads inside them', async () => {
    await tree(root, {
      'README.md': '# x\n',
      '.git/config': '[core]\n',
      '.hg/store/data': 'x',
      'CVS/Entries': 'x',
      'node_modules/left-pad/index.js': 'module.exports = 1;\n',
      'web/node_modules/react/index.js': 'x',
      'pkg/__pycache__/m.cpython-311.pyc': 'x',
      'env/pyvenv.cfg': 'home = /usr/bin\n',
      'env/lib/site.py': 'x',
      '.venv/lib/x.py': 'x',
      '.yarn/cache/pkg.zip': 'x',
      '.yarn/releases/yarn.cjs': '// yarn\n',
      '.cache/tool/state.json': '{}',
      'vendor/lib.go': 'package lib\n',
      'dist/index.html': '<p>docs</p>\n',
      'build-output/.gitignore': '',
      'ignored/inside.txt': 'x',
      '.gitignore': 'ignored/\n',
    });
    // Anything read inside these would show up as a skip of its own.
    execFileSync('mkfifo', [join(root, 'node_modules/left-pad/pipe'), join(root, 'ignored/pipe'), join(root, 'env/lib/pipe')]);
    await symlink('/nonexistent/target', join(root, 'node_modules/dangling'));
    await writeFile(join(root, 'node_modules/blob.txt'), Buffer.alloc(64));

    const result = await scan();
    expect(result.skipped.map((s) => [s.path, s.reason])).toEqual([
      ['.cache', 'dependency-folder'],
      ['.git', 'vcs-folder'],
      ['.hg', 'vcs-folder'],
      ['.venv', 'dependency-folder'],
      ['.yarn/cache', 'dependency-folder'],
      ['CVS', 'vcs-folder'],
      ['env', 'dependency-folder'],
      ['ignored', 'gitignored'],
      ['node_modules', 'dependency-folder'],
      ['pkg/__pycache__', 'dependency-folder'],
      ['web/node_modules', 'dependency-folder'],
    ]);
    expect(skipsOf(result)['node_modules']?.detail).toBe('dependency folder: installed npm packages (node_modules)');
    expect(skipsOf(result)['env']?.detail).toBe('dependency folder: a Python virtual environment (holds pyvenv.cfg)');
    expect(skipsOf(result)['.git']?.detail).toBe('Git metadata folder (.git): version history is not content');
    expect(paths(result)).toEqual(['.gitignore', '.yarn/releases/yarn.cjs', 'README.md', 'build-output/.gitignore', 'dist/index.html', 'vendor/lib.go']);
    expect(result.dirs).toEqual(['', '.yarn', '.yarn/releases', 'build-output', 'dist', 'pkg', 'vendor', 'web']);
  });

  it('does not skip the root by its name', async () => {
    const modules = join(tmp, 'node_modules');
    await tree(modules, { 'index.js': 'x' });
    expect(paths(await scan({}, modules))).toEqual(['index.js']);
  });
});

describe('scanFolder: files by content and size', () => {
  it('skips binary content whatever the name, names known formats, and keeps text, UTF-16, PDFs and empty files', async () => {
    await tree(root, {
      'notes.txt': Buffer.concat([Buffer.from('looks like text'), Buffer.alloc(32), Buffer.from('but is not')]),
      'logo.png': PNG,
      'picture.txt': PNG,
      'program': Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), Buffer.alloc(56)]),
      'windows.txt': Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Hello from Notepad\r\n', 'utf16le')]),
      'paper.pdf': '%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj << >> endobj\n',
      'pkg/__init__.py': '',
      'latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]),
      'Makefile': 'all:\n\techo hi\n',
    });
    const result = await scan();
    expect(paths(result)).toEqual(['Makefile', 'latin1.txt', 'paper.pdf', 'pkg/__init__.py', 'windows.txt']);
    expect(result.skipped).toEqual([
      { path: 'logo.png', reason: 'binary', detail: 'binary content (PNG image)' },
      { path: 'notes.txt', reason: 'binary', detail: 'binary content (a NUL byte at offset 15)' },
      { path: 'picture.txt', reason: 'binary', detail: 'binary content (PNG image)' },
      { path: 'program', reason: 'binary', detail: 'binary content (ELF executable)' },
    ]);
    const empty = result.files.find((f) => f.relPath === 'pkg/__init__.py')!;
    expect(empty.size).toBe(0);
    expect(empty.head.length).toBe(0);
  });

  it('skips files over the cap with the size in the detail, keeps one exactly at the cap, and hands on the head', async () => {
    const cap = 20_000;
    await tree(root, { 'big.txt': 'x'.repeat(cap + 1), 'edge.txt': 'y'.repeat(cap), 'small.md': '# Hi\n' });
    const result = await scan({ maxFileBytes: cap });
    expect(paths(result)).toEqual(['edge.txt', 'small.md']);
    expect(result.skipped).toEqual([{ path: 'big.txt', reason: 'too-large', detail: '20 KiB (20001 bytes) is over the 20 KiB limit for one file' }]);
    const [edge, small] = result.files;
    expect(edge).toMatchObject({ path: join(root, 'edge.txt'), relPath: 'edge.txt', size: cap });
    expect(edge!.head.length).toBe(HEAD_BYTES);
    expect(Buffer.from(edge!.head).toString()).toBe('y'.repeat(HEAD_BYTES));
    expect(Buffer.from(small!.head).toString()).toBe('# Hi\n');
    expect(small!.mtimeMs).toBeGreaterThan(0);
  });
});

describe('scanFolder: links and special files', () => {
  async function linkTree(): Promise<void> {
    await tree(root, {
      '.gitignore': 'hidden/\n',
      'docs/guide.md': '# Guide\n',
      'hidden/secret-notes.md': '# Reachable only through a link\n',
      'real.md': '# Real\n',
    });
    await tree(tmp, { 'outside/file.md': '# Outside\n' });
    await symlink('real.md', join(root, 'alias.md'));
    await symlink('hidden', join(root, 'shown'));
    await symlink('docs', join(root, 'docs-again'));
    await symlink('..', join(root, 'docs/up'));
    await symlink('../outside', join(root, 'out-dir'));
    await symlink('../outside/file.md', join(root, 'out-file.md'));
    await symlink('missing.md', join(root, 'dangling.md'));
    await symlink('self', join(root, 'self'));
    await symlink('../hidden/secret-notes.md', join(root, 'docs/secret.md'));
  }

  it('follows links that stay inside the root, once per target, and explains every other link', async () => {
    await linkTree();
    const result = await scan();
    expect(paths(result)).toEqual(['.gitignore', 'docs/guide.md', 'docs/secret.md', 'real.md']);
    // `shown` leads into the ignored `hidden/`; its only file was already taken through 'docs/secret.md'.
    expect(result.dirs).toEqual(['', 'docs', 'shown']);
    expect(result.files.find((f) => f.relPath === 'docs/secret.md')?.path).toBe(join(root, 'docs/secret.md'));
    expect(result.skipped).toEqual([
      { path: 'alias.md', reason: 'symlink-loop', detail: 'symbolic link to "real.md", a file already included as "real.md"' },
      { path: 'dangling.md', reason: 'broken-symlink', detail: 'symbolic link to "missing.md" points to nothing' },
      { path: 'docs/up', reason: 'symlink-loop', detail: 'symbolic link to the root folder, a folder that contains the link: following it would never end' },
      { path: 'docs-again', reason: 'symlink-loop', detail: 'symbolic link to "docs", a folder already included as "docs"' },
      { path: 'hidden', reason: 'gitignored', detail: 'ignored by the rule "hidden/" in .gitignore (line 1)' },
      { path: 'out-dir', reason: 'symlink-outside', detail: `symbolic link to "${join(tmp, 'outside')}", which is outside the ingested folder` },
      { path: 'out-file.md', reason: 'symlink-outside', detail: `symbolic link to "${join(tmp, 'outside/file.md')}", which is outside the ingested folder` },
      { path: 'self', reason: 'symlink-loop', detail: 'symbolic link to "self" is part of a cycle of links' },
      { path: 'shown/secret-notes.md', reason: 'symlink-loop', detail: 'the same file as "docs/secret.md", which is already included' },
    ]);
  });

  it('walks a linked folder whose real place is excluded, and keeps a file reached twice to its first path', async () => {
    await tree(root, { '.gitignore': 'hidden/\n', 'hidden/a.md': '# A\n', 'hidden/sub/b.md': '# B\n' });
    await symlink('hidden', join(root, 'shown'));
    await symlink('hidden/a.md', join(root, 'a-link.md'));
    const result = await scan();
    expect(paths(result)).toEqual(['.gitignore', 'a-link.md', 'shown/sub/b.md']);
    expect(result.dirs).toEqual(['', 'shown', 'shown/sub']);
    expect(skipsOf(result)['shown/a.md']).toEqual({ path: 'shown/a.md', reason: 'symlink-loop', detail: 'the same file as "a-link.md", which is already included' });
  });

  it('follows links found inside followed folders, and settles overlapping links the same way every time', async () => {
    await tree(root, { '.gitignore': 'hidden/\n', 'hidden/top.md': '# Top\n', 'hidden/sub/c.md': '# C\n', 'real.md': '# Real\n' });
    await symlink('hidden', join(root, 'l1'));
    await symlink('hidden/sub', join(root, 'l2'));
    await symlink('../real.md', join(root, 'hidden/twin.md'));
    await symlink('sub', join(root, 'hidden/again'));
    const result = await scan();
    expect(paths(result)).toEqual(['.gitignore', 'l1/top.md', 'l2/c.md', 'real.md']);
    expect(result.dirs).toEqual(['', 'l1', 'l2']);
    expect(result.skipped).toEqual([
      { path: 'hidden', reason: 'gitignored', detail: 'ignored by the rule "hidden/" in .gitignore (line 1)' },
      { path: 'l1/again', reason: 'symlink-loop', detail: 'symbolic link to "hidden/sub", a folder already included as "l2"' },
      { path: 'l1/sub', reason: 'symlink-loop', detail: 'the folder "l2" is already included through another path' },
      { path: 'l1/twin.md', reason: 'symlink-loop', detail: 'symbolic link to "real.md", a file already included as "real.md"' },
    ]);
    for (let i = 0; i < 3; i++) expect(await scan()).toEqual(result);
  });

  it('skips every link with its own reason when following is off', async () => {
    await linkTree();
    const result = await scan({ followSymlinks: false });
    expect(paths(result)).toEqual(['.gitignore', 'docs/guide.md', 'real.md']);
    const linkSkips = result.skipped.filter((s) => s.reason === 'symlink-not-followed');
    expect(linkSkips.map((s) => s.path)).toEqual(['alias.md', 'dangling.md', 'docs/secret.md', 'docs/up', 'docs-again', 'out-dir', 'out-file.md', 'self', 'shown']);
    expect(skipsOf(result)['alias.md']?.detail).toBe('symbolic link to "real.md" not followed: following links is turned off');
  });

  it('skips FIFOs and sockets as special files without opening them', async () => {
    await tree(root, { 'a.md': '# A\n' });
    execFileSync('mkfifo', [join(root, 'pipe')]);
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(join(root, 'sock'), resolve));
    try {
      await symlink('pipe', join(root, 'pipe-link'));
      const result = await scan();
      expect(paths(result)).toEqual(['a.md']);
      expect(result.skipped).toEqual([
        { path: 'pipe', reason: 'special-file', detail: 'a named pipe (FIFO), not a regular file' },
        { path: 'pipe-link', reason: 'special-file', detail: 'symbolic link to a named pipe (FIFO), not a regular file' },
        { path: 'sock', reason: 'special-file', detail: 'a socket, not a regular file' },
      ]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('scanFolder: acceptFile', () => {
  it('leaves out the files it does not accept without a skip, and still checks the ones it does', async () => {
    await tree(root, { 'main.go': 'package main\n', 'docs/guide.md': '# Guide\n', 'logo.png': PNG, 'blob.go': PNG, 'pkg/util.go': 'package pkg\n' });
    const result = await scan({ acceptFile: (rel) => rel.endsWith('.go') });
    expect(paths(result)).toEqual(['main.go', 'pkg/util.go']);
    expect(reasons(result)).toEqual({ 'blob.go': 'binary' });
    // Folders are still walked and listed: the accepted files below them are found.
    expect(result.dirs).toEqual(['', 'docs', 'pkg']);
    expect(paths(await scan())).toEqual(['docs/guide.md', 'main.go', 'pkg/util.go']);
  });
});

describe('scanFolder: names, order, roots', () => {
  it('handles odd names and sorts by path segments in code-point order', async () => {
    const names = ['a/b.md', 'a-b.md', 'a.md', 'line\nbreak.md', '-rf.md', ' lead and trail .md', 'café.md', 'cafe\u0301.md', '東京.md', '😀.md', '\uff5e.md', 'back\\slash.md', '#hash.md', 'Zed.md'];
    await tree(root, Object.fromEntries(names.map((n) => [n, `# ${n}\n`])));
    await writeFile(join(root, '.gitignore'), 'Zed.md\n');
    const result = await scan();
    expect(paths(result)).toEqual([
      ' lead and trail .md',
      '#hash.md',
      '-rf.md',
      '.gitignore',
      'a/b.md',
      'a-b.md',
      'a.md',
      'back\\slash.md',
      'cafe\u0301.md',
      'café.md',
      'line\nbreak.md',
      '東京.md',
      '\uff5e.md',
      '😀.md',
    ]);
    for (const file of result.files) expect(Buffer.from(file.head).toString()).toBe(file.relPath === '.gitignore' ? 'Zed.md\n' : `# ${file.relPath}\n`);
    expect(result.skipped).toEqual([{ path: 'Zed.md', reason: 'gitignored', detail: 'ignored by the rule "Zed.md" in .gitignore (line 1)' }]);
  });

  it('scans a single-file root as that one file', async () => {
    await tree(root, { 'note.md': '# One\n', 'image.png': PNG });
    const single = await scan({}, join(root, 'note.md'));
    expect(single).toMatchObject({ root: join(root, 'note.md'), dirs: [], skipped: [] });
    expect(single.files).toMatchObject([{ path: join(root, 'note.md'), relPath: 'note.md', size: 6 }]);
    const binary = await scan({}, join(root, 'image.png'));
    expect(binary.files).toEqual([]);
    expect(binary.skipped).toEqual([{ path: 'image.png', reason: 'binary', detail: 'binary content (PNG image)' }]);
  });

  it('resolves the root to its real path', async () => {
    await tree(root, { 'a.md': '# A\n' });
    await symlink(root, join(tmp, 'root-link'));
    const result = await scan({ followSymlinks: false }, join(tmp, 'root-link'));
    expect(result.root).toBe(root);
    expect(result.files[0]?.path).toBe(join(root, 'a.md'));
  });

  it('refuses a root that does not exist', async () => {
    const error = await scan({}, join(tmp, 'nope')).catch((e: unknown) => e);
    expect(CairnError.is(error, 'NOT_FOUND')).toBe(true);
    expect((error as Error).message).toContain('nope');
  });

  it('gives the same result on every run, and reports progress that ends on the totals', async () => {
    const files: Record<string, string> = {};
    for (let d = 0; d < 20; d++) for (let f = 0; f < 25; f++) files[`d${d}/sub${f % 3}/f${f}.md`] = `# ${d}/${f}\n`.repeat(f + 1);
    await tree(root, { ...files, '.gitignore': 'sub2/\n', 'blob.bin': PNG });
    await symlink('d1', join(root, 'd1-link'));
    await symlink('d3/sub0/f0.md', join(root, 'f-link.md'));
    const progress: { files: number; bytes: number }[] = [];
    const logger = memoryLogger();
    const first = await scan({ logger, onProgress: (p) => progress.push({ files: p.files, bytes: p.bytes }) });
    const second = await scan();
    expect(second).toEqual(first);
    expect(first.files.length).toBe(20 * 17 + 1);
    expect(progress.at(-1)).toEqual({ files: first.files.length, bytes: first.files.reduce((s, f) => s + f.size, 0) });
    expect(logger.lines.at(-1)?.message).toBe(`Scanned ${root}: ${first.files.length} files, ${first.dirs.length} folders, ${first.skipped.length} skipped`);
    // Some paths must differ so that the comparison above means something.
    expect(first.skipped.map((s: Skip) => s.reason)).toContain('gitignored');
  });
});

describe('scanFolder: cancellation', () => {
  it('throws CANCELLED for a signal aborted before the start', async () => {
    await tree(root, { 'a.md': '# A\n' });
    const error = await scan({ signal: AbortSignal.abort() }).catch((e: unknown) => e);
    expect(CairnError.is(error, 'CANCELLED')).toBe(true);
  });

  it('throws CANCELLED when aborted mid-scan', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 2000; i++) files[`d${i % 40}/f${i}.md`] = `# ${i}\n`;
    await tree(root, files);
    const controller = new AbortController();
    let calls = 0;
    const error = await scan({
      signal: controller.signal,
      onProgress: () => {
        calls++;
        controller.abort();
      },
    }).catch((e: unknown) => e);
    expect(CairnError.is(error, 'CANCELLED')).toBe(true);
    expect(calls).toBe(1);
  });
});
