/**
 * `cairn mcp` as an agent sees it: a real MCP client from the SDK spawns the built CLI over
 * stdio, on a workspace holding the sample folder and an imported, analyzed, committed
 * conversation. Every tool is called, resources are listed and read, bad input comes back as a
 * tool error naming the reason, and the write tools exist only with --allow-write.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createEngine } from '../../main/engine/engine.js';
import { inProcessParseRunner } from '../../main/engine/parse/runner.js';
import { lazySearchIndex } from '../../main/host/open-index.js';

interface Ranked {
  uri: string;
  title: string;
  score: number;
  scope: string;
  weak: boolean;
  also_at: string[];
  hits: Array<{ uri: string; level: number; score: number; snippet: string; heading: string | null; neighbour_of?: string; provenance: { source: string | null; message_ids: string[] } }>;
}

const ROOT = join(import.meta.dirname, '../..');
const CLI = join(ROOT, 'dist-main/cli.js');
let workspace: string;
const clients: Client[] = [];
const stderr: string[] = [];
const protocolErrors: Error[] = [];

async function connect(...flags: string[]): Promise<Client> {
  const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => typeof e[1] === 'string'));
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--workspace', workspace, ...flags], env, stderr: 'pipe' });
  transport.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  const client = new Client({ name: 'cairn-test', version: '1.0.0' });
  // Anything on stdout that is not a protocol message shows up here.
  client.onerror = (error) => protocolErrors.push(error);
  await client.connect(transport);
  clients.push(client);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult & { text: string }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
  return { ...result, text };
}

beforeAll(async () => {
  if (!existsSync(CLI)) execFileSync(process.execPath, [join(ROOT, 'scripts/build-main.mjs')], { cwd: ROOT });
  workspace = await mkdtemp(join(tmpdir(), 'cairn-mcp-'));
  const engine = await createEngine({ workspace, parser: inProcessParseRunner(), index: lazySearchIndex(workspace, { idleOptimizeMs: 0 }) });
  try {
    await engine.call('ingest:start', { path: join(ROOT, 'assets/sample') });
    await engine.call('sessions:import', { path: join(ROOT, 'test/fixtures/chains/en-memory-leak.json'), commit: true });
    await engine.call('summarize:run', {});
  } finally {
    await engine.dispose();
  }
}, 180_000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await rm(workspace, { recursive: true, force: true });
});

describe('cairn mcp (read-only)', () => {
  let client: Client;
  beforeAll(async () => {
    client = await connect();
  }, 60_000);

  it('lists the read tools only, each with a JSON Schema for its input', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['context', 'list_skills', 'ls', 'read', 'read_skill', 'search']);
    const search = tools.find((t) => t.name === 'search')!;
    expect(search.inputSchema.type).toBe('object');
    expect(Object.keys(search.inputSchema.properties ?? {}).sort()).toEqual(['level', 'mode', 'query', 'scope', 'top_k']);
    expect(search.inputSchema.required).toEqual(['query']);
    expect(tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
  });

  it('search finds conversation messages by id and resource files by source', async () => {
    const sessions = await call(client, 'search', { query: 'heap snapshot comparison', scope: 'session', top_k: 5 });
    expect(sessions.isError).toBeFalsy();
    // The ranked list the app and the CLI show: one result per message here, best first, each
    // followed by the neighbouring messages it lifted, as its context.
    const { ranked, weak_below: floor } = sessions.structuredContent as { ranked: Ranked[]; weak_below: number };
    expect(ranked.length).toBeGreaterThan(0);
    expect(typeof floor).toBe('number');
    for (let i = 1; i < ranked.length; i += 1) expect(ranked[i]!.score).toBeLessThanOrEqual(ranked[i - 1]!.score);
    for (const result of ranked) {
      expect(result).toMatchObject({ title: expect.any(String), scope: 'session', weak: result.score < floor, also_at: expect.any(Array) });
      const [own, ...context] = result.hits;
      expect(own!.score).toBe(result.score);
      expect(own!.neighbour_of).toBeUndefined();
      for (const neighbour of context) {
        expect(neighbour).toMatchObject({ uri: own!.uri, neighbour_of: own!.provenance.message_ids[0] });
        expect(neighbour.score).toBeLessThan(own!.score);
      }
    }
    expect(ranked.some((result) => result.hits.length > 1)).toBe(true);
    const hits = ranked.flatMap((result) => result.hits);
    for (const hit of hits) {
      expect(hit.uri.startsWith('ctx://session/en-memory-leak/')).toBe(true);
      expect(hit.provenance.message_ids.length).toBeGreaterThan(0);
      expect(hit.snippet.length).toBeGreaterThan(0);
      expect(typeof hit.score).toBe('number');
    }
    expect(JSON.parse(sessions.text)).toEqual(sessions.structuredContent);

    const resources = await call(client, 'search', { query: 'sample', scope: 'resources', level: 2, mode: 'fts' });
    const resourceHits = (resources.structuredContent as { ranked: Ranked[] }).ranked.flatMap((result) => result.hits);
    expect(resourceHits.length).toBeGreaterThan(0);
    for (const hit of resourceHits) {
      expect(hit.uri.startsWith('ctx://resources/')).toBe(true);
      expect(hit.level).toBe(2);
    }
    expect(resourceHits.some((h) => h.provenance.source?.includes('assets/sample'))).toBe(true);
  });

  it('read gives a node at each level and ls lists a directory', async () => {
    const content = await call(client, 'read', { uri: 'ctx://resources/sample/README.md' });
    expect(content.isError).toBeFalsy();
    expect(content.text).toBe(await readFile(join(workspace, 'resources/sample/README.md'), 'utf8'));
    const abstract = await call(client, 'read', { uri: 'ctx://resources/sample/', level: 0 });
    expect(abstract.text).toBe(await readFile(join(workspace, 'resources/sample/.abstract.md'), 'utf8'));
    const overview = await call(client, 'read', { uri: 'ctx://resources/sample/', level: 1 });
    expect(overview.text).toBe(await readFile(join(workspace, 'resources/sample/.overview.md'), 'utf8'));

    // A split document's folder reads at level 2 as the whole document, as a tool and as a resource.
    const architecture = await readFile(join(ROOT, 'assets/sample/docs/architecture.md'), 'utf8');
    expect((await call(client, 'read', { uri: 'ctx://resources/sample/docs/architecture.md/' })).text).toBe(architecture);
    const asResource = await client.readResource({ uri: 'ctx://resources/sample/docs/architecture.md/?level=2' });
    expect((asResource.contents[0] as { text: string }).text).toBe(architecture);

    const listing = await call(client, 'ls', { uri: 'ctx://resources/sample/' });
    const entries = (listing.structuredContent as { entries: Array<{ uri: string; kind: string }> }).entries;
    expect(entries.map((e) => e.uri)).toContain('ctx://resources/sample/README.md');
    expect(entries.find((e) => e.uri === 'ctx://resources/sample/docs/')?.kind).toBe('dir');
    expect(listing.text).toContain('ctx://resources/sample/README.md');
  });

  it('context returns a chain-intact pack within the budget, with its numbers', async () => {
    const result = await call(client, 'context', { query: 'why were the pods OOM-killed after the deploy', budget: 600 });
    expect(result.isError).toBeFalsy();
    const numbers = result.structuredContent as {
      markdown: string;
      legend: Array<{ ref: string; uri?: string }>;
      budget: number;
      tokens: number;
      compressed_tokens: number;
      intact_chains: string[];
      broken_chains: string[];
      cut_chains: string[];
      kept: number;
    };
    expect(numbers.budget).toBe(600);
    // The whole text fits the budget, references and legend included.
    expect(numbers.tokens).toBeLessThanOrEqual(600);
    expect(numbers.compressed_tokens).toBeLessThan(numbers.tokens);
    expect(numbers.legend.length).toBeGreaterThan(0);
    for (const entry of numbers.legend) expect(numbers.markdown).toContain(`${entry.ref} `);
    expect(numbers.markdown.slice(0, numbers.markdown.indexOf('\nSources:'))).not.toContain('ctx://');
    // No chain is cut: each is kept (whole, shortened, summarized or referenced) or left out whole for the budget.
    expect(numbers.cut_chains).toEqual([]);
    for (const id of numbers.broken_chains) expect(numbers.intact_chains).not.toContain(id);
    expect(numbers.intact_chains.length).toBeGreaterThan(0);
    expect(numbers.kept).toBeGreaterThan(0);
    expect(result.content[0]).toMatchObject({ type: 'text', text: numbers.markdown });
    expect(numbers.markdown).toContain('Query: why were the pods OOM-killed after the deploy');
    // A "why" question gets the message that says why, though it shares no word with the question.
    expect(numbers.markdown).toContain("There's the leak. Every request adds an entry keyed by `req.id`, and nothing deletes it.");
    expect(result.text).toMatch(/chains intact \d+, cut 0, left out \d+/);
  });

  it('refuses remember and forget, saying why', async () => {
    const remember = await call(client, 'remember', { category: 'preference', title: 'Dark theme', content: 'Ana prefers the dark theme.' });
    expect(remember.isError).toBe(true);
    expect(remember.text).toMatch(/^READ_ONLY: remember is refused: this server is read-only .*--allow-write/);
    const forget = await call(client, 'forget', { id: 'mem_0123456789abcdef' });
    expect(forget.isError).toBe(true);
    expect(forget.text).toContain('--allow-write');
    expect(existsSync(join(workspace, 'user/memories/preference'))).toBe(false);
  });

  it('returns bad input and engine failures as tool errors naming the reason', async () => {
    const noQuery = await call(client, 'search', { top_k: 0 });
    expect(noQuery.isError).toBe(true);
    expect(noQuery.text).toMatch(/^INVALID_INPUT: invalid search arguments: .*query/);
    expect(noQuery.text).toContain('top_k');
    const badLevel = await call(client, 'read', { uri: 'ctx://resources/sample/README.md', level: 3 });
    expect(badLevel.isError).toBe(true);
    expect(badLevel.text).toContain('level');
    const escape = await call(client, 'read', { uri: 'ctx://resources/../../etc/passwd' });
    expect(escape.isError).toBe(true);
    expect(escape.text).toMatch(/^PATH_ESCAPE: .*"\.\." leaves the workspace/);
    const missing = await call(client, 'ls', { uri: 'ctx://resources/nope/' });
    expect(missing.isError).toBe(true);
    expect(missing.text).toMatch(/^NOT_FOUND: No such node: ctx:\/\/resources\/nope\//);
    await expect(client.callTool({ name: 'delete_everything', arguments: {} })).rejects.toThrow(/Unknown tool "delete_everything"/);
  });

  it('lists scope roots and their children as resources, and reads nodes through ctx://{+path}', async () => {
    const { resources } = await client.listResources();
    const uris = resources.map((r) => r.uri);
    expect(uris).toEqual(expect.arrayContaining(['ctx://resources/', 'ctx://resources/sample/', 'ctx://session/', 'ctx://session/en-memory-leak/', 'ctx://user/', 'ctx://user/memories/']));
    expect(uris.some((u) => u.startsWith('ctx://temp/'))).toBe(false);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['ctx://{+path}']);

    const file = await client.readResource({ uri: 'ctx://resources/sample/README.md' });
    expect(file.contents[0]).toMatchObject({ uri: 'ctx://resources/sample/README.md', mimeType: 'text/markdown', text: await readFile(join(workspace, 'resources/sample/README.md'), 'utf8') });
    const dir = await client.readResource({ uri: 'ctx://resources/sample/' });
    const dirText = (dir.contents[0] as { text: string }).text;
    expect(dirText).toContain((await readFile(join(workspace, 'resources/sample/.overview.md'), 'utf8')).trim());
    expect(dirText).toContain('- ctx://resources/sample/README.md');
    const abstract = await client.readResource({ uri: 'ctx://resources/sample/?level=0' });
    expect((abstract.contents[0] as { text: string }).text).toBe(await readFile(join(workspace, 'resources/sample/.abstract.md'), 'utf8'));
    await expect(client.readResource({ uri: 'ctx://resources/sample/?level=7' })).rejects.toThrow(/level must be 0, 1 or 2/);
    await expect(client.readResource({ uri: 'ctx://resources/none.md' })).rejects.toThrow(/NOT_FOUND: No such node/);
  });

  it('keeps stdout to the protocol', () => {
    expect(protocolErrors).toEqual([]);
  });
});

describe('cairn mcp --allow-write', () => {
  let client: Client;
  beforeAll(async () => {
    client = await connect('--allow-write');
  }, 60_000);

  it('lists remember and forget, which write and delete a memory', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['add_resource', 'add_skill', 'context', 'forget', 'list_skills', 'ls', 'read', 'read_skill', 'remember', 'search']);

    const remembered = await call(client, 'remember', {
      category: 'preference',
      title: 'Dark theme in every editor',
      content: 'Ana prefers the dark theme in every editor she uses.',
      keywords: ['theme', 'editor'],
      message_ids: ['s9:1'],
      conversation_id: 'chat-42',
    });
    expect(remembered.isError).toBeFalsy();
    const change = remembered.structuredContent as { op: string; id: string; uri: string; memory: { message_ids: string[]; conversation_id: string } };
    expect(change.op).toBe('add');
    expect(change.id).toMatch(/^mem_[0-9a-f]{16}$/);
    expect(change.uri).toBe(`ctx://user/memories/preference/${change.id}.md`);
    expect(change.memory).toMatchObject({ message_ids: ['s9:1'], conversation_id: 'chat-42' });

    const page = await call(client, 'read', { uri: change.uri });
    expect(page.text).toContain('Ana prefers the dark theme in every editor she uses.');
    expect(page.text).toContain('Provenance: messages s9:1 (conversation chat-42)');
    // The category folder was summarized before the tool returned.
    const folder = await call(client, 'read', { uri: 'ctx://user/memories/preference/', level: 0 });
    expect(folder.isError).toBeFalsy();
    const found = await call(client, 'search', { query: 'dark theme editor', scope: 'user', top_k: 5 });
    expect((found.structuredContent as { ranked: Ranked[] }).ranked.map((r) => r.uri)).toContain(change.uri);

    // The same memory again is already known: nothing is added.
    const again = await call(client, 'remember', { category: 'preference', title: 'Dark theme in every editor', content: 'Ana prefers the dark theme in every editor she uses.', message_ids: ['s9:1'] });
    expect((again.structuredContent as { op: string; id: string }).op).toBe('none');

    const forgotten = await call(client, 'forget', { id: change.id, reason: 'asked to' });
    expect(forgotten.structuredContent).toMatchObject({ op: 'delete', id: change.id });
    const gone = await call(client, 'read', { uri: change.uri });
    expect(gone.isError).toBe(true);
    expect(gone.text).toMatch(/^NOT_FOUND/);
    const twice = await call(client, 'forget', { id: change.id });
    expect(twice.isError).toBe(true);
    expect(twice.text).toMatch(/^NOT_FOUND: No memory mem_/);
  });

  it('remembers without message ids, naming the agent call as the source', async () => {
    const result = await call(client, 'remember', { category: 'entity', title: 'Cairn', content: 'Cairn is the context workbench the team uses.' });
    const change = result.structuredContent as { op: string; memory: { message_ids: string[] } };
    expect(change.op).toBe('add');
    expect(change.memory.message_ids).toHaveLength(1);
    expect(change.memory.message_ids[0]).toMatch(/^mcp:[0-9a-f]{16}$/);
  });

  it('keeps stdout to the protocol and logs nothing unexpected', () => {
    expect(protocolErrors).toEqual([]);
    expect(stderr.join('')).not.toMatch(/error/i);
  });
});
