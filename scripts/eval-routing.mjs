// `npm run eval:routing`: can a reader (or an agent) find the right folder from the summaries
// alone? A tree of real documentation folders (bench/routing/tree.json: Debian's doc packages,
// copied under one folder) is ingested offline with the CLI; then each question of
// bench/routing/questions.json (it describes what a folder is for without naming it) ranks the
// folders at each level of its labelled path with a plain BM25 over the folders' L0 and L1
// (their .abstract.md and .overview.md, nothing else: not Cairn's search, not the names).
// Reports top-1 accuracy per level on the tune and the test half (fixed by a hash of the id),
// and counts the L0s that are templates or boilerplate (see badAbstract).
//
// Usage: node scripts/eval-routing.mjs [--json] [--cli dist-main/cli.js] [--workspace DIR] [--keep] [--show-bad N]
//   --cli        the CLI that ingests (another build, e.g. the code before a change)
//   --workspace  score a workspace already ingested by this script (skips copying and ingesting)
//   --keep       keep the temporary tree and workspace, and print where they are
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { cliArgs, ROOT } from '../bench/lib/bundle.mjs';

const args = process.argv.slice(2);
const { flag, option } = cliArgs(args);
const JSON_OUT = flag('--json');
const KEEP = flag('--keep');
const CLI = option('--cli', join(ROOT, 'dist-main/cli.js'));
const GIVEN_WORKSPACE = option('--workspace', undefined);
const SHOW_BAD = Number(option('--show-bad', '0'));
if (args.length > 0) {
  console.error(`Unknown arguments: ${args.join(' ')}`);
  process.exit(2);
}

const TREE_NAME = 'docs';
const spec = JSON.parse(readFileSync(join(ROOT, 'bench/routing/tree.json'), 'utf8'));
const questions = JSON.parse(readFileSync(join(ROOT, 'bench/routing/questions.json'), 'utf8')).questions;

function fail(message) {
  console.error(message);
  process.exit(1);
}

function cell(c) {
  return c.n === 0 ? '—'.padEnd(14) : `${((100 * c.hits) / c.n).toFixed(1)}% (${c.hits}/${c.n})`.padEnd(14);
}

function copyFolder(folder, to) {
  const only = folder.only ? new RegExp(folder.only) : undefined;
  const skip = new Set(folder.skip ?? []);
  mkdirSync(to, { recursive: true });
  cpSync(folder.from, to, {
    recursive: true,
    dereference: true,
    filter: (source) => {
      const name = basename(source);
      if (skip.has(name)) return false;
      if (!only || source === folder.from) return true;
      return statSync(source).isDirectory() || only.test(name);
    },
  });
}

/** Every source folder of the tree (not the folders a split document becomes): relative path → its L0 and L1. */
function readFolders(root) {
  const out = new Map();
  const walk = (dir) => {
    const meta = readJson(join(dir, '.meta.json'));
    if (meta?.document) return;
    const rel = relative(root, dir).split('\\').join('/');
    out.set(rel, `${readText(join(dir, '.abstract.md'))}\n${readText(join(dir, '.overview.md'))}`);
    for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory() && !entry.name.startsWith('.')) walk(join(dir, entry.name));
  };
  walk(root);
  return out;
}

/** Every L0 under the tree: folders' .abstract.md and files' meta abstracts. */
function readAbstracts(root) {
  const out = [];
  const walk = (dir) => {
    const own = readText(join(dir, '.abstract.md')).trim();
    if (own) out.push({ path: relative(root, dir) || '.', text: own });
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.meta.json')) {
        const text = readJson(full)?.abstract?.trim();
        if (text) out.push({ path: relative(root, full).replace(/\.meta\.json$/, ''), text });
      }
    }
  };
  walk(root);
  return out;
}

function readText(path) {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

function readJson(path) {
  const text = readText(path);
  return text ? JSON.parse(text) : undefined;
}

/**
 * An L0 a reader cannot use: the counting template ("7 files on X, Y and Z, including a.md…"),
 * copyright or licence lines, navigation, a subject that is only file names, raw markup (HTML
 * tags), or a usage line: a synopsis or an option list with `<placeholder>` arguments
 * ("Usage: Run 'coverage-diff.sh <version1> <version2>'", "-i: <regexp> filter out files").
 * A placeholder in a sentence that quotes a command ("... with 'git diff <v1> <v2>' to report
 * ...") is prose, not markup. An AsciiDoc comment or preprocessor line ("// Please don't remove
 * this comment…", "ifndef::git-format-patch[]") is markup too.
 */
export function badAbstract(text) {
  return (
    /^\d+ (files?|folders?)\b.*\b(on|including)\b/i.test(text) ||
    /^共 \d+ 个(文件|子目录)/.test(text) ||
    /\bcopyright\s*(\(c\)|©|\d{4})|\(c\) \d{4}|©|all rights reserved|\bspdx\b|licensed under|permission is hereby granted|this (file|program) is (part of|free software)/i.test(text) ||
    /\b(table of contents|next topic|previous topic|skip to (main )?content|quick search|navigation)\b/i.test(text) ||
    /(^|\s)(={3,}|-{3,}|~{3,}|\*{3,}|#{2,})(\s|$)|\[\]\(|!\[|<\/?(?:a|abbr|b|body|br|code|dd|div|dl|dt|em|h[1-6]|head|hr|html|i|img|li|link|meta|ol|p|pre|script|span|strong|style|table|td|th|tr|tt|u|ul)\b[^>]*>|\]\(https?:|(^|\s)\*\*?\S[^*]*\*\*?(\s|$)/i.test(text) ||
    /^(?:[Uu]sage|USAGE|[Ss]ynopsis|SYNOPSIS)\b.*<[A-Za-z][\w.-]*>|^(?:-{1,2}[\w-]+\s*[:=,]|[\p{Ll}'"`./$])[^.!?]*<[A-Za-z][\w.-]*>/u.test(text) ||
    /^[\w.-]+\.(md|txt|html?|rst|adoc)(, [\w.-]+\.(md|txt|html?|rst|adoc))+/i.test(text) ||
    /(^|\s)\/\/\s|\b(?:ifn?def|ifeval|endif)::/.test(text)
  );
}

// --- BM25 over the folders' L0 + L1 ----------------------------------------------------------

const STOP = new Set(
  'a an and are as at be by can do does for from how i in is it its my of on or the this to what where which with you your me we should read find about there any into that than then them they their these those when who why will would'.split(' '),
);

/** Lower-cased words (Latin: plural s dropped), Han text as character bigrams. */
function terms(text) {
  const out = [];
  for (const m of text.toLowerCase().matchAll(/[\p{Script=Han}]+|[\p{L}\p{N}]+/gu)) {
    const w = m[0];
    if (/\p{Script=Han}/u.test(w)) {
      if (w.length === 1) out.push(w);
      for (let i = 0; i + 1 < w.length; i += 1) out.push(w.slice(i, i + 2));
    } else if (!STOP.has(w) && w.length > 1) out.push(w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w);
  }
  return out;
}

function bm25Index(docs) {
  const k1 = 1.2;
  const b = 0.75;
  const tfs = new Map();
  const df = new Map();
  let total = 0;
  for (const [id, text] of docs) {
    const tf = new Map();
    const words = terms(text);
    for (const w of words) tf.set(w, (tf.get(w) ?? 0) + 1);
    for (const w of tf.keys()) df.set(w, (df.get(w) ?? 0) + 1);
    tfs.set(id, { tf, length: words.length });
    total += words.length;
  }
  const n = docs.size;
  const avg = total / Math.max(1, n);
  return (query, candidates) => {
    const q = [...new Set(terms(query))];
    return candidates
      .map((id) => {
        const d = tfs.get(id);
        let s = 0;
        for (const w of q) {
          const f = d?.tf.get(w) ?? 0;
          if (f === 0) continue;
          const idf = Math.log(1 + (n - (df.get(w) ?? 0) + 0.5) / ((df.get(w) ?? 0) + 0.5));
          s += (idf * f * (k1 + 1)) / (f + k1 * (1 - b + (b * (d?.length ?? 0)) / avg));
        }
        return { id, s };
      })
      .sort((x, y) => y.s - x.s || (x.id < y.id ? -1 : 1));
  };
}

/** The fixed half of a question: by the first byte of the sha256 of its id. */
function splitOf(id) {
  return createHash('sha256').update(id).digest()[0] % 2 === 0 ? 'tune' : 'test';
}

function score(folders, qs) {
  const rank = bm25Index(folders);
  const children = (parent) => [...folders.keys()].filter((p) => p !== '' && (parent === '' ? !p.includes('/') : p.startsWith(`${parent}/`) && !p.slice(parent.length + 1).includes('/')));
  const cells = new Map();
  const add = (level, split, hit) => {
    for (const key of [`${level}|${split}`, `${level}|all`]) {
      const c = cells.get(key) ?? { hits: 0, n: 0 };
      c.n += 1;
      c.hits += hit ? 1 : 0;
      cells.set(key, c);
    }
  };
  const misses = [];
  for (const q of qs) {
    if (!folders.has(q.folder)) fail(`Question ${q.id}: no folder ${q.folder} in the tree`);
    const split = splitOf(q.id);
    const parts = q.folder.split('/');
    let allRight = true;
    for (let depth = 1; depth <= parts.length; depth += 1) {
      const parent = parts.slice(0, depth - 1).join('/');
      const siblings = children(parent);
      if (siblings.length < 2) continue;
      const want = parts.slice(0, depth).join('/');
      const got = rank(q.q, siblings)[0]?.id;
      const level = depth === 1 ? 'top' : 'sub';
      add(level, split, got === want);
      if (got !== want) {
        allRight = false;
        misses.push({ id: q.id, split, level, want, got, q: q.q });
      }
    }
    add('whole path', split, allRight);
  }
  const levels = ['top', 'sub', 'whole path'].map((level) => ({
    level,
    tune: cells.get(`${level}|tune`) ?? { hits: 0, n: 0 },
    test: cells.get(`${level}|test`) ?? { hits: 0, n: 0 },
    all: cells.get(`${level}|all`) ?? { hits: 0, n: 0 },
  }));
  return { questions: qs.length, levels, misses };
}

function main() {
let tmp;
let workspace = GIVEN_WORKSPACE;
const started = Date.now();
if (!workspace) {
  if (!existsSync(CLI)) fail(`${CLI} is missing: run npm run -s build:main first`);
  tmp = mkdtempSync(join(tmpdir(), 'cairn-eval-routing-'));
  const tree = join(tmp, TREE_NAME);
  for (const folder of spec.folders) {
    if (!existsSync(folder.from)) fail(`${folder.from} is missing: apt-get install -y ${spec.packages.join(' ')}`);
    copyFolder(folder, join(tree, folder.to));
  }
  workspace = join(tmp, 'workspace');
  execFileSync(process.execPath, [CLI, 'ingest', tree, '--workspace', workspace, '--json'], { stdio: ['ignore', 'ignore', 'inherit'] });
}
const ingestMs = Date.now() - started;

try {
  const root = join(workspace, 'resources', TREE_NAME);
  const folders = readFolders(root);
  const report = score(folders, questions);
  const abstracts = readAbstracts(root);
  const bad = abstracts.filter((a) => badAbstract(a.text));
  const machine = `${cpus()[0]?.model ?? 'cpu'} × ${availableParallelism()}, Node ${process.version}, load ${loadavg()[0].toFixed(1)}`;
  const result = { machine, date: new Date().toISOString(), cli: relative(ROOT, CLI) || CLI, ingestMs, folders: folders.size, abstracts: abstracts.length, badAbstracts: bad.length, ...report };
  if (JSON_OUT) process.stdout.write(`${JSON.stringify(result)}\n`);
  else {
    console.log(`${questions.length} questions, ${folders.size} folders, ${abstracts.length} L0s; ${machine}`);
    console.log('top-1: the labelled folder ranks first among its siblings, by BM25 over the siblings\' L0 + L1.\n');
    console.log('level        tune            test            all');
    for (const row of report.levels) console.log(`${row.level.padEnd(12)} ${cell(row.tune)}  ${cell(row.test)}  ${cell(row.all)}`);
    console.log(`\nL0s that are templates or boilerplate: ${bad.length} of ${abstracts.length}`);
    for (const a of bad.slice(0, SHOW_BAD)) console.log(`  ${a.path}: ${a.text.slice(0, 140)}`);
    const misses = report.misses.filter((m) => m.split === 'tune');
    if (misses.length > 0) console.log(`\nTune misses:\n${misses.map((m) => `  ${m.id} [${m.level}] want ${m.want}, got ${m.got}: ${m.q}`).join('\n')}`);
  }
} finally {
  if (tmp && !KEEP) rmSync(tmp, { recursive: true, force: true });
  else if (tmp) console.error(`Kept ${tmp} (workspace: ${workspace})`);
}
}

main();
