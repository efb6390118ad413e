// Proves that the packaged desktop app keeps every feature: packages it for Linux into a folder
// with electron-builder, unpacks its app.asar, and runs the packaged engine under Node (the
// package's own dist-main/cli.js and node_modules) on a copy of assets/sample: `cairn skeleton`,
// an ingest (parse workers, code skeletons) and searches (LanceDB's native module, the local
// embedder's lexicon). The last line printed is one JSON object; the exit code is 1 when a feature is missing.
//
//   npm run package:check                    # builds everything, checks the UI is packaged too
//   npm run package:check -- --engine-only   # builds dist-main only; the UI is not checked
//   npm run package:check -- --no-build      # packages dist-main/ (and dist/) as they are
//   npm run package:check -- --keep          # leaves the temp folder for a look (path on stderr)
//
// Electron's binary cannot be downloaded everywhere: when node_modules/electron/dist holds no
// binary, a stand-in dist (a placeholder executable, LICENSE, version, resources/) is what
// electron-builder copies. The engine never runs in Electron's binary here, so that is enough.
import * as asar from '@electron/asar';
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const SAMPLE = join(ROOT, 'assets/sample');
const args = new Set(process.argv.slice(2));
const engineOnly = args.has('--engine-only');
const build = !args.has('--no-build');
const keep = args.has('--keep');

const work = mkdtempSync(join(tmpdir(), 'cairn-package-check-'));
const report = { electron: null, renderer: null, unpacked: false, sample: false, skeleton_files: 0, parse_errors: 0, ingest_skeletons: 0, index: false, lexicon: false, seconds: {}, problems: [] };
const problem = (text) => report.problems.push(text);

/** Runs a command to the end; its output is returned, its failure becomes a problem (one line). */
function run(label, command, commandArgs, options = {}) {
  const result = spawnSync(command, commandArgs, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
  if (result.status === 0) return result.stdout;
  const lines = `${result.stderr ?? ''}\n${result.stdout ?? ''}\n${result.error?.message ?? ''}`.split('\n').map((line) => line.trim()).filter(Boolean);
  problem(`${label} failed (exit ${result.status ?? result.signal}): ${lines.find((line) => /error/i.test(line)) ?? lines.at(-1) ?? 'no output'}`);
  return null;
}

function timed(name, step) {
  const started = performance.now();
  try {
    return step();
  } finally {
    report.seconds[name] = Math.round((performance.now() - started) / 100) / 10;
  }
}

/** node_modules/electron/dist when the real binary is there, else a stand-in dist in the temp folder. */
function electronDist() {
  const real = join(ROOT, 'node_modules/electron/dist');
  if (existsSync(join(real, process.platform === 'win32' ? 'electron.exe' : 'electron'))) {
    report.electron = 'real';
    return real;
  }
  report.electron = 'stand-in';
  const dist = join(work, 'electron-dist');
  mkdirSync(join(dist, 'resources'), { recursive: true });
  const version = JSON.parse(readFileSync(join(ROOT, 'node_modules/electron/package.json'), 'utf8')).version;
  writeFileSync(join(dist, 'electron'), '#!/bin/sh\necho "This is a stand-in for the Electron binary (scripts/package-check.mjs); it cannot run the app." >&2\nexit 1\n');
  chmodSync(join(dist, 'electron'), 0o755);
  writeFileSync(join(dist, 'version'), version);
  writeFileSync(join(dist, 'LICENSE'), 'Stand-in for the Electron dist: the real package ships Electron\'s MIT licence here.\n');
  return dist;
}

function pack() {
  if (build) {
    const built = engineOnly ? run('build:main', process.execPath, ['scripts/build-main.mjs'], { cwd: ROOT }) : run('build', 'npm', ['run', '-s', 'build'], { cwd: ROOT });
    if (built === null) return null;
  }
  if (!existsSync(join(ROOT, 'dist-main/cli.js'))) {
    problem('dist-main/cli.js is missing: run npm run build:main first');
    return null;
  }
  const output = join(work, 'release');
  const builder = join(ROOT, 'node_modules/electron-builder/cli.js');
  const config = [`-c.electronDist=${electronDist()}`, `-c.directories.output=${output}`];
  if (run('electron-builder', process.execPath, [builder, '--linux', 'dir', '--publish', 'never', ...config], { cwd: ROOT }) === null) return null;
  const unpackedDir = readdirSync(output).find((name) => name.startsWith('linux') && name.endsWith('unpacked'));
  const archive = unpackedDir && join(output, unpackedDir, 'resources/app.asar');
  if (!archive || !existsSync(archive)) {
    problem(`electron-builder wrote no app.asar under ${output}`);
    return null;
  }
  // The Help menu opens these with the OS's viewer (main/app/help-docs.ts).
  if (!existsSync(join(output, unpackedDir, 'resources/docs/README.md'))) problem('the package has no resources/docs/README.md for the Help menu (extraResources in electron-builder.yml)');
  return archive;
}

/**
 * Every native module and .wasm file must be outside the archive (worker threads read them with
 * plain fs calls), and so must the sample folder Home's "Try the sample" ingests (a scan walks it).
 */
function checkUnpacked(archive) {
  const packed = [];
  let count = 0;
  let samples = 0;
  const walk = (node, path) => {
    for (const [name, child] of Object.entries(node.files ?? {})) {
      const childPath = `${path}/${name}`;
      if (child.files) walk(child, childPath);
      else if (/\.(node|wasm)$/.test(name)) {
        count += 1;
        if (!child.unpacked) packed.push(childPath);
      } else if (childPath.startsWith('/dist-main/sample/')) {
        samples += 1;
        if (!child.unpacked) packed.push(childPath);
      }
    }
  };
  walk(asar.getRawHeader(archive).header, '');
  report.unpacked = count > 0 && packed.length === 0;
  report.sample = samples > 0 && !packed.some((path) => path.startsWith('/dist-main/sample/'));
  if (count === 0) problem('the package holds no .node or .wasm file');
  if (samples === 0) problem('the package holds no dist-main/sample (the folder Home\'s "Try the sample" ingests)');
  for (const path of packed.slice(0, 5)) problem(`${path} is inside app.asar; it must be unpacked (asarUnpack in electron-builder.yml)`);
}

/** The packaged CLI, under Node, in a folder outside the repository (nothing resolves from the repository's node_modules or assets). */
function cairn(app, label, cliArgs) {
  const env = { ...process.env };
  // Offline, whatever the calling shell has set: the package check needs no LLM.
  for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'CAIRN_LLM_MODEL', 'CAIRN_EMBED_MODEL', 'CAIRN_INDEX_URI', 'CAIRN_WORKSPACE', 'NODE_PATH']) delete env[name];
  const out = run(`cairn ${label}`, process.execPath, [join(app, 'dist-main/cli.js'), ...cliArgs, '--json'], { cwd: work, env });
  if (out === null) return null;
  try {
    return JSON.parse(out);
  } catch {
    problem(`cairn ${label} printed no JSON document`);
    return null;
  }
}

function checkEngine(app) {
  const ws = ['--workspace', join(work, 'workspace')];
  // The sample, plus four one-line notes for the lexicon: only WordNet links "automobile" to
  // "car", so a vector search for it can find the car note only through the lexicon.
  const sample = join(work, 'sample');
  cpSync(SAMPLE, sample, { recursive: true });
  mkdirSync(join(sample, 'lexicon-probe'));
  writeFileSync(join(sample, 'lexicon-probe/car.md'), 'The car would not start this morning, so I walked.\n');
  writeFileSync(join(sample, 'lexicon-probe/tax.md'), 'Quarterly tax forms are due on Friday.\n');
  writeFileSync(join(sample, 'lexicon-probe/soup.md'), 'The soup needs more salt and pepper.\n');
  writeFileSync(join(sample, 'lexicon-probe/team.md'), 'Our team meets every Tuesday in room four.\n');

  // Skeletons in this process (the CLI's own grammar loading).
  const skeletons = cairn(app, 'skeleton', ['skeleton', sample]);
  for (const file of skeletons?.files ?? []) {
    if (file.text) report.skeleton_files += 1;
    if (file.fallback === 'parse-error') {
      report.parse_errors += 1;
      problem(`no skeleton for ${file.file}: ${file.fallback_reason}`);
    }
  }

  // An ingest: the parse workers make the skeletons, the index worker writes LanceDB.
  const ingest = cairn(app, 'ingest', ['ingest', sample, ...ws]);
  if (!ingest) return;
  // The code files `cairn skeleton` found, as the ingest named them (the sample's names need no escaping).
  for (const file of skeletons?.files ?? []) {
    const uri = ingest.root + file.file;
    const meta = cairn(app, `stat ${uri}`, ['stat', uri, ...ws])?.meta;
    if (meta?.summary_reason === 'skeleton') report.ingest_skeletons += 1;
    if (String(meta?.summary_reason).startsWith('parse error')) {
      report.parse_errors += 1;
      problem(`the ingest made no skeleton for ${uri}: ${meta.summary_reason}`);
    }
  }
  const hits = cairn(app, 'search', ['search', 'storm review gusts', ...ws])?.hits ?? [];
  report.index = hits.slice(0, 3).some((hit) => hit.uri.includes('storm-review'));
  if (!report.index) problem('a search for the storm review did not find it');
  const top = cairn(app, 'search (lexicon)', ['search', 'automobile', '--mode', 'vector', '--level', '2', ...ws])?.hits?.[0];
  report.lexicon = Boolean(top?.uri.endsWith('/lexicon-probe/car.md'));
  if (!report.lexicon) problem(`a vector search for "automobile" found ${top?.uri ?? 'nothing'}, not the note about a car`);
}

let failed = true;
try {
  const archive = timed('package', pack);
  if (archive) {
    checkUnpacked(archive);
    const app = join(work, 'app');
    timed('unpack', () => asar.extractAll(archive, app));
    if (!engineOnly) {
      report.renderer = existsSync(join(app, 'dist/renderer/index.html'));
      if (!report.renderer) problem('the package holds no dist/renderer/index.html');
    }
    timed('engine', () => checkEngine(app));
  }
  failed = report.problems.length > 0 || report.skeleton_files === 0 || report.ingest_skeletons === 0 || report.parse_errors > 0 || !report.index || !report.lexicon || !report.unpacked || !report.sample;
} catch (error) {
  problem(`package check stopped: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  if (keep) process.stderr.write(`package check: kept ${work}\n`);
  else rmSync(work, { recursive: true, force: true });
}
for (const text of report.problems) process.stderr.write(`package check: ${text}\n`);
process.stdout.write(JSON.stringify(report) + '\n');
process.exit(failed ? 1 : 0);
