/**
 * Search and the rebuilt DAG in a real browser, with the setup of app.spec.ts: `cairn serve` on a
 * fresh workspace per test, Chromium on the URL it printed, screenshots of every view shown, and
 * no request outside 127.0.0.1 nor any console error by the end.
 */
import { appendFile, cp, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ingestThroughUi, ROOT, SAMPLE, useAppSession } from './harness.js';

const app = useAppSession();

/** Ingests the sample and waits until its DAG run has written every summary (and so indexed L0/L1). */
async function ingestAndSummarize(page: Page, folder = SAMPLE): Promise<void> {
  await ingestThroughUi(page, folder);
  await page.keyboard.press('Alt+3');
  await page.locator('[data-testid="dag-totals"][data-status="finished"]').waitFor({ timeout: 90_000 });
}

/** A debugging conversation with an assistant (one session, 42 messages), imported through the sessions view. */
const POOL_LEAK = join(ROOT, 'test', 'fixtures', 'memory-dev', 'en-debug-pool-leak.json');

async function importConversation(page: Page, path: string): Promise<void> {
  await page.keyboard.press('Alt+5');
  await page.getByTestId('sessions-import-path').fill(path);
  await page.getByTestId('sessions-import').click();
  await page.locator('[data-testid="session-open"][data-analysis="done"]').waitFor({ timeout: 60_000 });
}

/** Searches from the search view and waits for that query's results. */
async function searchFor(page: Page, query: string): Promise<void> {
  await page.getByTestId('search-input').fill(query);
  await page.locator(`[data-testid="search-status"][data-status="done"][data-query="${query}"]`).waitFor({ timeout: 30_000 });
}

/** The hits on show, with what each says about itself. */
async function shownHits(page: Page) {
  return page.getByTestId('search-hit').evaluateAll((elements) =>
    elements.map((e) => ({
      uri: e.getAttribute('data-uri') ?? '',
      /** What a click opens: the result's best hit (a section of a split document). */
      open: e.getAttribute('data-open-uri') ?? '',
      title: e.querySelector('[data-testid="hit-title"]')?.textContent ?? '',
      weak: e.getAttribute('data-weak'),
      level: e.getAttribute('data-level') ?? '',
      selected: e.getAttribute('aria-selected'),
      marks: [...e.querySelectorAll('mark')].map((m) => m.textContent ?? ''),
      provenance: e.querySelector('[data-testid="hit-provenance"]')?.textContent ?? '',
      score: e.querySelector('[data-testid="hit-score"]')?.textContent ?? '',
      /** The messages shown under it as its context: their ids and whose neighbours they are. */
      context: [...e.querySelectorAll('[data-testid="search-context-hit"]')].map((c) => ({
        id: c.getAttribute('data-message-id') ?? '',
        of: c.getAttribute('data-neighbour-of') ?? '',
      })),
    })),
  );
}

describe('Search and the rebuilt DAG in a browser', () => {
  it('searches in English and Chinese, ranks the results in one list by relevance, and opens one in the explorer', async () => {
    const { page, shot } = await app.start();
    await ingestAndSummarize(page);

    // `/` from anywhere outside a text field opens the search view with the box focused.
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('/');
    await page.getByTestId('search-input').waitFor();
    await expect.poll(() => page.evaluate('document.activeElement?.getAttribute("data-testid")')).toBe('search-input');
    await page.keyboard.type('storm wind');
    await page.locator('[data-testid="search-status"][data-status="done"][data-query="storm wind"]').waitFor({ timeout: 30_000 });
    let hits = await shownHits(page);
    expect(hits.length).toBeGreaterThanOrEqual(3);
    // The count in words, with its plural (it said "hit(s)").
    await expect.poll(() => page.getByTestId('search-status').textContent()).toMatch(/^\d+ hits in \d+ ms/);
    // One list by relevance, levels mixed: no groups, the scores never go up.
    await expect.poll(() => page.locator('[data-testid="search-level-group"]').count()).toBe(0);
    const scores = hits.map((h) => Number(h.score));
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(new Set(hits.map((h) => h.level)).size).toBeGreaterThanOrEqual(2);
    // Each result: its title (never a section's file name), a score, the query's words marked whole, and where the text came from.
    expect(hits.every((h) => h.title !== '' && !/^\d+-/.test(h.title))).toBe(true);
    expect(hits.every((h) => /^\d\.\d\d$/.test(h.score))).toBe(true);
    const marks = hits.flatMap((h) => h.marks.map((m) => m.toLowerCase()));
    expect(marks.some((m) => m === 'storm' || m === 'wind')).toBe(true);
    // Whole words only (a camelCase word such as windKnots is marked whole), never a stop word.
    expect(marks.filter((m) => !/^(storm|wind)/.test(m))).toEqual([]);
    const fileHit = hits.find((h) => h.level === '2');
    expect(fileHit?.provenance).toMatch(/assets\/sample\/.+ · lines \d+–\d+/);
    await shot('search');

    // Weak matches start collapsed behind a line that says so; the toggle shows them, last.
    const weakNote = page.getByTestId('search-weak');
    if ((await weakNote.count()) > 0) {
      expect(hits.every((h) => h.weak === 'false')).toBe(true);
      await expect.poll(() => weakNote.textContent()).toMatch(/weak match/);
      await page.getByTestId('search-weak-toggle').click();
      await page.locator('[data-testid="search-hit"][data-weak="true"]').first().waitFor();
      const all = await shownHits(page);
      expect(all.length).toBeGreaterThan(hits.length);
      expect(all.slice(hits.length).every((h) => h.weak === 'true')).toBe(true);
    }

    // A question nothing in the sample answers: the status says there is no strong match (it said
    // "0 hit(s)" over a list of weak ones), and the weak list is headed as such where it starts.
    const unanswered = 'sourdough bread recipe';
    await page.getByTestId('search-input').fill(unanswered);
    await page.locator(`[data-testid="search-status"][data-status="done"][data-query="${unanswered}"]`).waitFor({ timeout: 30_000 });
    await expect.poll(() => page.getByTestId('search-status').textContent()).toMatch(/^No strong match \(\d+ ms\); only weak ones, below\.$/);
    await expect.poll(() => page.locator('[data-testid="search-hit"][data-weak="false"]').count()).toBe(0);
    if (!(await page.getByTestId('search-weak-list').isVisible())) await page.getByTestId('search-weak-toggle').click();
    await expect.poll(() => page.getByTestId('search-weak-heading').textContent()).toMatch(/^Weak matches \(\d+\), scoring under 0\.74$/);
    await shot('search-only-weak');

    // A split document is one result titled by its first heading; its other sections expand under it.
    await page.getByTestId('search-input').fill('how a reading travels from a sensor');
    await page.locator('[data-testid="search-status"][data-status="done"][data-query="how a reading travels from a sensor"]').waitFor({ timeout: 30_000 });
    const doc = page.locator('[data-testid="search-hit"][data-uri="ctx://resources/sample/docs/architecture.md/"]');
    await expect.poll(() => doc.count()).toBe(1);
    await expect.poll(() => doc.getByTestId('hit-title').textContent()).toBe('Tidewater architecture');
    await doc.getByTestId('hit-more').click();
    const sections = await doc.getByTestId('search-sub-hit').evaluateAll((elements) => elements.map((e) => e.getAttribute('data-uri') ?? ''));
    expect(sections.length).toBeGreaterThan(0);
    expect(sections.every((uri) => uri.startsWith('ctx://resources/sample/docs/architecture.md/'))).toBe(true);
    await shot('search-sections');

    // A Chinese query finds the Chinese guide.
    await page.getByTestId('search-input').fill('快速入门');
    await page.locator('[data-testid="search-status"][data-status="done"][data-query="快速入门"]').waitFor({ timeout: 30_000 });
    hits = await shownHits(page);
    expect(hits.some((h) => h.uri === 'ctx://resources/sample/docs/zh/快速入门.md')).toBe(true);
    expect(hits.flatMap((h) => h.marks).some((m) => m.includes('快速入门') || m.includes('入门'))).toBe(true);
    await shot('search-zh');

    // The level filter keeps only L2 content.
    await page.getByTestId('search-level').selectOption('2');
    await page.locator('[data-testid="search-hit"]:not([data-level="2"])').first().waitFor({ state: 'detached' });
    await page.locator('[data-testid="search-status"][data-status="done"]').waitFor();
    expect(await page.getByTestId('search-hit').count()).toBeGreaterThan(0);

    // Keyboard: arrows move through the hits from the box, Enter opens the chosen one in the explorer.
    await page.getByTestId('search-input').focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowUp');
    hits = await shownHits(page);
    expect(hits.map((h) => h.selected)).toEqual(hits.map((_, i) => (i === 0 ? 'true' : 'false')));
    await expect.poll(() => page.getByTestId('search-input').getAttribute('aria-activedescendant')).toBe('search-hit-0');
    const chosen = hits[0]!.open;
    await page.keyboard.press('Enter');
    await page.locator(`[data-testid="node-details"][data-uri="${chosen}"]`).waitFor();
    await page.locator(`[data-testid="context-tree"] [data-uri="${chosen}"]`).waitFor();
    await shot('search-opened-in-explorer');

    // Back in search, the results are still there; a click opens a hit too.
    await page.keyboard.press('Alt+4');
    await page.getByTestId('search-hit').first().waitFor();
    await page.getByTestId('search-level').selectOption('all');
    // A folder's summary (L0 or L1; a file's own L0/L1 merge under its document).
    const dirHit = page.locator('[data-testid="search-hit"][data-open-uri$="/"]:not([data-level="2"])').first();
    await dirHit.waitFor();
    const dirUri = (await dirHit.getAttribute('data-open-uri'))!;
    await dirHit.click();
    await page.locator(`[data-testid="node-details"][data-uri="${dirUri}"]`).waitFor();
  });

  it('shows a message’s lifted neighbour under it as its context, and no strong conversational hit for a question about the sample', async () => {
    const { page, shot } = await app.start();
    await ingestAndSummarize(page);
    await importConversation(page, POOL_LEAK);
    await page.keyboard.press('Alt+4');

    // A question about the conversation: the reply after a matching message is shown under it,
    // "In context", never as a result of its own.
    await searchFor(page, 'how do I reproduce the leak locally');
    const hits = await shownHits(page);
    const messages = hits.filter((h) => h.uri.startsWith('ctx://session/en-debug-pool-leak/'));
    const lifters = messages.filter((h) => h.context.length > 0);
    expect(lifters.length).toBeGreaterThan(0);
    const results = new Set(messages.map((h) => /Messages: (\S+)/.exec(h.provenance)?.[1]));
    for (const lifter of lifters) {
      const own = /Messages: (\S+)/.exec(lifter.provenance)?.[1];
      for (const neighbour of lifter.context) {
        expect(neighbour.of).toBe(own);
        expect(results.has(neighbour.id), `${neighbour.id} is a result of its own too`).toBe(false);
      }
    }
    // Shown at once, not behind "more sections".
    const context = page.getByTestId('search-context-hit').first();
    await expect.poll(() => context.isVisible()).toBe(true);
    await expect.poll(() => context.textContent()).toMatch(/^In context:\s*\[2026-03-02\] \w+: /);
    await shot('search-context');

    // A question about the sample, which the conversation does not answer: the sample's files are
    // the strong results; a message of the conversation (a reply with no word of the question,
    // lifted by its neighbour "We decided to keep max at 20") is at most a weak match.
    await searchFor(page, 'what did the storm review decide about the uplink');
    const sample = await shownHits(page);
    expect(sample.length).toBeGreaterThan(0);
    expect(sample.some((h) => h.uri === 'ctx://resources/sample/notes/2024-05-08-storm-review.md')).toBe(true);
    expect(sample.filter((h) => h.uri.startsWith('ctx://session/'))).toEqual([]);
    if (!(await page.getByTestId('search-weak-list').isVisible())) await page.getByTestId('search-weak-toggle').click();
    const all = await shownHits(page);
    expect(all.filter((h) => h.uri.startsWith('ctx://session/') && h.weak !== 'true')).toEqual([]);
    await shot('search-unrelated-conversation-weak');
  });

  it('shows the search view in the dark theme and in Chinese', async () => {
    const { page, shot } = await app.start({ colorScheme: 'dark' });
    await page.getByTestId('locale-select').selectOption('zh');
    await ingestAndSummarize(page);
    await page.keyboard.press('Alt+4');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('搜索');
    await page.getByTestId('search-input').fill('观测数据');
    await page.locator('[data-testid="search-status"][data-status="done"][data-query="观测数据"]').waitFor({ timeout: 30_000 });
    await expect.poll(() => page.getByTestId('search-status').textContent()).toMatch(/条结果/);
    await page.getByTestId('search-input').press('ArrowDown');
    await expect.poll(() => page.locator('[data-testid="search-hit"][aria-selected="true"]').count()).toBe(1);
    await shot('search-dark-zh');
  });

  it('rebuilds the DAG with its done states after a reload, then follows a new run live', async () => {
    const { page, shot } = await app.start();
    // A copy of the sample, so a file can change before the second ingest (an unchanged tree runs no DAG).
    const copy = await mkdtemp(join(tmpdir(), 'cairn-e2e-rerun-'));
    app.removeAfter(copy);
    const folder = join(copy, 'sample');
    await cp(SAMPLE, folder, { recursive: true });
    await ingestAndSummarize(page, folder);
    const canvas = page.getByTestId('dag-canvas');
    const total = Number(await canvas.getAttribute('data-node-count'));
    expect(total).toBeGreaterThanOrEqual(5);

    await page.reload();
    await page.locator('[data-app-state="ready"]').waitFor();
    await page.keyboard.press('Alt+3');
    // Drawn from the workspace: every directory, each with the state its summary has on disk.
    await page.locator('[data-testid="dag-totals"][data-status="stored"]').waitFor();
    await page.locator(`[data-testid="dag-canvas"][data-node-count="${total}"]`).waitFor();
    await page.getByTestId('dag-node').first().waitFor();
    // Split documents are drawn as nodes and counted as files.
    const folders = total - (await page.locator('[data-testid="dag-node"][data-document="true"]').count());
    await expect.poll(() => page.getByTestId('dag-totals').textContent()).toMatch(new RegExp(`Directories\\s*${folders} / ${folders}`));
    const states = await page.getByTestId('dag-node').evaluateAll((elements) => elements.map((e) => e.getAttribute('data-state')));
    expect(states.length).toBeGreaterThan(0);
    expect(states.every((state) => state === 'done' || state === 'fallback')).toBe(true);
    await expect.poll(() => page.locator('[data-testid="dag-node"][data-uri="ctx://resources/sample/"]').getAttribute('data-state')).toBe('done');
    await page.getByTestId('dag-minimap').waitFor();
    await shot('dag-rebuilt');

    // Find still works on the rebuilt graph, and the selection panel shows the stored abstract.
    await page.getByTestId('dag-find').fill('zh');
    await page.getByTestId('dag-find').press('Enter');
    await expect.poll(() => page.getByTestId('dag-selected').locator('h2').textContent()).toBe('zh');
    await expect.poll(() => page.getByTestId('dag-selected').locator('.abstract').textContent()).toMatch(/\S/);

    // A new run of the same tree takes over the view and is followed live to its end.
    await appendFile(join(folder, 'notes', '2024-05-08-storm-review.md'), '\nFollow-up: the masts of stations 10-12 were replaced on 20 May.\n');
    await page.keyboard.press('Alt+1');
    await ingestThroughUi(page, folder);
    await page.keyboard.press('Alt+3');
    await page.locator('[data-testid="dag-totals"][data-status="finished"]').waitFor({ timeout: 90_000 });
    await page.locator(`[data-testid="dag-canvas"][data-node-count="${total}"]`).waitFor();
    await page.locator('[data-testid="dag-node"][data-state="done"]').first().waitFor();
    await shot('dag-after-rerun');
  });
});
