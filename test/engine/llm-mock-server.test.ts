/**
 * The mock OpenAI server other tests build on, checked through the real SDK: what it answers,
 * what it records and what it counts.
 */
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deterministicVector, reply, startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';

let server: MockOpenAI;
let client: OpenAI;
beforeEach(async () => {
  server = await startMockOpenAI({ embeddingDimensions: 4 });
  client = new OpenAI({ baseURL: server.url, apiKey: 'k', maxRetries: 0, timeout: 5_000 });
});
afterEach(async () => {
  await server.close();
});

const user = [{ role: 'user' as const, content: 'hi' }];

describe('mock OpenAI server', () => {
  it('listens on 127.0.0.1 and gives the SDK its base URL', () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/v1`);
    expect(server.port).toBeGreaterThan(0);
  });

  it('serves queued replies in order, then the handler', async () => {
    server.enqueue(reply.text('first'), reply.json({ n: 2 }));
    server.handle((request) => reply.text(`echo ${request.messages.at(-1)?.content}`));
    const texts: (string | null | undefined)[] = [];
    for (let i = 0; i < 3; i += 1) texts.push((await client.chat.completions.create({ model: 'm', messages: user })).choices[0]?.message.content);
    expect(texts).toEqual(['first', '{"n":2}', 'echo hi']);
    expect(server.queued).toBe(0);
    expect(server.requests.map((r) => r.outcome)).toEqual(['text', 'json', 'text']);
  });

  it('streams SSE chunks that the SDK reassembles, with usage when asked', async () => {
    server.enqueue(reply.text('streaming works fine', { usage: { prompt_tokens: 5, completion_tokens: 4 } }));
    const stream = await client.chat.completions.create({ model: 'm', messages: user, stream: true, stream_options: { include_usage: true } });
    let text = '';
    let chunks = 0;
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of stream) {
      chunks += 1;
      text += chunk.choices[0]?.delta.content ?? '';
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe('streaming works fine');
    expect(chunks).toBeGreaterThan(3);
    expect(usage).toMatchObject({ prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 });
  });

  it('answers embeddings with floats, and with base64 when asked', async () => {
    const floats = await client.embeddings.create({ model: 'e', input: ['alpha', 'beta'], encoding_format: 'float' });
    expect(floats.data.map((d) => d.embedding)).toEqual([deterministicVector('alpha', 4), deterministicVector('beta', 4)]);
    // The SDK asks for base64 by default and decodes it (docs/STACK.md#openai-embeddings-default-to-base64).
    const decoded = await client.embeddings.create({ model: 'e', input: 'alpha' });
    expect(server.requests.at(-1)?.body?.encoding_format).toBe('base64');
    const expected = Array.from(new Float32Array(deterministicVector('alpha', 4)));
    expect(decoded.data[0]?.embedding).toEqual(expected);
  });

  it('honours the dimensions a request asks for, and scripted vectors', async () => {
    const sized = await client.embeddings.create({ model: 'e', input: 'x', dimensions: 16, encoding_format: 'float' });
    expect(sized.data[0]?.embedding).toHaveLength(16);
    server.enqueue(reply.embeddings([[1, 0, 0]]));
    const scripted = await client.embeddings.create({ model: 'e', input: 'x', encoding_format: 'float' });
    expect(scripted.data[0]?.embedding).toEqual([1, 0, 0]);
  });

  it('lists its models', async () => {
    const listed = await startMockOpenAI({ models: ['a', 'b'] });
    try {
      const ids: string[] = [];
      for await (const model of new OpenAI({ baseURL: listed.url, apiKey: 'k', maxRetries: 0 }).models.list()) ids.push(model.id);
      expect(ids).toEqual(['a', 'b']);
    } finally {
      await listed.close();
    }
  });

  it('records bodies and headers', async () => {
    await client.chat.completions.create({ model: 'm', messages: user, temperature: 0 }, { headers: { 'x-trace': 't1' } });
    const [request] = server.chatRequests;
    expect(request).toMatchObject({ seq: 1, method: 'POST', path: '/v1/chat/completions', endpoint: 'chat', model: 'm', stream: false, apiKey: 'k', settled: true });
    expect(request?.headers['x-trace']).toBe('t1');
    expect(request?.body).toMatchObject({ temperature: 0 });
    expect(JSON.parse(request?.rawBody ?? '')).toEqual(request?.body);
  });

  it('counts requests in flight and the peak', async () => {
    server.handle(() => reply.hang());
    const controller = new AbortController();
    const calls = [1, 2, 3].map(() => client.chat.completions.create({ model: 'm', messages: user }, { signal: controller.signal }).catch((e: unknown) => e));
    await server.waitFor((s) => s.inFlight === 3);
    expect(server.peakConcurrency).toBe(3);
    controller.abort();
    await Promise.all(calls);
    await server.waitFor((s) => s.inFlight === 0);
    expect(server.peakConcurrency).toBe(3);
    server.reset();
    expect(server.peakConcurrency).toBe(0);
    expect(server.requests).toHaveLength(0);
  });

  it('adds latency to any reply', async () => {
    server.enqueue(reply.delayed(150, reply.text('late')));
    const started = performance.now();
    await client.chat.completions.create({ model: 'm', messages: user });
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('emits events and unsubscribes', async () => {
    const seen: string[] = [];
    const off = server.on('request', (r) => seen.push(`request ${r.seq}`));
    server.on('settled', (r) => seen.push(`settled ${r.seq}`));
    await client.chat.completions.create({ model: 'm', messages: user });
    await server.waitFor((s) => s.requests.every((r) => r.settled));
    off();
    await client.chat.completions.create({ model: 'm', messages: user });
    await server.waitFor((s) => s.requests.every((r) => r.settled));
    expect(seen).toEqual(['request 1', 'settled 1', 'settled 2']);
  });

  it('rejects waitFor when the condition never holds', async () => {
    await expect(server.waitForRequests(1, { timeoutMs: 50 })).rejects.toThrow(/not met within 50 ms/);
  });

  it('refuses response_format it is configured not to support, without consuming the queue', async () => {
    server.configure({ supportsJsonSchema: false });
    server.enqueue(reply.json({ a: 1 }));
    const refused = await client.chat.completions
      .create({ model: 'm', messages: user, response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object' } } } })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect((refused as InstanceType<typeof OpenAI.BadRequestError>).message).toMatch(/unsupported response_format/);
    expect(server.queued).toBe(1);
  });

  it('answers unknown routes with 404', async () => {
    const response = await fetch(`${server.url}/nothing`);
    expect(response.status).toBe(404);
  });
});
