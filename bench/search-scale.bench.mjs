// Search latency at scale and ingest-to-searchable throughput (issue 5, "Performance"; target:
// hybrid p95 ≤ 50 ms at 100k records).
//
// Records come from real text on this machine: /usr/share/doc (plain and gzipped), the Python
// standard library in /usr/lib/python3.11, and Chinese from TypeScript's and Monaco's zh-CN
// message catalogues and the retrieval fixtures, split into passages of about 800 characters
// (about 250 for Chinese). They form a context tree as Cairn writes it: a directory per source
// folder with an L0 abstract and an L1 overview, a file with several passages becomes a directory
// of L2 passages with its own L0/L1, a one-passage file is one L2 record. 512-d local embedder.
//
// For each size the table is built in a temporary folder (deleted at the end), through the same
// SearchIndex the engine uses, in batches of 512 (the journaled index's buffer), then:
// 1. "flat": a store opened with the vector and scalar indexes turned off (only FTS), as before
//    this issue; queries timed.
// 2. "indexed": a store with the default options; `optimize()` builds what the defaults ask for
//    (ANN index past its threshold, scalar indexes); the same queries timed again. CPU time per
//    search (every thread of the process) is reported too: it moves less than wall time when
//    the shared machine is loaded.
// Ingest-to-searchable throughput = records / (embed + upsert + optimize, until a search answers),
// for the flat build of step 1 and for a second fresh table written with the default options
// (scalar indexes from 1,000 rows, the ANN index built by the final optimize()).
// Recall@10 of the store's vector search against an exact scan (bypassVectorIndex) on the queries.
//
// Queries (≥ 200, taken from the corpus with a seeded PRNG): phrases (5–8 consecutive words of
// a passage), "paraphrases" (content words of a passage, shuffled, some dropped) and Chinese
// substrings. Each query runs every mode in turn (round robin, so load spikes hit all modes
// alike) after a warm-up.
//
// Run: `node bench/run.mjs search-scale` (SEARCH_SCALE_SIZES=10000,100000 by default;
// SEARCH_SCALE_QUERIES=200; SEARCH_SCALE_FLAT=0 skips timing the flat store, which takes
// minutes at 100k records).
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { basename, extname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { importTs } from './lib/bundle.mjs';

process.env.LANCEDB_LOG ??= 'error';
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SIZES = (process.env.SEARCH_SCALE_SIZES ?? '10000,100000').split(',').map(Number).filter((n) => n > 0);
const QUERIES = Number(process.env.SEARCH_SCALE_QUERIES ?? 200);
const TIME_FLAT = process.env.SEARCH_SCALE_FLAT !== '0';
const WARMUP = 20;
const BATCH = 512;
const MODES = ['fts', 'vector', 'hybrid', 'hierarchical'];

export function load() {
  return importTs('search-scale', [
    { from: './main/adapters/store/lancedb/index.ts', names: ['openLanceStore'] },
    { from: './main/engine/index/search-index.ts', names: ['createSearchIndex'] },
    { from: './main/adapters/embed/local.ts', names: ['createLocalEmbedder'] },
    { from: './test/support/prng.ts', names: ['prng'] },
  ]);
}

// ---------------------------------------------------------------------------------------------
// Corpus

const TEXT_EXT = new Set(['', '.txt', '.md', '.rst', '.py', '.html', '.htm', '.json', '.js', '.ts', '.h', '.c', '.cfg', '.ini', '.css', '.xml', '.yaml', '.yml', '.sh', '.tex']);

function* walk(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
  } catch {
    return;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else if (entry.isFile()) yield path;
  }
}

function readText(path) {
  try {
    if (statSync(path).size > 4 * 2 ** 20) return null;
    let bytes = readFileSync(path);
    if (path.endsWith('.gz')) bytes = gunzipSync(bytes);
    const name = path.endsWith('.gz') ? path.slice(0, -3) : path;
    if (!TEXT_EXT.has(extname(name).toLowerCase())) return null;
    if (bytes.includes(0)) return null;
    let text = bytes.toString('utf8');
    if (/\.html?$/.test(name)) text = text.replace(/<script[\s\S]*?<\/script>|<style[\s\S]*?<\/style>/gi, ' ').replace(/<[^>]+>/g, ' ').replace(/&[a-z]+;/g, ' ');
    return text.replace(/\r/g, '').replace(/[ \t]+/g, ' ');
  } catch {
    return null;
  }
}

const CJK = /[\u3400-\u9fff]/;

/** Paragraph-aligned passages of about `size` characters. */
function passages(text, size) {
  const out = [];
  let current = '';
  for (const paragraph of text.split(/\n\s*\n/)) {
    const p = paragraph.trim();
    if (p === '') continue;
    for (let start = 0; start < p.length; start += size * 2) {
      const piece = p.slice(start, start + size * 2);
      if (current.length + piece.length > size && current !== '') {
        out.push(current);
        current = '';
      }
      current += (current ? '\n\n' : '') + piece;
    }
  }
  if (current.trim().length > 40) out.push(current);
  return out;
}

function segment(name) {
  return name.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^\.+/, '_') || '_';
}

/** Chinese source "files": message catalogues grouped into passages, and the fixture documents. */
function chineseSources() {
  const out = [];
  const catalogue = (path, label) => {
    const raw = readFileSync(path, 'utf8');
    const strings = [...raw.matchAll(/"((?:[^"\\]|\\.)*[\u4e00-\u9fff](?:[^"\\]|\\.)*)"/g)].map((m) => m[1].replace(/\\"/g, '"').replace(/\{\d\}/g, 'X'));
    for (let i = 0, file = 0; i < strings.length; i += 60, file += 1) out.push({ path: `zh/${label}/part-${file}.txt`, text: strings.slice(i, i + 60).join('\n\n') });
  };
  catalogue(join(ROOT, 'node_modules/typescript/lib/zh-cn/diagnosticMessages.generated.json'), 'typescript');
  catalogue(join(ROOT, 'node_modules/monaco-editor/esm/vs/nls/lang/zh-cn.js'), 'monaco');
  const zhDocs = join(ROOT, 'test/fixtures/retrieval/docs/zh');
  for (const path of walk(zhDocs)) out.push({ path: `zh/fixtures/${relative(zhDocs, path)}`, text: readFileSync(path, 'utf8') });
  return out;
}

/**
 * The context tree: `count` records (directories' L0/L1, files' L0/L1, passages as L2), with
 * Chinese sources interleaved so they are present at every size.
 */
export function buildCorpus(count) {
  const records = [];
  const dirs = new Map();
  const now = new Date().toISOString();
  const add = (uri, parent, level, text, source) => {
    records.push({
      id: `${uri}#${level}`,
      uri,
      parent_uri: parent,
      level,
      context_type: 'resource',
      category: 'document',
      text,
      tokens: Math.ceil(text.length / 4),
      content_hash: `h${records.length}`,
      updated_at: now,
      provenance: source ? { source } : {},
    });
  };
  const ensureDir = (segments) => {
    let parent = 'ctx://resources/';
    for (let i = 0; i < segments.length; i += 1) {
      const uri = `${parent}${segments[i]}/`;
      if (!dirs.has(uri)) {
        dirs.set(uri, { parent, name: segments.slice(0, i + 1).join('/'), children: [] });
        dirs.get(parent)?.children.push(segments[i]);
      }
      parent = uri;
    }
    return parent;
  };
  const zh = chineseSources();
  const roots = [
    ['doc', '/usr/share/doc'],
    ['python', '/usr/lib/python3.11'],
  ];
  const sources = (function* () {
    let n = 0;
    for (const [label, root] of roots) {
      for (const path of walk(root)) {
        if (path.includes('__pycache__')) continue;
        const text = readText(path);
        if (!text || text.trim().length < 80) continue;
        yield { path: `${label}/${relative(root, path)}`, text, source: path };
        n += 1;
        // About one Chinese source per 12 others, while they last.
        if (n % 12 === 0 && zh.length > 0) yield { ...zh.shift(), source: null };
      }
    }
    yield* zh;
  })();
  for (const file of sources) {
    if (records.length + 2 * dirs.size >= count) break;
    const parts = file.path.split('/').map(segment);
    const name = parts.pop();
    const dir = ensureDir(parts);
    dirs.get(dir).children.push(name);
    const chunks = passages(file.text, CJK.test(file.text.slice(0, 400)) ? 250 : 800);
    if (chunks.length === 0) continue;
    if (chunks.length === 1) {
      add(`${dir}${name}`, dir, 2, chunks[0], file.source);
      continue;
    }
    const fileDir = `${dir}${name}/`;
    add(fileDir, dir, 0, chunks[0].slice(0, 240), file.source);
    add(fileDir, dir, 1, chunks.map((c) => c.split('\n')[0].slice(0, 120)).join('\n').slice(0, 2000), file.source);
    chunks.forEach((chunk, i) => add(`${fileDir}part-${i + 1}`, fileDir, 2, chunk, file.source));
  }
  // Directory summaries: what they hold and the first lines of it (an extractive L0/L1).
  const firstLines = new Map();
  for (const r of records) if (r.parent_uri && !firstLines.has(r.parent_uri)) firstLines.set(r.parent_uri, r.text.split('\n')[0].slice(0, 160));
  for (const [uri, dir] of dirs) {
    const lead = firstLines.get(uri) ?? '';
    add(uri, dir.parent, 0, `${basename(dir.name)}: ${dir.children.slice(0, 12).join(', ')}. ${lead}`.slice(0, 256), null);
    add(uri, dir.parent, 1, `# ${dir.name}\n\n${dir.children.slice(0, 60).join('\n')}\n\n${lead}`.slice(0, 4000), null);
  }
  return records;
}

const STOP = new Set('the a an and or of to in is it for on with as by be this that are was from at not if can which you your we our use used when will may'.split(' '));

/** `n` queries from `records`, picked with `random` (a seeded PRNG, so runs ask the same). */
export function makeQueries(records, n, random) {
  const leaves = records.filter((r) => r.level === 2 && r.text.length > 120);
  const zhLeaves = leaves.filter((r) => CJK.test(r.text));
  const enLeaves = leaves.filter((r) => !CJK.test(r.text));
  const pick = (list) => list[Math.floor(random() * list.length)];
  const out = [];
  while (out.length < n) {
    const kind = out.length % 4;
    if (kind === 3 && zhLeaves.length > 0) {
      const text = pick(zhLeaves).text.replace(/[^\u4e00-\u9fff]+/g, '');
      if (text.length < 12) continue;
      const start = Math.floor(random() * (text.length - 10));
      out.push({ kind: 'zh', text: text.slice(start, start + 4 + Math.floor(random() * 6)) });
      continue;
    }
    const words = pick(enLeaves).text.split(/[^A-Za-z0-9_]+/).filter((w) => w.length > 1);
    if (words.length < 12) continue;
    if (kind === 0 || kind === 1) {
      const len = 5 + Math.floor(random() * 4);
      const start = Math.floor(random() * (words.length - len));
      out.push({ kind: 'phrase', text: words.slice(start, start + len).join(' ') });
    } else {
      const content = [...new Set(words.filter((w) => !STOP.has(w.toLowerCase()) && w.length > 3))];
      if (content.length < 6) continue;
      const chosen = content.sort(() => random() - 0.5).slice(0, 4 + Math.floor(random() * 3));
      out.push({ kind: 'paraphrase', text: chosen.join(' ').toLowerCase() });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Measurement

function percentile(sorted, p) {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

async function timeModes(index, queries) {
  for (const q of queries.slice(0, WARMUP)) for (const mode of MODES) await index.search({ text: q.text, k: 10, mode });
  const times = Object.fromEntries(MODES.map((m) => [m, []]));
  const cpu = Object.fromEntries(MODES.map((m) => [m, 0]));
  let empty = 0;
  for (const q of queries) {
    for (const mode of MODES) {
      const started = performance.now();
      const cpuStarted = process.cpuUsage();
      const hits = await index.search({ text: q.text, k: 10, mode });
      const used = process.cpuUsage(cpuStarted);
      times[mode].push(performance.now() - started);
      cpu[mode] += (used.user + used.system) / 1000;
      if (mode === 'hybrid' && hits.length === 0) empty += 1;
    }
  }
  const out = {};
  for (const mode of MODES) {
    const sorted = times[mode].sort((a, b) => a - b);
    out[mode] = { p50: percentile(sorted, 50), p95: percentile(sorted, 95), cpu: cpu[mode] / queries.length };
  }
  return { latency: out, emptyHybrid: empty };
}

/** Recall@10 of the store's vector search against an exact scan of the same table. */
async function vectorRecall(lancedb, dir, store, embedder, queries) {
  const db = await lancedb.connect(dir);
  const table = await db.openTable('context');
  let found = 0;
  let wanted = 0;
  try {
    for (const q of queries) {
      const { vectors } = await embedder.embed({ texts: [q.text] });
      const vector = vectors[0];
      const exact = await table.query().nearestTo(vector).distanceType('cosine').bypassVectorIndex().select(['id']).limit(10).toArray();
      const approx = new Set((await store.vectorSearch({ vector, k: 10 })).map((hit) => hit.record.id));
      wanted += exact.length;
      found += exact.filter((row) => approx.has(row.id)).length;
    }
  } finally {
    table.close();
    db.close();
  }
  return wanted === 0 ? 1 : found / wanted;
}

const progress = (message) => process.stderr.write(`[search-scale] ${message}\n`);

const FLAT = { annMinRows: Number.POSITIVE_INFINITY, scalarIndexMinRows: Number.POSITIVE_INFINITY, idleOptimizeMs: 0 };

async function runSize(lib, lancedb, size) {
  const corpus = buildCorpus(size);
  const queries = makeQueries(corpus, QUERIES, lib.prng(size));
  const tmp = mkdtempSync(join(tmpdir(), 'cairn-search-scale-'));
  const dir = join(tmp, 'index');
  const embedder = lib.createLocalEmbedder();
  const rows = [];
  const load0 = loadavg()[0];
  try {
    // Build: as the engine writes, with indexes of the default options except those built by optimize.
    let store = await lib.openLanceStore({ uri: dir, dimensions: embedder.dimensions, ...FLAT });
    let index = lib.createSearchIndex({ embedder, store });
    const started = performance.now();
    for (let i = 0; i < corpus.length; i += BATCH) await index.upsert(corpus.slice(i, i + BATCH));
    const upserted = performance.now();
    await index.optimize();
    await index.search({ text: queries[0].text, k: 10 });
    const ftsReady = performance.now();

    progress(`${corpus.length} records: built in ${((ftsReady - started) / 1000).toFixed(1)} s${TIME_FLAT ? '; timing flat' : ''}`);
    const flat = TIME_FLAT ? await timeModes(index, queries) : null;
    await store.close();

    store = await lib.openLanceStore({ uri: dir, dimensions: embedder.dimensions, idleOptimizeMs: 0 });
    index = lib.createSearchIndex({ embedder, store });
    const indexStarted = performance.now();
    await index.optimize();
    await index.search({ text: queries[0].text, k: 10 });
    const indexMs = performance.now() - indexStarted;
    progress(`${corpus.length} records: indexes in ${(indexMs / 1000).toFixed(1)} s; timing indexed`);
    const indexed = await timeModes(index, queries);
    const recall = await vectorRecall(lancedb, dir, store, embedder, queries.slice(0, 100));
    await store.close();

    // Ingest to searchable with the default options from the first row: a fresh table, the same
    // writes, then optimize() (which builds the ANN and scalar indexes) and a first search.
    progress(`${corpus.length} records: ingest with the default options`);
    const ingestDir = join(tmp, 'ingest');
    const fresh = await lib.openLanceStore({ uri: ingestDir, dimensions: embedder.dimensions, idleOptimizeMs: 0 });
    const freshIndex = lib.createSearchIndex({ embedder, store: fresh });
    const ingestStarted = performance.now();
    for (let i = 0; i < corpus.length; i += BATCH) await freshIndex.upsert(corpus.slice(i, i + BATCH));
    const ingestUpserted = performance.now();
    await freshIndex.optimize();
    await freshIndex.search({ text: queries[0].text, k: 10 });
    const ingestMs = performance.now() - ingestStarted;
    await fresh.close();
    rmSync(ingestDir, { recursive: true, force: true });
    const fmt = (x) => +x.toFixed(1);
    for (const mode of MODES) {
      rows.push({
        records: corpus.length,
        mode,
        'flat p50': flat ? fmt(flat.latency[mode].p50) : '–',
        'flat p95': flat ? fmt(flat.latency[mode].p95) : '–',
        'indexed p50': fmt(indexed.latency[mode].p50),
        'indexed p95': fmt(indexed.latency[mode].p95),
        'cpu ms flat→indexed': `${flat ? fmt(flat.latency[mode].cpu) : '–'} → ${fmt(indexed.latency[mode].cpu)}`,
      });
    }
    rows.push({
      records: corpus.length,
      mode: 'ingest (flat)',
      'flat p50': `embed+upsert ${((upserted - started) / 1000).toFixed(1)} s`,
      'flat p95': `optimize ${((ftsReady - upserted) / 1000).toFixed(1)} s`,
      'indexed p50': `+ indexes ${(indexMs / 1000).toFixed(1)} s`,
      'indexed p95': `${Math.round(corpus.length / ((ftsReady - started) / 1000))} rec/s`,
    });
    rows.push({
      records: corpus.length,
      mode: 'ingest (default)',
      'flat p50': `embed+upsert ${((ingestUpserted - ingestStarted) / 1000).toFixed(1)} s`,
      'flat p95': `optimize+indexes ${((ingestMs - (ingestUpserted - ingestStarted)) / 1000).toFixed(1)} s`,
      'indexed p50': '',
      'indexed p95': `${Math.round(corpus.length / (ingestMs / 1000))} rec/s`,
    });
    rows.push({
      records: corpus.length,
      mode: 'other',
      'flat p50': `ANN recall@10 ${(recall * 100).toFixed(1)}%`,
      'flat p95': `queries ${queries.length} (${queries.filter((q) => q.kind === 'zh').length} zh)`,
      'indexed p50': `empty hybrid ${indexed.emptyHybrid}`,
      'indexed p95': `load ${load0.toFixed(1)}→${loadavg()[0].toFixed(1)}`,
    });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return rows;
}

export default async function run() {
  const lib = await load();
  const lancedb = await import('@lancedb/lancedb');
  const rows = [];
  for (const size of SIZES) rows.push(...(await runSize(lib, lancedb, size)));
  return {
    name: 'search at scale',
    tree: '/usr/share/doc + /usr/lib/python3.11 + zh catalogues',
    note: `ms per search, k = 10, ${QUERIES} queries after ${WARMUP} warm-up, modes round robin; flat = FTS index only; indexed = default options after optimize()`,
    rows,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await run();
  console.table(result.rows);
}
