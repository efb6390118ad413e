/**
 * The real UI in a real browser: `cairn serve` on a fresh workspace per test, Chromium opening the
 * URL it printed. Each test waits on visible outcomes (never on time), saves a screenshot of every
 * view it shows, and ends with no request outside 127.0.0.1 and no console error.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { reply, startMockOpenAI } from '../support/mock-openai-server.js';
import { clickUntil, ingestThroughUi, SAMPLE, untilSteady, useAppSession } from './harness.js';

const app = useAppSession();

describe('Cairn in a browser', () => {
  it('ingests the sample folder from the Home view and shows the result', async () => {
    const { page, shot } = await app.start();
    await expect.poll(() => page.getByRole('heading', { name: 'Ingest a folder' }).isVisible()).toBe(true);
    await shot('home');

    await page.getByTestId('ingest-path').fill(SAMPLE);
    await page.getByTestId('ingest-code-mode').selectOption('ast');
    await page.getByTestId('ingest-start').click();
    const result = page.getByTestId('ingest-result');
    await result.waitFor({ timeout: 90_000 });
    // The result shows where the person pressed Ingest, not below the git form out of sight.
    const inWindow = async () => {
      const [box, size] = [await result.boundingBox(), page.viewportSize()!];
      return box !== null && box.y >= 0 && box.y + 120 <= size.height;
    };
    await expect.poll(inWindow).toBe(true);
    const gitForm = (await page.getByTestId('git-source').boundingBox())!;
    expect((await result.boundingBox())!.y).toBeLessThan(gitForm.y);

    await expect.poll(() => page.getByTestId('ingest-root').textContent()).toBe('ctx://resources/sample/');
    const stats = await result.locator('.stat').allTextContents();
    const files = Number(stats.find((s) => s.startsWith('Files'))?.replace(/\D/g, ''));
    expect(files).toBeGreaterThanOrEqual(8);
    // The build log is gitignored and the logo is binary: both are listed, grouped by reason.
    // In words, the engine's code in the tooltip (they showed `gitignored`, `binary`).
    const groups = await page.getByTestId('skip-groups').locator('summary').allTextContents();
    expect(groups.join(' ')).toMatch(/Ignored by \.gitignore/);
    expect(groups.join(' ')).toMatch(/Binary file/);
    await expect.poll(() => page.locator('[data-testid="skip-groups"] .skip-reason[data-reason="binary"]').getAttribute('title')).toBe('binary');
    await page.getByTestId('skip-groups').locator('summary').first().click();
    await shot('home-result');
  });

  it('explores the tree with the keyboard and shows a file in Monaco, with its summaries and meta', async () => {
    const { page, shot } = await app.start();
    await ingestThroughUi(page, SAMPLE);
    const tree = page.getByTestId('context-tree');
    await clickUntil(page.getByTestId('open-explorer'), tree);
    // The ingest root is revealed and selected; its children are listed lazily.
    const root = tree.locator('[data-uri="ctx://resources/sample/"]');
    await expect.poll(() => root.getAttribute('aria-expanded')).toBe('true');
    await tree.locator('[data-uri="ctx://resources/sample/src/"]').waitFor();

    // Keyboard: focus the src folder, open it with ArrowRight, go down to its first file, Enter selects.
    // Each key waits for what the one before did (a listing loads, focus moves), as a person's eyes do.
    const src = tree.locator('[data-uri="ctx://resources/sample/src/"]');
    const focused = (uri: string) => tree.locator(`[data-uri="${uri}"]:focus`).waitFor();
    await src.click();
    await tree.locator('[data-uri="ctx://resources/sample/src/api.ts"]').waitFor();
    await page.keyboard.press('ArrowLeft');
    await expect.poll(() => src.getAttribute('aria-expanded')).toBe('false');
    await page.keyboard.press('ArrowRight');
    await tree.locator('[data-uri="ctx://resources/sample/src/"][aria-expanded="true"]:not([aria-busy])').waitFor();
    await tree.locator('[data-uri="ctx://resources/sample/src/api.ts"]').waitFor();
    await page.keyboard.press('ArrowRight');
    await focused('ctx://resources/sample/src/api.ts');
    await page.keyboard.press('ArrowDown');
    await focused('ctx://resources/sample/src/station.py');
    await page.keyboard.press('Enter');
    const details = page.getByTestId('node-details');
    await page.locator('[data-testid="node-details"][data-uri="ctx://resources/sample/src/station.py"]').waitFor();

    const code = page.getByTestId('code-view');
    await expect.poll(() => code.getAttribute('data-language')).toBe('python');
    await page.locator('.monaco-editor .view-lines').waitFor();
    // Monaco draws spaces as non-breaking ones: match on words.
    await page.locator('.monaco-editor .view-lines', { hasText: /class\s+Quantity/ }).waitFor();
    const meta = await page.getByTestId('node-meta').textContent();
    expect(meta).toMatch(/Parser/);
    expect(meta).toContain('station.py');
    await code.scrollIntoViewIfNeeded();
    await shot('explorer-file');

    // The root directory's L1 overview is rendered Markdown once the DAG summarized it.
    await page.getByTestId('explorer-refresh').click();
    await tree.locator('[data-uri="ctx://resources/sample/"]').click();
    await page.locator('[data-testid="node-details"][data-uri="ctx://resources/sample/"]').waitFor();
    await page.getByTestId('node-overview').waitFor({ timeout: 60_000 });
    await expect.poll(() => details.getByTestId('node-abstract').textContent()).toMatch(/\S/);
    await expect.poll(() => page.getByTestId('node-skips').textContent()).toMatch(/binary/);
    // A file whose heading says more than its name shows it beside the name; code files have none.
    await expect.poll(() => tree.locator('[data-uri="ctx://resources/sample/README.md"] [data-testid="tree-entry-title"]').textContent()).toBe('Tidewater');
    await expect.poll(() => tree.locator('[data-uri="ctx://resources/sample/src/api.ts"] [data-testid="tree-entry-title"]').count()).toBe(0);
    await shot('explorer-dir');
  });

  it('draws the live DAG of the run and lets a person find, focus and collapse directories', async () => {
    const { page, shot } = await app.start();
    await ingestThroughUi(page, SAMPLE);
    await page.keyboard.press('Alt+3');
    const totals = page.getByTestId('dag-totals');
    await page.locator('[data-testid="dag-totals"][data-status="finished"]').waitFor({ timeout: 90_000 });
    const nodes = page.getByTestId('dag-node');
    const canvas = page.getByTestId('dag-canvas');
    const nodeCount = async () => Number(await canvas.getAttribute('data-node-count'));
    const total = await nodeCount();
    expect(total).toBeGreaterThanOrEqual(5);
    await nodes.first().waitFor();
    // A split document (the sample's architecture notes) is drawn as a node and counted as a file, as on Home.
    const documents = await page.locator('[data-testid="dag-node"][data-document="true"]').count();
    expect(documents).toBeGreaterThanOrEqual(1);
    expect(await totals.textContent()).toMatch(new RegExp(`Directories\\s*${total - documents} / ${total - documents}`));
    expect(await totals.textContent()).toMatch(/Sections\s*\d+ \/ \d+/);
    const states = await nodes.evaluateAll((elements) => elements.map((e) => (e as unknown as { dataset: { state: string } }).dataset.state));
    expect(states.length).toBeGreaterThan(0);
    expect(states.every((state) => state === 'done' || state === 'fallback')).toBe(true);
    await shot('dag');

    const selectedName = () => page.getByTestId('dag-selected').locator('h2').textContent();
    await page.getByTestId('dag-find').fill('zh');
    await page.getByTestId('dag-find').press('Enter');
    await expect.poll(selectedName).toBe('zh');

    // Focus the docs subtree: only it is drawn; then show everything again. Find zooms to zh with an
    // animation: a click aimed at docs before it ends lands on zh.
    const docsNode = page.locator('[data-testid="dag-node"][data-uri="ctx://resources/sample/docs/"]');
    await untilSteady(docsNode);
    await docsNode.click();
    await expect.poll(selectedName).toBe('docs');
    await page.getByTestId('dag-focus').click();
    await page.locator('[data-testid="dag-node"][data-uri="ctx://resources/sample/"]').waitFor({ state: 'detached' });
    const inDocs = await nodeCount();
    expect(inDocs).toBeGreaterThanOrEqual(2);
    expect(inDocs).toBeLessThan(total);
    await shot('dag-focused');
    await page.getByTestId('dag-unfocus').click();
    await page.locator(`[data-testid="dag-canvas"][data-node-count="${total}"]`).waitFor();

    // Collapse docs from the selection panel: its subtree goes, and the node says how many it hides.
    await page.getByTestId('dag-toggle').click();
    await page.locator(`[data-testid="dag-canvas"][data-node-count="${total - inDocs + 1}"]`).waitFor();
    await expect.poll(() => page.locator('[data-testid="dag-node"][data-uri="ctx://resources/sample/docs/"]').textContent()).toContain(`+${inDocs - 1} hidden`);
  });

  it('updates pending counts live while a larger tree is summarized', async () => {
    // Summaries come from an LLM that takes 100 ms a call, as a real one takes longer: offline the
    // run can end between two of the view's flushes, with nothing left to see waiting.
    const llm = await startMockOpenAI({ apiKey: 'sk-e2e-live' });
    llm.handle(() => reply.delayed(100, reply.json({ abstract: 'Station readings.', overview: '# Readings\n\n- why the sensors drift', categories: ['docs'] })));
    const { page, shot } = await app.start({ serveArgs: ['--llm-base-url', llm.url, '--llm-api-key', 'sk-e2e-live'] });
    // 25 directories, 18 of them with 3 small documents.
    const fixture = await mkdtemp(join(tmpdir(), 'cairn-e2e-tree-'));
    try {
      for (const area of ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta']) {
        for (const part of ['one', 'two', 'three']) {
          const dir = join(fixture, area, part);
          await mkdir(dir, { recursive: true });
          for (const n of [1, 2, 3]) {
            await writeFile(join(dir, `note-${n}.md`), `# ${area} ${part} ${n}\n\nThe ${area} station logs ${part} readings; note ${n} explains why the ${part} sensor drifts in wind.\n`);
          }
        }
      }
      await page.getByTestId('ingest-path').fill(fixture);
      // Record every state and pending count the nodes show, from the first one drawn:
      // watching from before the run starts, so a quick run's early states are not missed.
      await page.evaluate(`(() => {
        window.__seen = [];
        const record = (el) => window.__seen.push(el.dataset.state + ':' + el.dataset.pending);
        new MutationObserver((mutations) => {
          for (const m of mutations) {
            if (m.type === 'attributes' && m.target.dataset && m.target.dataset.testid === 'dag-node') record(m.target);
            for (const node of m.addedNodes) if (node.querySelectorAll) node.querySelectorAll('[data-testid="dag-node"]').forEach(record);
          }
        }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-state', 'data-pending'] });
      })()`);
      await page.getByTestId('ingest-start').click();
      await page.keyboard.press('Alt+3');
      await page.locator('[data-testid="dag-totals"][data-status="finished"]').waitFor({ timeout: 90_000 });
      await expect.poll(() => page.getByTestId('dag-canvas').getAttribute('data-node-count')).toBe('25');
      const seen = (await page.evaluate('window.__seen')) as string[];
      // Some directory was seen waiting on its children, and the counts went down to done.
      expect(seen.some((entry) => /^(waiting|dispatched):[1-9]/.test(entry))).toBe(true);
      expect(seen.some((entry) => entry.startsWith('done:'))).toBe(true);
      expect(await page.getByTestId('dag-totals').textContent()).toMatch(/Directories\s*25 \/ 25/);
      expect(llm.chatRequests.length).toBeGreaterThanOrEqual(25);
      await shot('dag-large');
    } finally {
      await rm(fixture, { recursive: true, force: true });
      await llm.close();
    }
  });

  it('reads a Latin-1 file and shows in the explorer what it assumed', async () => {
    const { page, shot } = await app.start();
    const fixture = await mkdtemp(join(tmpdir(), 'cairn-e2e-latin1-'));
    try {
      await writeFile(join(fixture, 'README.md'), '# Station notes\n\nWho keeps the stations running.\n');
      await writeFile(join(fixture, 'AUTHORS.txt'), Buffer.from('Ren\xe9 Dupr\xe9 \x96 firmware, caf\xe9 machine.\nJos\xe9 N\xfa\xf1ez \x96 base server.\n', 'latin1'));
      await ingestThroughUi(page, fixture);
      // Nothing skipped: the Latin-1 file was read, not refused.
      await expect.poll(() => page.getByTestId('ingest-result').textContent()).toMatch(/Nothing was skipped/);
      await expect.poll(() => page.getByTestId('home-warnings').textContent()).toMatch(/Read with warnings \(1\)AUTHORS\.txt: .*Windows-1252/);
      await page.getByTestId('home-warnings').scrollIntoViewIfNeeded();
      await shot('home-warnings');
      const tree = page.getByTestId('context-tree');
      await clickUntil(page.getByTestId('open-explorer'), tree);
      const uri = `ctx://resources/${fixture.split('/').pop()}/AUTHORS.txt`;
      await tree.locator(`[data-uri="${uri}"]`).click();
      await page.locator(`[data-testid="node-details"][data-uri="${uri}"]`).waitFor();
      await expect.poll(() => page.getByTestId('node-warnings').textContent()).toMatch(/Read with warnings \(1\).*Windows-1252/);
      await page.locator('.monaco-editor .view-lines', { hasText: /René\s+Dupré\s+–\s+firmware/ }).waitFor();
      await page.getByTestId('node-warnings').scrollIntoViewIfNeeded();
      await shot('explorer-warnings');
    } finally {
      await rm(fixture, { recursive: true, force: true });
    }
  });

  it('follows a dark OS theme, switches themes, and speaks Chinese', async () => {
    const { page, shot } = await app.start({ colorScheme: 'dark' });
    await expect.poll(() => page.locator('.app').getAttribute('data-theme')).toBe('dark');
    await page.getByTestId('locale-select').selectOption('zh');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('导入文件夹');
    await expect.poll(() => page.locator('[data-view="dag"]').textContent()).toBe('实时 DAG');
    await shot('home-dark-zh');

    // The other views in the dark theme, in Chinese: Monaco follows the theme.
    await ingestThroughUi(page, SAMPLE);
    const tree = page.getByTestId('context-tree');
    await clickUntil(page.getByTestId('open-explorer'), tree);
    await tree.locator('[data-uri="ctx://resources/sample/src/"]').click();
    await tree.locator('[data-uri="ctx://resources/sample/src/station.py"]').click();
    await page.locator('.monaco-editor.vs-dark .view-lines', { hasText: /class\s+Quantity/ }).waitFor();
    await shot('explorer-dark-zh');
    await page.keyboard.press('Alt+3');
    await page.locator('[data-testid="dag-totals"][data-status="finished"]').waitFor({ timeout: 90_000 });
    await page.locator('[data-testid="dag-node"][data-state="done"]').first().waitFor();
    await shot('dag-dark-zh');
    await page.getByTestId('theme-select').selectOption('light');
    await expect.poll(() => page.locator('.app').getAttribute('data-theme')).toBe('light');
    // The choice survives a reload.
    await page.reload();
    await page.locator('[data-app-state="ready"]').waitFor();
    await expect.poll(() => page.locator('.app').getAttribute('data-theme')).toBe('light');
    await expect.poll(() => page.locator('[data-view="home"]').textContent()).toBe('首页');
  });

  it('refuses the page and the WebSocket without the token', async () => {
    const served = await app.serve();
    const bare = served.url.replace(/\?token=.*$/, '');
    const response = await fetch(bare);
    expect(response.status).toBe(401);
    const context = await app.browser.newContext();
    const page = await context.newPage();
    const wrong = `${bare}?token=${'x'.repeat(43)}`;
    const status = await page.goto(wrong).then((r) => r?.status());
    expect(status).toBe(401);
    await context.close();
  });
});
