#!/usr/bin/env node
/**
 * Screenshots of every view, to look at or to compare two builds of the renderer (a change to the
 * styles that should not show must leave every picture as it was).
 *
 *   npm run -s build:main && npx vite build --logLevel warn
 *   node scripts/screenshots.mjs shots/before              # every view: light/English, dark/Chinese, narrow
 *   node scripts/screenshots.mjs --compare shots/before shots/after
 *
 * Capture runs `cairn serve` on a fresh workspace and drives Debian's Chromium ($CAIRN_CHROMIUM
 * to use another) with playwright-core as test/e2e/harness.ts does: it ingests assets/sample,
 * imports a conversation and commits its memories, packs and exports them, and points the LLM at
 * the scripted server of test/support/mock-openai-server.ts so the monitor has calls to show.
 * What changes from run to run (durations, clock times, latencies) is masked. The views print
 * the repository's path (the sample's source), so capture both sets from the same checkout.
 *
 * Compare decodes both sets in Chromium, prints the pixels that differ per picture with their
 * bounding box and writes a diff picture (differences in red) for each one that differs. Two
 * captures of the same build differ by a few dozen pixels at most, at the corners of rounded
 * boxes and on scrollbars (antialiasing): compare exits with 1 only when a picture differs by
 * more than NOISE_PIXELS, or is missing. Look at the diff pictures either way.
 *
 *   node scripts/screenshots.mjs --shapes shots/shapes /usr/share/doc/git/RelNotes /usr/share/go-1.19/src
 *
 * Shapes draws the Live DAG of real folders (one fresh workspace each) once their run finished:
 * `dag-shape-<name>.png`, and `dag-shape-<name>-open.png` with the root's group opened.
 *
 *   node scripts/screenshots.mjs --real shots/real [folder...]
 *
 * Real draws every view on real-size data in one fresh workspace, offline (extractive summaries):
 * it ingests git's docs (/usr/share/doc/git, RelNotes is ~480 files wide) and Go's net package (a
 * deep code tree), or the folders given, imports a 42-message conversation and a 403-message one
 * (the other memory-dev conversations, then rc02-bakery's sessions up to 400 messages, end to end),
 * and shoots Home, the Explorer, the Live DAG (as the run leaves it, a wide group opened, fitted,
 * collapsed, expanded), Sessions (each tab, the chain graph of both conversations), Search on real
 * questions, Memory, Compression, Export, the LLM monitor and Settings, then each view dark/Chinese.
 * A step that fails is reported and the next one runs, so one broken view still leaves the others.
 */
/* global document, NodeFilter, Image -- the functions given to page.evaluate run in Chromium */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { transform } from 'esbuild';
import { chromium } from 'playwright-core';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SAMPLE = join(ROOT, 'assets', 'sample');
const CONVERSATION = join(ROOT, 'test', 'fixtures', 'chains', 'en-memory-leak.json');
const CHROMIUM = process.env.CAIRN_CHROMIUM ?? '/usr/bin/chromium';
const KEY = 'sk-screenshots-0000';

/** Drawings of run-to-run values (call latencies), painted over in every picture. */
const MASKS = ['[data-testid="monitor-latency"]'];

/**
 * Runs in the page before each picture: run-to-run text (the temporary folder, moments, clock
 * times, durations, the LLM server's port) is written as a fixed value of the same shape, so
 * layouts match too.
 */
function normalizeInPage(temp) {
  const fix = (text) =>
    text
      .replaceAll(temp, temp.replace(/[^/]{6}$/, 'XXXXXX'))
      .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:1234')
      .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, '2026-01-01T00:00:00.000Z')
      .replace(/(?<![\d.:T])\d{1,2}:\d{2}(:\d{2})?( ?[AP]M)?(?![\d:])/g, '00:00:00')
      .replace(/(?<![\w.])\d+(\.\d+)? ?(ms|s|毫秒|秒)(?![A-Za-z])/g, (_, _fraction, unit) => `00 ${unit}`);
  const walker = document.createTreeWalker(document.getElementById('main'), NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement?.closest('.monaco-editor')) continue;
    const fixed = fix(node.nodeValue);
    if (fixed !== node.nodeValue) node.nodeValue = fixed;
  }
  for (const input of document.querySelectorAll('#main input')) {
    const fixed = fix(input.value);
    if (fixed !== input.value) input.value = fixed;
  }
}

function launch() {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--headless', '--disable-gpu', '--no-first-run'] });
}

/** The scripted OpenAI-compatible server of the tests, loaded from its TypeScript source. */
async function startLlm(temp) {
  const source = await readFile(join(ROOT, 'test', 'support', 'mock-openai-server.ts'), 'utf8');
  const { code } = await transform(source, { loader: 'ts', format: 'esm' });
  const file = join(temp, 'mock-openai-server.mjs');
  await writeFile(file, code);
  const { startMockOpenAI, reply } = await import(pathToFileURL(file).href);
  const server = await startMockOpenAI({ apiKey: KEY });
  server.handle(() => reply.json({ abstract: 'Written by the mock LLM.', overview: '# Mock\n\n- overview', categories: ['docs'] }, { usage: { prompt_tokens: 120, completion_tokens: 30 } }));
  return server;
}

async function serve(workspace) {
  const child = spawn(process.execPath, [join(ROOT, 'dist-main', 'cli.js'), 'serve', '--port', '0', '--workspace', workspace], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, CAIRN_WORKSPACE: '' },
  });
  const url = await new Promise((done, fail) => {
    createInterface({ input: child.stdout }).once('line', done);
    child.once('exit', (code) => fail(new Error(`cairn serve exited (${code}) before printing a URL`)));
  });
  const exited = new Promise((done) => child.once('exit', done));
  return {
    url,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * `shot(name)`: the view as shown, and again scrolled to the end when it is taller than the window.
 * With `normalize` (pictures to compare) run-to-run text is written as fixed values first.
 */
function shooter(page, outDir, temp, { normalize = true } = {}) {
  const fixText = () => (normalize ? page.evaluate(normalizeInPage, temp) : Promise.resolve());
  const names = [];
  const shot = async (name) => {
    await page.evaluate(() => document.fonts.ready);
    // Monaco lays out and scrolls its editors for a while after their text shows.
    await page.waitForTimeout((await page.locator('#main .monaco-editor').count()) > 0 ? 1500 : 400);
    await fixText();
    const options = { animations: 'disabled', caret: 'hide', mask: MASKS.map((s) => page.locator(s)), maskColor: '#ff00ff' };
    await page.screenshot({ ...options, path: join(outDir, `${name}.png`) });
    names.push(name);
    const scrolled = await page.evaluate(() => {
      const main = document.getElementById('main');
      const before = main.scrollTop;
      main.scrollTop = main.scrollHeight;
      return main.scrollTop !== before;
    });
    if (scrolled) {
      await page.waitForTimeout(200);
      await fixText();
      await page.screenshot({ ...options, path: join(outDir, `${name}-end.png`) });
      names.push(`${name}-end`);
      await page.evaluate(() => (document.getElementById('main').scrollTop = 0));
    }
  };
  const testId = (id) => page.getByTestId(id);
  const go = (view) => page.keyboard.press(`Alt+${(VIEWS.indexOf(view) + 1) % 10}`);
  /** Every view again, dark and in Chinese, as the stores left it; then back to light and English. */
  const shootDarkChinese = async () => {
    await testId('theme-select').selectOption('dark');
    await testId('locale-select').selectOption('zh');
    for (const view of VIEWS) {
      await go(view);
      await shot(`${view}-dark-zh`);
    }
    await testId('theme-select').selectOption('light');
    await testId('locale-select').selectOption('en');
  };
  return { names, shot, testId, go, shootDarkChinese };
}

/** The views in the order of their Alt+1…0 shortcuts. */
const VIEWS = ['home', 'explorer', 'dag', 'search', 'sessions', 'memories', 'compress', 'export', 'monitor', 'settings'];

/** A page of the served app, light and in English, once the engine is ready. */
async function openApp(browser, url, height) {
  const context = await browser.newContext({ viewport: { width: 1400, height }, colorScheme: 'light', locale: 'en-US', timezoneId: 'UTC' });
  const page = await context.newPage();
  page.on('pageerror', (error) => console.error(`page error: ${error.message}`));
  await page.goto(url);
  await page.locator('[data-app-state="ready"]').waitFor({ timeout: 30_000 });
  return page;
}

/** A fresh workspace served with the scripted LLM, and Chromium; `stop()` ends them all. */
async function startApp(prefix, { keep = false } = {}) {
  const temp = await mkdtemp(join(tmpdir(), prefix));
  const llm = await startLlm(temp);
  const served = await serve(join(temp, 'workspace'));
  const browser = await launch();
  const stop = async () => {
    await browser.close();
    await served.stop();
    await llm.close();
    if (keep) console.log(`workspace kept: ${temp}`);
    else await rm(temp, { recursive: true, force: true });
  };
  return { temp, llm, served, browser, stop };
}

async function capture(outDir) {
  await mkdir(outDir, { recursive: true });
  const { temp, llm, served, browser, stop } = await startApp('cairn-shots-');
  try {
    const page = await openApp(browser, served.url, 1000);
    const { names, shot, testId, go, shootDarkChinese } = shooter(page, outDir, temp);

    // Light, English: every view with something in it.
    await shot('home');
    await testId('ingest-path').fill(SAMPLE);
    await testId('ingest-code-mode').selectOption('ast');
    await testId('ingest-start').click();
    await testId('ingest-result').waitFor({ timeout: 90_000 });
    await testId('skip-groups').locator('summary').first().click();
    await shot('home-result');

    await testId('open-explorer').click();
    const tree = testId('context-tree');
    await tree.locator('[data-uri="ctx://resources/sample/src/"]').click();
    await tree.locator('[data-uri="ctx://resources/sample/src/station.py"]').click();
    await page.locator('.monaco-editor .view-lines', { hasText: /class\s+Quantity/ }).waitFor();
    await shot('explorer-file');

    await go('dag');
    await page.locator('[data-testid="dag-totals"][data-status="finished"]').waitFor({ timeout: 90_000 });
    await page.locator('[data-testid="dag-node"][data-uri="ctx://resources/sample/docs/"]').click();
    await shot('dag');

    await go('explorer');
    await testId('explorer-refresh').click();
    await tree.locator('[data-uri="ctx://resources/sample/"]').click();
    await testId('node-overview').waitFor({ timeout: 60_000 });
    await shot('explorer-dir');

    await go('search');
    await testId('search-input').fill('uplink retries');
    await testId('search-input').press('Enter');
    await testId('search-hit').first().waitFor({ timeout: 30_000 });
    await testId('search-input').press('ArrowDown');
    await shot('search');

    await go('sessions');
    await shot('sessions-empty');
    await testId('sessions-import-path').fill(CONVERSATION);
    await testId('sessions-import').click();
    await page.locator('[data-testid="session-open"][data-analysis="done"]').waitFor({ timeout: 60_000 });
    await shot('sessions-messages');
    for (const tab of ['buckets', 'clusters', 'chains', 'fusion', 'trigger']) {
      await testId(`session-tab-${tab}`).click();
      if (tab === 'buckets') await page.locator('.bucket summary').first().click();
      if (tab === 'clusters') await testId('cluster-point').nth(3).hover();
      if (tab === 'chains') {
        await page.locator('[data-testid="chain-node"][data-role="cause"]').first().click();
        await testId('chain-node-messages').waitFor();
      }
      if (tab === 'trigger') {
        await testId('session-commit').click();
        await testId('commit-result').waitFor({ timeout: 60_000 });
      }
      await shot(`sessions-${tab}`);
      if (tab === 'chains' && (await testId('chain-links-toggle').isEnabled())) {
        await testId('chain-links-toggle').check();
        await testId('chain-cluster').first().waitFor();
        await shot('sessions-chains-links');
        await testId('chain-links-toggle').uncheck();
      }
    }

    await go('memories');
    await testId('memory-item').first().click();
    await page.locator('[data-testid="history-item"][data-op="add"]').waitFor();
    await shot('memories');
    await testId('memory-edit').click();
    await shot('memories-form');
    await testId('memory-title-input').fill('Deploy plan: staging first, production on Friday');
    await testId('memory-save').click();
    await page.locator('[data-testid="history-item"][data-op="update"]').last().waitFor();
    await shot('memories-edited');
    await testId('memory-item').last().click();
    await testId('memory-forget').click();
    await testId('forget-confirm').waitFor();
    await shot('memories-forget');
    await testId('forget-yes').click();
    await testId('memory-forgotten').waitFor();

    await go('compress');
    await shot('compress-empty');
    await testId('compress-query').fill('why does the memory leak grow with traffic');
    await testId('compress-budget').fill('600');
    await testId('compress-run').click();
    await page.locator('[data-testid="diff-view"] .view-line').first().waitFor({ timeout: 60_000 });
    await shot('compress');

    await go('export');
    await shot('export-empty');
    const out = join(temp, 'cairn.json');
    await testId('export-format').selectOption('json');
    await testId('export-out').fill(out);
    await testId('export-run').click();
    await page.locator(`[data-testid="export-result"][data-out="${out}"]`).waitFor({ timeout: 60_000 });
    await testId('import-path').fill(out);
    await testId('import-run').click();
    await testId('import-result').waitFor({ timeout: 60_000 });
    await shot('export');

    await go('monitor');
    await shot('monitor-off');
    await go('settings');
    await page.locator('[data-testid="settings-summarizer"][data-summarizer="extractive"]').waitFor();
    await shot('settings');
    await testId('settings-maxConcurrent').fill('0');
    await testId('settings-baseUrl').fill('localhost:1234');
    await testId('settings-save').click();
    await testId('settings-error-maxConcurrent').waitFor();
    await shot('settings-invalid');
    await testId('settings-enabled').check();
    await testId('settings-baseUrl').fill(llm.url);
    await testId('settings-model').fill('gpt-4o-mini');
    await testId('settings-maxConcurrent').fill('4');
    await testId('settings-tokenBudget').fill('200000');
    await testId('settings-apiKey').fill(KEY);
    await testId('settings-test').click();
    await testId('settings-test-result').waitFor({ timeout: 30_000 });
    await testId('settings-save').click();
    await testId('settings-save-result').waitFor({ timeout: 30_000 });
    await shot('settings-saved');

    // The LLM summarizes a second folder; the monitor shows its calls once they are all back.
    await go('home');
    await testId('ingest-path').fill(join(SAMPLE, 'docs'));
    await testId('ingest-start').click();
    await testId('ingest-result').waitFor({ timeout: 90_000 });
    await go('monitor');
    await testId('monitor-call').first().waitFor({ timeout: 60_000 });
    await page.waitForFunction(() => {
      const text = (id) => document.querySelector(`[data-testid="${id}"]`)?.textContent;
      return text('monitor-in-flight') === '0' && text('monitor-calls') === String(document.querySelectorAll('[data-testid="monitor-call"]').length);
    }, null, { timeout: 60_000 });
    await shot('monitor');

    // Dark, Chinese: each view again as the stores left it.
    await shootDarkChinese();

    // A narrow window: the sidebar goes above the content.
    await page.setViewportSize({ width: 820, height: 1000 });
    for (const view of ['home', 'explorer', 'sessions']) {
      await go(view);
      await shot(`${view}-narrow`);
    }
    console.log(`${names.length} screenshots in ${outDir}`);
  } finally {
    await stop();
  }
}

const NOISE_PIXELS = 64;

async function compare(dirA, dirB) {
  const names = (await readdir(dirA)).filter((name) => name.endsWith('.png')).sort();
  const diffDir = join(dirB, 'diff');
  await rm(diffDir, { recursive: true, force: true });
  const browser = await launch();
  let differing = 0;
  let beyondNoise = 0;
  try {
    const page = await browser.newPage();
    for (const name of names) {
      const b64 = async (dir) => (await readFile(join(dir, name)).catch(() => null))?.toString('base64') ?? null;
      const [a, b] = [await b64(dirA), await b64(dirB)];
      if (!b) {
        console.log(`${name}: missing in ${dirB}`);
        differing += 1;
        beyondNoise += 1;
        continue;
      }
      const result = await page.evaluate(diffInPage, { a, b });
      if (result.pixels === 0) continue;
      differing += 1;
      if (result.pixels > NOISE_PIXELS) beyondNoise += 1;
      await mkdir(diffDir, { recursive: true });
      await writeFile(join(diffDir, name), Buffer.from(result.png, 'base64'));
      console.log(`${name}: ${result.pixels} pixels differ${result.box ? ` in ${result.box}` : ''}${result.size ? ` (${result.size})` : ''}`);
    }
  } finally {
    await browser.close();
  }
  console.log(`${names.length - differing} of ${names.length} screenshots the same, ${beyondNoise} differ by more than ${NOISE_PIXELS} pixels${differing ? `; diffs in ${diffDir}` : ''}`);
  return beyondNoise === 0;
}

/** Runs in the page: the pixels that differ between two PNGs, their box, and a picture of them. */
async function diffInPage({ a, b }) {
  const load = async (b64) => {
    const image = new Image();
    image.src = `data:image/png;base64,${b64}`;
    await image.decode();
    const canvas = document.createElement('canvas');
    canvas.width = image.width;
    canvas.height = image.height;
    const context = canvas.getContext('2d');
    context.drawImage(image, 0, 0);
    return { canvas, context, data: context.getImageData(0, 0, image.width, image.height) };
  };
  const [left, right] = [await load(a), await load(b)];
  const { width, height } = right.data;
  if (left.data.width !== width || left.data.height !== height) {
    return { pixels: width * height, box: null, size: `${left.data.width}x${left.data.height} vs ${width}x${height}`, png: right.canvas.toDataURL().split(',')[1] };
  }
  const out = right.context.createImageData(width, height);
  let pixels = 0;
  let [x0, y0, x1, y1] = [width, height, -1, -1];
  for (let i = 0; i < width * height; i += 1) {
    const p = i * 4;
    const same = left.data.data[p] === right.data.data[p] && left.data.data[p + 1] === right.data.data[p + 1] && left.data.data[p + 2] === right.data.data[p + 2];
    // Unchanged pixels faded, changed ones red: the picture shows where, over what.
    out.data[p] = same ? 128 + right.data.data[p] / 2 : 255;
    out.data[p + 1] = same ? 128 + right.data.data[p + 1] / 2 : 0;
    out.data[p + 2] = same ? 128 + right.data.data[p + 2] / 2 : 0;
    out.data[p + 3] = 255;
    if (same) continue;
    pixels += 1;
    const [x, y] = [i % width, Math.floor(i / width)];
    [x0, y0, x1, y1] = [Math.min(x0, x), Math.min(y0, y), Math.max(x1, x), Math.max(y1, y)];
  }
  right.context.putImageData(out, 0, 0);
  return { pixels, box: pixels ? `x ${x0}..${x1}, y ${y0}..${y1}` : null, png: right.canvas.toDataURL().split(',')[1] };
}

/** The Live DAG of each folder once summarized, as a person first sees it, and with its root's group opened. */
async function captureShapes(outDir, folders) {
  await mkdir(outDir, { recursive: true });
  const browser = await launch();
  try {
    for (const folder of folders) {
      const temp = await mkdtemp(join(tmpdir(), 'cairn-shapes-'));
      const served = await serve(join(temp, 'workspace'));
      try {
        const page = await openApp(browser, served.url, 900);
        await page.getByTestId('ingest-path').fill(folder);
        await page.getByTestId('ingest-start').click();
        await page.getByTestId('ingest-result').waitFor({ timeout: 30 * 60_000 });
        await page.keyboard.press('Alt+3');
        await page.locator('[data-testid="dag-totals"][data-status="finished"]').waitFor({ timeout: 30 * 60_000 });
        const name = folder.replace(/\/+$/, '').split('/').pop();
        const shot = async (suffix) => {
          await page.waitForTimeout(800);
          const path = join(outDir, `dag-shape-${name}${suffix}.png`);
          await page.screenshot({ path, animations: 'disabled', caret: 'hide' });
          const count = await page.getByTestId('dag-canvas').getAttribute('data-node-count');
          console.log(`${path}: ${count} directories drawn`);
        };
        await shot('');
        const group = page.locator('[data-testid="dag-group"]').first();
        if ((await group.count()) > 0) {
          await group.click();
          await shot('-open');
        }
        await page.context().close();
      } finally {
        await served.stop();
        await rm(temp, { recursive: true, force: true });
      }
    }
  } finally {
    await browser.close();
  }
}

const REAL_FOLDERS = ['/usr/share/doc/git', '/usr/share/go-1.19/src/net'];
const REAL_SHORT = join(ROOT, 'test', 'fixtures', 'memory-dev', 'en-debug-pool-leak.json');
const REAL_QUERIES = ['how do I undo the last commit', '连接池', 'keep-alive timeout of idle connections', 'rebase --onto'];

/**
 * A ~400-message conversation: the memory-dev conversations but the short one, then sessions of a
 * recall-dev one until 400 messages, sessions renamed so their ids stay unique and sorted by time.
 */
async function longConversation(temp) {
  const dev = join(ROOT, 'test', 'fixtures', 'memory-dev');
  const files = (await readdir(dev)).filter((f) => f.endsWith('.json') && !f.endsWith('.labels.json') && join(dev, f) !== REAL_SHORT).map((f) => join(dev, f));
  files.push(join(ROOT, 'test', 'fixtures', 'recall-dev', 'rc02-bakery.json'));
  const sessions = [];
  let count = 0;
  for (const file of files) {
    const conversation = JSON.parse(await readFile(file, 'utf8'));
    for (const session of conversation.sessions) {
      if (count >= 400) break;
      const id = `${conversation.id}-${session.id}`;
      sessions.push({ ...session, id, messages: session.messages.map((m) => ({ ...m, id: `${conversation.id}-${m.id}` })) });
      count += session.messages.length;
    }
  }
  sessions.sort((a, b) => String(a.started_at).localeCompare(String(b.started_at)));
  const path = join(temp, 'long-conversation.json');
  await writeFile(path, JSON.stringify({ id: 'long-mixed', title: `Eight conversations end to end (${count} messages)`, sessions }));
  console.log(`${path}: ${count} messages in ${sessions.length} sessions`);
  return path;
}

/** Every view on real-size data (see the header): pictures to look at, not to compare. */
async function captureReal(outDir, folders) {
  await mkdir(outDir, { recursive: true });
  const { temp, served, browser, stop } = await startApp('cairn-real-', { keep: Boolean(process.env.CAIRN_KEEP) });
  const failed = [];
  try {
    const page = await openApp(browser, served.url, 900);
    const { names, shot, testId, go, shootDarkChinese } = shooter(page, outDir, temp, { normalize: false });
    /** One step: its failure is printed and counted, the next step runs. */
    const step = async (label, run) => {
      const started = Date.now();
      try {
        await run();
        console.log(`${label}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
      } catch (error) {
        failed.push(label);
        console.error(`${label} failed: ${error.message.split('\n')[0]}`);
        await page.screenshot({ path: join(outDir, `failed-${label}.png`) }).catch(() => {});
      }
    };
    const roots = folders.map((folder) => folder.replace(/\/+$/, '').split('/').pop());

    for (const [i, folder] of folders.entries()) {
      await step(`ingest-${roots[i]}`, async () => {
        await go('home');
        await testId('ingest-path').fill(folder);
        await testId('ingest-start').click();
        await page.waitForTimeout(1500);
        await shot(`home-running-${roots[i]}`);
        await testId('ingest-result').waitFor({ timeout: 30 * 60_000 });
        await shot(`home-result-${roots[i]}`);
        await go('dag');
        await page.locator('[data-testid="dag-totals"][data-status="finished"]').waitFor({ timeout: 30 * 60_000 });
        await shot(`dag-${roots[i]}`);
        const group = page.locator('[data-testid="dag-group"]').first();
        if ((await group.count()) > 0) {
          await group.click();
          await shot(`dag-${roots[i]}-group-open`);
          await testId('dag-fit').click();
          await shot(`dag-${roots[i]}-group-open-fit`);
        }
        await testId('dag-collapse-all').click();
        await shot(`dag-${roots[i]}-collapsed`);
        await testId('dag-expand-all').click();
        await shot(`dag-${roots[i]}-expanded`);
      });
    }

    await step('explorer', async () => {
      await go('explorer');
      await testId('explorer-refresh').click();
      const tree = testId('context-tree');
      await shot('explorer');
      const root = `ctx://resources/${roots[0]}/`;
      await tree.locator(`[data-uri="${root}"]`).click();
      await testId('node-overview').waitFor({ timeout: 60_000 });
      await shot('explorer-dir');
      const wide = tree.locator(`[data-uri="${root}RelNotes/"]`);
      if ((await wide.count()) > 0) {
        await wide.click();
        await page.waitForTimeout(800);
        await shot('explorer-wide');
        await tree.locator(`[data-uri^="${root}RelNotes/"]`).nth(5).click();
        await page.waitForTimeout(1500);
        await shot('explorer-file');
      }
      if (roots[1]) {
        const code = tree.locator(`[data-uri="ctx://resources/${roots[1]}/"]`);
        await code.click();
        await page.waitForTimeout(800);
        await tree.locator(`[data-uri="ctx://resources/${roots[1]}/http/"]`).click();
        await page.waitForTimeout(800);
        await tree.locator(`[data-uri^="ctx://resources/${roots[1]}/http/"][data-uri$=".go"]`).first().click();
        await page.waitForTimeout(1500);
        await shot('explorer-code');
      }
    });

    const long = await longConversation(temp);
    for (const [label, file] of [['short', REAL_SHORT], ['long', long]]) {
      await step(`sessions-${label}`, async () => {
        await go('sessions');
        await testId('sessions-import-path').fill(file);
        await testId('sessions-import').click();
        await page.locator('[data-testid="session-open"][data-analysis="done"]').waitFor({ timeout: 10 * 60_000 });
        await shot(`sessions-${label}-messages`);
        for (const tab of ['buckets', 'clusters', 'chains', 'fusion', 'trigger']) {
          await testId(`session-tab-${tab}`).click();
          await page.waitForTimeout(800);
          await shot(`sessions-${label}-${tab}`);
          if (tab === 'chains') {
            const node = page.locator('[data-testid="chain-node"]').first();
            if ((await node.count()) > 0) {
              await node.click();
              await testId('chain-node-messages').waitFor();
              await shot(`sessions-${label}-chains-step`);
            }
            if ((await testId('chain-links-toggle').count()) > 0 && (await testId('chain-links-toggle').isEnabled())) {
              await testId('chain-links-toggle').check();
              await page.waitForTimeout(800);
              await shot(`sessions-${label}-chains-links`);
              await testId('chain-links-toggle').uncheck();
            }
          }
          if (tab === 'trigger') {
            await testId('session-commit').click();
            await testId('commit-result').waitFor({ timeout: 5 * 60_000 });
            await shot(`sessions-${label}-committed`);
          }
        }
      });
    }

    // Searched once the conversations and their memories are in, as a person would.
    for (const [i, query] of REAL_QUERIES.entries()) {
      await step(`search-${i}`, async () => {
        await go('search');
        await testId('search-input').fill(query);
        await testId('search-input').press('Enter');
        await page.locator('[data-testid="search-hit"], [data-testid="search-status"]').first().waitFor({ timeout: 60_000 });
        await page.waitForTimeout(1500);
        await shot(`search-${i}`);
        if ((await testId('search-hit').count()) === 0 && (await testId('search-weak-toggle').count()) > 0) {
          await testId('search-weak-toggle').click();
          await shot(`search-${i}-weak`);
        }
      });
    }

    await step('memories', async () => {
      await go('memories');
      await page.waitForTimeout(1000);
      await shot('memories');
      await testId('memory-item').first().click();
      await page.waitForTimeout(800);
      await shot('memories-item');
    });
    await step('compress', async () => {
      await go('compress');
      await testId('compress-query').fill('why did the connection pool run out');
      await testId('compress-budget').fill('1500');
      await testId('compress-run').click();
      await page.locator('[data-testid="diff-view"] .view-line').first().waitFor({ timeout: 120_000 });
      await shot('compress');
    });
    await step('export', async () => {
      await go('export');
      await shot('export');
      const out = join(temp, 'cairn.json');
      await testId('export-format').selectOption('json');
      await testId('export-out').fill(out);
      await testId('export-run').click();
      await page.locator('[data-testid="export-result"]').waitFor({ timeout: 10 * 60_000 });
      await shot('export-done');
    });
    await step('monitor', async () => {
      await go('monitor');
      await shot('monitor-offline');
    });
    await step('settings', async () => {
      await go('settings');
      await shot('settings');
    });
    await step('home-end', async () => {
      await go('home');
      await shot('home-end');
    });
    await step('dark-zh', shootDarkChinese);
    console.log(`${names.length} screenshots in ${outDir}${failed.length ? `; failed: ${failed.join(', ')}` : ''}`);
    process.exitCode = failed.length ? 1 : 0;
  } finally {
    await stop();
  }
}

const args = process.argv.slice(2);
if (args[0] === '--real' && args.length >= 2) {
  await captureReal(resolve(args[1]), args.length > 2 ? args.slice(2) : REAL_FOLDERS);
} else if (args[0] === '--shapes' && args.length >= 3) {
  await captureShapes(resolve(args[1]), args.slice(2));
} else if (args[0] === '--compare' && args.length === 3) {
  process.exitCode = (await compare(resolve(args[1]), resolve(args[2]))) ? 0 : 1;
} else if (args.length === 1 && !args[0].startsWith('-')) {
  await capture(resolve(args[0]));
} else {
  console.error('Usage: node scripts/screenshots.mjs <out-dir> | --compare <dir-a> <dir-b> | --shapes <out-dir> <folder>... | --real <out-dir> [folder...]');
  process.exitCode = 2;
}
