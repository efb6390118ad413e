// Counts the shapes of a tree's L0s after an ingest, for code trees (which the routing evaluation,
// a documentation benchmark, does not read): folder L0s taken from a package doc against lists of
// names, and file L0s that are a developer's note, one function's doc or the file's bare name.
// Usage: node scripts/l0-census.mjs [--cli dist-main/cli.js] WORKSPACE URI
// (ingest first: node dist-main/cli.js ingest DIR --workspace WORKSPACE)
import { execFileSync } from 'node:child_process';

const args = process.argv.slice(2);
const cliAt = args.indexOf('--cli');
const cli = cliAt >= 0 ? args.splice(cliAt, 2)[1] : 'dist-main/cli.js';
const [workspace, uri] = args;
if (!workspace || !uri) {
  console.error('usage: node scripts/l0-census.mjs [--cli dist-main/cli.js] WORKSPACE URI');
  process.exit(2);
}
const { root } = JSON.parse(execFileSync(process.execPath, [cli, 'tree', uri, '--workspace', workspace, '--json'], { maxBuffer: 1 << 30 }).toString());
const dirs = [];
const files = [];
const walk = (node) => {
  (node.kind === 'dir' ? dirs : files).push(node);
  for (const child of node.children ?? []) walk(child);
};
walk(root);
const l0 = (node) => (node.abstract ?? '').trim();
console.log(
  JSON.stringify({
    folders: dirs.length,
    files: files.length,
    folderPackageDoc: dirs.filter((d) => /^Package \S+ /.test(l0(d))).length,
    folderList: dirs.filter((d) => /^(Definitions|Documents)\b|^[\w ,]+(?:and \w+)?: [\w.-]+(?:\.go|\.py)?[;,] /.test(l0(d))).length,
    fileNote: files.filter((f) => /^(TODO|FIXME|XXX|NOTE|BUG)\b/.test(l0(f))).length,
    fileFunctionDoc: files.filter((f) => /\.go$/.test(f.name) && /^[a-z]\w+ (returns|is|reports|takes|sets|creates)\b/.test(l0(f))).length,
    fileBareName: files.filter((f) => l0(f) === f.name).length,
  }),
);
