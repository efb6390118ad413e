/**
 * The Sessions view's chain graph (issue 17, item 7): on a 42-message conversation and on a
 * 426-message one (ten fixture conversations, with new ids, one after another) every chain is on
 * show whole once the graph is fitted, each step names its role and confidence, clicking a step
 * shows its source messages, and the fusion toggle draws the cluster ↔ chain links.
 */
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ROOT, useAppSession } from './harness.js';

const FIXTURES = [join(ROOT, 'test', 'fixtures', 'memory-dev'), join(ROOT, 'test', 'fixtures', 'conversations')];
const SHORT = join(FIXTURES[0]!, 'en-debug-pool-leak.json');

interface Fixture {
  id: string;
  sessions: { id: string; messages: { id: string }[] }[];
}

/** At least `count` messages: the fixture conversations in turn, each session and message with a new id. */
async function longConversation(dir: string, count: number): Promise<string> {
  const files = (await Promise.all(FIXTURES.map(async (d) => (await readdir(d)).filter((f) => f.endsWith('.json') && !f.endsWith('.labels.json')).map((f) => join(d, f))))).flat();
  const sessions: Fixture['sessions'] = [];
  let messages = 0;
  for (let round = 0; messages < count; round++) {
    for (const file of files) {
      if (messages >= count) break;
      const conversation = JSON.parse(await readFile(file, 'utf8')) as Fixture;
      for (const session of conversation.sessions) {
        const id = `r${round}-${conversation.id}-${session.id}`;
        sessions.push({ ...session, id, messages: session.messages.map((m) => ({ ...m, id: `${id}-${m.id}` })) });
        messages += session.messages.length;
      }
    }
  }
  const path = join(dir, 'long-conversation.json');
  await writeFile(path, JSON.stringify({ id: 'long-conversation', title: 'Ten conversations in one', sessions }));
  return path;
}

async function openChains(page: Page, path: string): Promise<void> {
  await page.keyboard.press('Alt+5');
  await page.getByTestId('sessions-import-path').fill(path);
  await page.getByTestId('sessions-import').click();
  await page.locator('[data-testid="session-open"][data-analysis="done"]').waitFor({ timeout: 90_000 });
  await page.getByTestId('session-tab-chains').click();
  await page.getByTestId('chain-graph').waitFor();
}

/** Every step and chain head lies inside the graph's frame (fitted, nothing clipped at an edge). */
async function outsideFrame(page: Page): Promise<number> {
  const frame = (await page.getByTestId('chain-graph').boundingBox())!;
  const boxes = await Promise.all((await page.locator('[data-testid="chain-node"], [data-testid="chain-head"]').all()).map((n) => n.boundingBox()));
  return boxes.filter((b) => !b || b.x < frame.x - 1 || b.y < frame.y - 1 || b.x + b.width > frame.x + frame.width + 1 || b.y + b.height > frame.y + frame.height + 1).length;
}

async function checkGraph(page: Page): Promise<number> {
  const steps = Number(await page.getByTestId('chain-graph').getAttribute('data-node-count'));
  expect(steps).toBeGreaterThan(0);
  await expect.poll(() => page.getByTestId('chain-node').count()).toBe(steps);
  await expect.poll(() => outsideFrame(page), { timeout: 10_000 }).toBe(0);
  // The chains start at the frame's top: no empty band above them (fitView's padding, a share of
  // the graph's height, left 560 px above a 403-message conversation's chains).
  const frame = (await page.getByTestId('chain-graph').boundingBox())!;
  const firstLane = (await page.getByTestId('chain-lane').first().boundingBox())!;
  expect(firstLane.y - frame.y).toBeLessThan(40);
  // Each step: its place and role on one line with the chain's confidence.
  const confidences = await page.getByTestId('chain-node-confidence').allTextContents();
  expect(confidences).toHaveLength(steps);
  for (const c of confidences) expect(c).toMatch(/^\d{1,3}%$/);
  const roles = await page.locator('[data-testid="chain-node"] .chain-role').allTextContents();
  for (const r of roles) expect(r).toMatch(/^\d+\. \S.*\d%$/);
  return steps;
}

/** The width a step is drawn at (200 px at full size). */
const stepWidth = async (page: Page) => (await page.getByTestId('chain-node').first().boundingBox())!.width;

const app = useAppSession();

describe('the chain graph', () => {
  it('shows a 42-message conversation whole, a step opens its messages and the toggle draws the fusion links', async () => {
    const { page, shot } = await app.start();
    await openChains(page, SHORT);
    await checkGraph(page);
    // The chains read at full size (200 px a step), not fitted to a speck.
    await expect.poll(() => stepWidth(page)).toBeGreaterThan(190);
    await shot('chain-graph-42');

    const cause = page.locator('[data-testid="chain-node"][data-role="cause"]').first();
    const text = (await cause.locator('.chain-text').textContent())!;
    await cause.click();
    const messages = page.getByTestId('chain-node-messages');
    await messages.waitFor();
    await expect.poll(() => messages.locator('h3').textContent()).toMatch(/Cause/);
    // The step is a slice of its source message, so the message holds the step's text.
    await expect.poll(() => messages.locator('[data-testid="message"]').count()).toBeGreaterThan(0);
    await expect.poll(() => messages.textContent()).toContain(text.slice(0, 40));
    await shot('chain-graph-42-step');

    const toggle = page.getByTestId('chain-links-toggle');
    await expect.poll(() => page.getByTestId('chain-cluster').count()).toBe(0);
    await toggle.check();
    await expect.poll(() => page.getByTestId('chain-cluster').count()).toBeGreaterThan(0);
    const links = Number(await page.getByTestId('chain-graph').getAttribute('data-link-count'));
    expect(links).toBeGreaterThan(0);
    await expect.poll(() => page.locator('.react-flow__edge.fusion-link').count()).toBe(links);
    await expect.poll(() => outsideFrame(page), { timeout: 10_000 }).toBe(0);
    await shot('chain-graph-42-links');
    await toggle.uncheck();
    await expect.poll(() => page.getByTestId('chain-cluster').count()).toBe(0);
  });

  it('fits every chain of a 426-message conversation into the frame', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cairn-e2e-chains-'));
    app.removeAfter(dir);
    const { page, shot } = await app.start();
    await openChains(page, await longConversation(dir, 400));
    await expect.poll(() => page.getByTestId('message').count()).toBe(0); // the chains tab, not the messages
    const steps = await checkGraph(page);
    expect(steps).toBeGreaterThan(100);
    // As many chains side by side as the frame holds at full size, the page scrolls: four in a
    // frame that holds two made each step 110 px wide and its text 6 px high.
    await expect.poll(() => stepWidth(page)).toBeGreaterThan(190);
    await page.getByTestId('chain-graph').scrollIntoViewIfNeeded();
    await shot('chain-graph-426');
    await page.locator('[data-testid="chain-node"][data-role="solution"]').first().click();
    await page.getByTestId('chain-node-messages').waitFor();
  });
});
