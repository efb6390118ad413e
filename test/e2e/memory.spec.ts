/**
 * Sessions, memories, compression and export in a real browser, with the setup of search.spec.ts:
 * `cairn serve` on a fresh workspace per test, Chromium on the URL it printed, a screenshot of
 * every view shown, and no request outside 127.0.0.1 nor any console error by the end.
 */
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ROOT, useAppSession } from './harness.js';

const LEAK = join(ROOT, 'test', 'fixtures', 'chains', 'en-memory-leak.json');

const app = useAppSession();

/** Imports the memory-leak conversation through the sessions view and waits for its analysis. */
async function importLeak(page: Page): Promise<void> {
  await page.keyboard.press('Alt+5');
  await page.getByTestId('sessions-import-path').fill(LEAK);
  await page.getByTestId('sessions-import').click();
  await page.locator('[data-testid="session-open"][data-analysis="done"]').waitFor({ timeout: 60_000 });
}

describe('Sessions, memories, compression and export in a browser', () => {
  it('imports a conversation, shows its analysis, commits it, and follows the memories into compression and export', async () => {
    const { page, shot } = await app.start();
    await importLeak(page);

    // The conversation: listed, and read with speaker, time and id per message.
    await expect.poll(() => page.locator('[data-testid="session-item"][data-id="en-memory-leak"]').textContent()).toMatch(/2 sessions · 28 messages/);
    await expect.poll(() => page.getByTestId('message').count()).toBe(28);
    const first = page.locator('[data-testid="message"][data-id="s1:1"]');
    await expect.poll(() => first.textContent()).toMatch(/Ana.*8 May 2024.*s1:1.*out of memory/s);
    await shot('sessions-messages');

    // Buckets: a count per bucket adding up to every item.
    await page.getByTestId('session-tab-buckets').click();
    const counts = await page.getByTestId('bucket-count').allTextContents();
    expect(counts).toHaveLength(5);
    expect(counts.map(Number).reduce((a, b) => a + b, 0)).toBe(28);
    await shot('sessions-buckets');

    // The cluster map: a point per clustered item, a legend entry per topic, the text on hover.
    await page.getByTestId('session-tab-clusters').click();
    await page.getByTestId('cluster-map').waitFor();
    const points = Number(await page.getByTestId('cluster-map').getAttribute('data-points'));
    expect(points).toBeGreaterThanOrEqual(20);
    await expect.poll(() => page.getByTestId('cluster-point').count()).toBe(points);
    const clusters = new Set(await page.getByTestId('cluster-point').evaluateAll((els) => els.map((e) => e.getAttribute('data-cluster'))));
    await expect.poll(() => page.getByTestId('cluster-legend-item').count()).toBe(clusters.size);
    expect(clusters.size).toBeGreaterThanOrEqual(2);
    await page.getByTestId('cluster-point').nth(3).hover();
    await expect.poll(() => page.getByTestId('cluster-tip').textContent()).toMatch(/s\d:\d+/);
    await shot('sessions-cluster-map');

    // The chains: lanes by type, nodes with their roles; a click shows the node's messages.
    await page.getByTestId('session-tab-chains').click();
    await page.getByTestId('chain-node').first().waitFor();
    const lanes = await page.getByTestId('chain-lane').evaluateAll((els) => els.map((e) => e.getAttribute('data-type')));
    expect(lanes).toEqual(expect.arrayContaining(['CAUSAL', 'OPERATION']));
    expect(lanes.length).toBeGreaterThanOrEqual(3);
    const roles = await page.getByTestId('chain-node').evaluateAll((els) => els.map((e) => e.getAttribute('data-role')));
    expect(roles).toEqual(expect.arrayContaining(['problem', 'cause', 'action', 'result']));
    await expect.poll(() => page.locator('.react-flow__edge').count()).toBeGreaterThan(0);
    const cause = page.locator('[data-testid="chain-node"][data-role="cause"]').first();
    await cause.click();
    await page.getByTestId('chain-node-messages').waitFor();
    await expect.poll(() => cause.getAttribute('class')).toMatch(/chosen/);
    const shown = await page.locator('[data-testid="chain-node-messages"] [data-testid="message"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-id')));
    expect(shown.length).toBeGreaterThan(0);
    expect(shown.every((id) => /^s\d:\d+$/.test(id ?? ''))).toBe(true);
    await shot('sessions-chains');

    // Fusion: cluster ↔ chain links with their strength and evidence.
    await page.getByTestId('session-tab-fusion').click();
    await expect.poll(() => page.getByTestId('fusion-link').count()).toBeGreaterThan(0);
    await expect.poll(() => page.getByTestId('fusion-link').first().textContent()).toMatch(/strength \d\.\d\d/);
    await shot('sessions-fusion');

    // The trigger: four factors, the explanation, and a commit that adds memories.
    await page.getByTestId('session-tab-trigger').click();
    await expect.poll(() => page.getByTestId('trigger-factor').count()).toBe(4);
    await expect.poll(() => page.getByTestId('trigger-action').textContent()).toBe('Extract');
    // A line per factor with its reason, and the score against the threshold.
    const lines = await page.getByTestId('trigger-explanation').locator('li').allTextContents();
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(/^Buckets ready \d\.\d\d × 0\.3 = \d\.\d{3} · \d+ of \d+ items in topics worth keeping$/);
    expect(lines[4]).toMatch(/^Score \d\.\d{3} > 0\.7 · Extract$/);
    await page.getByTestId('session-commit').click();
    await page.getByTestId('commit-result').waitFor({ timeout: 60_000 });
    const ops = await page.getByTestId('commit-change').evaluateAll((els) => els.map((e) => e.getAttribute('data-op')));
    expect(ops.filter((op) => op === 'add').length).toBeGreaterThan(0);
    // Each change says why, naming another memory by its title, never by its raw id.
    const why = await page.getByTestId('commit-change-reason').allTextContents();
    expect(why.length).toBe(ops.length);
    for (const line of why) expect(line).not.toMatch(/mem_[0-9a-f]{16}/);
    expect(why.some((line) => /new fact/.test(line))).toBe(true);
    await shot('sessions-trigger-committed');

    // Memories: by category, each with the messages it came from.
    await page.keyboard.press('Alt+6');
    await page.getByTestId('memory-item').first().waitFor();
    const memoryCount = await page.getByTestId('memory-item').count();
    expect(memoryCount).toBe(ops.filter((op) => op === 'add').length);
    const allChip = page.locator('[data-testid="memory-category"][data-category="all"]');
    await expect.poll(() => allChip.textContent()).toContain(String(memoryCount));
    await page.getByTestId('memory-item').first().click();
    await expect.poll(() => page.getByTestId('memory-message-ids').textContent()).toMatch(/s\d:\d+/);
    // Its history starts with the add; a later candidate may have been merged into it (an update).
    await page.locator('[data-testid="history-item"][data-op="add"]').waitFor();
    const firstOps = await page.getByTestId('history-item').evaluateAll((els) => els.map((e) => e.getAttribute('data-op')));
    expect(firstOps[0]).toBe('add');
    // Moments as a person reads them ("Dec 3, 2026, 11:16 AM"), not ISO strings.
    await expect.poll(() => page.getByTestId('history-item').first().textContent()).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:/);
    await expect.poll(() => page.getByTestId('memory-open').textContent()).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:/);
    expect(firstOps.every((op) => op === 'add' || op === 'update')).toBe(true);
    await shot('memories');

    // Edit the title: the list and the history follow.
    await page.getByTestId('memory-edit').click();
    await page.getByTestId('memory-title-input').fill('Deploy plan: staging first, production on Friday');
    await page.getByTestId('memory-save').click();
    await expect.poll(() => page.getByTestId('memory-title').textContent()).toBe('Deploy plan: staging first, production on Friday');
    const edit = page.getByTestId('history-item').nth(firstOps.length);
    await edit.waitFor();
    await expect.poll(() => edit.getAttribute('data-op')).toBe('update');
    await expect.poll(() => edit.locator('ins').textContent()).toBe('Deploy plan: staging first, production on Friday');
    await expect.poll(() => edit.getByTestId('history-reason').textContent()).toBe('edited by user');
    await shot('memories-edited');

    // Search: a memory is one result under its title (its three levels were three results, two of
    // them titled mem_….md), a message is titled by its conversation (it was s1.md).
    await page.keyboard.press('Alt+4');
    await page.getByTestId('search-input').fill('deploy staging production Friday');
    await page.getByTestId('search-input').press('Enter');
    await page.getByTestId('search-hit').first().waitFor({ timeout: 30_000 });
    const hits = await page.getByTestId('search-hit').evaluateAll((els) => els.map((e) => ({ uri: e.getAttribute('data-uri') ?? '', title: e.querySelector('[data-testid="hit-title"]')?.textContent ?? '' })));
    const memoryHits = hits.filter((h) => h.uri.startsWith('ctx://user/memories/'));
    expect(memoryHits.length).toBeGreaterThan(0);
    expect(new Set(memoryHits.map((h) => h.uri)).size).toBe(memoryHits.length);
    expect(hits.map((h) => h.title)).toContain('Deploy plan: staging first, production on Friday');
    for (const h of hits) expect(h.title).not.toMatch(/^(mem_\w+|s\d+)\.md$/);
    // Its abstract and overview are under it as its other levels, not as "sections".
    const edited = page.getByTestId('search-hit').filter({ hasText: 'Deploy plan: staging first, production on Friday' });
    await expect.poll(() => edited.getByTestId('hit-more').textContent()).toMatch(/^Its other levels \(\d\)$/);
    const messages = hits.filter((h) => h.uri.startsWith('ctx://session/'));
    expect(messages.length).toBeGreaterThan(0);
    for (const m of messages) expect(m.title).toBe('Debugging an OOM in the Node API server');
    await shot('search-memories');
    await page.keyboard.press('Alt+6');

    // Forget asks first; cancelling keeps the memory, confirming removes it from the list.
    const last = page.getByTestId('memory-item').last();
    const lastId = (await last.getAttribute('data-id'))!;
    await last.click();
    await page.getByTestId('memory-forget').click();
    await page.getByTestId('forget-confirm').waitFor();
    await shot('memories-forget-confirm');
    await page.getByTestId('forget-yes').click();
    await page.locator(`[data-testid="memory-item"][data-id="${lastId}"]`).waitFor({ state: 'detached' });
    await page.getByTestId('memory-forgotten').waitFor();
    await page.locator('[data-testid="history-item"][data-op="delete"]').waitFor();
    await expect.poll(() => page.getByTestId('memory-item').count()).toBe(memoryCount - 1);

    // Compression: a pack for a question, before and after in the diff editor, each block's fate.
    // Only results above the relevance floor are gathered (about 200 tokens here), so the pack's
    // text (references and legend included) gets a budget that cannot hold them all.
    await page.keyboard.press('Alt+7');
    await page.getByTestId('compress-query').fill('why does the memory leak grow with traffic');
    await page.getByTestId('compress-budget').fill('250');
    await page.getByTestId('compress-run').click();
    await page.locator('[data-testid="diff-view"] .monaco-diff-editor').waitFor({ timeout: 60_000 });
    await page.locator('[data-testid="diff-view"] .view-line').first().waitFor();
    const totals = page.getByTestId('compress-totals');
    const before = Number(await totals.getAttribute('data-original'));
    const after = Number(await totals.getAttribute('data-compressed'));
    expect(before).toBeGreaterThan(after);
    expect(after).toBeGreaterThan(0);
    expect(after).toBeLessThanOrEqual(250);
    await expect.poll(() => page.getByTestId('compress-pack').getAttribute('data-after').then(Number)).toBeLessThanOrEqual(250);
    // The diff's totals say they are the blocks', beside the pack bar's (two unnamed totals,
    // 1,497 and 1,222 tokens for one pack, read as a contradiction).
    await expect.poll(() => totals.textContent()).toMatch(
      new RegExp(`^Blocks: ${before.toLocaleString('en-US')} → ${after.toLocaleString('en-US')} tokens.*the blocks had [\\d,]+ of the budget; the pack's references and legend take the rest$`),
    );
    const fates = await page.getByTestId('compress-block').evaluateAll((els) => els.map((e) => e.getAttribute('data-fate')));
    expect(fates.length).toBeGreaterThan(1);
    expect(fates.some((f) => f === 'dropped' || f === 'summarized')).toBe(true);
    await expect.poll(() => page.getByTestId('compress-chain').count()).toBeGreaterThan(0);
    // Blocks by their title (the conversation, as Search titles it), not their ctx:// link;
    // chains by their type and first step, not their id.
    const blockTitles = await page.getByTestId('compress-block-title').allTextContents();
    expect(blockTitles.length).toBe(fates.length);
    for (const title of blockTitles) expect(title).not.toMatch(/ctx:\/\/|\.md\b/);
    expect(blockTitles.some((title) => title.startsWith('Debugging an OOM in the Node API server · message'))).toBe(true);
    for (const name of await page.getByTestId('compress-chain-name').allTextContents()) expect(name).toMatch(/^(Causal|Logic|Operation|Narrative|Time): \S/);
    for (const summary of await page.getByTestId('compress-summary-of').allTextContents()) expect(summary).not.toMatch(/[a-z]+-[0-9a-f]{16}/);
    await shot('compress');

    // Export to JSON, then import the file back (nothing new: it all came from here).
    const dir = await mkdtemp(join(tmpdir(), 'cairn-e2e-export-'));
    app.removeAfter(dir);
    const out = join(dir, 'cairn.json');
    await page.keyboard.press('Alt+8');
    await page.getByTestId('export-format').selectOption('json');
    await page.getByTestId('export-out').fill(out);
    await page.getByTestId('export-run').click();
    await page.locator(`[data-testid="export-result"][data-out="${out}"]`).waitFor({ timeout: 60_000 });
    const written = await stat(out);
    expect(written.size).toBeGreaterThan(100);
    const json = JSON.parse(await readFile(out, 'utf8')) as Record<string, unknown>;
    expect(JSON.stringify(json)).toContain('Deploy plan: staging first, production on Friday');
    await expect.poll(() => page.getByTestId('export-result').textContent()).toMatch(new RegExp(`Memories\\s*${memoryCount - 1}`));
    await page.getByTestId('import-path').fill(out);
    await page.getByTestId('import-run').click();
    await page.getByTestId('import-result').waitFor({ timeout: 60_000 });
    await shot('export');
  });

  it('shows the analysis in the dark theme and in Chinese', async () => {
    const { page, shot } = await app.start({ colorScheme: 'dark' });
    await page.getByTestId('locale-select').selectOption('zh');
    await importLeak(page);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('会话');
    // Why each message is in its bucket, in Chinese (the engine's reason is English).
    await page.getByTestId('session-tab-buckets').click();
    const bucketWhy = await page.getByTestId('bucket-reason').allTextContents();
    expect(bucketWhy.length).toBeGreaterThan(0);
    for (const line of bucketWhy) expect(line).toMatch(/^规则：/);
    for (const line of bucketWhy) expect(line).not.toMatch(/rules:|_CONTEXT|no cue/);
    await page.getByTestId('session-tab-clusters').click();
    await page.getByTestId('cluster-point').first().waitFor();
    await shot('sessions-cluster-map-dark-zh');
    await page.getByTestId('session-tab-chains').click();
    await page.locator('[data-testid="chain-node"][data-role="problem"]').first().click();
    await page.getByTestId('chain-node-messages').waitFor();
    // Chain roles, link types and check names come from the engine in English; the page shows them translated.
    await expect.poll(() => page.locator('[data-testid="chain-node"][data-role="problem"] .chain-role').first().textContent()).toMatch(/^\d+\. 问题\d+%$/);
    await expect.poll(() => page.locator('[data-testid="chain-node"][data-role="cause"] .chain-role').first().textContent()).toMatch(/^\d+\. 原因\d+%$/);
    await expect.poll(() => page.getByTestId('chain-node-messages').locator('h3').textContent()).toMatch(/因果 · 问题/);
    await shot('sessions-chains-dark-zh');
    await page.getByTestId('session-tab-fusion').click();
    const linkTypes = await page.getByTestId('fusion-link').locator('td:nth-child(3)').allTextContents();
    expect(linkTypes.length).toBeGreaterThan(0);
    for (const type of linkTypes) expect(['内容重合', '时间窗口相同', '语义相似']).toContain(type);
    const dimensions = await page.getByTestId('session-fusion').locator('.meta-table dt').allTextContents();
    expect(dimensions.length).toBeGreaterThan(0);
    for (const name of dimensions) expect(name).toMatch(/^[\u4e00-\u9fff]+$/);
    // The trigger's reasons in Chinese too (they were the engine's English lines).
    await page.getByTestId('session-tab-trigger').click();
    const reasons = await page.getByTestId('trigger-explanation').locator('li').allTextContents();
    expect(reasons[0]).toMatch(/^语义桶就绪 \d\.\d\d × 0\.3 = \d\.\d{3} · \d+ 项中有 \d+ 项在值得保留的话题中$/);
    for (const line of reasons) expect(line).not.toMatch(/items|chains|clusters|coherence|validation/);
    await page.getByTestId('session-tab-messages').click();
    await page.getByTestId('message').first().waitFor();
    await page.getByTestId('session-tab-trigger').click();
    await expect.poll(() => page.getByTestId('trigger-action').textContent()).toBe('提取');
    // Each proposed memory says what accepting it would do and why, in Chinese.
    await page.getByTestId('review-candidate').first().waitFor({ timeout: 60_000 });
    const proposed = await page.getByTestId('review-reason').allTextContents();
    expect(proposed.length).toBe(await page.getByTestId('review-candidate').count());
    for (const line of proposed) expect(line).toMatch(/新事实|新记忆|合并|相同|取代/);
    for (const line of proposed) expect(line).not.toMatch(/new fact|new memory|merged/);
    // Committed here, the changes say why in Chinese too (they were the engine's English lines).
    await page.getByTestId('session-commit').click();
    await page.getByTestId('commit-result').waitFor({ timeout: 60_000 });
    const why = await page.getByTestId('commit-change-reason').allTextContents();
    expect(why.length).toBeGreaterThan(0);
    for (const line of why) expect(line).toMatch(/新事实|相同|合并|取代/);
    for (const line of why) expect(line).not.toMatch(/new fact|merged|identical/);
    await shot('sessions-trigger-dark-zh');
  });
});
