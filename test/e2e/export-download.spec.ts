/**
 * Export in browser mode (issue 21): the Export view of a page served by `cairn serve` downloads
 * the export through the browser, in the format and scope chosen, with no path on the host to
 * type: a jsonl file of everything, then a Markdown bundle of one scope as a .tar.gz.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SAMPLE, ingestThroughUi, useAppSession } from './harness.js';

const app = useAppSession();

describe('export in a browser', () => {
  it('downloads a jsonl export of everything, then a Markdown bundle of one scope', async () => {
    const { page, shot } = await app.start();
    const dir = await mkdtemp(join(tmpdir(), 'cairn-e2e-download-'));
    app.removeAfter(dir);
    await ingestThroughUi(page, SAMPLE);

    await page.keyboard.press('Alt+8');
    await page.getByTestId('export-format').selectOption('jsonl');
    await expect.poll(() => page.getByTestId('export-scope').inputValue()).toBe('');
    const [jsonl] = await Promise.all([page.waitForEvent('download', { timeout: 60_000 }), page.getByTestId('export-download').click()]);
    expect(jsonl.suggestedFilename()).toMatch(/^cairn-export-\d{8}-\d{6}\.jsonl$/);
    const file = join(dir, jsonl.suggestedFilename());
    await jsonl.saveAs(file);
    const records = (await readFile(file, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; node?: { uri: string } });
    expect(records[0]!.type).toBe('header');
    expect(records.some((r) => r.node?.uri === 'ctx://resources/sample/')).toBe(true);
    const result = page.getByTestId('export-result');
    await expect.poll(() => result.getAttribute('data-out')).toBe(jsonl.suggestedFilename());
    await expect.poll(() => result.locator('h2').textContent()).toBe('Downloaded');
    await expect.poll(() => result.textContent()).toMatch(/Nodes\s*\d+/);

    await page.getByTestId('export-format').selectOption('markdown');
    await page.getByTestId('export-scope').selectOption('resources');
    const [bundle] = await Promise.all([page.waitForEvent('download', { timeout: 60_000 }), page.getByTestId('export-download').click()]);
    expect(bundle.suggestedFilename()).toMatch(/^cairn-export-\d{8}-\d{6}-resources-markdown\.tar\.gz$/);
    const archive = join(dir, bundle.suggestedFilename());
    await bundle.saveAs(archive);
    const unpacked = join(dir, 'unpacked');
    await mkdir(unpacked);
    const tar = spawnSync('tar', ['-xzf', archive, '-C', unpacked], { encoding: 'utf8' });
    expect(tar.status, tar.stderr).toBe(0);
    const folder = join(unpacked, bundle.suggestedFilename().replace(/\.tar\.gz$/, ''));
    expect((await readdir(folder)).sort()).toEqual(['cairn-export.json', 'data.jsonl', 'index.md']);
    expect(JSON.parse(await readFile(join(folder, 'cairn-export.json'), 'utf8'))).toMatchObject({ kind: 'markdown', scopes: ['resources'] });
    await expect.poll(() => page.getByTestId('export-result').getAttribute('data-out')).toBe(bundle.suggestedFilename());
    await shot('export-download');
  });
});
