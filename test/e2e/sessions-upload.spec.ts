/**
 * Browser mode's conversation upload (issue 8): files chosen in the Sessions view (the picker
 * input, which Chromium fills as a drop or a choice would) are uploaded to `cairn serve` as one
 * upload `conversations-<time>`, then each imported from `<workspace>/uploads/`: a conversation is
 * listed and analyzed, a file that is not one shows the engine's error and stops nothing else.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, useAppSession } from './harness.js';

const LEAK = join(ROOT, 'test', 'fixtures', 'chains', 'en-memory-leak.json');

/** The page's DataTransfer and File, for the functions run in the page (this file is typed without the DOM library). */
interface PageGlobals {
  DataTransfer: new () => { items: { add(file: unknown): unknown }; setData(type: string, value: string): void };
  File: new (parts: string[], name: string, options?: { type?: string }) => unknown;
}

const app = useAppSession();

describe('uploading conversation files from the browser', () => {
  it('uploads the files, imports each from the workspace, lists and analyzes the conversation and names the file that is not one', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cairn-e2e-chats-'));
    app.removeAfter(dir);
    const notes = join(dir, 'notes.json');
    await writeFile(notes, JSON.stringify({ shopping: ['milk', 'eggs'] }));

    const { page, shot } = await app.start();
    await page.keyboard.press('Alt+5');
    await expect.poll(() => page.getByTestId('sessions-drop').textContent()).toMatch(/uploaded to the workspace/);
    const input = page.getByTestId('sessions-upload-input');
    await expect.poll(() => input.getAttribute('accept')).toBe('.json,.jsonl,.md,.txt');
    await expect.poll(() => input.getAttribute('multiple')).toBe('');
    await input.setInputFiles([notes, LEAK]);

    // One upload for both files, then the path the host answered with.
    await page.locator('[data-testid="upload-panel"][data-status="done"]').waitFor({ timeout: 60_000 });
    await expect.poll(() => page.getByTestId('upload-files').textContent()).toBe('2 of 2 files');
    await expect.poll(() => page.getByTestId('upload-failures').count()).toBe(0);
    const doneText = (await page.getByTestId('upload-done').textContent()) ?? '';
    const folder = doneText.match(/to (\/\S+\/uploads\/conversations-\d{8}-\d{4});/)?.[1];
    expect(folder, doneText).toBeTruthy();
    // The upload is a faithful copy on the host.
    await expect(readFile(join(folder!, 'en-memory-leak.json'), 'utf8')).resolves.toBe(await readFile(LEAK, 'utf8'));

    // Each file imported on its own: the conversation is taken, the shopping list refused with the engine's reason.
    const leak = page.locator('[data-testid="session-file-import"][data-name="en-memory-leak.json"]');
    const bad = page.locator('[data-testid="session-file-import"][data-name="notes.json"]');
    await page.locator('[data-testid="session-file-import"][data-name="en-memory-leak.json"][data-status="done"]').waitFor({ timeout: 60_000 });
    await expect.poll(() => leak.textContent()).toMatch(/1 conversation \(en-memory-leak\)/);
    await expect.poll(() => bad.getAttribute('data-status')).toBe('failed');
    await expect.poll(() => bad.locator('[data-code]').getAttribute('data-code')).toBe('INVALID_INPUT');
    await expect.poll(() => bad.textContent()).toMatch(/not imported: .*notes\.json/);
    await expect.poll(() => page.getByTestId('session-file-imports').locator('h2').textContent()).toMatch(/1 of 2 files imported/);

    // The conversation is listed, opened and analyzed.
    await page.locator('[data-testid="session-open"][data-analysis="done"]').waitFor({ timeout: 60_000 });
    const item = page.locator('[data-testid="session-item"][data-id="en-memory-leak"]');
    await expect.poll(() => item.textContent()).toMatch(/2 sessions · 28 messages.*analyzed/);
    await expect.poll(() => page.getByTestId('message').count()).toBe(28);
    await page.getByTestId('session-tab-buckets').click();
    const counts = await page.getByTestId('bucket-count').allTextContents();
    expect(counts.map(Number).reduce((a, b) => a + b, 0)).toBe(28);
    await page.getByTestId('session-tab-messages').click();
    await shot('sessions-upload');

    // In Chinese, the hint says the same.
    await page.getByTestId('locale-select').selectOption('zh');
    await expect.poll(() => page.getByTestId('sessions-drop').textContent()).toMatch(/上传到运行 `cairn serve` 的机器上的工作区/);
  });

  it('takes dropped files: uploaded from a plain drop, read in place when the drop names their paths', async () => {
    const { page, shot } = await app.start();
    await page.keyboard.press('Alt+5');
    const text = await readFile(LEAK, 'utf8');

    // A drop of file contents only (what a browser gets from most sources): uploaded, then imported.
    const zone = page.getByTestId('sessions-drop');
    const dropped = await page.evaluateHandle((json) => {
      const win = globalThis as unknown as PageGlobals;
      const transfer = new win.DataTransfer();
      transfer.items.add(new win.File([json], 'en-memory-leak.json', { type: 'application/json' }));
      return transfer;
    }, text);
    await zone.dispatchEvent('dragover', { dataTransfer: dropped });
    await expect.poll(() => zone.getAttribute('class')).toMatch(/dragging/);
    await zone.dispatchEvent('drop', { dataTransfer: dropped });
    await page.locator('[data-testid="upload-panel"][data-status="done"]').waitFor({ timeout: 60_000 });
    await expect.poll(() => page.getByTestId('upload-done').textContent()).toMatch(/\/uploads\/conversations-\d{8}-\d{4}; importing each/);
    await page.locator('[data-testid="session-file-import"][data-name="en-memory-leak.json"][data-status="done"]').waitFor({ timeout: 60_000 });
    await page.locator('[data-testid="session-open"][data-analysis="done"]').waitFor({ timeout: 60_000 });
    await shot('sessions-upload-drop');

    // A drop that names the file (a file manager's uri-list; Electron's route): imported where it is, nothing uploaded.
    const named = await page.evaluateHandle((uri) => {
      const transfer = new (globalThis as unknown as PageGlobals).DataTransfer();
      transfer.setData('text/uri-list', uri);
      return transfer;
    }, `file://${LEAK}`);
    await zone.dispatchEvent('drop', { dataTransfer: named });
    await page.locator(`[data-testid="session-file-import"][data-name="${LEAK}"][data-status="done"]`).waitFor({ timeout: 60_000 });
    await expect.poll(() => page.getByTestId('upload-panel').count()).toBe(1); // the earlier upload's panel, no new one
    await expect.poll(() => page.getByTestId('session-file-import').count()).toBe(1);
    await expect.poll(() => page.getByTestId('session-item').count()).toBe(1); // the same conversation: nothing duplicated
    await page.locator('[data-testid="session-open"][data-analysis="done"]').waitFor({ timeout: 60_000 });
  });
});
