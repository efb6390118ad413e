/**
 * `cairn context` as a user runs it: the built CLI over a workspace made by the CLI itself (real
 * files ingested, a conversation imported and analyzed). The pack on stdout fits the budget,
 * legend included, refers to its sources by short references, and --json carries the legend.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commands } from '../../shared/contracts/api.js';
import { countTokens } from '../../main/lib/tokens.js';

const ROOT = join(import.meta.dirname, '../..');
const CLI = join(ROOT, 'dist-main/cli.js');
let dir: string;

function cairn(...args: string[]) {
  const run = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', cwd: dir });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

const RUNBOOK = [
  '# Export runbook',
  '',
  'The nightly export writes every order of the day to the warehouse bucket. It starts at 01:00 and takes about twenty minutes.',
  '',
  '## When the export fails',
  '',
  'Check the export log in the ops channel first. A timeout usually means the orders index is missing. Recreate it concurrently, then rerun the export by hand.',
  '',
].join('\n');

const conversation = {
  id: 'export-timeout',
  title: 'The export timing out',
  sessions: [
    {
      id: 's1',
      started_at: '2024-05-02T09:00:00Z',
      messages: [
        { id: 's1:1', role: 'user', speaker: 'Ana', text: 'The nightly export failed again with a timeout after the database upgrade.' },
        { id: 's1:2', role: 'user', speaker: 'Bo', text: 'The upgrade dropped the index on orders.created_at, because the migration recreated the table.' },
        { id: 's1:3', role: 'user', speaker: 'Ana', text: 'The fix was to recreate the index concurrently; the export ran in twenty minutes again.' },
      ],
    },
  ],
};

beforeAll(async () => {
  // Build when the bundle is missing or older than the pack's references.
  if (!existsSync(CLI) || !readFileSync(CLI, 'utf8').includes('one legend of sources at the end')) {
    execFileSync(process.execPath, [join(ROOT, 'scripts/build-main.mjs')], { cwd: ROOT });
  }
  dir = await mkdtemp(join(tmpdir(), 'cairn-context-cli-'));
  await mkdir(join(dir, 'docs'));
  await writeFile(join(dir, 'docs', 'export-runbook.md'), RUNBOOK);
  await writeFile(join(dir, 'export-timeout.json'), JSON.stringify(conversation));
  for (const args of [
    ['ingest', 'docs', '-w', 'ws'],
    ['sessions', 'import', 'export-timeout.json', '-w', 'ws'],
    ['sessions', 'analyze', 'export-timeout', '-w', 'ws'],
  ]) {
    const run = cairn(...args);
    if (run.code !== 0) throw new Error(`cairn ${args.join(' ')}: ${run.stderr}`);
  }
}, 240_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

// Each run starts a whole CLI process (about 1.5 s of CPU here, several seconds under load).
const SLOW = 120_000;

describe('cairn context', () => {
  it('prints a pack within the budget whose blocks open with references named once in the legend', () => {
    const run = cairn('context', 'what was the fix for the export timeout', '-b', '300', '-w', 'ws');
    expect(run.code, run.stderr).toBe(0);
    expect(countTokens(run.stdout)).toBeLessThanOrEqual(300);
    const [body, legend] = run.stdout.split('\nSources:\n') as [string, string];
    expect(legend, run.stdout).toBeDefined();
    expect(body).toMatch(/^# Context pack\nQuery: what was the fix for the export timeout\n/);
    expect(body).not.toContain('ctx://');
    // The fix is in, under a reference the legend resolves to its message.
    const fix = /^(\[\d+\]) .*The fix was to recreate the index concurrently/m.exec(body);
    expect(fix, run.stdout).not.toBeNull();
    expect(legend).toMatch(new RegExp(`ctx://session/export-timeout/[^\\n]*\\${(fix![1] as string).slice(0, -1)}\\] message s1:3`));
    expect(run.stderr).toMatch(/blocks gathered, .* kept/);
  }, SLOW);

  it('answers one JSON document with the legend and the text\'s tokens with --json', () => {
    const run = cairn('context', 'what was the fix for the export timeout', '-b', '300', '-w', 'ws', '--json');
    expect(run.code, run.stderr).toBe(0);
    const pack = commands['context:pack'].response.parse(JSON.parse(run.stdout));
    expect(pack.tokens).toBe(countTokens(pack.markdown));
    expect(pack.tokens).toBeLessThanOrEqual(300);
    expect(pack.legend.length).toBeGreaterThan(0);
    expect(pack.legend.map((r) => r.ref)).toEqual(pack.legend.map((_, i) => `[${i + 1}]`));
    expect(pack.legend.find((r) => r.message_ids?.includes('s1:3'))?.uri).toMatch(/^ctx:\/\/session\/export-timeout\//);
  }, SLOW);
});
