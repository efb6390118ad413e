// The index on disk against the text it holds (issue 20), with the built CLI on a real tree: after
// an ingest, after a re-ingest with a few files changed, after 3 reindexes, and the time of a
// re-ingest of the unchanged tree (which must stay fast: cleanup only runs after writes).
// Tree: $CAIRN_BENCH_TREE, else /usr/share/doc/git (Debian's git docs), copied to a temp folder
// first so that files can be changed. Needs `npm run build:main`.
//
// "text" is the text the index holds (its `text` column: every L0, L1 and L2 record), "source"
// what the ingest read (the bytes it reports). Bytes are the files under .cairn/index, as
// `du --apparent-size` counts them without folders.
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { measure } from './lib/measure.mjs';
import { ROOT } from './lib/bundle.mjs';

const CLI = join(ROOT, 'dist-main/cli.js');
const tree = [process.env.CAIRN_BENCH_TREE, '/usr/share/doc/git'].filter(Boolean).find((path) => existsSync(path));

function walk(dir, visit) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      visit(path, true);
      walk(path, visit);
    } else visit(path, false);
  }
}

/** Bytes of the files under the index, its versions, data files and index folders, and the bytes of the text it holds. */
async function inspect(workspace) {
  const uri = join(workspace, '.cairn/index');
  let bytes = 0;
  walk(uri, (path, isDir) => {
    if (!isDir) bytes += statSync(path).size;
  });
  const folder = (name) => readdirSync(join(uri, 'context.lance', name)).length;
  const db = await lancedb.connect(uri);
  const table = await db.openTable('context');
  try {
    const rows = await table.query().select(['text']).toArray();
    return {
      rows: rows.length,
      textBytes: rows.reduce((sum, row) => sum + Buffer.byteLength(row.text), 0),
      bytes,
      versions: (await table.listVersions()).length,
      dataFiles: folder('data'),
      indexFolders: folder('_indices'),
    };
  } finally {
    table.close();
    db.close();
  }
}

/** Appends a line to the first `count` text files of the tree (sorted by path), so a re-ingest has changes to write. */
function changeFiles(dir, count) {
  const files = [];
  walk(dir, (path, isDir) => {
    if (!isDir && /\.(txt|html|md|adoc|sh|perl|py)$/i.test(path)) files.push(path);
  });
  for (const path of files.sort().slice(0, count)) writeFileSync(path, `${readFileSync(path, 'utf8')}\nChanged for the index-size bench.\n`);
  return Math.min(count, files.length);
}

export default async function run() {
  if (!tree) throw new Error('No tree: set CAIRN_BENCH_TREE or install git (its docs are in /usr/share/doc/git)');
  if (!existsSync(CLI)) throw new Error('Build the CLI first: npm run build:main');
  const scratch = mkdtempSync(join(tmpdir(), 'cairn-bench-index-size-'));
  const source = join(scratch, 'tree');
  const workspace = join(scratch, 'workspace');
  // Symlinks are kept as links (the ingest skips those leading outside the tree, as on the original).
  cpSync(tree, source, { recursive: true, verbatimSymlinks: true });
  const env = { ...process.env };
  delete env.CAIRN_EMBED_MODEL;
  delete env.CAIRN_INDEX_URI;
  const cairn = async (...args) => {
    const result = await measure(process.execPath, [CLI, ...args, '--workspace', workspace, '--json'], { env });
    if (result.code !== 0) throw new Error(`cairn ${args[0]} failed: ${result.stderr}`);
    return { ms: result.ms, output: JSON.parse(result.stdout) };
  };
  const rows = [];
  let sourceBytes = 0;
  const record = async (step, ms) => {
    const index = await inspect(workspace);
    rows.push({
      step,
      seconds: +(ms / 1000).toFixed(2),
      records: index.rows,
      textMb: +(index.textBytes / 1e6).toFixed(2),
      indexMb: +(index.bytes / 1e6).toFixed(2),
      perText: +(index.bytes / index.textBytes).toFixed(2),
      perSource: +(index.bytes / sourceBytes).toFixed(2),
      versions: index.versions,
      dataFiles: index.dataFiles,
      indexFolders: index.indexFolders,
    });
  };
  try {
    const ingest = await cairn('ingest', source, '--no-progress');
    sourceBytes = ingest.output.bytes;
    await record('ingest', ingest.ms);
    const changed = changeFiles(source, 5);
    const reingest = await cairn('ingest', source, '--no-progress');
    await record(`re-ingest, ${changed} files changed`, reingest.ms);
    for (let i = 1; i <= 3; i += 1) await record(`reindex ${i}`, (await cairn('reindex')).ms);
    await record('re-ingest, unchanged', (await cairn('ingest', source, '--no-progress')).ms);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return {
    name: 'index-size',
    tree,
    rows,
    note: `source: ${(sourceBytes / 1e6).toFixed(2)} MB read by the ingest; perText = index bytes / text it holds (L0+L1+L2), perSource = index bytes / source; whole CLI processes (close waits for the versions a run replaced to come of age)`,
  };
}
