// Skeleton pass over Go's standard library on all cores, against `repomix --compress` on the same
// files: wall time and peak RSS of each, both as a whole process measured the same way.
//
// Run alone (`node bench/skeleton.mjs [tree]`) or from bench/run.mjs (default export). The tree
// is $CAIRN_BENCH_GO_TREE, an argument, or the newest golang-src under /usr/share.
//
// The skeleton pass runs as its own process (`node bench/skeleton.mjs --pass TREE`) so that its
// peak RSS is its own: the main thread lists the .go files and hands batches of paths to one
// worker thread per core; each worker loads the runtime and the Go grammar once, reads, extracts
// and renders each file. repomix runs with `--include "**/*.go"` so both handle the same files.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { bundlePath, bundleTs } from './lib/bundle.mjs';
import { goTree, repomixBin } from './lib/repomix.mjs';
import { timed } from './lib/measure.mjs';

const BUNDLE = bundlePath('bench-skeleton');
const BATCH = 32;

function listGoFiles(dir, out = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) listGoFiles(path, out);
    else if (entry.isFile() && entry.name.endsWith('.go')) out.push(path);
  }
  return out;
}

function bundleSkeleton() {
  return bundleTs('bench-skeleton', [{ from: './main/engine/parse/skeleton/index.ts', names: ['extractSkeleton', 'renderSkeleton', 'countLines'] }]);
}

/** Worker thread: extracts and renders each file of each batch it is sent. */
async function worker() {
  const sk = await import(pathToFileURL(workerData.bundle).href);
  parentPort.on('message', async (paths) => {
    if (paths === null) {
      parentPort.close();
      return;
    }
    const stats = { files: 0, lines: 0, bytes: 0, definitions: 0, chars: 0, failed: 0 };
    for (const path of paths) {
      const text = readFileSync(path, 'utf8');
      stats.files++;
      stats.bytes += Buffer.byteLength(text);
      stats.lines += sk.countLines(text);
      try {
        const { skeleton } = await sk.extractSkeleton(path, text, 'go');
        stats.definitions += skeleton.functions.length + skeleton.classes.reduce((n, c) => n + 1 + c.methods.length, 0);
        stats.chars += sk.renderSkeleton(skeleton).length;
      } catch {
        stats.failed++;
      }
    }
    parentPort.postMessage(stats);
  });
}

/** The skeleton pass as a process: prints one JSON line of totals. */
async function pass(tree, threads) {
  const started = performance.now();
  const files = listGoFiles(tree);
  const queue = [];
  for (let i = 0; i < files.length; i += BATCH) queue.push(files.slice(i, i + BATCH));
  const totals = { files: 0, lines: 0, bytes: 0, definitions: 0, chars: 0, failed: 0 };
  await Promise.all(
    Array.from({ length: threads }, () => {
      const w = new Worker(fileURLToPath(import.meta.url), { workerData: { role: 'worker', bundle: BUNDLE } });
      return new Promise((resolve, reject) => {
        const next = () => w.postMessage(queue.shift() ?? null);
        w.on('message', (stats) => {
          for (const key of Object.keys(totals)) totals[key] += stats[key];
          next();
        });
        w.on('error', reject);
        w.on('exit', resolve);
        next();
      });
    }),
  );
  process.stdout.write(`${JSON.stringify({ ...totals, threads, ms: Math.round(performance.now() - started) })}\n`);
}

export default async function run(treeArg) {
  const tree = treeArg ?? goTree();
  if (!tree || !existsSync(tree)) throw new Error('no Go source tree: apt-get install -y golang-src, or set CAIRN_BENCH_GO_TREE');
  await bundleSkeleton();
  const threads = availableParallelism();
  const goFiles = listGoFiles(tree);
  const mb = goFiles.reduce((n, f) => n + statSync(f).size, 0) / 1048576;
  const rows = [];

  const ours = await timed(process.execPath, [fileURLToPath(import.meta.url), '--pass', tree, String(threads)]);
  if (ours.code !== 0) throw new Error(`skeleton pass failed: ${ours.stderr}`);
  const totals = JSON.parse(ours.stdout.trim().split('\n').pop());
  rows.push({ tool: `cairn skeleton (${threads} worker threads)`, files: totals.files, seconds: +(ours.ms / 1000).toFixed(2), peakRssMb: ours.peakRssMb, definitions: totals.definitions, outputKb: Math.round(totals.chars / 1024), failed: totals.failed });

  const repomix = repomixBin();
  let note = `${goFiles.length} .go files, ${mb.toFixed(1)} MB, ${totals.lines} lines; whole processes (node start-up included), peak RSS from GNU time over the process tree`;
  if (repomix) {
    const out = mkdtempSync(join(tmpdir(), 'cairn-bench-repomix-'));
    try {
      const theirs = await timed(process.execPath, [repomix.bin, '--compress', '--include', '**/*.go', '--quiet', '-o', join(out, 'repomix.xml'), tree]);
      if (theirs.code !== 0) throw new Error(`repomix failed: ${theirs.stderr.slice(-2000)}`);
      const output = statSync(join(out, 'repomix.xml')).size;
      rows.push({ tool: `repomix ${repomix.version} --compress`, files: goFiles.length, seconds: +(theirs.ms / 1000).toFixed(2), peakRssMb: theirs.peakRssMb, definitions: null, outputKb: Math.round(output / 1024), failed: null });
      note += `; cairn is ${(theirs.ms / ours.ms).toFixed(1)}× faster at ${((ours.peakRssMb / theirs.peakRssMb) * 100).toFixed(0)}% of repomix's peak RSS`;
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  } else note += '; repomix could not be installed through npx, so it was not run';
  return { name: 'skeleton', tree, rows, note };
}

if (!isMainThread && workerData?.role === 'worker') await worker();
else if (process.argv[2] === '--pass') await pass(process.argv[3], Number(process.argv[4] ?? availableParallelism()));
else if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const result = await run(process.argv[2]);
  console.log(`## ${result.name} (${result.tree})\n${result.note}`);
  console.table(result.rows);
}
