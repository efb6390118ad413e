// The whole `cairn ingest` CLI (offline: extractive summaries, local embedder, LanceDB index)
// against `repomix --compress` on the same tree, alternated for several rounds so both see the
// same load: wall time, user+sys CPU and peak RSS of each process tree (GNU time), and the size
// on disk of Cairn's index next to the text it indexes (issue 20's goals: ≤ 2.0× repomix's wall,
// ≤ 1 GiB peak RSS, index ≤ 2× the text).
//
// Run from bench/run.mjs (`npm run bench ingest-vs-repomix`, which builds dist-main first) or alone
// (`node bench/ingest-vs-repomix.bench.mjs [tree]` after `npm run build:main`). The tree is an
// argument, $CAIRN_BENCH_GO_TREE, or the newest golang-src under /usr/share; rounds are
// $CAIRN_BENCH_ROUNDS (default 3).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROOT } from './lib/bundle.mjs';
import { timed } from './lib/measure.mjs';
import { goTree, repomixBin } from './lib/repomix.mjs';

const CLI = join(ROOT, 'dist-main/cli.js');

/** Bytes on disk under `path` (du: what the index really takes, sparse or not). */
function diskBytes(path) {
  return Number(execFileSync('du', ['-sb', path], { encoding: 'utf8' }).split('\t')[0]);
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** One offline ingest of `tree` into a new workspace; the LLM settings of the environment are left out. */
async function cairnRound(tree) {
  const workspace = mkdtempSync(join(tmpdir(), 'cairn-bench-ingest-'));
  try {
    const env = { ...process.env, OPENAI_API_KEY: '', OPENAI_BASE_URL: '', LANCEDB_LOG: 'error' };
    const run = await timed(process.execPath, [CLI, 'ingest', tree, '--workspace', workspace, '--no-progress', '--json'], { env });
    if (run.code !== 0) throw new Error(`cairn ingest failed: ${run.stderr.slice(-2000)}`);
    const result = JSON.parse(run.stdout);
    return { ...run, files: result.files, textBytes: result.bytes, tokens: result.tokens, indexBytes: diskBytes(join(workspace, '.cairn/index')) };
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}

async function repomixRound(repomix, tree) {
  const out = mkdtempSync(join(tmpdir(), 'cairn-bench-repomix-'));
  try {
    const run = await timed(process.execPath, [repomix.bin, '--compress', '--quiet', '-o', join(out, 'repomix.xml'), tree]);
    if (run.code !== 0) throw new Error(`repomix failed: ${run.stderr.slice(-2000)}`);
    return { ...run, outputBytes: statSync(join(out, 'repomix.xml')).size };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

export default async function run(treeArg) {
  const tree = treeArg ?? goTree();
  if (!tree || !existsSync(tree)) throw new Error('no Go source tree: apt-get install -y golang-src, or set CAIRN_BENCH_GO_TREE');
  if (!existsSync(CLI)) throw new Error('dist-main/cli.js is missing: run npm run build:main');
  const rounds = Number(process.env.CAIRN_BENCH_ROUNDS ?? 3);
  const repomix = repomixBin();
  const rows = [];
  const ours = [];
  const theirs = [];
  for (let round = 1; round <= rounds; round++) {
    const load = loadavg()[0].toFixed(1);
    const cairn = await cairnRound(tree);
    ours.push(cairn);
    rows.push({ round, tool: 'cairn ingest', load, wallS: +(cairn.ms / 1000).toFixed(1), cpuS: cairn.cpuSeconds, peakRssMb: cairn.peakRssMb, indexMb: +(cairn.indexBytes / 1048576).toFixed(1), indexPerText: +(cairn.indexBytes / cairn.textBytes).toFixed(2) });
    if (!repomix) continue;
    const other = await repomixRound(repomix, tree);
    theirs.push(other);
    rows.push({ round, tool: `repomix ${repomix.version} --compress`, load, wallS: +(other.ms / 1000).toFixed(1), cpuS: other.cpuSeconds, peakRssMb: other.peakRssMb, indexMb: null, indexPerText: null });
  }
  const first = ours[0];
  let note = `${tree}: ${first.files} files, ${(first.textBytes / 1048576).toFixed(1)} MB of text, ${first.tokens} tokens; ${rounds} alternated rounds, whole processes, GNU time over the process tree`;
  const wall = median(ours.map((r) => r.ms));
  note += `; cairn median ${(wall / 1000).toFixed(1)} s wall, ${median(ours.map((r) => r.cpuSeconds ?? 0)).toFixed(1)} s CPU, ${Math.max(...ours.map((r) => r.peakRssMb))} MB peak`;
  if (theirs.length > 0) note += `; ${(wall / median(theirs.map((r) => r.ms))).toFixed(2)}× repomix's median wall (goal ≤ 2.0)`;
  else note += '; repomix could not be installed through npx, so it was not run';
  return { name: 'ingest-vs-repomix', tree, rows, note };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const result = await run(process.argv[2]);
  console.log(`## ${result.name} (${result.tree})\n${result.note}`);
  console.table(result.rows);
}
