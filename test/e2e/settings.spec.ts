/**
 * The Settings view and the LLM monitor in a real browser: a form that refuses bad values with a
 * message, a connection test against a real scripted OpenAI-compatible server on 127.0.0.1, a
 * write-only key, and a monitor whose call count rises while an ingest is summarized by that
 * server. Screenshots of both views, light and dark.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reply, startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';
import { ingestThroughUi, ROOT, useAppSession } from './harness.js';

const KEY = 'sk-e2e-settings-4b3c2d1e0f9a';
const DOCS = join(ROOT, 'assets', 'sample', 'docs');

const app = useAppSession();
let server: MockOpenAI;

beforeEach(async () => {
  server = await startMockOpenAI({ apiKey: KEY });
  // A little latency, so calls are seen in flight and the bars differ.
  server.handle(() => reply.delayed(40, reply.json({ abstract: 'Written by the mock LLM.', overview: '# Mock\n\n- overview', categories: ['docs'] }, { usage: { prompt_tokens: 120, completion_tokens: 30 } })));
});
afterEach(async () => {
  await server.close();
});

describe('Settings and the LLM monitor in a browser', () => {
  it('sets the LLM endpoint, tests it, ingests through it and watches the calls in the monitor', async () => {
    const { page, shot } = await app.start();

    // Before any call the monitor says so in each panel (its "Recent calls" panel was an empty box).
    await page.keyboard.press('Alt+9');
    await expect.poll(() => page.getByTestId('monitor-recent-empty').textContent()).toBe('No calls yet.');

    // Alt+0 opens the tenth view, Settings; the engine starts extractive.
    await page.keyboard.press('Alt+0');
    await page.locator('[data-testid="settings-summarizer"][data-summarizer="extractive"]').waitFor();

    // Bad values are refused field by field, with the reason, and nothing is saved.
    await page.getByTestId('settings-maxConcurrent').fill('0');
    await page.getByTestId('settings-baseUrl').fill('localhost:1234');
    await page.getByTestId('settings-save').click();
    await expect.poll(() => page.getByTestId('settings-error-maxConcurrent').textContent()).toMatch(/1 to 64/);
    await expect.poll(() => page.getByTestId('settings-error-baseUrl').textContent()).toMatch(/http:\/\//);
    await expect.poll(() => page.getByTestId('settings-save-result').count()).toBe(0);
    await shot('settings-invalid');

    await page.getByTestId('settings-enabled').check();
    await page.getByTestId('settings-baseUrl').fill(server.url);
    await page.getByTestId('settings-model').fill('gpt-4o-mini');
    await page.getByTestId('settings-maxConcurrent').fill('4');
    await page.getByTestId('settings-tokenBudget').fill('200000');
    await page.getByTestId('settings-apiKey').fill(KEY);
    await expect.poll(() => page.getByTestId('settings-error-maxConcurrent').count()).toBe(0);

    // One tiny request with the typed values, before anything is saved.
    await page.getByTestId('settings-test').click();
    await page.locator('[data-testid="settings-test-result"][data-ok="true"]').waitFor();
    await expect.poll(() => page.getByTestId('settings-test-result').textContent()).toMatch(/Connected in \d+ ms/);
    expect(server.chatRequests.at(-1)!.apiKey).toBe(KEY);

    // Saved: the key field empties and only says a key is kept.
    await page.getByTestId('settings-save').click();
    await page.locator('[data-testid="settings-save-result"][data-ok="true"]').waitFor();
    await page.locator('[data-testid="settings-summarizer"][data-summarizer="llm"]').waitFor();
    await expect.poll(() => page.getByTestId('settings-apiKey').inputValue()).toBe('');
    await expect.poll(() => page.locator('[data-testid="settings-key-state"][data-set="true"]').count()).toBe(1);
    expect(await page.content()).not.toContain(KEY.slice(0, 14));
    await shot('settings-saved');

    // An ingest is summarized in the background through the server; the monitor counts it live.
    const before = server.chatRequests.length;
    await page.keyboard.press('Alt+1');
    await ingestThroughUi(page, DOCS);
    await page.keyboard.press('Alt+9');
    await page.getByTestId('monitor-calls').waitFor();
    await expect.poll(async () => Number(await page.getByTestId('monitor-calls').textContent()), { timeout: 60_000, interval: 200 }).toBeGreaterThan(0);
    await page.getByTestId('monitor-call').first().waitFor();
    await expect.poll(async () => Number(await page.getByTestId('monitor-latency').getAttribute('data-bars')), { timeout: 30_000 }).toBeGreaterThan(0);
    await expect.poll(() => page.getByTestId('monitor-breaker').textContent()).toMatch(/closed/);
    await expect.poll(() => page.getByTestId('monitor-cost').textContent()).toMatch(/^\$\d/);
    await page.getByTestId('monitor-budget').waitFor();
    // Once the run ends the monitor settles on what the server saw (the test call is not counted).
    await expect
      .poll(async () => Number(await page.getByTestId('monitor-calls').textContent()) === server.chatRequests.length - before && Number(await page.getByTestId('monitor-in-flight').textContent()) === 0, { timeout: 60_000, interval: 250 })
      .toBe(true);
    expect(server.chatRequests.slice(before).every((r) => r.apiKey === KEY)).toBe(true);
    await shot('monitor-light');

    await page.getByTestId('theme-select').selectOption('dark');
    await shot('monitor-dark');
    await page.keyboard.press('Alt+0');
    await page.locator('[data-testid="settings-key-state"][data-set="true"]').waitFor();
    await shot('settings-dark');

    // Clearing the key: the view says no key is set.
    await page.getByTestId('settings-clear-key').click();
    await page.locator('[data-testid="settings-key-state"][data-set="false"]').waitFor();
  });
});
