// DAG summarization wall time against its lower bound (issue 4): the built CLI summarizes a real
// tree through the local OpenAI-compatible mock server, which adds 50 ms to every call, with at
// most 10 calls in flight. No schedule can beat max(critical path × latency, calls × latency / 10):
// the critical path is the longest chain of calls that must wait for each other (a file, then
// its directory, then that directory's parent, ...), read from the prompts the server received.
// Target: wall time at most 1.05 × that bound.
//
// The mock server runs in this (the bench's) process and the CLI in a child process, so the
// server's CPU never runs on the DAG's main thread; on a 2-core machine the two still share the
// cores, and so does any other load: `load1` is the 1-minute load average when the run started.
//
// The bound assumes the round trips themselves are free. They are not: the same requests, replayed
// against the same server at the same concurrency by clients that do nothing else (the floors,
// bench/lib/llm-floor.ts), show what the machine allows at that moment: `bare` posts the bodies
// over node:http, `stack` goes through Cairn's LLM stack (the openai SDK adapter and its wrappers).
// `vsBare` is the DAG's wall time over the bare floor's. `tightBoundMs` is a lower bound that also
// sees the DAG's tail (levelBound below); `tightRatio` is the wall time over it.
//
// Tree: $CAIRN_BENCH_DAG_TREE, else Debian's git documentation, else zod's sources.
import { build } from 'esbuild';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bundleTs } from './lib/bundle.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CACHE = join(ROOT, 'node_modules/.cache/cairn-bench-dag');
// $CAIRN_BENCH_CLI: another build of the CLI (a copy of dist-main), to compare two builds at the same load.
const CLI = process.env.CAIRN_BENCH_CLI ?? join(ROOT, 'dist-main/cli.js');
const LATENCY_MS = 50;
const CONCURRENCY = 10;
const candidates = [process.env.CAIRN_BENCH_DAG_TREE, '/usr/share/doc/git', join(ROOT, 'node_modules/zod/src')].filter(Boolean);
const tree = candidates.find((path) => existsSync(path));

async function mockServerModule() {
  mkdirSync(CACHE, { recursive: true });
  const outfile = join(CACHE, 'mock-openai-server.mjs');
  await build({ entryPoints: [join(ROOT, 'test/support/mock-openai-server.ts')], outfile, bundle: true, platform: 'node', format: 'esm', packages: 'external', logLevel: 'warning' });
  return import(pathToFileURL(outfile).href);
}

function runScript(script, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args]);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(stdout)) : reject(new Error(`${script} failed (${code}): ${stderr}`))));
  });
}

function cli(args) {
  return new Promise((resolve, reject) => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(OPENAI_|CAIRN_)/.test(k)));
    const child = spawn(process.execPath, [CLI, ...args], { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(stdout)) : reject(new Error(`cairn ${args[0]} failed (${code}): ${stderr}`))));
  });
}

/** The node a prompt is about: both prompt kinds name it as `"name" (ctx://...)`. */
function promptUri(request) {
  const user = request.messages.find((m) => m.role === 'user')?.content ?? '';
  return /\((ctx:\/\/[^)\s]+)\)/.exec(user)?.[1] ?? null;
}

function parentOf(uri) {
  const trimmed = uri.endsWith('/') ? uri.slice(0, -1) : uri;
  const cut = trimmed.lastIndexOf('/');
  return cut < 'ctx://'.length ? null : trimmed.slice(0, cut + 1);
}

/** Longest chain of dependent calls: a node's own calls (batches run one after another) after its slowest child. */
function criticalPath(callsByUri) {
  const children = new Map();
  for (const uri of callsByUri.keys()) {
    for (let child = uri, parent = parentOf(uri); parent; child = parent, parent = parentOf(parent)) {
      if (!children.has(parent)) children.set(parent, new Set());
      children.get(parent).add(child);
    }
  }
  const memo = new Map();
  const height = (uri) => {
    if (memo.has(uri)) return memo.get(uri);
    let below = 0;
    for (const child of children.get(uri) ?? []) below = Math.max(below, height(child));
    const value = below + (callsByUri.get(uri) ?? 0);
    memo.set(uri, value);
    return value;
  };
  return Math.max(...[...callsByUri.keys()].map((uri) => height(uri)));
}

/**
 * A tighter lower bound, in rounds of one call per slot: a call with h − 1 calls after it on the
 * way to the root (its height h) must end h − 1 rounds before the run does, so for every k the
 * calls of height > k need ceil(n_{>k} / slots) rounds before the last k:
 * T ≥ max_k (k + ceil(n_{>k} / slots)). k = 0 is the calls bound and the largest k the path
 * bound; the ones between see the tail, where the last calls (a big directory's merge, then the
 * root) run with slots idle. A directory's batches run at once and its merge after them, as the
 * DAG runs them; its summary starts when all its children are done (the seed's pending counter,
 * docs/SPEC.md#summaries).
 */
function levelBound(callsByUri, slots) {
  const levels = (uri) => Math.min(2, callsByUri.get(uri) ?? 0);
  const memo = new Map();
  // Rounds from the end of a node's last call to the end of the root's: its ancestors' levels.
  const after = (uri) => {
    if (!memo.has(uri)) {
      const parent = parentOf(uri);
      memo.set(uri, parent ? levels(parent) + after(parent) : 0);
    }
    return memo.get(uri);
  };
  const heights = [];
  for (const [uri, calls] of callsByUri) {
    heights.push(1 + after(uri));
    for (let batch = 1; batch < calls; batch++) heights.push(2 + after(uri));
  }
  let rounds = 0;
  for (let k = 0; k < Math.max(...heights); k++) rounds = Math.max(rounds, k + Math.ceil(heights.filter((h) => h > k).length / slots));
  return rounds;
}

/** Time-weighted mean of the calls in flight between the first request and the last answer. */
function meanInFlight(changes) {
  if (changes.length < 2) return 0;
  let level = 0;
  let area = 0;
  for (let i = 0; i < changes.length; i++) {
    if (i > 0) area += level * (changes[i][0] - changes[i - 1][0]);
    level += changes[i][1];
  }
  return +(area / (changes.at(-1)[0] - changes[0][0])).toFixed(2);
}

export default async function run() {
  const { startMockOpenAI, reply } = await mockServerModule();
  const server = await startMockOpenAI();
  const abstract = 'Reference documentation for one part of the tree: what it covers, the commands and options it describes, and when a reader would open it.';
  server.handle(() => reply.delayed(LATENCY_MS, reply.json({ abstract, overview: '# Overview\n\n- topics\n- options', categories: ['docs'] })));
  const workspace = mkdtempSync(join(tmpdir(), 'cairn-bench-dag-'));
  const rows = [];
  try {
    await cli(['ingest', tree, '--workspace', workspace, '--no-summarize', '--no-progress', '--json']);
    // Calls in flight over time, from the first request to the last answer: below the limit
    // while work remains means the client did not start calls fast enough.
    const changes = [];
    const offRequest = server.on('request', () => changes.push([performance.now(), 1]));
    const offSettled = server.on('settled', () => changes.push([performance.now(), -1]));
    const load1 = +loadavg()[0].toFixed(2);
    const result = await cli(['ingest', tree, '--workspace', workspace, '--no-progress', '--json', '--llm-base-url', server.url, '--llm-model', 'bench-model', '--max-concurrent-llm', String(CONCURRENCY)]);
    offRequest();
    offSettled();
    const calls = server.chatRequests.length;
    const callsByUri = new Map();
    for (const request of server.chatRequests) {
      const uri = promptUri(request);
      if (uri) callsByUri.set(uri, (callsByUri.get(uri) ?? 0) + 1);
    }
    const path = criticalPath(callsByUri);
    const bound = Math.max(path * LATENCY_MS, (calls * LATENCY_MS) / CONCURRENCY);
    const tightBound = levelBound(callsByUri, CONCURRENCY) * LATENCY_MS;
    const wall = result.summary.ms;
    const requestsFile = join(workspace, 'requests.json');
    writeFileSync(requestsFile, JSON.stringify(server.chatRequests.map((r) => r.rawBody)));
    const floor = await bundleTs('llm-floor', ['./bench/lib/llm-floor.ts']);
    const bare = (await runScript(floor, ['bare', server.url, requestsFile, String(CONCURRENCY)])).ms;
    const stack = (await runScript(floor, ['stack', server.url, requestsFile, String(CONCURRENCY)])).ms;
    rows.push({
      files: result.files,
      calls,
      criticalPath: path,
      peakInFlight: server.peakConcurrency,
      inputTokens: result.llm.input_tokens,
      outputTokens: result.llm.output_tokens,
      boundMs: Math.round(bound),
      wallMs: wall,
      ratio: +(wall / bound).toFixed(3),
      tightBoundMs: tightBound,
      tightRatio: +(wall / tightBound).toFixed(3),
      bareMs: bare,
      bareRatio: +(bare / bound).toFixed(3),
      stackMs: stack,
      stackRatio: +(stack / bound).toFixed(3),
      vsBare: +(wall / bare).toFixed(3),
      meanInFlight: meanInFlight(changes),
      load1,
    });
  } finally {
    await server.close();
    rmSync(workspace, { recursive: true, force: true });
  }
  return { name: 'dag', tree, rows, note: `mock server adds ${LATENCY_MS} ms per call, --max-concurrent-llm ${CONCURRENCY}; wall = the DAG run's own time (result.summary.ms); meanInFlight = time-weighted calls in flight (limit 10) during the DAG; bare/stack = the floors (the same requests replayed by clients doing nothing else); target ratio ≤ 1.05` };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await run();
  console.log(result.note);
  console.table(result.rows);
}
