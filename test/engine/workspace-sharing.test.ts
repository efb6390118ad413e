/**
 * Many clients, one workspace (issue 21): the built CLI in child processes. A writer that finds
 * the workspace busy waits for it and says for what; --no-wait refuses at once (exit 3); a
 * holder killed with SIGKILL frees the workspace at once; two ingests and an MCP `remember` all
 * at once all finish, with nothing lost and the index equal to the tree.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { buildCli, CLI, generateTree, indexVersusTree, runCli, snapshot } from '../reliability/support.js';
import { prng } from '../support/prng.js';

let tmp: string;
let big: string;
let small: string;

beforeAll(async () => {
  buildCli();
  tmp = await mkdtemp(join(tmpdir(), 'cairn-sharing-'));
  big = join(tmp, 'harbour');
  small = join(tmp, 'station');
  await generateTree(big, 400, prng(1), { sections: 4, sentences: 40 });
  await generateTree(small, 60, prng(2), { sections: 2, sentences: 20 });
}, 180_000);
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const lockPath = (workspace: string) => join(workspace, '.cairn/queue/outbox.lock');

/** Resolves once an ingest holds the workspace and has named itself in the lock. */
async function ingestHolds(workspace: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const text = await readFile(lockPath(workspace), 'utf8').catch(() => '');
    if (text.includes('"activity":"the ingest of')) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('no ingest took the workspace');
}

describe('one workspace, many clients', () => {
  it('a writer waits for a busy workspace and says for what; --no-wait refuses at once', async () => {
    const workspace = join(tmp, 'ws-wait');
    const first = runCli(['ingest', big, '--workspace', workspace, '--workers', '1', '--json']);
    await ingestHolds(workspace);
    const refused = await runCli(['ingest', small, '--workspace', workspace, '--workers', '0', '--no-wait']);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/^cairn: LOCKED: The workspace .* is busy: the ingest of .*harbour \(pid \d+/);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    // Reads never take the lock: they answer while the ingest holds the workspace.
    const listing = await runCli(['ls', 'ctx://resources/', '--workspace', workspace]);
    expect(listing.code, listing.stderr).toBe(0);
    const search = await runCli(['search', 'tide gauge', '--workspace', workspace, '--json']);
    expect(search.code, search.stderr).toBe(0);
    expect(search.stderr).not.toContain('waiting for');
    expect(await readFile(lockPath(workspace), 'utf8')).toContain('the ingest of');
    const waited = await runCli(['ingest', small, '--workspace', workspace, '--workers', '0', '--json']);
    expect(waited.code, waited.stderr).toBe(0);
    expect(waited.stderr).toMatch(/cairn: waiting for the ingest of .*harbour, pid \d+, started \d+ s ago/);
    expect((await first).code).toBe(0);
    expect(JSON.parse(waited.stdout).root).toBe('ctx://resources/station/');
  }, 300_000);

  it('a holder killed with SIGKILL frees the workspace at once', async () => {
    const workspace = join(tmp, 'ws-kill');
    let kill = () => {};
    const killed = runCli(['ingest', big, '--workspace', workspace, '--workers', '1'], { onStart: (k) => (kill = k) });
    await ingestHolds(workspace);
    kill();
    // At once and without waiting: the killed process, even while it is torn down, is no owner.
    const again = await runCli(['ingest', big, '--workspace', workspace, '--workers', '1', '--no-wait', '--json']);
    expect((await killed).signal).toBe('SIGKILL');
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).root).toBe('ctx://resources/harbour/');
  }, 300_000);

  it('two ingests and an MCP remember at once all finish; nothing is lost and the index equals the tree', async () => {
    const workspace = join(tmp, 'ws-all');
    const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => typeof e[1] === 'string' && !/^(OPENAI_|CAIRN_LLM_|CAIRN_WORKSPACE)/.test(e[0])));
    const client = new Client({ name: 'cairn-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--workspace', workspace, '--allow-write'], env, stderr: 'ignore' }));
    try {
      const [a, b, remembered] = await Promise.all([
        runCli(['ingest', big, '--workspace', workspace, '--workers', '1', '--json']),
        runCli(['ingest', small, '--workspace', workspace, '--workers', '1', '--json']),
        client.callTool({ name: 'remember', arguments: { category: 'preference', title: 'Tide tables', content: 'Ana reads the tide tables before every harbour visit.' } }) as Promise<CallToolResult>,
      ]);
      expect(a.code, a.stderr).toBe(0);
      expect(b.code, b.stderr).toBe(0);
      expect(remembered.isError, JSON.stringify(remembered.content)).toBeFalsy();
      // A second write through the same MCP server after the ingests: it never kept the workspace.
      const again = (await client.callTool({ name: 'remember', arguments: { category: 'preference', title: 'Boots', content: 'Ana wears boots on the pier.' } })) as CallToolResult;
      expect(again.isError, JSON.stringify(again.content)).toBeFalsy();
    } finally {
      await client.close();
    }
    const files = await snapshot(workspace);
    expect([...files.keys()].filter((p) => p.startsWith('resources/harbour/') && p.endsWith('.md')).length).toBeGreaterThanOrEqual(400);
    expect([...files.keys()].filter((p) => p.startsWith('resources/station/') && p.endsWith('.md')).length).toBeGreaterThanOrEqual(60);
    const memories = await snapshot(workspace, 'user');
    const memoryText = [...memories.values()].join('\n');
    expect(memoryText).toContain('tide tables');
    expect(memoryText).toContain('boots on the pier');
    const { wanted, ids } = await indexVersusTree(workspace);
    expect(ids.length).toBe(new Set(ids).size);
    expect(new Set(ids)).toEqual(wanted);
    expect(existsSync(lockPath(workspace))).toBe(false);
  }, 400_000);
});
