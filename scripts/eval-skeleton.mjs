// `npm run eval:skeleton`: definition recall of the code skeletons against Universal Ctags.
//
// For each language it runs `ctags --output-format=json` over real code installed on the
// machine, keeps the definitions a skeleton is meant to hold (classes and their kin, functions,
// methods; see KINDS) and counts how many appear in the skeleton of the same file under the same
// name. Definitions inside function bodies (local helpers, closures) are left out of the count:
// a skeleton is a file's outline, not its call graph. They are reported as "local".
//
// Needs: universal-ctags (apt), and corpora: Python's standard library, Go's (golang-src), npm
// packages' JS and TS, Rust crates (librust-*-dev), the JDK's src.zip, C headers and sources,
// googletest / fmt / spdlog (C++). A missing corpus is reported and skipped.
//
// Usage: node scripts/eval-skeleton.mjs [--max-files N] [--out FILE] [language...]
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliArgs, importTs } from '../bench/lib/bundle.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
// Inside node_modules so that the bundle resolves web-tree-sitter and the grammars like the app does.
const CACHE = join(ROOT, 'node_modules/.cache/cairn-skeleton');

const args = process.argv.slice(2);
const { option } = cliArgs(args);
const MAX_FILES = Number(option('--max-files', '1500'));
const OUT = option('--out', join(ROOT, 'bench/out/eval-skeleton.json'));
const ONLY = args;
const MAX_BYTES = 2 * 1024 * 1024;

/** The skeleton module (TypeScript), bundled to plain ESM that Node 20 runs. */
function loadSkeleton() {
  return importTs('eval-skeleton', [
    './main/engine/parse/skeleton/index.ts',
    { from: './main/engine/parse/skeleton/grammars.ts', names: ['loadGrammar', 'parseWith'] },
    { from: './main/engine/parse/skeleton/languages/ecmascript.ts', names: ['wrapperBodies'] },
  ]);
}

function goRoot() {
  for (const dir of ['/usr/share/go/src', '/usr/lib/go/src']) if (existsSync(dir)) return dir;
  const shared = existsSync('/usr/share') ? readdirSync('/usr/share').filter((d) => /^go-\d/.test(d)).sort() : [];
  return shared.length > 0 ? `/usr/share/${shared[shared.length - 1]}/src` : null;
}

/** Unpacks part of the JDK's src.zip (java.base's util, io, lang, time, net) once. */
function javaSources() {
  const dest = join(CACHE, 'jdk-src');
  if (existsSync(join(dest, 'java.base'))) return dest;
  const zips = ['/usr/lib/jvm/java-17-openjdk-amd64/lib/src.zip', '/usr/lib/jvm/openjdk-17/src.zip'];
  const zip = zips.find((z) => existsSync(z)) ?? findJdkZip();
  if (!zip) return null;
  mkdirSync(dest, { recursive: true });
  const globs = ['java.base/java/util/*', 'java.base/java/io/*', 'java.base/java/lang/*', 'java.base/java/time/*', 'java.base/java/net/*', 'java.sql/*'];
  const r = spawnSync('unzip', ['-q', '-o', zip, ...globs, '-d', dest], { stdio: 'inherit' });
  return r.status === 0 || r.status === 11 ? dest : null;
}

function findJdkZip() {
  if (!existsSync('/usr/lib/jvm')) return null;
  for (const jdk of readdirSync('/usr/lib/jvm')) {
    for (const candidate of [`/usr/lib/jvm/${jdk}/lib/src.zip`, `/usr/lib/jvm/${jdk}/src.zip`]) if (existsSync(candidate)) return candidate;
  }
  return null;
}

// ctags kinds that a skeleton must hold, per ctags language. `macro` only with a signature (function-like).
const KINDS = {
  Python: ['class', 'function', 'member'],
  Go: ['func', 'struct', 'interface', 'methodSpec', 'type', 'talias'],
  JavaScript: ['class', 'function', 'method', 'generator', 'getter', 'setter'],
  TypeScript: ['class', 'function', 'method', 'interface', 'enum', 'namespace', 'alias', 'generator'],
  Rust: ['struct', 'enum', 'interface', 'implementation', 'function', 'method', 'macro', 'module', 'typedef'],
  Java: ['class', 'interface', 'enum', 'method', 'annotation'],
  C: ['function', 'prototype', 'struct', 'union', 'enum', 'macro'],
  'C++': ['function', 'prototype', 'class', 'struct', 'union', 'enum', 'namespace', 'macro'],
};
// Tags with a body: whatever lies inside their line range is local.
const FUNCTION_KINDS = new Set(['function', 'member', 'method', 'func', 'getter', 'setter', 'generator']);
// Scopes whose members are local to a body.
const LOCAL_SCOPES = new Set(['function', 'member', 'method', 'func', 'getter', 'setter', 'generator', 'prototype']);

const JS_FUNCTIONS = new Set(['function_declaration', 'generator_function_declaration', 'function_expression', 'function', 'generator_function', 'arrow_function', 'method_definition']);

/**
 * Line ranges of function bodies in a JavaScript / TypeScript file, from its syntax tree.
 * ctags' JavaScript parser loses the scope of functions nested in call arguments (an ESLint
 * rule's `create(context) { function helper() {} }`) and reports them as top-level; the tree
 * says where they are. Module wrappers (IIFE, UMD, AMD `define`) are not bodies: their content
 * is the module's top level, for ctags and for the skeleton alike.
 */
async function jsBodies(sk, language, text) {
  const tree = sk.parseWith(await sk.loadGrammar(language), text);
  try {
    const wrappers = new Set();
    for (const stmt of tree.rootNode.namedChildren) {
      if (stmt.type === 'expression_statement') for (const body of sk.wrapperBodies(stmt.firstNamedChild)) wrappers.add(body.startIndex);
    }
    const bodies = [];
    const cursor = tree.walk();
    let done = false;
    while (!done) {
      const node = cursor.currentNode;
      if (JS_FUNCTIONS.has(node.type)) {
        const body = node.childForFieldName('body');
        if (body && body.type === 'statement_block' && !wrappers.has(body.startIndex)) bodies.push({ line: body.startPosition.row + 1, end: body.endPosition.row + 1 });
      }
      if (cursor.gotoFirstChild()) continue;
      while (!cursor.gotoNextSibling()) {
        if (!cursor.gotoParent()) {
          done = true;
          break;
        }
      }
    }
    cursor.delete();
    return bodies;
  } finally {
    tree.delete();
  }
}

/**
 * Tags that name no definition: ctags' TypeScript parser tags imported and re-exported names as
 * `alias`, and its JavaScript parser tags every object literal bound to a name as a `class`.
 */
function notDefinition(language, tag) {
  const source = (tag.pattern ?? '').replace(/^\/\^/, '').trimStart();
  if (language === 'TypeScript' && tag.kind === 'alias') return !new RegExp(`\\btype\\s+${tag.name}\\b[^=]*=`).test(source);
  // A bare macro invocation at the start of a line (`CK_PKCS11_FUNCTION_INFO(C_Initialize)`)
  // reads to ctags as a prototype named after the macro.
  if ((language === 'C' || language === 'C++') && tag.kind === 'prototype' && /^[A-Z][A-Z0-9_]+$/.test(tag.name) && source.startsWith(`${tag.name}(`)) return true;
  // ctags' Java parser predates sealed types: it tags each name in a `permits` list as a declaration.
  if (language === 'Java' && /\bpermits\b/.test(source) && !new RegExp(`\\b(?:class|interface|enum|record)\\s+${tag.name}\\b`).test(source)) return true;
  if ((language === 'JavaScript' || language === 'TypeScript') && tag.kind === 'class') return !/\bclass\b|\bfunction\b/.test(source) || (tag.name === 'exports' && tag.scope === 'module');
  return false;
}

const CORPORA = [
  { language: 'python', ctags: 'Python', roots: ['/usr/lib/python3.11'], ext: /\.py$/ },
  { language: 'go', ctags: 'Go', roots: [goRoot()], ext: /\.go$/, exclude: /\/testdata\// },
  { language: 'javascript', ctags: 'JavaScript', roots: [join(ROOT, 'node_modules')], ext: /\.(?:js|mjs|cjs)$/, exclude: /\.min\.js$|\/min\/|\/\.cache\/|\.bundle\.|\/vendor\/|\/dist\/.*\.(?:umd|iife)\./, minified: true },
  { language: 'typescript', ctags: 'TypeScript', roots: [join(ROOT, 'node_modules')], ext: /\.(?:ts|mts|cts)$/, exclude: /\/\.cache\// },
  { language: 'rust', ctags: 'Rust', roots: ['/usr/share/cargo/registry'], ext: /\.rs$/ },
  { language: 'java', ctags: 'Java', roots: [() => javaSources()], ext: /\.java$/ },
  { language: 'c', ctags: 'C', roots: ['/usr/include', goRoot() && join(goRoot(), 'runtime/cgo'), '/usr/share/doc'], ext: /\.[ch]$/ },
  { language: 'cpp', ctags: 'C++', roots: ['/usr/src/googletest', '/usr/include/fmt', '/usr/include/spdlog', '/usr/include/gtest', '/usr/include/gmock'], ext: /\.(?:cc|cpp|cxx|hpp|hh|h)$/ },
];

function walk(dir, ext, exclude, out) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, ext, exclude, out);
    else if (entry.isFile() && ext.test(entry.name) && !(exclude && exclude.test(path))) out.push(path);
  }
}

/** Every k-th file of the sorted list, so the sample spans the whole tree and is the same each run. */
function sample(files, max) {
  files.sort();
  if (files.length <= max) return files;
  const step = files.length / max;
  return Array.from({ length: max }, (_, i) => files[Math.floor(i * step)]);
}

function runCtags(language, files) {
  return new Promise((resolve, reject) => {
    const child = spawn('ctags', ['--output-format=json', '--fields=+nKSe', '--kinds-C=+p', '--kinds-C++=+p', `--language-force=${language}`, '-f', '-', '-L', '-'], { stdio: ['pipe', 'pipe', 'ignore'] });
    const tags = new Map();
    let rest = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop();
      for (const line of lines) {
        if (!line.startsWith('{')) continue;
        const tag = JSON.parse(line);
        if (tag._type !== 'tag') continue;
        if (!tags.has(tag.path)) tags.set(tag.path, []);
        tags.get(tag.path).push(tag);
      }
    });
    child.on('error', reject);
    child.on('close', () => resolve(tags));
    child.stdin.end(files.join('\n'));
  });
}

/** Names a skeleton holds, as ctags would name them (no generics, last segment of a qualified name). */
function skeletonNames(skeleton) {
  const names = new Set();
  const add = (name) => {
    const plain = name.replace(/\s+/g, '');
    names.add(plain);
    if (plain.startsWith('#')) names.add(plain.slice(1)); // ctags drops the `#` of private members
    const bare = plain.replace(/<.*$/s, '');
    names.add(bare);
    for (const part of bare.split(/::|\./)) if (part) names.add(part);
  };
  const visit = (cls) => {
    add(cls.name);
    // ctags names an impl block after the bare type: `impl Trait for &'a P` is `P`.
    if (cls.kind === 'impl') for (const word of cls.name.replace(/'\w+/g, '').match(/[A-Za-z_]\w*/g) ?? []) names.add(word);
    cls.methods.forEach((m) => add(m.name));
    cls.classes.forEach(visit);
  };
  skeleton.classes.forEach(visit);
  skeleton.functions.forEach((f) => add(f.name));
  return names;
}

/**
 * Whether a tag sits inside a function body: by its scope chain through the file's tags, or by
 * lying within the line range of a function tag (ctags leaves some nested functions unscoped).
 */
function isLocal(tag, kindsByName, separator, bodies) {
  if (bodies.some((b) => b !== tag && b.line < tag.line && b.end >= (tag.end ?? tag.line))) return true;
  if (!tag.scope) return false;
  if (LOCAL_SCOPES.has(tag.scopeKind)) return true;
  const parts = tag.scope.split(separator);
  for (let i = 1; i < parts.length; i++) {
    const kinds = kindsByName.get(parts.slice(0, i).join(separator));
    if (kinds && [...kinds].some((k) => LOCAL_SCOPES.has(k))) return true;
  }
  return false;
}

async function evaluate(sk, corpus) {
  const roots = corpus.roots.map((r) => (typeof r === 'function' ? r() : r)).filter((r) => r && existsSync(r));
  if (roots.length === 0) return { language: corpus.language, skipped: 'no corpus installed' };
  const all = [];
  for (const root of roots) walk(root, corpus.ext, corpus.exclude, all);
  // A header counts for C or C++ as the extractor decides.
  const candidates = all.filter((path) => {
    try {
      if (statSync(path).size > MAX_BYTES) return false;
    } catch {
      return false;
    }
    if (corpus.minified) {
      // Minified code is a build product, not source: long lines give it away.
      const text = readFileSync(path, 'utf8');
      const lines = text.split('\n').length;
      if (text.length / lines > 300) return false;
    }
    if (corpus.language !== 'c' && corpus.language !== 'cpp') return true;
    if (!path.endsWith('.h')) return sk.detectLanguage(path) === corpus.language;
    return sk.detectLanguage(path, readFileSync(path, 'utf8')) === corpus.language;
  });
  // Identical copies (Node's OpenSSL headers ship once per target architecture) count once.
  const seen = new Set();
  const unique = candidates.filter((path) => {
    const digest = createHash('sha1').update(readFileSync(path)).digest('hex');
    if (seen.has(digest)) return false;
    seen.add(digest);
    return true;
  });
  const files = sample(unique, MAX_FILES);
  const tagsByFile = await runCtags(corpus.ctags, files);
  const wanted = new Set(KINDS[corpus.ctags]);
  const separator = corpus.ctags === 'C++' || corpus.ctags === 'Rust' ? '::' : '.';
  const byKind = {};
  const misses = [];
  let total = 0;
  let found = 0;
  let local = 0;
  let notDefinitions = 0;
  let extractMs = 0;
  let fallbacks = 0;
  let lines = 0;
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    lines += sk.countLines(text);
    const started = performance.now();
    const { skeleton, errorRatio } = await sk.extractSkeleton(file, text, corpus.language);
    extractMs += performance.now() - started;
    if (errorRatio > sk.MAX_ERROR_RATIO) fallbacks++;
    const names = skeletonNames(skeleton);
    const tags = tagsByFile.get(file) ?? [];
    const kindsByName = new Map();
    for (const tag of tags) {
      const full = tag.scope ? `${tag.scope}${separator}${tag.name}` : tag.name;
      if (!kindsByName.has(full)) kindsByName.set(full, new Set());
      kindsByName.get(full).add(tag.kind);
    }
    const bodies = tags.filter((t) => FUNCTION_KINDS.has(t.kind) && t.end !== undefined && t.end > t.line);
    if (corpus.ctags === 'JavaScript' || corpus.ctags === 'TypeScript') bodies.push(...(await jsBodies(sk, corpus.language, text)));
    for (const tag of tags) {
      if (!wanted.has(tag.kind)) continue;
      if (notDefinition(corpus.ctags, tag)) {
        notDefinitions++;
        continue;
      }
      if (tag.kind === 'macro' && !tag.signature) continue; // object-like macros are constants
      if (tag.name.startsWith('__anon') || tag.name.startsWith('AnonymousFunction')) continue; // ctags' names for unnamed things
      if (isLocal(tag, kindsByName, separator, bodies)) {
        local++;
        continue;
      }
      total++;
      const kind = (byKind[tag.kind] ??= { total: 0, found: 0 });
      kind.total++;
      const name = tag.name.replace(/\s+/g, '');
      if (names.has(name) || names.has(name.replace(/<.*$/s, ''))) {
        found++;
        kind.found++;
      } else misses.push({ kind: tag.kind, name: tag.name, scope: tag.scope ?? null, file: relative('/', file), line: tag.line });
    }
  }
  return {
    language: corpus.language,
    roots,
    files: files.length,
    lines,
    definitions: total,
    found,
    recall: total === 0 ? 1 : found / total,
    local,
    not_definitions: notDefinitions,
    parse_error_fallbacks: fallbacks,
    extract_ms: Math.round(extractMs),
    by_kind: Object.fromEntries(Object.entries(byKind).map(([k, v]) => [k, { ...v, recall: +(v.found / v.total).toFixed(4) }])),
    misses_sample: [...new Set(misses.map((m) => m.kind))].flatMap((kind) => misses.filter((m) => m.kind === kind).slice(0, 25)),
    misses_by_kind: misses.reduce((acc, m) => ((acc[m.kind] = (acc[m.kind] ?? 0) + 1), acc), {}),
    misses_by_file: Object.fromEntries(
      Object.entries(misses.reduce((acc, m) => ((acc[m.file] = (acc[m.file] ?? 0) + 1), acc), {}))
        .sort((a, b) => b[1] - a[1])
        .slice(0, 30),
    ),
  };
}

const check = spawnSync('ctags', ['--version'], { encoding: 'utf8' });
if (check.status !== 0 || !/Universal Ctags/.test(check.stdout)) {
  console.error('eval-skeleton needs Universal Ctags: apt-get install -y universal-ctags');
  process.exit(2);
}
const sk = await loadSkeleton();
const results = [];
for (const corpus of CORPORA) {
  if (ONLY.length > 0 && !ONLY.includes(corpus.language)) continue;
  const started = performance.now();
  const result = await evaluate(sk, corpus);
  result.seconds = +((performance.now() - started) / 1000).toFixed(1);
  results.push(result);
  if (result.skipped) console.error(`${corpus.language}: skipped (${result.skipped})`);
  else console.error(`${corpus.language}: ${(result.recall * 100).toFixed(2)}% of ${result.definitions} definitions in ${result.files} files (${result.seconds} s)`);
}
console.table(
  results.map((r) =>
    r.skipped
      ? { language: r.language, note: r.skipped }
      : {
          language: r.language,
          files: r.files,
          lines: r.lines,
          definitions: r.definitions,
          found: r.found,
          'recall %': +(r.recall * 100).toFixed(2),
          'local (excluded)': r.local,
          'not definitions': r.not_definitions,
          'parse-error files': r.parse_error_fallbacks,
          'extract ms': r.extract_ms,
        },
  ),
);
for (const r of results) {
  if (r.skipped || r.recall === 1) continue;
  const top = Object.entries(r.misses_by_kind)
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  console.log(`\n${r.language} misses by kind: ${top}`);
  for (const m of r.misses_sample.slice(0, 8)) console.log(`  ${m.kind} ${m.scope ? `${m.scope}.` : ''}${m.name}  ${m.file}:${m.line}`);
}
mkdirSync(dirname(OUT), { recursive: true });
writeFileSync(OUT, `${JSON.stringify({ ctags: check.stdout.split('\n')[0], date: new Date().toISOString(), max_files: MAX_FILES, results }, null, 2)}\n`);
console.log(`\nfigures written to ${relative(ROOT, OUT)}`);
const below = results.filter((r) => !r.skipped && r.recall < 0.98);
process.exitCode = below.length > 0 ? 1 : 0;
