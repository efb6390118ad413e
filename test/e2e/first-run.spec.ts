/**
 * A first run in a real browser against a real `cairn serve` on an empty workspace (issue 22):
 * Home offers "Try the sample", which ingests the sample folder Cairn ships (found by the host,
 * here in dist-main/) with the normal progress and result, after which the offer is gone; the
 * Scope and Code summaries options say what they mean under them (en and zh); and with no LLM set
 * up, "Summarize with the LLM" is disabled, its note saying why and linking to Settings.
 */
import { describe, expect, it } from 'vitest';
import { clickUntil, useAppSession } from './harness.js';

const app = useAppSession();

describe('First run', () => {
  it('an empty workspace offers the sample, and trying it ingests it with its progress and result', async () => {
    const { page, shot } = await app.start();
    const offer = page.getByTestId('try-sample');
    await offer.waitFor();
    await page.getByTestId('recent-panel').getByText('Nothing has been ingested').waitFor();
    await shot('first-run-home');

    // Note every time the progress panel shows, however briefly (the sample is small).
    // (A string: this file is type-checked without the DOM's types.)
    // The offer goes as the ingest starts (it stayed up, its button disabled, the whole run).
    await page.evaluate(`new MutationObserver(() => {
      if (!document.querySelector('[data-testid="ingest-progress"]')) return;
      window.sawProgress = true;
      if (document.querySelector('[data-testid="try-sample"]')) window.offerDuringRun = true;
    }).observe(document.body, { childList: true, subtree: true })`);
    await page.getByTestId('try-sample-button').click();
    await page.getByTestId('ingest-result').waitFor({ timeout: 90_000 });
    await expect.poll(() => page.evaluate('window.sawProgress === true')).toBe(true);
    await expect.poll(() => page.evaluate('window.offerDuringRun === true')).toBe(false);

    await expect.poll(() => page.getByTestId('ingest-root').textContent()).toBe('ctx://resources/sample/');
    // The path the host gave is the sample folder the build ships beside the CLI.
    await expect.poll(() => page.getByTestId('ingest-path').inputValue()).toMatch(/[/\\]dist-main[/\\]sample$/);
    const stats = await page.getByTestId('ingest-result').locator('.stat').allTextContents();
    expect(Number(stats.find((s) => s.startsWith('Files'))?.replace(/\D/g, ''))).toBeGreaterThanOrEqual(8);
    // The workspace has a tree now: the offer is gone, and the sample is listed as recent.
    await page.locator('[data-testid="recent-item"][data-root="ctx://resources/sample/"]').waitFor();
    await expect.poll(() => offer.count()).toBe(0);
    await shot('first-run-sample-result');

    // The result opens like any ingest's.
    await clickUntil(page.getByTestId('open-explorer'), page.getByTestId('context-tree'));
    await page.getByTestId('context-tree').locator('[data-uri="ctx://resources/sample/docs/"]').waitFor();
  });

  it('explains the Scope and Code summaries options under them, in English and Chinese', async () => {
    const { page, shot } = await app.start();
    const scope = page.getByTestId('ingest-scope');
    const codeMode = page.getByTestId('ingest-code-mode');
    const helpOf = async (select: typeof scope) => {
      const id = await select.getAttribute('aria-describedby');
      expect(id).toBeTruthy();
      const help = page.locator(`[id="${id}"]`);
      await expect.poll(() => help.isVisible()).toBe(true);
      return (await help.textContent()) ?? '';
    };
    const scopeHelp = await helpOf(scope);
    for (const choice of ['resources', 'user', 'agent']) expect(scopeHelp).toContain(choice);
    expect(scopeHelp).toMatch(/documents and code/);
    const codeHelp = await helpOf(codeMode);
    for (const choice of ['ast:', 'llm:', 'ast_llm:']) expect(codeHelp).toContain(choice);
    expect(codeHelp).toMatch(/offline/);
    await shot('first-run-options');

    await page.getByTestId('locale-select').selectOption('zh');
    await expect.poll(() => helpOf(scope)).toMatch(/树放在哪里/);
    await expect.poll(() => helpOf(codeMode)).toMatch(/离线生成/);
    await page.getByTestId('try-sample').getByText('试用示例').waitFor();
    await shot('first-run-options-zh');
  });

  it('with no LLM set up, "Summarize with the LLM" is disabled, saying why, with a link to Settings', async () => {
    const { page, shot } = await app.start();
    const note = page.locator('[data-testid="home-llm-note"][data-llm="none"]');
    await note.waitFor();
    await expect.poll(() => page.getByTestId('home-llm-enabled').isDisabled()).toBe(true);
    await expect.poll(() => page.getByTestId('home-llm-enabled').isChecked()).toBe(false);
    await expect.poll(() => note.textContent()).toMatch(/No LLM is set up.*server or API key in Settings/);
    await page.getByTestId('home-llm-note').scrollIntoViewIfNeeded();
    await shot('first-run-llm-none');

    await page.getByTestId('home-open-settings').click();
    await page.locator('[data-testid="settings-summarizer"][data-summarizer="extractive"]').waitFor();

    // Once a server is set in Settings, the switch on Home can be used.
    await page.getByTestId('settings-baseUrl').fill('http://127.0.0.1:9/v1');
    await page.getByTestId('settings-save').click();
    await page.locator('[data-testid="settings-save-result"][data-ok="true"]').waitFor();
    await page.keyboard.press('Alt+1');
    await page.locator('[data-testid="home-llm-note"][data-llm="off"]').waitFor();
    await expect.poll(() => page.getByTestId('home-llm-enabled').isDisabled()).toBe(false);
  });
});
