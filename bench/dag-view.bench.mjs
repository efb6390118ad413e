// The live DAG view at 5,000 directories (issue 8): the built renderer in Debian's Chromium
// (playwright-core), served by the real web host (main/host/web-host.ts, bundled with esbuild, with
// its 10-a-second event coalescing) in front of a fake engine that streams the `dag/*` events of a
// 5,000-directory run. Measured in the page: time until the graph is first drawn, and frames per
// second (requestAnimationFrame counting) while the run's progress streams in. A second scenario
// reloads: the engine holds a finished 5,000-directory tree and the view rebuilds it with one
// `fs:tree` call. Targets: first paint ≤ 2 s, ≥ 30 fps during updates.
//
// Needs `npx vite build` (dist/renderer) and /usr/bin/chromium (CAIRN_CHROMIUM overrides).
// Run alone (`node bench/dag-view.bench.mjs`) or from bench/run.mjs (`npm run bench -- dag-view`).
/* global document, window -- the page-side checks below run in Chromium */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { importTs } from './lib/bundle.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RENDERER = process.env.CAIRN_BENCH_RENDERER ?? join(ROOT, 'dist', 'renderer');
const CHROMIUM = process.env.CAIRN_CHROMIUM ?? '/usr/bin/chromium';
const RUN_ROOT = 'ctx://resources/big/';
const FILES_PER_DIR = 4;
/** How long the run's progress takes to stream (the dispatches come first, in about 0.5 s). */
const UPDATE_SECONDS = Number(process.env.CAIRN_BENCH_UPDATE_SECONDS ?? 10);

function bundle() {
  return importTs('dag-view-web-host', [
    { from: './main/host/web-host.ts', names: ['startWebHost'] },
    { from: './shared/errors.ts', names: ['CairnError'] },
  ]);
}

/** 1 root, 50 areas, 500 topics, 4,449 leaves: 5,000 directories, each with FILES_PER_DIR files. */
function generateTree() {
  const dirs = [{ uri: RUN_ROOT, parent: null, kids: [] }];
  const add = (parent, name) => {
    const dir = { uri: `${parent.uri}${name}/`, parent: parent.uri, kids: [] };
    parent.kids.push(dir);
    dirs.push(dir);
    return dir;
  };
  const areas = Array.from({ length: 50 }, (_, a) => add(dirs[0], `area-${a}`));
  const topics = areas.flatMap((area, a) => Array.from({ length: 10 }, (_, t) => add(area, `topic-${a}-${t}`)));
  for (let i = 0; dirs.length < 5000; i += 1) add(topics[i % topics.length], `leaf-${i}`);
  return dirs;
}

/** Every event of a run over the tree: dispatch top-down, then files and summaries bottom-up. */
function runEvents(dirs) {
  const counts = { dirs_total: dirs.length, dirs_done: 0, files_total: dirs.length * FILES_PER_DIR, files_done: 0, llm_calls: 0 };
  const snapshot = () => ({ ...counts });
  const dispatch = [{ type: 'dag/started', root: RUN_ROOT, messageId: 'bench' }];
  for (const dir of dirs) {
    dispatch.push({ type: 'dag/dir-dispatched', root: RUN_ROOT, uri: dir.uri, parent: dir.parent, pending: dir.kids.length + FILES_PER_DIR, dirs: dir.kids.length, files: FILES_PER_DIR, counts: snapshot() });
  }
  const pending = new Map(dirs.map((dir) => [dir.uri, dir.kids.length + FILES_PER_DIR]));
  const byUri = new Map(dirs.map((dir) => [dir.uri, dir]));
  const progress = [];
  const tick = (uri) => {
    const left = pending.get(uri) - 1;
    pending.set(uri, left);
    progress.push({ type: 'dag/pending-changed', root: RUN_ROOT, uri, pending: left, counts: snapshot() });
    if (left === 0) finish(uri);
  };
  const finish = (uri) => {
    progress.push({ type: 'dag/summary-started', root: RUN_ROOT, uri, children: byUri.get(uri).kids.length + FILES_PER_DIR, counts: snapshot() });
    counts.dirs_done += 1;
    counts.llm_calls += 1;
    progress.push({ type: 'dag/summary-done', root: RUN_ROOT, uri, reused: false, abstract: `Summary of ${uri}`, status: 'done', counts: snapshot() });
    const parent = byUri.get(uri).parent;
    if (parent) tick(parent);
  };
  // Files finish leaf directory by leaf directory, in tree order, as a DAG run's do.
  const order = [...dirs].reverse();
  for (const dir of order) {
    for (let f = 0; f < FILES_PER_DIR; f += 1) {
      counts.files_done += 1;
      tick(dir.uri);
    }
  }
  progress.push({
    type: 'dag/finished',
    root: RUN_ROOT,
    messageId: 'bench',
    result: { ...snapshot(), root: RUN_ROOT, dirsSummarized: dirs.length, dirsReused: 0, filesSummarized: counts.files_total, fallbacks: 0, failed: 0, tokens: 0, ms: 0 },
  });
  return { dispatch, progress };
}

/** The tree as `fs:tree` gives it once the run finished. */
function storedTree(dirs) {
  const toNode = (dir) => ({
    uri: dir.uri,
    name: dir.uri.split('/').at(-2),
    kind: 'dir',
    abstract: `Summary of ${dir.uri}`,
    summary_status: 'done',
    children: [
      ...dir.kids.map(toNode),
      ...Array.from({ length: FILES_PER_DIR }, (_, f) => ({ uri: `${dir.uri}file-${f}.md`, name: `file-${f}.md`, kind: 'file', summary_status: 'done' })),
    ],
  });
  return toNode(dirs[0]);
}

/** The engine side: events on demand; `listed` says whether the workspace already lists the tree. */
function fakeEngine(CairnError, stored, listed) {
  const listeners = new Set();
  return {
    emit: (event) => listeners.forEach((listener) => listener(event)),
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async call(command, request) {
      if (command === 'fs:ls') {
        if (listed && request.uri === 'ctx://resources/') return { uri: request.uri, entries: [{ uri: RUN_ROOT, name: 'big', kind: 'dir' }] };
        throw new CairnError('NOT_FOUND', `${request.uri} does not exist`);
      }
      if (command === 'fs:stat') return { uri: request.uri, kind: 'dir', bytes: 0, children: 1, has_abstract: true, has_overview: true, meta: null };
      if (command === 'fs:tree' && stored) return { root: stored };
      throw new CairnError('NOT_FOUND', `${command} is not served by the bench engine`);
    },
  };
}

/** With CAIRN_BENCH_PROFILE set: a CPU profile of the page while progress streams; prints the functions with the most self time. */
async function startProfile(page, phase = 'while progress streamed') {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 500 });
  await cdp.send('Profiler.start');
  return {
    async stop() {
      const { profile } = await cdp.send('Profiler.stop');
      const self = new Map();
      const interval = (profile.endTime - profile.startTime) / profile.samples.length / 1000;
      const byId = new Map(profile.nodes.map((node) => [node.id, node]));
      for (const id of profile.samples) {
        const frame = byId.get(id).callFrame;
        const key = `${frame.functionName || '(anonymous)'} ${frame.url.split('/').pop()}:${frame.lineNumber}`;
        self.set(key, (self.get(key) ?? 0) + interval);
      }
      if (process.env.CAIRN_BENCH_PROFILE === 'inclusive') {
        // Time with callees, per function: finds the component whose render is heavy.
        const parent = new Map();
        for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
        for (const id of profile.samples) {
          const seen = new Set();
          for (let at = id; at !== undefined; at = parent.get(at)) {
            const frame = byId.get(at).callFrame;
            const key = `incl ${frame.functionName || '(anonymous)'} ${frame.url.split('/').pop()}:${frame.lineNumber}`;
            if (seen.has(key)) continue;
            seen.add(key);
            self.set(key, (self.get(key) ?? 0) + interval);
          }
        }
      }
      const top = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, process.env.CAIRN_BENCH_PROFILE === 'inclusive' ? 60 : 16);
      console.log(`self time (ms) ${phase}:`);
      for (const [name, ms] of top) console.log(`${ms.toFixed(0).padStart(8)}  ${name}`);
    },
  };
}

// Page-side checks. Functions, not strings: the host's Content-Security-Policy forbids eval.
const RUN_FINISHED = () => document.querySelector('[data-testid="dag-totals"][data-status="finished"]') !== null && (window.__end = performance.now()) > 0;
const FIRST_NODE = () => document.querySelector('.react-flow__node') !== null;
const WHOLE_GRAPH = (n) => document.querySelector(`[data-testid="dag-canvas"][data-node-count="${n}"]`) !== null && document.querySelector('.react-flow__node') !== null;

const FRAME_COUNTER = `(() => {
  window.__frames = [];
  const loop = (t) => { window.__frames.push(t); window.__rafId = requestAnimationFrame(loop); };
  window.__rafId = requestAnimationFrame(loop);
})()`;

/** Frames per second and the slowest frames, from the rAF timestamps the page recorded. */
async function frameStats(page) {
  const frames = await page.evaluate('(() => { cancelAnimationFrame(window.__rafId); return window.__frames.filter((t) => !window.__end || t <= window.__end); })()');
  const gaps = frames.slice(1).map((t, i) => t - frames[i]).sort((a, b) => a - b);
  const seconds = (frames.at(-1) - frames[0]) / 1000;
  return {
    fps: +((frames.length - 1) / seconds).toFixed(1),
    p95FrameMs: +(gaps[Math.floor(gaps.length * 0.95)] ?? 0).toFixed(1),
    maxFrameMs: +(gaps.at(-1) ?? 0).toFixed(1),
  };
}

async function openDag(browser, url) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const errors = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
  await page.goto(url);
  await page.locator('[data-app-state="ready"]').waitFor({ timeout: 30_000 });
  return { page, errors };
}

async function liveScenario(browser, startWebHost, CairnError, dirs) {
  // The tree is not listed when the page opens; once the run finishes the view reloads it (fs:tree).
  const engine = fakeEngine(CairnError, storedTree(dirs), false);
  const host = await startWebHost({ engine, rendererDir: RENDERER });
  try {
    const { page, errors } = await openDag(browser, host.url);
    await page.keyboard.press('Alt+3');
    await page.locator('[data-testid="dag-empty"][data-loading="false"]').waitFor();
    const { dispatch, progress } = runEvents(dirs);
    const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

    // Dispatches arrive in about half a second, as the executor walks the tree.
    const dispatchProfiler = process.env.CAIRN_BENCH_PROFILE ? await startProfile(page, 'while the dispatches arrived') : null;
    const started = performance.now();
    const firstDrawn = page.waitForFunction(FIRST_NODE, null, { polling: 'raf', timeout: 60_000 }).then(() => performance.now() - started);
    const allDrawn = page.waitForFunction(WHOLE_GRAPH, dirs.length, { polling: 'raf', timeout: 60_000 }).then(() => performance.now() - started);
    for (let i = 0; i < dispatch.length; i += 500) {
      dispatch.slice(i, i + 500).forEach(engine.emit);
      await sleep(50);
    }
    const firstPaintMs = await firstDrawn;
    const fullGraphMs = await allDrawn;
    if (dispatchProfiler) await dispatchProfiler.stop();

    // Then the progress, evenly over UPDATE_SECONDS, while the page counts its frames.
    const profiler = process.env.CAIRN_BENCH_PROFILE ? await startProfile(page) : null;
    if (process.env.CAIRN_BENCH_TRACE) await browser.startTracing(page, { path: process.env.CAIRN_BENCH_TRACE, categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline'] });
    await page.evaluate(FRAME_COUNTER);
    const perTick = Math.ceil(progress.length / (UPDATE_SECONDS * 50));
    const updateStart = performance.now();
    for (let i = 0; i < progress.length; i += perTick) {
      progress.slice(i, i + perTick).forEach(engine.emit);
      await sleep(20);
    }
    // The run's end, noted in the page's clock: frames after it (the reload that reconciles the
    // view with the workspace) are not part of the updates.
    await page.waitForFunction(RUN_FINISHED, null, { polling: 'raf', timeout: 60_000 });
    const updateSeconds = (performance.now() - updateStart) / 1000;
    const frames = await frameStats(page);
    if (profiler) await profiler.stop();
    if (process.env.CAIRN_BENCH_TRACE) await browser.stopTracing();
    const drawnNodes = await page.locator('.react-flow__node').count();
    await page.close();
    return {
      scenario: 'live run',
      dirs: dirs.length,
      events: dispatch.length + progress.length,
      firstPaintMs: Math.round(firstPaintMs),
      fullGraphMs: Math.round(fullGraphMs),
      updateS: +updateSeconds.toFixed(1),
      ...frames,
      nodesInDom: drawnNodes,
      errors: errors.length,
    };
  } finally {
    await host.close();
  }
}

async function reloadScenario(browser, startWebHost, CairnError, dirs) {
  const engine = fakeEngine(CairnError, storedTree(dirs), true);
  const host = await startWebHost({ engine, rendererDir: RENDERER });
  try {
    const { page, errors } = await openDag(browser, host.url);
    await page.evaluate(FRAME_COUNTER);
    const profiler = process.env.CAIRN_BENCH_PROFILE ? await startProfile(page, 'while the view rebuilt') : null;
    if (process.env.CAIRN_BENCH_TRACE) await browser.startTracing(page, { path: process.env.CAIRN_BENCH_TRACE, categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline'] });
    const started = performance.now();
    await page.keyboard.press('Alt+3');
    await page.waitForFunction(WHOLE_GRAPH, dirs.length, { polling: 'raf', timeout: 60_000 });
    const firstPaintMs = performance.now() - started;
    if (profiler) await profiler.stop();
    if (process.env.CAIRN_BENCH_TRACE) await browser.stopTracing();
    // Pan around the rebuilt graph for two seconds: the frame rate of a person looking at it.
    const box = await page.getByTestId('dag-canvas').boundingBox();
    await page.evaluate(FRAME_COUNTER);
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    for (let i = 0; i < 60; i += 1) await page.mouse.move(box.x + box.width / 2 + Math.sin(i / 6) * 300, box.y + box.height / 2 - i * 8, { steps: 2 });
    await page.mouse.up();
    const frames = await frameStats(page);
    if (process.env.CAIRN_BENCH_PROFILE) console.log('elements in the page:', await page.evaluate('document.getElementsByTagName("*").length'), 'edges:', await page.locator('.react-flow__edge').count());
    const done = await page.locator('.react-flow__node [data-state="done"]').count();
    const drawnNodes = await page.locator('.react-flow__node').count();
    await page.close();
    return { scenario: 'reload (fs:tree)', dirs: dirs.length, events: 0, firstPaintMs: Math.round(firstPaintMs), fullGraphMs: Math.round(firstPaintMs), updateS: 0, ...frames, nodesInDom: drawnNodes, doneInDom: done, errors: errors.length };
  } finally {
    await host.close();
  }
}

export default async function run() {
  if (!existsSync(join(RENDERER, 'index.html'))) throw new Error('dag-view bench: build the renderer first (`npx vite build`)');
  const { startWebHost, CairnError } = await bundle();
  const dirs = generateTree();
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--headless', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  try {
    const only = process.env.CAIRN_BENCH_ONLY;
    const rows = [];
    if (only !== 'reload') rows.push(await liveScenario(browser, startWebHost, CairnError, dirs));
    if (only !== 'live') rows.push(await reloadScenario(browser, startWebHost, CairnError, dirs));
    return {
      name: 'dag-view',
      tree: `${dirs.length} directories × ${FILES_PER_DIR} files`,
      rows,
      note: 'Chromium headless, 1400×900; firstPaintMs: first event (live) or opening the view (reload) to the first node drawn; fullGraphMs: to every directory in the graph; fps from requestAnimationFrame while progress streams (live) or while panning (reload). Targets: ≤ 2,000 ms, ≥ 30 fps.',
    };
  } finally {
    await browser.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await run();
  console.log(result.note);
  console.table(result.rows);
}
