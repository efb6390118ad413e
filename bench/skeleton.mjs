// `cairn skeleton` over Go's standard library against `repomix --compress` on the same files,
// both timed as the commands people run: whole processes under GNU time (wall, user+sys CPU,
// peak RSS of the process tree), alternated for $CAIRN_BENCH_ROUNDS rounds (default 3) so both
// see the same load. Issue 20's goal: cairn ≥ 3× faster than repomix at ≤ 0.5× its peak RSS.
//
// The same files: the tree's .go files are copied into a temporary folder first (repomix ran with
// `--include "**/*.go"` before; `cairn skeleton` reads every language it knows), and both write
// their output to a file. Run alone (`node bench/skeleton.mjs [tree]` after `npm run build:main`)
// or from bench/run.mjs. The tree is an argument, $CAIRN_BENCH_GO_TREE, or the newest golang-src.
import { closeSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROOT } from './lib/bundle.mjs';
import { goTree, repomixBin } from './lib/repomix.mjs';
import { timed } from './lib/measure.mjs';

const CLI = join(ROOT, 'dist-main/cli.js');

function listGoFiles(dir, out = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) listGoFiles(path, out);
    else if (entry.isFile() && entry.name.endsWith('.go')) out.push(path);
  }
  return out;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Runs a command with its stdout going to `outFile`; returns GNU time's figures and the output's size. */
async function run(args, outFile, stdoutToFile) {
  const fd = stdoutToFile ? openSync(outFile, 'w') : null;
  try {
    const result = await timed(process.execPath, args, { stdio: ['ignore', fd ?? 'pipe', 'pipe'], env: { ...process.env, LANCEDB_LOG: 'error' } });
    if (result.code !== 0) throw new Error(`${args.slice(0, 2).join(' ')} failed: ${result.stderr.slice(-2000)}`);
    return { ...result, outputBytes: statSync(outFile).size };
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

export default async function runBench(treeArg) {
  const tree = treeArg ?? goTree();
  if (!tree || !existsSync(tree)) throw new Error('no Go source tree: apt-get install -y golang-src, or set CAIRN_BENCH_GO_TREE');
  if (!existsSync(CLI)) throw new Error('Build the CLI first: npm run build:main');
  const repomix = repomixBin();
  if (!repomix) throw new Error('repomix could not be installed through npx');
  const rounds = Math.max(1, Number(process.env.CAIRN_BENCH_ROUNDS ?? 3));
  const scratch = mkdtempSync(join(tmpdir(), 'cairn-bench-skeleton-'));
  try {
    const source = join(scratch, 'src');
    const goFiles = listGoFiles(tree);
    for (const file of goFiles) {
      const to = join(source, relative(tree, file));
      mkdirSync(dirname(to), { recursive: true });
      copyFileSync(file, to);
    }
    const mb = goFiles.reduce((n, f) => n + statSync(f).size, 0) / 1048576;
    const rows = [];
    const cairn = [];
    const theirs = [];
    for (let round = 1; round <= rounds; round += 1) {
      const load = loadavg()[0].toFixed(1);
      const ours = await run([CLI, 'skeleton', source], join(scratch, 'cairn.txt'), true);
      cairn.push(ours);
      rows.push({ round, tool: 'cairn skeleton', load, seconds: +(ours.ms / 1000).toFixed(2), cpuSeconds: ours.cpuSeconds, peakRssMb: ours.peakRssMb, outputKb: Math.round(ours.outputBytes / 1024) });
      const other = await run([repomix.bin, '--compress', '--quiet', '-o', join(scratch, 'repomix.xml'), source], join(scratch, 'repomix.xml'), false);
      theirs.push(other);
      rows.push({ round, tool: `repomix ${repomix.version} --compress`, load, seconds: +(other.ms / 1000).toFixed(2), cpuSeconds: other.cpuSeconds, peakRssMb: other.peakRssMb, outputKb: Math.round(other.outputBytes / 1024) });
    }
    const wall = median(theirs.map((r) => r.ms)) / median(cairn.map((r) => r.ms));
    const cpu = median(theirs.map((r) => r.cpuSeconds)) / median(cairn.map((r) => r.cpuSeconds));
    const rss = median(cairn.map((r) => r.peakRssMb)) / median(theirs.map((r) => r.peakRssMb));
    const note =
      `${goFiles.length} .go files, ${mb.toFixed(1)} MB, copied apart so both read the same files; whole processes under GNU time, alternated, ${rounds} round(s); ` +
      `medians: cairn ${wall.toFixed(2)}× faster (wall), ${cpu.toFixed(2)}× less CPU, at ${(rss * 100).toFixed(0)}% of repomix's peak RSS (goal ≥ 3× at ≤ 50%)`;
    return { name: 'skeleton', tree, rows, note };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const result = await runBench(process.argv[2]);
  console.log(`## ${result.name} (${result.tree})\n${result.note}`);
  console.table(result.rows);
}
