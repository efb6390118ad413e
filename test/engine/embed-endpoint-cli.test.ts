/**
 * The CLI with an OpenAI-compatible embedding endpoint instead of the local embedder: a real HTTP
 * server on 127.0.0.1 answers `/v1/embeddings` (with vectors it computes from the texts, so
 * search has something to find), `cairn ingest --embed-model ... --embed-base-url ...` indexes
 * through it, `cairn search` with the same flags finds what the sample says, every stored vector
 * names the endpoint's model, the index can be thrown away and rebuilt through the endpoint, and
 * searching with the local embedder instead fails with a clear error rather than wrong answers.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

vi.hoisted(() => {
  process.env.LANCEDB_LOG ??= 'error';
});

import { embedText } from '../../main/adapters/embed/local.js';
import { openLanceStore } from '../../main/adapters/store/lancedb/index.js';
import { reply, startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';
import { buildCli, ROOT, runCli } from '../reliability/support.js';

const DIMS = 256;
const SAMPLE = join(ROOT, 'assets/sample');
let server: MockOpenAI;
let workspace: string;
let endpointFlags: string[];

interface Hit {
  uri: string;
  level: number;
}

async function search(query: string, ...flags: string[]): Promise<Hit[]> {
  const run = await runCli(['search', query, '--workspace', workspace, '--json', ...flags]);
  expect(run.code, run.stderr).toBe(0);
  return (JSON.parse(run.stdout) as { hits: Hit[] }).hits;
}

beforeAll(async () => {
  buildCli();
  workspace = await mkdtemp(join(tmpdir(), 'cairn-embed-endpoint-'));
  server = await startMockOpenAI({
    apiKey: 'sk-embed-test',
    models: ['mock-embed'],
    handler: (request) => (request.endpoint === 'embeddings' ? reply.embeddings(request.input.map((text) => Array.from(embedText(text, DIMS)))) : reply.text('OK')),
  });
  endpointFlags = ['--embed-model', 'mock-embed', '--embed-base-url', server.url, '--embed-api-key', 'sk-embed-test'];
}, 120_000);

afterAll(async () => {
  await server?.close();
  await rm(workspace, { recursive: true, force: true });
});

describe('an OpenAI-compatible embedding endpoint', () => {
  it('indexes an ingest through the endpoint and searches it with the same model', async () => {
    const ingest = await runCli(['ingest', SAMPLE, '--workspace', workspace, '--workers', '0', '--json', ...endpointFlags]);
    expect(ingest.code, ingest.stderr).toBe(0);
    const embedRequests = server.requests.filter((r) => r.endpoint === 'embeddings');
    expect(embedRequests.length).toBeGreaterThan(0);
    expect(new Set(embedRequests.map((r) => r.model))).toEqual(new Set(['mock-embed']));
    expect(embedRequests.every((r) => r.headers.authorization === 'Bearer sk-embed-test')).toBe(true);

    const store = await openLanceStore({ uri: join(workspace, '.cairn/index'), dimensions: DIMS, idleOptimizeMs: 0 });
    const rows = await store.find({ limit: 100_000 });
    await store.close();
    expect(rows.length).toBeGreaterThan(20);
    expect(new Set(rows.map((r) => r.embed_model))).toEqual(new Set(['openai:mock-embed']));

    const before = server.requests.length;
    const vector = await search('storm review decisions', '--mode', 'vector', ...endpointFlags);
    expect(vector.slice(0, 3).map((h) => h.uri)).toContain('ctx://resources/sample/notes/2024-05-08-storm-review.md');
    // The query itself was embedded by the endpoint.
    expect(server.requests.slice(before).some((r) => r.endpoint === 'embeddings' && r.input.includes('storm review decisions'))).toBe(true);
    const hybrid = await search('电池电压', ...endpointFlags);
    expect(hybrid.length).toBeGreaterThan(0);
  }, 180_000);

  it('refuses to search the endpoint\'s vectors with the local embedder, naming the reason', async () => {
    const run = await runCli(['search', 'storm review', '--workspace', workspace, '--json']);
    expect(run.code).not.toBe(0);
    // --json: the reason is the one JSON document on stdout, not a line on stderr.
    const { error } = JSON.parse(run.stdout) as { error: { code: string; message: string } };
    expect(error.code).toBe('INDEX_FAILED');
    expect(error.message).toMatch(/dimension/i);
    expect(error.message).toMatch(/512/);
  }, 60_000);

  it('rebuilds the index through the endpoint after it is thrown away', async () => {
    await rm(join(workspace, '.cairn/index'), { recursive: true, force: true });
    const before = server.requests.filter((r) => r.endpoint === 'embeddings').length;
    const reindex = await runCli(['reindex', '--workspace', workspace, '--json', ...endpointFlags]);
    expect(reindex.code, reindex.stderr).toBe(0);
    expect(server.requests.filter((r) => r.endpoint === 'embeddings').length).toBeGreaterThan(before);
    const hits = await search('storm review decisions', '--mode', 'vector', ...endpointFlags);
    expect(hits.slice(0, 3).map((h) => h.uri)).toContain('ctx://resources/sample/notes/2024-05-08-storm-review.md');
  }, 180_000);
});
