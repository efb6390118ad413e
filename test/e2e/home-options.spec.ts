/**
 * The Home view's ingest options in a real browser against a real `cairn serve`: the LLM switch
 * and the token budget bound to the Settings view, "Estimate first" building the tree and showing
 * the estimate next to the budget, "Summarize now" completing the run, and the Recent list
 * showing the folder with "Ingest again" and "Open in explorer". Screenshots light, dark and zh.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, useAppSession } from './harness.js';

const DOCS = join(ROOT, 'assets', 'sample', 'docs');
const app = useAppSession();

describe('Home: ingest options, estimate first and recent folders', () => {
  it('estimates before spending, summarizes on request, and lists the folder as recent', async () => {
    const { page, shot } = await app.start();

    // No LLM is set up: Home says summaries are extractive and offline.
    await page.locator('[data-testid="home-llm-note"][data-llm="none"]').waitFor();
    await page.getByTestId('recent-panel').getByText('Nothing has been ingested').waitFor();

    // A budget typed on Home is the Settings budget; a bad one is refused with the reason.
    await page.getByTestId('home-budget').fill('abc');
    await page.getByTestId('home-budget').press('Enter');
    await page.getByTestId('home-budget-error').waitFor();
    await page.getByTestId('home-budget').fill('50');
    await page.getByTestId('home-budget').press('Enter');
    await expect.poll(() => page.getByTestId('home-budget-error').count()).toBe(0);

    // With no server or key set, the LLM switch waits for Settings, which its note links to.
    await expect.poll(() => page.getByTestId('home-llm-enabled').isDisabled()).toBe(true);
    await page.getByTestId('home-open-settings').click();
    await page.locator('[data-testid="settings-summarizer"][data-summarizer="extractive"]').waitFor();
    await expect.poll(() => page.getByTestId('settings-tokenBudget').inputValue()).toBe('50');
    await expect.poll(() => page.getByTestId('settings-enabled').isChecked()).toBe(false);
    // Back on Home, the budget typed there is kept.
    await page.keyboard.press('Alt+1');
    await page.locator('[data-testid="home-llm-note"][data-llm="none"]').waitFor();
    await expect.poll(() => page.getByTestId('home-budget').inputValue()).toBe('50');

    // Estimate first: the tree is built, nothing is summarized, and the estimate is shown.
    await page.getByTestId('ingest-estimate-first').check();
    await page.getByTestId('ingest-path').fill(DOCS);
    await page.getByTestId('ingest-start').click();
    await page.getByTestId('ingest-result').waitFor({ timeout: 90_000 });
    await page.locator('[data-testid="estimate-panel"][data-phase="ready"]').waitFor({ timeout: 30_000 });
    expect(Number((await page.getByTestId('estimate-calls').textContent())!.replace(/\D/g, ''))).toBeGreaterThan(0);
    expect(Number((await page.getByTestId('estimate-input').textContent())!.replace(/\D/g, ''))).toBeGreaterThan(50);
    await expect.poll(() => page.getByTestId('estimate-cost').textContent()).toMatch(/^\$\d/);
    await expect.poll(() => page.getByTestId('estimate-budget').textContent()).toBe('50');
    await page.getByTestId('estimate-over-budget').waitFor();
    await page.getByTestId('estimate-extractive').waitFor();
    const item = page.locator(`[data-testid="recent-item"][data-root="ctx://resources/docs/"]`);
    await item.waitFor();
    await expect.poll(() => item.getAttribute('data-state')).toBe('queued');
    await page.getByTestId('estimate-panel').scrollIntoViewIfNeeded();
    await shot('home-estimate-light');

    // Summarize now: the run completes and the folder reads as summarized.
    await page.getByTestId('estimate-run').focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('estimate-done').waitFor({ timeout: 90_000 });
    await expect.poll(() => page.getByTestId('estimate-done').textContent()).toMatch(/Summarized \d+ directories and \d+ files/);
    await page.locator('[data-testid="recent-item"][data-state="summarized"]').waitFor({ timeout: 30_000 });
    await expect.poll(() => item.textContent()).toMatch(/\d+ files/);
    await expect.poll(() => item.textContent()).toContain(DOCS);
    await page.getByTestId('recent-panel').scrollIntoViewIfNeeded();
    await shot('home-recent-light');

    await page.getByTestId('theme-select').selectOption('dark');
    await shot('home-recent-dark');

    // Ingest again from the list: the same root, nothing changed.
    await page.getByTestId('ingest-estimate-first').uncheck();
    await item.getByTestId('recent-again').click();
    await page.getByTestId('ingest-result').waitFor({ timeout: 90_000 });
    await expect.poll(() => page.getByTestId('ingest-root').textContent()).toBe('ctx://resources/docs/');
    await expect.poll(() => page.locator('[data-testid="recent-item"]').count()).toBe(1);

    // Open in explorer goes to that tree.
    await item.getByTestId('recent-open').click();
    await page.locator('.explorer-view, [aria-labelledby="explorer-title"]').first().waitFor();

    await page.getByTestId('locale-select').selectOption('zh');
    await page.keyboard.press('Alt+1');
    await page.getByTestId('recent-panel').getByText('最近').waitFor();
    await page.getByTestId('recent-panel').scrollIntoViewIfNeeded();
    await shot('home-recent-zh-dark');
  });
});
