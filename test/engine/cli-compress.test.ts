/**
 * `cairn compress` as a user runs it: the built CLI on a real blocks.json in a temp folder,
 * --json printing exactly one JSON document, --markdown, readable text, and errors that name
 * the file and the reason.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompressionResult } from '../../shared/types/compress.js';

const ROOT = join(import.meta.dirname, '../..');
const CLI = join(ROOT, 'dist-main/cli.js');
let dir: string;

function cairn(...args: string[]) {
  const run = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', cwd: dir });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

const blocks = {
  blocks: [
    { id: 'problem', source: 'short_term_memory', priority: 'HIGH', token_count: 100, chain_links: ['chain_001'], chain_types: ['causal'], content: 'The nightly export job fails with a timeout. It started after the database upgrade. Every retry fails the same way.', provenance: { source: 'chat/ops.json', message_ids: ['m1'] } },
    { id: 'cause', source: 'short_term_memory', priority: 'MEDIUM', token_count: 80, chain_links: ['chain_001'], chain_types: ['causal'], content: 'The upgrade dropped the index on orders.created_at. Without it the export query scans the whole table. Each scan takes forty minutes.' },
    { id: 'solution', source: 'short_term_memory', priority: 'HIGH', token_count: 100, chain_links: ['chain_001'], chain_types: ['causal'], content: 'Recreate the index concurrently. Then rerun the export by hand. Add a migration test that checks the index exists.' },
    { id: 'plain-d', source: 'resource', priority: 'MEDIUM', token_count: 100, content: 'The office coffee machine was replaced. The new one makes espresso.' },
    // No token count and no scores: counted and defaulted.
    { id: 'plain-e', source: 'resource', priority: 'LOW', content: 'The offsite is planned for spring.' },
  ],
};

beforeAll(async () => {
  // Build when the bundle is missing or older than this command.
  if (!existsSync(CLI) || !readFileSync(CLI, 'utf8').includes('Fit context blocks into a token budget')) {
    execFileSync(process.execPath, [join(ROOT, 'scripts/build-main.mjs')], { cwd: ROOT });
  }
  dir = await mkdtemp(join(tmpdir(), 'cairn-compress-'));
  await writeFile(join(dir, 'blocks.json'), JSON.stringify(blocks));
}, 60_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

// Each run starts a whole CLI process (about 1.5 s of CPU here, several seconds under load).
const SLOW = 120_000;

describe('cairn compress', () => {
  it('prints exactly one JSON document with --json', () => {
    const run = cairn('compress', 'blocks.json', '--strategy', 'chain_aware', '--budget', '250', '--json');
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(CompressionResult.safeParse(result).success).toBe(true);
    expect(Object.keys(result)).toEqual(expect.arrayContaining(['kept', 'dropped', 'original_tokens', 'compressed_tokens', 'intact_chains', 'broken_chains']));
    expect(result.original_tokens).toBeGreaterThan(380);
    expect(result.compressed_tokens).toBeLessThanOrEqual(250);
    // The cause is shortened to fit; the small block whose count was left out fits in what remains.
    expect(result.kept.map((b: { id: string }) => b.id)).toEqual(['problem', 'cause', 'solution', 'plain-e']);
    expect(result.kept[1]).toMatchObject({ shortened: true, original_token_count: 80 });
    expect(result.intact_chains).toEqual(['chain_001']);
  }, SLOW);

  it('uses the ratio and strategy asked for, and the priority baseline cuts the chain', () => {
    const run = cairn('compress', join(dir, 'blocks.json'), '--strategy', 'priority', '--ratio', '0.55', '--json');
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.strategy).toBe('priority');
    expect(result.budget).toBe(Math.floor(result.original_tokens * 0.55));
    expect(result.kept.map((b: { id: string }) => b.id)).toEqual(['problem', 'solution', 'plain-e']);
    expect(result.broken_chains).toEqual(['chain_001']);
  }, SLOW);

  it('prints a readable table by default and Markdown with --markdown', () => {
    const text = cairn('compress', 'blocks.json', '--budget', '250');
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^chain_integrity: \d+ → \d+ tokens \(\d+%\), budget 250\n/);
    expect(text.stdout).toMatch(/\ncause +80→\d+ +summary of chain_001/);
    expect(text.stdout).toContain('chains: intact 1: chain_001; broken 0');

    const markdown = cairn('compress', 'blocks.json', '--budget', '250', '--markdown');
    expect(markdown.code, markdown.stderr).toBe(0);
    expect(markdown.stdout).toMatch(/^# Context \(chain_integrity: /);
    expect(markdown.stdout).toContain('_source: chat/ops.json · messages m1_');
  }, SLOW);

  it('names the file and the reason when it cannot compress', async () => {
    const missing = cairn('compress', 'nowhere.json', '--json');
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout).error).toMatchObject({ code: 'NOT_FOUND', message: 'Cannot read nowhere.json: no such file' });

    await writeFile(join(dir, 'broken.json'), '{"blocks": [');
    const broken = cairn('compress', 'broken.json');
    expect(broken.code).toBe(2);
    expect(broken.stdout).toBe('');
    expect(broken.stderr).toMatch(/^cairn: INVALID_INPUT: broken\.json is not valid JSON: /);

    await writeFile(join(dir, 'bad.json'), JSON.stringify({ blocks: [blocks.blocks[0], { ...blocks.blocks[1], chain_types: ['causal', 'gossip'] }] }));
    const bad = cairn('compress', 'bad.json', '--json');
    expect(bad.code).toBe(2);
    const error = JSON.parse(bad.stdout).error;
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toMatch(/^bad\.json: blocks\[1\]\.chain_types\[1\]: /);

    const both = cairn('compress', 'blocks.json', '--ratio', '0.5', '--budget', '10');
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('give --ratio or --budget, not both');
  }, SLOW);
});
