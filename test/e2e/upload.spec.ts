/**
 * Browser mode's folder upload (issue 8): a folder chosen in the page (the webkitdirectory input,
 * which Chromium fills exactly as a picked or dropped folder) is uploaded to `cairn serve`,
 * ingested from `<workspace>/uploads/<name>/`, and summarized: the DAG run reaches its end.
 */
import { describe, expect, it } from 'vitest';
import { SAMPLE, useAppSession } from './harness.js';

const app = useAppSession();

describe('uploading a folder from the browser', () => {
  it('uploads the sample folder, ingests it from the workspace and summarizes it', async () => {
    const { page, shot } = await app.start();
    const input = page.getByTestId('upload-input');
    await expect.poll(() => input.getAttribute('webkitdirectory')).toBe('');
    await input.setInputFiles(SAMPLE);

    // The upload panel counts files and bytes, then hands the host path to the ingest.
    const panel = page.getByTestId('upload-panel');
    await panel.waitFor();
    await page.locator('[data-testid="upload-panel"][data-status="done"]').waitFor({ timeout: 60_000 });
    const files = (await page.getByTestId('upload-files').textContent()) ?? '';
    const [done, total] = files.match(/\d+/g)!.map(Number);
    expect(done).toBe(total);
    expect(done).toBeGreaterThanOrEqual(8);
    await expect.poll(() => page.getByTestId('upload-bytes').textContent()).toMatch(/\d.* of .*\d/);
    await expect.poll(() => page.getByTestId('upload-done').textContent()).toMatch(/\/uploads\/sample/);
    await expect.poll(() => page.getByTestId('upload-failures').count()).toBe(0);
    // The page sends only what an ingest by path reads: the sample's .gitignore'd build.log stays home.
    await expect.poll(() => page.getByTestId('upload-left-out').textContent()).toMatch(/^1 file left out/);
    await expect.poll(() => page.getByTestId('ingest-path').inputValue()).toMatch(/\/uploads\/sample$/);

    await page.getByTestId('ingest-result').waitFor({ timeout: 90_000 });
    await expect.poll(() => page.getByTestId('ingest-root').textContent()).toBe('ctx://resources/sample/');
    const groups = await page.getByTestId('skip-groups').locator('summary').allTextContents();
    // What the page left out never reached the workspace; the ingest still skips what a scan skips.
    expect(groups.join(' ')).toMatch(/Binary file/);
    expect(groups.join(' ')).not.toMatch(/gitignore/);
    await shot('home-upload');

    await page.keyboard.press('Alt+3');
    await page.locator('[data-testid="dag-totals"][data-status="finished"]').waitFor({ timeout: 90_000 });
    // Every directory of the uploaded copy was summarized. (The per-node colours are the DAG view's
    // own concern, tested in app.spec.ts; they can lag a run that ended before the view opened.)
    const totals = (await page.getByTestId('dag-totals').textContent()) ?? '';
    const [, dirsDone, dirsTotal] = totals.match(/Directories\s*(\d+) \/ (\d+)/) ?? [];
    expect(Number(dirsTotal)).toBeGreaterThanOrEqual(5);
    expect(dirsDone).toBe(dirsTotal);
    await expect.poll(() => page.getByTestId('dag-totals').textContent()).toContain('ctx://resources/sample/');
    await shot('dag-after-upload');
  });
});
