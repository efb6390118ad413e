/**
 * The live DAG on real shapes: a wide folder (git's RelNotes: 485 files, 85 of them split into
 * sections) and a deep tree (Go's src: ~800 directories). Fixtures of those shapes are generated,
 * so the spec runs anywhere; `node scripts/screenshots.mjs --shapes` draws the real folders.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ingestThroughUi, ROOT, SAMPLE, useAppSession } from './harness';

const app = useAppSession();
// Ingesting and summarizing 485 files takes a while on a loaded machine.
const SLOW = 300_000;

const WORDS = ['merge', 'rebase', 'index', 'commit', 'branch', 'remote', 'fetch', 'push', 'config', 'diff', 'log', 'tag', 'reset', 'worktree', 'object', 'pack', 'hook'];
const prose = (seed: number, count: number) => Array.from({ length: count }, (_, i) => WORDS[(seed * 7 + i * 13) % WORDS.length]! + (i % 12 === 11 ? '.' : '')).join(' ');

/** 485 release notes: every fifth of the first 425 long enough to be split into 3 sections (85 documents). */
async function wideFolder(): Promise<string> {
  const dir = join(await mkdtemp(join(tmpdir(), 'cairn-e2e-wide-')), 'RelNotes');
  await mkdir(dir);
  for (let i = 0; i < 485; i += 1) {
    const name = `1.${Math.floor(i / 10)}.${i % 10}.md`;
    const text =
      i % 5 === 0 && i < 425
        ? `# Release ${i}\n\n${[1, 2, 3].map((part) => `## Part ${part}\n\n${prose(i + part, 700)}\n`).join('\n')}`
        : `# Release ${i}\n\nFixes since the last one: ${prose(i, 40)}\n`;
    await writeFile(join(dir, name), text);
  }
  return dir;
}

/** 1 + 4 + 16 + 64 + 256 = 341 directories, one small file in each: deep enough to start collapsed. */
async function deepTree(): Promise<string> {
  const root = join(await mkdtemp(join(tmpdir(), 'cairn-e2e-deep-')), 'src');
  const make = async (dir: string, level: number): Promise<void> => {
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'doc.go'), `// Package ${level} handles ${prose(level, 12)}\npackage p${level}\n`);
    if (level === 4) return;
    for (const name of ['net', 'os', 'io', 'fmt']) await make(join(dir, name), level + 1);
  };
  await make(root, 0);
  return root;
}

const canvas = (page: Page) => page.getByTestId('dag-canvas');
const drawnStates = (page: Page) => page.getByTestId('dag-node').evaluateAll((nodes) => nodes.map((node) => (node as unknown as { dataset: { state: string } }).dataset.state));
/** Whether the node is drawn inside the canvas (React Flow draws only the nodes in view). */
async function inView(page: Page, selector: string): Promise<boolean> {
  if ((await page.locator(selector).count()) === 0) return false;
  const [box, area] = await Promise.all([page.locator(selector).boundingBox(), canvas(page).boundingBox()]);
  return box !== null && area !== null && box.x >= area.x - 1 && box.y >= area.y - 1 && box.x + box.width <= area.x + area.width + 1 && box.y + box.height <= area.y + area.height + 1;
}

/** Whether the node is in view and not under the minimap in the canvas's corner (it hid the last nodes after Fit). */
async function clearlyInView(page: Page, selector: string): Promise<boolean> {
  if (!(await inView(page, selector))) return false;
  const [box, map] = await Promise.all([page.locator(selector).boundingBox(), page.getByTestId('dag-minimap').boundingBox()]);
  if (!box || !map) return box !== null;
  return box.x + box.width <= map.x || box.y + box.height <= map.y;
}

describe('the live DAG at real shapes', () => {
  it('groups a folder of 485 files: a group node with its counts, opened to show them, fit brings them back', async () => {
    const { page, shot } = await app.start();
    const folder = await wideFolder();
    app.removeAfter(join(folder, '..'));
    await ingestThroughUi(page, folder);
    await page.keyboard.press('Alt+3');
    await page.locator('[data-testid="dag-totals"][data-status="finished"]').waitFor({ timeout: 120_000 });

    // The root and its first 24 documents; the other 61 documents in one node that says so.
    await page.locator('[data-testid="dag-canvas"][data-node-count="25"][data-group-count="1"]').waitFor();
    const group = page.getByTestId('dag-group');
    await expect.poll(() => group.getAttribute('data-members')).toBe('61');
    // After the run every one of them is done, whatever events the page saw.
    await page.locator('[data-testid="dag-group"][data-done="61"]').waitFor();
    await expect.poll(() => group.textContent()).toBe('61 more files61 done');
    expect((await drawnStates(page)).every((state) => state === 'done')).toBe(true);
    expect(await inView(page, '[data-testid="dag-group"]')).toBe(true);
    await shot('dag-wide-grouped');

    // Opening the group draws all 85 documents, and the view re-fits so the last one is in it.
    await group.click();
    await page.locator('[data-testid="dag-canvas"][data-node-count="86"][data-group-count="0"]').waitFor();
    const last = '[data-testid="dag-node"][data-uri="ctx://resources/RelNotes/1.42.0.md/"]';
    await expect.poll(() => inView(page, last), { timeout: 5_000 }).toBe(true);
    expect(await page.getByTestId('dag-node').count()).toBe(86);
    expect((await drawnStates(page)).every((state) => state === 'done')).toBe(true);
    await shot('dag-wide-open');

    // Pan the graph out of sight; Fit brings all of it back.
    const area = (await canvas(page).boundingBox())!;
    await page.mouse.move(area.x + area.width - 40, area.y + 40);
    await page.mouse.down();
    await page.mouse.move(area.x + 40, area.y + area.height - 40, { steps: 5 });
    await page.mouse.move(area.x - 900, area.y + area.height + 900, { steps: 5 });
    await page.mouse.up();
    await expect.poll(() => inView(page, last)).toBe(false);
    await page.getByTestId('dag-fit').click();
    await expect.poll(() => clearlyInView(page, last), { timeout: 5_000 }).toBe(true);
    await expect.poll(() => inView(page, '[data-testid="dag-node"][data-uri="ctx://resources/RelNotes/"]')).toBe(true);

    // Collapse all groups the documents again.
    await page.getByTestId('dag-collapse-all').click();
    await page.locator('[data-testid="dag-canvas"][data-group-count="1"]').waitFor();
  }, SLOW);

  it('starts a deep tree with its deeper directories collapsed; expanding one re-fits the view', async () => {
    const { page, shot } = await app.start();
    const tree = await deepTree();
    app.removeAfter(join(tree, '..'));
    await ingestThroughUi(page, tree);
    await page.keyboard.press('Alt+3');
    await page.locator('[data-testid="dag-totals"][data-status="finished"]').waitFor({ timeout: 120_000 });
    // 341 directories: the root, its 4 and their 16 are drawn; each of the 16 hides 4 + 16.
    await page.locator('[data-testid="dag-canvas"][data-node-count="21"]').waitFor();
    const netNet = '[data-testid="dag-node"][data-uri="ctx://resources/src/net/net/"]';
    await expect.poll(() => page.locator(netNet).textContent()).toContain('+20 hidden');
    expect((await drawnStates(page)).every((state) => state === 'done')).toBe(true);
    await expect.poll(() => page.getByTestId('dag-totals').textContent()).toMatch(/Directories\s*341 \/ 341/);
    // 16 rows are too tall to fit whole at a readable size: the view shows the root at 0.65×
    // (nodes 130 px wide, not the 100 px of a whole fit) and Fit shows everything.
    const rootNode = '[data-testid="dag-node"][data-uri="ctx://resources/src/"]';
    await expect.poll(async () => (await page.locator(rootNode).boundingBox())?.width ?? 0, { timeout: 5_000 }).toBeGreaterThan(125);
    expect(await inView(page, rootNode)).toBe(true);
    await shot('dag-deep-collapsed');
    await page.getByTestId('dag-fit').click();
    await expect.poll(() => clearlyInView(page, '[data-testid="dag-node"][data-uri="ctx://resources/src/fmt/fmt/"]'), { timeout: 5_000 }).toBe(true);
    await expect.poll(() => clearlyInView(page, netNet), { timeout: 5_000 }).toBe(true);

    // Expanding it shows its 4 children (collapsed in turn), all in view after the re-fit.
    // The selection panel knows it starts collapsed, and expands it.
    await page.locator(netNet).click();
    await expect.poll(() => page.getByTestId('dag-toggle').textContent()).toBe('Expand');
    await page.getByTestId('dag-toggle').click();
    await page.locator('[data-testid="dag-canvas"][data-node-count="25"]').waitFor();
    for (const name of ['net', 'os', 'io', 'fmt']) {
      await expect.poll(() => inView(page, `[data-testid="dag-node"][data-uri="ctx://resources/src/net/net/${name}/"]`), { timeout: 5_000 }).toBe(true);
    }
    await expect.poll(() => page.locator('[data-testid="dag-node"][data-uri="ctx://resources/src/net/net/net/"]').textContent()).toContain('+4 hidden');
    expect((await drawnStates(page)).every((state) => state === 'done')).toBe(true);
    await shot('dag-deep-expanded');
  }, SLOW);

  it('counts the same things under the same names on Home, in the DAG and in the CLI', async () => {
    const { page } = await app.start();
    await ingestThroughUi(page, SAMPLE);
    const stat = async (scope: string, label: string) => {
      const text = await page.getByTestId(scope).locator('.stat', { hasText: label }).first().textContent();
      return { text, tip: await page.getByTestId(scope).locator('.stat', { hasText: label }).first().getAttribute('title') };
    };
    const homeFiles = await stat('ingest-result', 'Files');
    expect(homeFiles.tip).toMatch(/split into sections counts as one file/);
    // "Changed" (625 for git's 594 files) counts nodes, as its tip says.
    expect((await stat('ingest-result', 'Changed')).tip).toMatch(/Nodes that are new or whose content changed/);
    const files = Number(homeFiles.text!.replace(/\D/g, ''));

    await page.keyboard.press('Alt+3');
    await page.locator('[data-testid="dag-totals"][data-status="finished"]').waitFor({ timeout: 90_000 });
    const dag = await page.getByTestId('dag-totals').textContent();
    const [, directories] = /Directories\s*(\d+) \/ \1/.exec(dag!) ?? [];
    const [, sections] = /Sections\s*(\d+) \/ \1/.exec(dag!) ?? [];
    expect(dag).toContain(`Files${files} / ${files}`);
    expect((await stat('dag-totals', 'Sections')).tip).toMatch(/Parts that long documents were split into/);
    expect((await stat('dag-totals', 'Directories')).tip).toMatch(/Folders of the source/);

    // The CLI, on a workspace of its own, says the same numbers under the same names.
    const workspace = await mkdtemp(join(tmpdir(), 'cairn-e2e-cli-'));
    app.removeAfter(workspace);
    const { stdout } = await promisify(execFile)(process.execPath, [join(ROOT, 'dist-main', 'cli.js'), 'ingest', SAMPLE, '--workspace', workspace], { cwd: ROOT });
    expect(stdout).toContain(`  ${files} files, `);
    expect(stdout).toContain(`Summaries: ${directories} directories, ${files} files, ${sections} sections (`);
  }, SLOW);
});
