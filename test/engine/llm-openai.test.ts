/**
 * The OpenAI-compatible adapter against a real HTTP server through the real SDK: answers,
 * structured outputs and their fallbacks, JSON repair, and how every fault maps to a CairnError.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createOpenAIModel, isStrictCompatible, type OpenAIModelOptions } from '../../main/adapters/llm/openai.js';
import { memoryLogger } from '../../main/engine/ports/logger.js';
import { CairnError } from '../../shared/errors.js';
import { reply, startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';

const Summary = z.object({ abstract: z.string().min(1), overview: z.string().min(1), categories: z.array(z.string()) });
const messages = [
  { role: 'system' as const, content: 'You summarize folders.' },
  { role: 'user' as const, content: 'Summarize the docs folder.' },
];
const answer = { abstract: 'Operations docs', overview: '# Docs\n- runbooks', categories: ['ops'] };

let server: MockOpenAI;
beforeEach(async () => {
  server = await startMockOpenAI();
});
afterEach(async () => {
  await server.close();
});

function model(options: Partial<OpenAIModelOptions> = {}) {
  return createOpenAIModel({ baseURL: server.url, apiKey: 'test-key', model: 'mock-model', timeoutMs: 5_000, ...options });
}

async function failure(promise: Promise<unknown>): Promise<CairnError> {
  try {
    await promise;
  } catch (error) {
    if (CairnError.is(error)) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

describe('complete', () => {
  it('sends the messages and returns text, usage and finish reason', async () => {
    server.enqueue(reply.text('Hello there', { usage: { prompt_tokens: 21, completion_tokens: 3 } }));
    const result = await model().complete({ messages, temperature: 0.2, maxOutputTokens: 100 });
    expect(result).toEqual({ text: 'Hello there', usage: { inputTokens: 21, outputTokens: 3 }, finishReason: 'stop' });
    const [request] = server.chatRequests;
    expect(request?.model).toBe('mock-model');
    expect(request?.messages).toEqual(messages);
    expect(request?.body).toMatchObject({ temperature: 0.2, max_tokens: 100 });
    expect(request?.headers.authorization).toBe('Bearer test-key');
  });

  it('counts usage with the tokenizer when the server reports none', async () => {
    server.enqueue(reply.text('hello world', { usage: null }));
    const result = await model().complete({ messages: [{ role: 'user', content: 'hello world' }] });
    // "hello world" is 2 tokens; the chat framing adds 3 per message and 3 for the reply.
    expect(result.usage).toEqual({ inputTokens: 8, outputTokens: 2 });
  });

  it('reads a streamed answer with usage from the stream', async () => {
    server.enqueue(reply.text('A streamed answer in several chunks.', { usage: { prompt_tokens: 11, completion_tokens: 8 }, finishReason: 'length' }));
    const result = await model({ stream: true }).complete({ messages });
    expect(result).toEqual({ text: 'A streamed answer in several chunks.', usage: { inputTokens: 11, outputTokens: 8 }, finishReason: 'length' });
    expect(server.chatRequests[0]?.stream).toBe(true);
    expect(server.chatRequests[0]?.body?.stream_options).toEqual({ include_usage: true });
  });

  it('uses max_completion_tokens when configured', async () => {
    await model({ maxTokensParam: 'max_completion_tokens' }).complete({ messages, maxOutputTokens: 50 });
    expect(server.chatRequests[0]?.body).toMatchObject({ max_completion_tokens: 50 });
    expect(server.chatRequests[0]?.body).not.toHaveProperty('max_tokens');
  });
});

describe('completeJson', () => {
  it('asks for structured outputs and validates the answer', async () => {
    server.enqueue(reply.json(answer));
    const llm = model();
    const result = await llm.completeJson({ messages, schema: Summary, schemaName: 'directory summary' });
    expect(result.value).toEqual(answer);
    expect(result.repaired).toBe(false);
    const body = server.chatRequests[0]?.body as { response_format: { type: string; json_schema: { name: string; strict: boolean; schema: Record<string, unknown> } } };
    expect(body.response_format.type).toBe('json_schema');
    expect(body.response_format.json_schema.name).toBe('directory_summary');
    expect(body.response_format.json_schema.strict).toBe(true);
    expect(body.response_format.json_schema.schema).toMatchObject({ type: 'object', required: ['abstract', 'overview', 'categories'] });
    expect(body.response_format.json_schema.schema).not.toHaveProperty('$schema');
    expect(llm.jsonMode).toBe('json_schema');
  });

  it('falls back to json_object when the server rejects json_schema, and remembers it', async () => {
    server.configure({ supportsJsonSchema: false });
    const logger = memoryLogger();
    const llm = model({ logger });
    server.enqueue(reply.json(answer), reply.json(answer));

    expect((await llm.completeJson({ messages, schema: Summary, schemaName: 'summary' })).value).toEqual(answer);
    expect(server.chatRequests.map((r) => r.responseFormat)).toEqual(['json_schema', 'json_object']);
    expect(server.chatRequests.map((r) => r.outcome)).toEqual(['refused:json_schema', 'json']);
    expect(llm.jsonMode).toBe('json_object');
    // The schema travels in the prompt once the server no longer enforces it; the system message is extended, not duplicated.
    const sent = server.chatRequests[1]?.messages ?? [];
    expect(sent.filter((m) => m.role === 'system')).toHaveLength(1);
    expect(sent[0]?.content).toContain('You summarize folders.');
    expect(sent[0]?.content).toContain('"abstract"');
    expect(logger.lines.some((l) => l.level === 'warn' && l.message.includes('rejected response_format'))).toBe(true);

    await llm.completeJson({ messages, schema: Summary, schemaName: 'summary' });
    expect(server.chatRequests.map((r) => r.responseFormat)).toEqual(['json_schema', 'json_object', 'json_object']);
  });

  it('falls back to plain text with the schema in the prompt, and repairs what comes back', async () => {
    server.configure({ supportsJsonSchema: false, supportsJsonObject: false });
    server.enqueue(reply.text("Here you go:\n```json\n{abstract: 'Operations docs', overview: '# Docs\\n- runbooks', categories: ['ops',],}\n```"));
    const llm = model();
    const result = await llm.completeJson({ messages, schema: Summary, schemaName: 'summary' });
    expect(result).toEqual({ value: answer, usage: expect.any(Object), repaired: true });
    expect(server.chatRequests.map((r) => r.responseFormat)).toEqual(['json_schema', 'json_object', undefined]);
    expect(llm.jsonMode).toBe('prompt');
  });

  it('repairs an answer cut off by the token limit', async () => {
    server.enqueue(reply.text('{"abstract": "Operations docs", "overview": "# Docs", "categories": ["ops", "runb', { finishReason: 'length' }));
    const result = await model().completeJson({ messages, schema: Summary, schemaName: 'summary' });
    expect(result.value).toEqual({ abstract: 'Operations docs', overview: '# Docs', categories: ['ops', 'runb'] });
    expect(result.repaired).toBe(true);
  });

  it('rejects prose that holds no JSON as a retryable LLM_BAD_RESPONSE with the tokens it cost', async () => {
    server.enqueue(reply.text('I am sorry, I cannot summarize this.', { usage: { prompt_tokens: 40, completion_tokens: 9 } }));
    const error = await failure(model().completeJson({ messages, schema: Summary, schemaName: 'summary' }));
    expect(error.code).toBe('LLM_BAD_RESPONSE');
    expect(error.retryable).toBe(true);
    expect(error.details?.usage).toEqual({ inputTokens: 40, outputTokens: 9 });
  });

  it('rejects JSON that does not match the schema, naming the fields', async () => {
    server.enqueue(reply.json({ abstract: '', overview: 'x' }));
    const error = await failure(model().completeJson({ messages, schema: Summary, schemaName: 'summary' }));
    expect(error.code).toBe('LLM_BAD_RESPONSE');
    expect(error.message).toMatch(/abstract/);
    expect(error.message).toMatch(/categories/);
  });

  it('treats a structured-outputs refusal as a final answer', async () => {
    server.enqueue(reply.text('', { refusal: 'I cannot help with that.' }));
    const error = await failure(model().completeJson({ messages, schema: Summary, schemaName: 'summary' }));
    expect(error.code).toBe('LLM_BAD_RESPONSE');
    expect(error.retryable).toBe(false);
    expect(error.details?.refusal).toBe('I cannot help with that.');
  });

  it('reads a refusal from a stream too', async () => {
    server.enqueue(reply.text('', { refusal: 'Not this one.' }));
    const error = await failure(model({ stream: true }).completeJson({ messages, schema: Summary, schemaName: 'summary' }));
    expect(error.details?.refusal).toBe('Not this one.');
  });

  it('sends strict: false for schemas with optional fields', async () => {
    const Loose = z.object({ abstract: z.string(), tags: z.array(z.string()).optional() });
    expect(isStrictCompatible(z.toJSONSchema(Loose, { io: 'input' }))).toBe(false);
    server.enqueue(reply.json({ abstract: 'x' }));
    await model().completeJson({ messages, schema: Loose, schemaName: 'loose' });
    expect((server.chatRequests[0]?.body as { response_format: { json_schema: { strict: boolean } } }).response_format.json_schema.strict).toBe(false);
  });

  it('works through a streamed answer too', async () => {
    server.enqueue(reply.json(answer));
    const result = await model({ stream: true }).completeJson({ messages, schema: Summary, schemaName: 'summary' });
    expect(result.value).toEqual(answer);
  });
});

describe('faults map to CairnErrors', () => {
  const cases: { name: string; reply: Parameters<MockOpenAI['enqueue']>[0]; code: string; retryable: boolean; retryAfterMs?: number }[] = [
    { name: '429 without Retry-After', reply: reply.rateLimited(), code: 'LLM_RATE_LIMITED', retryable: true },
    { name: '429 with Retry-After seconds', reply: reply.rateLimited({ retryAfter: 7 }), code: 'LLM_RATE_LIMITED', retryable: true, retryAfterMs: 7000 },
    { name: '429 out of quota', reply: reply.rateLimited({ code: 'insufficient_quota' }), code: 'LLM_RATE_LIMITED', retryable: false },
    { name: '500', reply: reply.serverError(500), code: 'LLM_REQUEST_FAILED', retryable: true },
    { name: '503 with Retry-After', reply: reply.serverError(503, { retryAfter: 2 }), code: 'LLM_REQUEST_FAILED', retryable: true, retryAfterMs: 2000 },
    { name: '408', reply: reply.status(408), code: 'LLM_REQUEST_FAILED', retryable: true },
    { name: '409', reply: reply.status(409), code: 'LLM_REQUEST_FAILED', retryable: true },
    { name: '400', reply: reply.status(400, { message: 'messages too long' }), code: 'LLM_REQUEST_FAILED', retryable: false },
    { name: '401 bad key', reply: reply.unauthorized(), code: 'LLM_REQUEST_FAILED', retryable: false },
    { name: '403', reply: reply.status(403), code: 'LLM_REQUEST_FAILED', retryable: false },
    { name: '404 unknown model', reply: reply.unknownModel('mock-model'), code: 'LLM_REQUEST_FAILED', retryable: false },
    { name: 'malformed JSON body', reply: reply.malformed(), code: 'LLM_BAD_RESPONSE', retryable: true },
    { name: 'truncated body', reply: reply.truncated('a long answer that will be cut in half'), code: 'LLM_REQUEST_FAILED', retryable: true },
    { name: 'dropped connection', reply: reply.reset(), code: 'LLM_REQUEST_FAILED', retryable: true },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      server.enqueue(c.reply);
      const error = await failure(model().complete({ messages }));
      expect({ code: error.code, retryable: error.retryable }).toEqual({ code: c.code, retryable: c.retryable });
      if (c.retryAfterMs !== undefined) expect(error.details?.retryAfterMs).toBe(c.retryAfterMs);
      else expect(error.details?.retryAfterMs).toBeUndefined();
      expect(server.chatRequests).toHaveLength(1);
    });
  }

  it('reads Retry-After given as an HTTP date', async () => {
    server.enqueue(reply.rateLimited({ retryAfter: new Date(Date.now() + 5_000) }));
    const error = await failure(model().complete({ messages }));
    // HTTP dates have whole-second resolution.
    expect(error.details?.retryAfterMs).toBeGreaterThan(3_000);
    expect(error.details?.retryAfterMs).toBeLessThanOrEqual(5_000);
  });

  it('says which status and server message it got', async () => {
    server.enqueue(reply.unknownModel('gpt-9'));
    const error = await failure(model().complete({ messages }));
    expect(error.message).toMatch(/HTTP 404/);
    expect(error.message).toMatch(/gpt-9/);
    expect(error.details).toMatchObject({ status: 404, provider: 'openai-compatible', model: 'mock-model' });
  });

  it('the server-level checks answer 401 and 404 too', async () => {
    server.configure({ apiKey: 'right-key', models: ['mock-model'] });
    expect((await failure(model({ apiKey: 'wrong' }).complete({ messages }))).details?.status).toBe(401);
    expect((await failure(model({ apiKey: 'right-key', model: 'nope' }).complete({ messages }))).details?.status).toBe(404);
    expect((await model({ apiKey: 'right-key' }).complete({ messages })).text).toBe('OK');
  });

  it('a hanging server is a retryable TIMEOUT after timeoutMs', async () => {
    server.enqueue(reply.hang());
    const error = await failure(model({ timeoutMs: 200 }).complete({ messages }));
    expect(error.code).toBe('TIMEOUT');
    expect(error.retryable).toBe(true);
    // The client hung up: the server sees the request settle.
    await server.waitFor((s) => s.inFlight === 0);
  });

  it('timeoutMs also bounds a stream that stalls after its headers', async () => {
    server.enqueue(reply.truncated('This stream stalls', { afterChunks: 1, mode: 'stall' }));
    const error = await failure(model({ stream: true, timeoutMs: 300 }).complete({ messages }));
    expect(error.code).toBe('TIMEOUT');
    expect(error.retryable).toBe(true);
  });

  it('timeoutMs also bounds a body that stalls after its headers', async () => {
    server.enqueue(reply.truncated('This body stalls halfway', { mode: 'stall' }));
    const error = await failure(model({ timeoutMs: 300 }).complete({ messages }));
    expect(error.code).toBe('TIMEOUT');
  });

  it('a stream that ends without a finish reason is a cut-off answer', async () => {
    server.enqueue(reply.truncated('This stream ends early', { afterChunks: 1, mode: 'end' }));
    const cut = await failure(model({ stream: true }).complete({ messages }));
    expect(cut.code).toBe('LLM_BAD_RESPONSE');
    expect(cut.retryable).toBe(true);
  });

  it('a stream whose connection drops is a retryable failure', async () => {
    server.enqueue(reply.truncated('This stream breaks off', { afterChunks: 2, mode: 'destroy' }));
    const error = await failure(model({ stream: true }).complete({ messages }));
    expect(['LLM_REQUEST_FAILED', 'LLM_BAD_RESPONSE']).toContain(error.code);
    expect(error.retryable).toBe(true);
  });

  it('a cancelled call is CANCELLED and not retryable', async () => {
    server.enqueue(reply.hang());
    const controller = new AbortController();
    const pending = model().complete({ messages, signal: controller.signal });
    await server.waitForRequests(1);
    controller.abort();
    const error = await failure(pending);
    expect(error.code).toBe('CANCELLED');
    expect(error.retryable).toBe(false);
  });

  it('an unreachable server is a retryable failure', async () => {
    const port = server.port;
    await server.close();
    const error = await failure(createOpenAIModel({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'k', model: 'm', timeoutMs: 2_000 }).complete({ messages }));
    expect(error.code).toBe('LLM_REQUEST_FAILED');
    expect(error.retryable).toBe(true);
    server = await startMockOpenAI();
  });
});
