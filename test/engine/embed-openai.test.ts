/**
 * The OpenAI-compatible embedder against a real HTTP server on 127.0.0.1 (test/support's mock
 * server): what goes over the wire, batching, retries, and an index built on it.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

vi.hoisted(() => {
  process.env.LANCEDB_LOG ??= 'error';
});

import { createOpenAIEmbedder, type OpenAIEmbedderOptions } from '../../main/adapters/embed/openai.js';
import { openLanceStore } from '../../main/adapters/store/lancedb/index.js';
import { createSearchIndex } from '../../main/engine/index/search-index.js';
import { memoryLogger } from '../../main/engine/ports/logger.js';
import { deterministicVector, reply, startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';

let server: MockOpenAI;

beforeEach(async () => {
  server = await startMockOpenAI({ apiKey: 'sk-test', models: ['embed-small'], embeddingDimensions: 8 });
});
afterEach(async () => {
  await server.close();
});

function embedder(options: Partial<OpenAIEmbedderOptions> = {}) {
  return createOpenAIEmbedder({ baseURL: server.url, apiKey: 'sk-test', model: 'embed-small', retryBaseMs: 5, timeoutMs: 5000, ...options });
}

const embeddingRequests = () => server.requests.filter((r) => r.endpoint === 'embeddings');

describe('OpenAI-compatible embedder', () => {
  it('sends batches of batchSize with encoding_format float and returns vectors in input order', async () => {
    const model = embedder({ batchSize: 64 });
    const texts = Array.from({ length: 150 }, (_, i) => `text number ${i}`);
    const { vectors, usage } = await model.embed({ texts });

    const requests = embeddingRequests();
    expect(requests.map((r) => r.input.length)).toEqual([64, 64, 22]);
    expect(requests.map((r) => r.input).flat()).toEqual(texts);
    for (const request of requests) {
      expect(request.body).toMatchObject({ model: 'embed-small', encoding_format: 'float' });
      expect(request.body).not.toHaveProperty('dimensions');
      expect(request.apiKey).toBe('sk-test');
    }
    expect(vectors).toHaveLength(150);
    expect(Array.from(vectors[149] as Float32Array)).toEqual(Array.from(Float32Array.from(deterministicVector('text number 149', 8))));
    expect(usage?.tokens).toBeGreaterThan(0);
  });

  it('learns its dimensions from the first response, and says so plainly before that', async () => {
    const model = embedder();
    expect(() => model.dimensions).toThrow(/not known before its first response/);
    expect(await model.discoverDimensions()).toBe(8);
    expect(model.dimensions).toBe(8);
    expect(model.modelId).toBe('openai:embed-small');
    await model.discoverDimensions();
    expect(embeddingRequests()).toHaveLength(1);
  });

  it('asks for shortened vectors when told to, and names them in the model id', async () => {
    const model = embedder({ dimensions: 4, requestDimensions: true });
    const { vectors } = await model.embed({ texts: ['a'] });
    expect(embeddingRequests()[0]?.body).toMatchObject({ dimensions: 4 });
    expect(vectors[0]).toHaveLength(4);
    expect(model.modelId).toBe('openai:embed-small@4');
  });

  it('retries a 429, waiting at least what Retry-After asks, and logs the retry', async () => {
    const logger = memoryLogger();
    server.enqueue(reply.rateLimited({ headers: { 'retry-after-ms': '300' } }));
    const model = embedder({ logger });
    const started = Date.now();
    const { vectors } = await model.embed({ texts: ['storm', 'uplink'] });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(vectors).toHaveLength(2);
    expect(embeddingRequests().map((r) => r.outcome)).toEqual(['status:429', 'embeddings']);
    expect(logger.lines.filter((l) => l.level === 'warn')).toEqual([expect.objectContaining({ fields: expect.objectContaining({ status: 429, attempt: 1 }) })]);
  });

  it('retries 5xx answers and timeouts, then succeeds', async () => {
    server.enqueue(reply.serverError(503), reply.hang());
    const model = embedder({ timeoutMs: 300 });
    const { vectors } = await model.embed({ texts: ['x'] });
    expect(vectors).toHaveLength(1);
    expect(embeddingRequests().map((r) => r.outcome)).toEqual(['status:503', 'hang', 'embeddings']);
  });

  it('gives up after maxAttempts with a retryable EMBED_FAILED', async () => {
    server.enqueue(reply.serverError(500), reply.serverError(502), reply.serverError(500));
    const error = await embedder({ maxAttempts: 3 })
      .embed({ texts: ['x'] })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'EMBED_FAILED', retryable: true, details: { status: 500, attempts: 3, model: 'embed-small' } });
    expect(embeddingRequests()).toHaveLength(3);
  });

  it('fails at once, not retryable, on a client error such as an unknown model or a bad key', async () => {
    await expect(embedder({ model: 'nope' }).embed({ texts: ['x'] })).rejects.toMatchObject({ code: 'EMBED_FAILED', retryable: false, details: { status: 404 } });
    await expect(embedder({ apiKey: 'wrong' }).embed({ texts: ['x'] })).rejects.toMatchObject({ code: 'EMBED_FAILED', retryable: false, details: { status: 401 } });
    expect(embeddingRequests()).toHaveLength(2);
  });

  it('rejects answers that do not fit the request', async () => {
    server.enqueue(reply.embeddings([[0.1, 0.2]]));
    await expect(embedder().embed({ texts: ['a', 'b'] })).rejects.toThrow(/1 embeddings for 2 inputs/);
    await expect(embedder({ dimensions: 16 }).embed({ texts: ['a'] })).rejects.toThrow(/8-dimensional vectors; expected 16/);
    server.enqueue(reply.malformed({ body: '{"data": [' }));
    await expect(embedder({ maxAttempts: 1 }).embed({ texts: ['a'] })).rejects.toMatchObject({ code: 'EMBED_FAILED' });
  });

  it('never sends an empty string (the API refuses them)', async () => {
    await embedder().embed({ texts: ['', '  ', 'x'] });
    expect(embeddingRequests()[0]?.input).toEqual([' ', ' ', 'x']);
  });

  it('stops waiting when its signal aborts', async () => {
    server.enqueue(reply.rateLimited({ retryAfter: 30 }));
    const controller = new AbortController();
    const pending = embedder({ retryMaxMs: 60_000 }).embed({ texts: ['x'], signal: controller.signal });
    await server.waitForRequests(1);
    await server.waitFor(() => embeddingRequests()[0]?.settled === true);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'CANCELLED' });
  });
});

describe('search index on an OpenAI-compatible endpoint', () => {
  it('indexes and finds records with vectors from the server', async () => {
    const tmp = await mkdtemp(join(tmpdir(), 'cairn-embed-openai-'));
    try {
      const model = embedder({ batchSize: 3 });
      const store = await openLanceStore({ uri: join(tmp, 'index'), dimensions: await model.discoverDimensions() });
      const index = createSearchIndex({ embedder: model, store });
      const texts = ['storm recovery runbook', 'parser registry', 'backup frequency', 'vlan layout', 'battery bank'];
      await index.upsert(
        texts.map((text, i) => ({
          id: `ctx://resources/r${i}.md#2`,
          uri: `ctx://resources/r${i}.md`,
          parent_uri: 'ctx://resources/',
          level: 2,
          context_type: 'resource',
          category: 'document',
          text,
          tokens: 3,
          content_hash: `h${i}`,
          updated_at: '2024-05-08T13:56:00Z',
          provenance: {},
        })),
      );
      // 1 probe + 2 batches of at most 3.
      expect(embeddingRequests().map((r) => r.input.length)).toEqual([1, 3, 2]);
      expect(await store.embedModels()).toEqual(['openai:embed-small']);
      const [hit] = await index.search({ text: 'backup frequency', k: 1, mode: 'vector' });
      expect(hit?.uri).toBe('ctx://resources/r2.md');
      expect(hit?.score).toBeCloseTo(1, 5);
      await store.close();
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });
});
