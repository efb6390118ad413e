/**
 * What every end-to-end spec needs: a real `cairn serve` on its own temporary workspace, a
 * Chromium page opened on the URL it printed, a record of every request that leaves 127.0.0.1 and
 * of every console error, and screenshots saved under test-output/screenshots/.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const SAMPLE = join(ROOT, 'assets', 'sample');
export const SCREENSHOTS = join(ROOT, 'test-output', 'screenshots');
const CHROMIUM = process.env.CAIRN_CHROMIUM ?? '/usr/bin/chromium';

export function checkPrerequisites(): void {
  const missing = [
    [join(ROOT, 'dist-main', 'cli.js'), 'run `npm run build:main`'],
    [join(ROOT, 'dist', 'renderer', 'index.html'), 'run `npx vite build`'],
    [CHROMIUM, 'install it with `apt-get install -y chromium`'],
  ].filter(([path]) => !existsSync(path!));
  if (missing.length > 0) throw new Error(`End-to-end prerequisites missing:\n${missing.map(([path, fix]) => `  ${path}: ${fix}`).join('\n')}`);
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--headless', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

export interface Served {
  url: string;
  workspace: string;
  stderr: string[];
  stop(): Promise<void>;
}

/** Starts `cairn serve` on a fresh workspace (with `args`, e.g. `--llm-*` flags) and reads the URL from its first stdout line. */
export async function serve(args: readonly string[] = []): Promise<Served> {
  const workspace = await mkdtemp(join(tmpdir(), 'cairn-e2e-'));
  const child: ChildProcess = spawn(process.execPath, [join(ROOT, 'dist-main', 'cli.js'), 'serve', '--port', '0', '--workspace', workspace, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, CAIRN_WORKSPACE: '' },
  });
  const stderr: string[] = [];
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => stderr.push(chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    void exited.then((code) => reject(new Error(`cairn serve exited (${code}) before printing a URL:\n${stderr.join('')}`)));
  });
  return {
    url,
    workspace,
    stderr,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      await rm(workspace, { recursive: true, force: true });
    },
  };
}

export interface Watched {
  page: Page;
  /** Requests to anything but 127.0.0.1 (data: and blob: URLs stay in the page). */
  outside: string[];
  consoleErrors: string[];
  shot(name: string): Promise<string>;
}

export async function openPage(browser: Browser, url: string, options: { colorScheme?: 'light' | 'dark'; locale?: string } = {}): Promise<Watched> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, colorScheme: options.colorScheme ?? 'light', locale: options.locale ?? 'en-US' });
  const page = await context.newPage();
  const outside: string[] = [];
  const consoleErrors: string[] = [];
  page.on('request', (request) => {
    const target = new URL(request.url());
    if (target.protocol === 'data:' || target.protocol === 'blob:') return;
    if (target.hostname !== '127.0.0.1') outside.push(request.url());
  });
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(`pageerror: ${error.message}`));
  await mkdir(SCREENSHOTS, { recursive: true });
  await page.goto(url);
  await page.locator('[data-app-state="ready"]').waitFor({ timeout: 30_000 });
  return {
    page,
    outside,
    consoleErrors,
    async shot(name) {
      const path = join(SCREENSHOTS, `${name}.png`);
      await page.screenshot({ path });
      return path;
    },
  };
}

/**
 * Ingests a folder through the Home view and waits for the result panel. A failed or stuck run
 * throws with what the page said (the error banner, or the phase and wait the progress panel
 * showed), so a failure in CI explains itself without its screenshot.
 */
export async function ingestThroughUi(page: Page, path: string): Promise<void> {
  const input = page.getByTestId('ingest-path');
  await input.fill(path);
  await expect.poll(() => input.inputValue()).toBe(path);
  await page.getByTestId('ingest-start').click();
  const ended = page.locator('[data-testid="ingest-result"], [data-testid="ingest-error"]').first();
  try {
    await ended.waitFor({ timeout: 90_000 });
  } catch (error) {
    const progress = await page.getByTestId('ingest-progress').textContent({ timeout: 1_000 }).catch(() => null);
    throw new Error(`the ingest of ${path} showed no result in 90 s; progress panel: ${progress ?? '(none)'}`, { cause: error });
  }
  const failed = page.getByTestId('ingest-error');
  if (await failed.isVisible()) throw new Error(`the ingest of ${path} failed: ${await failed.textContent()}`);
}

/**
 * Clicks `target` until `shown` appears (three tries, 5 s each). A button in Home's result row
 * moves when the summaries end and the row gains its buttons; a click aimed just before that
 * lands beside it, as a person's would, who then clicks again.
 */
export async function clickUntil(target: Locator, shown: Locator): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    await untilSteady(target);
    await target.click();
    try {
      await shown.waitFor({ timeout: 5_000 });
      return;
    } catch (error) {
      if (attempt === 3) throw error;
    }
  }
}

/**
 * Waits until `locator`'s box has stopped moving (the same on three reads 100 ms apart): a
 * viewport that pans or zooms with an animation (the DAG's fit and find) moves a node away from
 * where a click was aimed.
 */
export async function untilSteady(locator: Locator): Promise<void> {
  let last = '';
  let same = 0;
  await expect
    .poll(
      async () => {
        const box = JSON.stringify(await locator.boundingBox());
        same = box === last ? same + 1 : 0;
        last = box;
        return same;
      },
      { interval: 100, timeout: 10_000 },
    )
    .toBeGreaterThanOrEqual(2);
}

/**
 * The lifecycle every spec shares: one Chromium per file; per test a fresh `cairn serve` and page,
 * torn down afterwards with a screenshot on failure, the checks that no request left 127.0.0.1
 * and no console error was logged, and removal of the folders the test registered.
 */
export function useAppSession() {
  let browser: Browser | undefined;
  let served: Served | null = null;
  let watched: Watched | null = null;
  const temps: string[] = [];

  beforeAll(async () => {
    checkPrerequisites();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async (context) => {
    try {
      const failed = (context.task.result?.errors?.length ?? 0) > 0;
      if (watched && failed) await watched.shot(`failed-${context.task.name.slice(0, 40).replace(/\W+/g, '-')}`);
      // What the engine said goes to the log of a failed test: CI keeps the log, not the workspace.
      if (failed && served && served.stderr.length > 0) console.error(`cairn serve stderr (last 4 KB):\n${served.stderr.join('').slice(-4096)}`);
      if (watched) {
        expect(watched.outside, 'requests outside 127.0.0.1').toEqual([]);
        expect(watched.consoleErrors, 'console errors').toEqual([]);
        await watched.page.context().close();
      }
    } finally {
      watched = null;
      await served?.stop();
      served = null;
      for (const dir of temps.splice(0)) await rm(dir, { recursive: true, force: true });
    }
  });

  return {
    get browser(): Browser {
      return browser!;
    },
    /** `cairn serve` only (stopped after the test), for tests that open pages themselves. */
    async serve(args?: readonly string[]): Promise<Served> {
      served = await serve(args);
      expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}$/);
      return served;
    },
    /** `cairn serve` (with `serveArgs`) and a watched page on its URL. */
    async start(options: Parameters<typeof openPage>[2] & { serveArgs?: readonly string[] } = {}): Promise<Watched> {
      const { url } = await this.serve(options.serveArgs);
      watched = await openPage(browser!, url, options);
      return watched;
    },
    /** Removes `dir` once the test ends. */
    removeAfter(dir: string): void {
      temps.push(dir);
    },
  };
}
