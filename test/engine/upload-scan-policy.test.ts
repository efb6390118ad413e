/**
 * An uploaded folder gives the tree an ingest of the same folder by path gives (issue 21 item 3):
 * the page leaves out what the scan would (`.gitignore` and `.git/info/exclude` rules, version-
 * control and dependency folders, virtual environments), the host's ingest of the upload applies
 * the scan again. Symbolic links are the one thing a page cannot see: a browser that skips them
 * (Chromium's drop) gives the same tree; one that reads them as plain files (a folder picker)
 * gives those files too, and only those. Real web host, real uploads, real engine.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../main/engine/engine.js';
import { inProcessParseRunner } from '../../main/engine/parse/runner.js';
import type { EngineConnection } from '../../main/host/engine-connection.js';
import { createUploads } from '../../main/host/upload.js';
import { startWebHost, type WebHost } from '../../main/host/web-host.js';
import { CairnError } from '../../shared/errors.js';
import { uploadFolder, type PickedFolder } from '../../renderer/features/upload/upload-client.js';

const TOKEN = 'policy-token-0123456789abcdefghijklmnopqrst';
let tmp: string;
let folder: string;
let engine: Engine;
let host: WebHost;

beforeEach(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'cairn-upload-policy-'));
  folder = join(tmp, 'harbour');
  const put = async (rel: string, text: string) => {
    await mkdir(join(folder, rel, '..'), { recursive: true });
    await writeFile(join(folder, rel), text);
  };
  await put('README.md', '# Harbour\n\nTide tables and gauge notes.\n');
  await put('docs/gauges.md', '# Gauges\n\nThe north gauge reads 3.2 m.\n');
  await put('.gitignore', '*.log\nbuild/\n');
  await put('docs/.gitignore', 'draft-*.md\n');
  await put('docs/draft-storm.md', 'not yet\n');
  await put('app.log', 'a log\n');
  await put('build/out.md', '# Built\n');
  await put('node_modules/tide/index.js', 'module.exports = 1;\n');
  await put('.git/HEAD', 'ref: refs/heads/main\n');
  await put('.git/info/exclude', 'private.md\n');
  await put('private.md', 'kept out by the repository exclude\n');
  await put('env/pyvenv.cfg', 'home = /usr/bin\n');
  await put('env/lib/site.py', 'print(1)\n');
  await writeFile(join(tmp, 'outside.md'), '# Outside\n\nNot in the folder.\n');
  // A link to a file already in the folder, and one out of it: the scan takes neither.
  await symlink('gauges.md', join(folder, 'docs', 'latest.md'));
  await symlink(join(tmp, 'outside.md'), join(folder, 'outside.md'));

  engine = await createEngine({ workspace: join(tmp, 'ws'), parser: inProcessParseRunner() });
  await mkdir(join(tmp, 'renderer'));
  await writeFile(join(tmp, 'renderer', 'index.html'), '<!doctype html><title>Cairn</title>');
  const connection: EngineConnection = {
    subscribe: () => () => {},
    call: async (command) => {
      throw new CairnError('NOT_FOUND', `no ${command} here`);
    },
  };
  host = await startWebHost({ engine: connection, rendererDir: join(tmp, 'renderer'), token: TOKEN, uploads: createUploads({ dir: join(tmp, 'ws', 'uploads') }) });
});

afterEach(async () => {
  await host.close();
  await engine.dispose();
  await rm(tmp, { recursive: true, force: true });
});

/** The folder as a browser hands it to the page: every file, links read through (followLinks) or not listed at all. */
async function asBrowserSees(root: string, followLinks: boolean): Promise<PickedFolder> {
  const files: PickedFolder['files'] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile() || (entry.isSymbolicLink() && followLinks)) files.push({ path: relative(root, path), file: new File([await readFile(path)], entry.name) });
    }
  };
  await walk(root);
  return { name: 'harbour', files };
}

const pageFetch: typeof fetch = (input, init) => fetch(`${host.origin}${String(input)}`, { ...init, headers: { ...(init?.headers as Record<string, string>), Origin: host.origin } });

/** Every file node of a tree, relative to its root. */
async function nodesOf(root: string): Promise<string[]> {
  const { root: tree } = await engine.call('fs:tree', { uri: root });
  const out: string[] = [];
  const visit = (node: { uri: string; kind: string; children?: unknown[] }) => {
    if (node.kind === 'file') out.push(node.uri.slice(root.length));
    for (const child of (node.children ?? []) as (typeof node)[]) visit(child);
  };
  visit(tree);
  return out.sort();
}

describe('upload and ingest by path apply one policy', () => {
  it('give the same nodes, and the page sends nothing the scan would leave out', async () => {
    const byPath = await engine.call('ingest:start', { path: folder, options: { name: 'by-path' } });
    const pathNodes = await nodesOf(byPath.root);
    expect(pathNodes).toEqual(['.gitignore', 'docs/.gitignore', 'docs/gauges.md', 'README.md'].sort());

    const sent = await uploadFolder(await asBrowserSees(folder, false), { token: TOKEN, fetch: pageFetch });
    expect(sent.failures).toEqual([]);
    expect(sent.sent.sort()).toEqual(['.gitignore', 'docs/.gitignore', 'docs/gauges.md', 'README.md'].sort());
    expect(sent.leftOut.map((s) => [s.path, s.reason]).sort()).toEqual(
      [
        ['.git', 'vcs-folder'],
        ['app.log', 'gitignored'],
        ['build', 'gitignored'],
        ['docs/draft-storm.md', 'gitignored'],
        ['env', 'dependency-folder'],
        ['node_modules', 'dependency-folder'],
        ['private.md', 'gitignored'],
      ].sort(),
    );
    // Nothing of .git/, node_modules/ or the ignored files reached the host.
    const uploaded = (await readdir(sent.path, { recursive: true })).map(String).sort();
    expect(uploaded).toEqual(['.gitignore', 'README.md', 'docs', 'docs/.gitignore', 'docs/gauges.md']);

    const byUpload = await engine.call('ingest:start', { path: sent.path, options: { name: 'by-upload' } });
    expect(await nodesOf(byUpload.root)).toEqual(pathNodes);
  });

  it('keeps as plain files only the links a browser read through, which no page can tell from files', async () => {
    const byPath = await engine.call('ingest:start', { path: folder, options: { name: 'by-path' } });
    expect(byPath.skipped.map((s) => [s.path, s.reason]).filter(([, reason]) => reason!.startsWith('symlink'))).toEqual([
      ['docs/latest.md', 'symlink-loop'],
      ['outside.md', 'symlink-outside'],
    ]);
    const sent = await uploadFolder(await asBrowserSees(folder, true), { token: TOKEN, fetch: pageFetch });
    const byUpload = await engine.call('ingest:start', { path: sent.path, options: { name: 'by-upload' } });
    expect(await nodesOf(byUpload.root)).toEqual([...(await nodesOf(byPath.root)), 'docs/latest.md', 'outside.md'].sort());
  });
});
