/**
 * `cairn memories` as a user runs it (the built CLI): list, show, edit, forget, search and history,
 * readable text by default and exactly one JSON document with --json, and errors that name the
 * memory and the reason. The memories are committed through an in-process engine first, as the
 * sessions processor will.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine } from '../../main/engine/engine.js';
import { inProcessParseRunner } from '../../main/engine/parse/runner.js';
import { lazySearchIndex } from '../../main/host/open-index.js';

const ROOT = join(import.meta.dirname, '../..');
const CLI = join(ROOT, 'dist-main/cli.js');
let workspace: string;
let ids: string[];

function cairn(...args: string[]) {
  const run = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { ...process.env, CAIRN_WORKSPACE: '/nonexistent-so-the-flag-is-used' } });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

function json(...args: string[]) {
  const run = cairn(...args, '--workspace', workspace, '--json');
  // Exactly one JSON document on stdout.
  let value;
  try {
    value = JSON.parse(run.stdout);
  } catch {
    throw new Error(`cairn ${args.join(' ')} --json printed no JSON document (exit ${run.code}): ${run.stdout}\n${run.stderr}`);
  }
  return { ...run, value };
}

beforeAll(async () => {
  if (!existsSync(CLI)) execFileSync(process.execPath, [join(ROOT, 'scripts/build-main.mjs')], { cwd: ROOT });
  workspace = await mkdtemp(join(tmpdir(), 'cairn-cli-memories-'));
  const engine = await createEngine({ workspace, parser: inProcessParseRunner(), index: lazySearchIndex(workspace, { idleOptimizeMs: 0 }) });
  try {
    const { changes } = await engine.call('memories:commit', {
      candidates: [
        { category: 'preference', title: 'Dark theme', content: 'Ana prefers the dark theme.', keywords: ['theme'], message_ids: ['s1:4'], conversation_id: 'c1', confidence: 0.9 },
        { category: 'event', title: 'Lisbon trip', content: 'Ana flies to Lisbon on 3 May.', keywords: ['lisbon'], message_ids: ['s2:1', 's2:2'], conversation_id: 'c1', confidence: 0.8 },
      ],
    });
    ids = changes.map((c) => c.memory_id);
  } finally {
    await engine.dispose();
  }
}, 120_000);
afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

describe('cairn memories', () => {
  it('lists and shows memories', () => {
    const list = json('memories', 'list');
    expect(list.code, list.stderr).toBe(0);
    expect(list.value.memories.map((m: { id: string }) => m.id).sort()).toEqual([...ids].sort());
    const events = json('memories', 'list', '--category', 'event');
    expect(events.value.memories.map((m: { title: string }) => m.title)).toEqual(['Lisbon trip']);

    const text = cairn('memories', 'list', '--workspace', workspace);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`${ids[0]}\\s+preference\\s+\\S+\\s+Dark theme`));

    const show = json('memories', 'show', ids[1]!);
    expect(show.value.memory).toMatchObject({ id: ids[1], message_ids: ['s2:1', 's2:2'], content: 'Ana flies to Lisbon on 3 May.' });
    const shown = cairn('memories', 'show', ids[1]!, '--workspace', workspace);
    expect(shown.stdout).toContain('messages     s2:1, s2:2');
    expect(shown.stdout).toContain('Ana flies to Lisbon on 3 May.');
  }, 180_000);

  it('searches memories, naming the messages', () => {
    const search = json('memories', 'search', 'Lisbon', '--top-k', '1');
    expect(search.code, search.stderr).toBe(0);
    expect(search.value.hits).toHaveLength(1);
    expect(search.value.hits[0]).toMatchObject({ memory: { id: ids[1] }, provenance: { message_ids: ['s2:1', 's2:2'] } });
  }, 180_000);

  it('edits and forgets, with the history keeping what was there', () => {
    const edit = json('memories', 'edit', ids[0]!, '--content', 'Ana prefers the dark theme, Solarized.', '--category', 'profile');
    expect(edit.code, edit.stderr).toBe(0);
    expect(edit.value.change).toMatchObject({ op: 'update', before: { category: 'preference' }, after: { category: 'profile', content: 'Ana prefers the dark theme, Solarized.' } });
    // The edit summarized the memories folder again (the CLI runs the DAG after a change).
    const stat = cairn('stat', 'ctx://user/memories/profile/', '--workspace', workspace, '--json');
    expect(JSON.parse(stat.stdout).meta).toMatchObject({ context_type: 'memory', summary_status: 'done' });

    const forget = cairn('memories', 'forget', ids[0]!, '--reason', 'changed my mind', '--workspace', workspace);
    expect(forget.code, forget.stderr).toBe(0);
    expect(forget.stdout).toContain(`Forgot ${ids[0]}`);

    const history = json('memories', 'history', ids[0]!);
    expect(history.value.changes.map((c: { op: string }) => c.op)).toEqual(['add', 'update', 'delete']);
    expect(history.value.changes[2]).toMatchObject({ reason: 'forgotten by user: changed my mind', before: { content: 'Ana prefers the dark theme, Solarized.' } });
    const all = cairn('memories', 'history', '--workspace', workspace);
    expect(all.stdout.trim().split('\n')).toHaveLength(4);
    expect(all.stdout).toMatch(/delete\s+mem_\w+\s+forgotten by user: changed my mind/);
  }, 180_000);

  it('reports errors naming the memory and the reason', () => {
    const missing = json('memories', 'show', ids[0]!);
    expect(missing.code).toBe(1);
    expect(missing.value.error).toMatchObject({ code: 'NOT_FOUND' });
    expect(missing.value.error.message).toContain(ids[0]);
    expect(missing.value.error.message).toMatch(/forgotten/);

    const text = cairn('memories', 'forget', ids[0]!, '--workspace', workspace);
    expect(text.code).toBe(1);
    expect(text.stderr).toContain(`cairn: NOT_FOUND: No memory ${ids[0]}`);
    expect(text.stdout).toBe('');

    const nothing = json('memories', 'edit', ids[1]!);
    expect(nothing.code).toBe(2);
    expect(nothing.value.error.message).toContain(`Nothing to edit in ${ids[1]}`);
    const badCategory = json('memories', 'list', '--category', 'feelings');
    expect(badCategory.code).toBe(2);
    expect(badCategory.value.error.message).toMatch(/--category must be one of/);
  }, 180_000);
});
