/**
 * A real OpenAI-compatible HTTP server on 127.0.0.1 for tests: `/v1/chat/completions` (JSON and
 * SSE streaming), `/v1/embeddings` (floats, or base64 when asked) and `/v1/models`.
 *
 * Answers are scripted: queue replies with `enqueue(...)`, or answer every request with a
 * function (`handle(fn)` or the `handler` option); when the queue is empty the handler answers,
 * and without one the server says "OK" (chat) or returns deterministic vectors (embeddings).
 * A reply is an answer (`reply.text`, `reply.json`, `reply.embeddings`) or a fault
 * (`reply.rateLimited`, `reply.serverError`, `reply.hang`, `reply.malformed`,
 * `reply.truncated`, ...). Any reply can carry `latencyMs`.
 *
 * The server records every request (body and headers) and counts requests in flight and the
 * peak, so tests assert on what the server saw rather than on timing. `on('request' | 'settled')`
 * and `waitFor(...)` let a test wait for the server's own events instead of sleeping.
 *
 * Capabilities model real servers: with `apiKey` set, other keys get 401; with `models` set,
 * other models get 404; `supportsJsonSchema: false` makes every `response_format: json_schema`
 * request fail with 400 "unsupported response_format" (as some local servers do), and
 * `supportsJsonObject: false` does the same for `json_object`. These checks consume no queued reply.
 *
 * @example
 * const server = await startMockOpenAI();
 * server.enqueue(reply.rateLimited({ retryAfter: 2 }), reply.json({ abstract: 'a', overview: 'o' }));
 * const client = new OpenAI({ baseURL: server.url, apiKey: 'test', maxRetries: 0 });
 * // ... first call gets 429 with Retry-After: 2, the second gets the JSON answer
 * expect(server.requests).toHaveLength(2);
 * expect(server.peakConcurrency).toBeLessThanOrEqual(10);
 * await server.close();
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface MockUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

interface ReplyBase {
  /** Wait this long before answering (the request counts as in flight meanwhile). */
  latencyMs?: number;
  /** Extra response headers. */
  headers?: Record<string, string>;
}

/** A chat answer. `usage: null` leaves usage out of the response, as some servers do. */
export interface TextReply extends ReplyBase {
  kind: 'text';
  text: string;
  finishReason?: 'stop' | 'length' | 'content_filter' | 'tool_calls';
  usage?: Partial<MockUsage> | null;
  /** A structured-outputs refusal (`message.refusal`); `text` is then usually empty. */
  refusal?: string;
}

/** A chat answer whose text is `JSON.stringify(value)`. */
export interface JsonReply extends ReplyBase {
  kind: 'json';
  value: unknown;
  finishReason?: TextReply['finishReason'];
  usage?: Partial<MockUsage> | null;
}

/** An embeddings answer; encoded as base64 when the request asks for it. */
export interface EmbeddingsReply extends ReplyBase {
  kind: 'embeddings';
  vectors: number[][];
  usage?: { prompt_tokens: number } | null;
}

/** Any HTTP error with the OpenAI error envelope `{ error: { message, type, param, code } }`. */
export interface StatusReply extends ReplyBase {
  kind: 'status';
  status: number;
  message?: string;
  type?: string;
  code?: string | null;
  param?: string | null;
  /** `Retry-After`: seconds (number), an HTTP date (Date), or the raw header value (string). */
  retryAfter?: number | Date | string;
}

/** Never answers; the request stays open until the client gives up or the server closes. */
export interface HangReply extends ReplyBase {
  kind: 'hang';
}

/** 200 with a body that is not valid JSON (or a custom body). */
export interface MalformedReply extends ReplyBase {
  kind: 'malformed';
  body?: string;
  contentType?: string;
}

/**
 * A response cut short. Streaming requests get `afterChunks` content chunks (default: half)
 * and then a clean end without finish reason or `[DONE]` (`mode: 'end'`, the default), a
 * dropped connection (`'destroy'`), or nothing more while the connection stays open (`'stall'`).
 * Non-streaming requests get half of the JSON body, then a dropped connection (or a stall).
 */
export interface TruncatedReply extends ReplyBase {
  kind: 'truncated';
  text: string;
  afterChunks?: number;
  mode?: 'end' | 'destroy' | 'stall';
}

/** Drops the connection without any response. */
export interface ResetReply extends ReplyBase {
  kind: 'reset';
}

export type MockReply = TextReply | JsonReply | EmbeddingsReply | StatusReply | HangReply | MalformedReply | TruncatedReply | ResetReply;

export type MockEndpoint = 'chat' | 'embeddings' | 'models' | 'unknown';

/** One request as the server saw it. */
export interface MockRequest {
  /** 1-based arrival order. */
  readonly seq: number;
  readonly method: string;
  readonly path: string;
  readonly endpoint: MockEndpoint;
  readonly headers: IncomingHttpHeaders;
  /** The body as sent. */
  readonly rawBody: string;
  /** The parsed JSON body (undefined for GET or an unparsable body). */
  readonly body: Record<string, unknown> | undefined;
  readonly model: string | undefined;
  /** Chat messages, as sent. */
  readonly messages: { role: string; content: string }[];
  readonly stream: boolean;
  /** `response_format.type` of a chat request ('json_schema', 'json_object', 'text'), if any. */
  readonly responseFormat: string | undefined;
  /** Embeddings input, always as an array of strings. */
  readonly input: string[];
  /** The bearer token sent, if any. */
  readonly apiKey: string | undefined;
  readonly receivedAt: number;
  /** What the server did: 'text', 'json', 'status:429', 'hang', 'refused:json_schema', ... Set when it answers. */
  outcome?: string;
  /** True once the response has finished or the connection closed. */
  settled: boolean;
}

export type MockHandler = (request: MockRequest) => MockReply | Promise<MockReply>;

export interface MockOpenAIOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Answers requests when the queue is empty. */
  handler?: MockHandler;
  /** When set, a request with another bearer token gets 401. */
  apiKey?: string;
  /** When set, requests for other models get 404 `model_not_found`; also listed by `/v1/models`. */
  models?: string[];
  /** False: `response_format: json_schema` gets 400 "unsupported response_format". Default true. */
  supportsJsonSchema?: boolean;
  /** False: `response_format: json_object` gets 400 "unsupported response_format". Default true. */
  supportsJsonObject?: boolean;
  /** Dimensions of the default embeddings (a request's `dimensions` wins). Default 8. */
  embeddingDimensions?: number;
  /** Characters per SSE content chunk. Default 8. */
  streamChunkChars?: number;
  /**
   * Always answer embeddings with floats, even when base64 was asked (some servers do; see
   * docs/STACK.md#openai-embeddings-default-to-base64).
   */
  embeddingsAlwaysFloat?: boolean;
}

export type MockEvent = 'request' | 'settled';

export interface MockOpenAI {
  /** Base URL for the SDK: `http://127.0.0.1:PORT/v1`. */
  readonly url: string;
  readonly port: number;
  /** Every request, in arrival order. */
  readonly requests: readonly MockRequest[];
  /** Requests to `/v1/chat/completions` only. */
  readonly chatRequests: readonly MockRequest[];
  /** Requests being served right now. */
  readonly inFlight: number;
  /** The most requests that were in flight at the same time. */
  readonly peakConcurrency: number;
  /** Replies still queued. */
  readonly queued: number;
  /** Queues replies, served in order to chat and embeddings requests before the handler. */
  enqueue(...replies: MockReply[]): void;
  /** Replaces the handler that answers when the queue is empty. */
  handle(handler: MockHandler): void;
  /** Changes capabilities at run time (e.g. a server that stops accepting json_schema). */
  configure(options: Pick<MockOpenAIOptions, 'supportsJsonSchema' | 'supportsJsonObject' | 'apiKey' | 'models'>): void;
  /** Forgets recorded requests, the queue and the peak (in-flight requests keep counting). */
  reset(): void;
  /** Calls `listener` on every request as it arrives ('request') or finishes ('settled'). Returns an unsubscribe function. */
  on(event: MockEvent, listener: (request: MockRequest) => void): () => void;
  /** Resolves once `predicate(server)` holds, re-checked on every server event. Rejects after `timeoutMs` (default 10 s). */
  waitFor(predicate: (server: MockOpenAI) => boolean, options?: { timeoutMs?: number }): Promise<void>;
  /** Resolves once at least `count` requests have arrived. */
  waitForRequests(count: number, options?: { timeoutMs?: number }): Promise<void>;
  /** Ends every open connection (hung requests included) and stops the server. */
  close(): Promise<void>;
}

/** Builders for scripted replies. */
export const reply = {
  text(text: string, options: Omit<TextReply, 'kind' | 'text'> = {}): TextReply {
    return { kind: 'text', text, ...options };
  },
  json(value: unknown, options: Omit<JsonReply, 'kind' | 'value'> = {}): JsonReply {
    return { kind: 'json', value, ...options };
  },
  embeddings(vectors: number[][], options: Omit<EmbeddingsReply, 'kind' | 'vectors'> = {}): EmbeddingsReply {
    return { kind: 'embeddings', vectors, ...options };
  },
  status(status: number, options: Omit<StatusReply, 'kind' | 'status'> = {}): StatusReply {
    return { kind: 'status', status, ...options };
  },
  /** 429; `retryAfter` in seconds, as an HTTP date, or omitted. */
  rateLimited(options: Omit<StatusReply, 'kind' | 'status'> = {}): StatusReply {
    return { kind: 'status', status: 429, message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded', ...options };
  },
  /** 500 by default; pass 502, 503 or 504 for the others. */
  serverError(status = 500, options: Omit<StatusReply, 'kind' | 'status'> = {}): StatusReply {
    return { kind: 'status', status, message: status === 503 ? 'Service unavailable' : 'Internal server error', type: 'server_error', ...options };
  },
  unauthorized(options: Omit<StatusReply, 'kind' | 'status'> = {}): StatusReply {
    return { kind: 'status', status: 401, message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key', ...options };
  },
  unknownModel(model = 'unknown', options: Omit<StatusReply, 'kind' | 'status'> = {}): StatusReply {
    return { kind: 'status', status: 404, message: `The model \`${model}\` does not exist`, type: 'invalid_request_error', code: 'model_not_found', param: 'model', ...options };
  },
  /** The 400 a server without structured outputs sends for `response_format` of this type. */
  unsupportedResponseFormat(type: 'json_schema' | 'json_object' = 'json_schema', options: Omit<StatusReply, 'kind' | 'status'> = {}): StatusReply {
    return { kind: 'status', status: 400, message: `unsupported response_format: ${type}`, type: 'invalid_request_error', param: 'response_format', ...options };
  },
  hang(options: Omit<HangReply, 'kind'> = {}): HangReply {
    return { kind: 'hang', ...options };
  },
  malformed(options: Omit<MalformedReply, 'kind'> = {}): MalformedReply {
    return { kind: 'malformed', ...options };
  },
  truncated(text: string, options: Omit<TruncatedReply, 'kind' | 'text'> = {}): TruncatedReply {
    return { kind: 'truncated', text, ...options };
  },
  reset(options: Omit<ResetReply, 'kind'> = {}): ResetReply {
    return { kind: 'reset', ...options };
  },
  /** The same reply, answered after `latencyMs`. */
  delayed<R extends MockReply>(latencyMs: number, r: R): R {
    return { ...r, latencyMs };
  },
};

/** Starts a server on 127.0.0.1. Close it in `afterEach`/`afterAll`. */
export async function startMockOpenAI(options: MockOpenAIOptions = {}): Promise<MockOpenAI> {
  const config = {
    apiKey: options.apiKey,
    models: options.models,
    supportsJsonSchema: options.supportsJsonSchema ?? true,
    supportsJsonObject: options.supportsJsonObject ?? true,
  };
  const dimensions = options.embeddingDimensions ?? 8;
  const chunkChars = Math.max(1, options.streamChunkChars ?? 8);
  let handler: MockHandler | undefined = options.handler;
  let queue: MockReply[] = [];
  let requests: MockRequest[] = [];
  let inFlight = 0;
  let peak = 0;
  let seq = 0;
  const listeners = { request: new Set<(r: MockRequest) => void>(), settled: new Set<(r: MockRequest) => void>() };
  const timers = new Set<NodeJS.Timeout>();

  const emit = (event: MockEvent, request: MockRequest) => {
    for (const listener of [...listeners[event]]) listener(request);
  };

  const server = createServer((req, res) => {
    void serve(req, res).catch((error: unknown) => {
      // A bug in a test's handler should fail loudly at the client, not hang the test.
      if (!res.headersSent && !res.destroyed) sendError(res, 500, `mock handler failed: ${String(error)}`, 'server_error');
      else res.destroy();
    });
  });

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    inFlight += 1;
    peak = Math.max(peak, inFlight);
    // Counted from arrival, so a body that never finishes arriving is still released on close.
    const seen: { request?: MockRequest } = {};
    res.on('close', () => {
      inFlight -= 1;
      if (!seen.request) return;
      seen.request.settled = true;
      emit('settled', seen.request);
    });
    const request = recordRequest(req, await readBody(req));
    seen.request = request;
    const raw = request.rawBody;
    emit('request', request);

    if (request.endpoint === 'unknown') return answer(res, request, reply.status(404, { message: `no route for ${request.method} ${request.path}` }));
    if (config.apiKey !== undefined && request.apiKey !== config.apiKey) return answer(res, request, reply.unauthorized());
    if (request.endpoint === 'models') return sendModels(res, request);
    if (raw.length > 0 && request.body === undefined) return answer(res, request, reply.status(400, { message: 'request body is not valid JSON' }));
    if (config.models !== undefined && (request.model === undefined || !config.models.includes(request.model))) {
      return answer(res, request, reply.unknownModel(request.model));
    }
    if (request.responseFormat === 'json_schema' && !config.supportsJsonSchema) {
      request.outcome = 'refused:json_schema';
      return answer(res, request, reply.unsupportedResponseFormat('json_schema'), false);
    }
    if (request.responseFormat === 'json_object' && !config.supportsJsonObject) {
      request.outcome = 'refused:json_object';
      return answer(res, request, reply.unsupportedResponseFormat('json_object'), false);
    }
    const scripted = queue.shift() ?? (handler ? await handler(request) : defaultReply(request));
    return answer(res, request, scripted);
  }

  function recordRequest(req: IncomingMessage, raw: string): MockRequest {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    let body: Record<string, unknown> | undefined;
    try {
      const parsed: unknown = raw.length > 0 ? JSON.parse(raw) : undefined;
      body = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
    } catch {
      body = undefined;
    }
    const endpoint: MockEndpoint =
      req.method === 'POST' && path === '/v1/chat/completions' ? 'chat' : req.method === 'POST' && path === '/v1/embeddings' ? 'embeddings' : req.method === 'GET' && path === '/v1/models' ? 'models' : 'unknown';
    const auth = req.headers.authorization;
    const responseFormat = body?.response_format as { type?: unknown } | undefined;
    const rawInput = body?.input;
    const request: MockRequest = {
      seq: ++seq,
      method: req.method ?? 'GET',
      path,
      endpoint,
      headers: req.headers,
      rawBody: raw,
      body,
      model: typeof body?.model === 'string' ? body.model : undefined,
      messages: Array.isArray(body?.messages) ? (body.messages as { role: string; content: string }[]) : [],
      stream: body?.stream === true,
      responseFormat: typeof responseFormat?.type === 'string' ? responseFormat.type : undefined,
      input: typeof rawInput === 'string' ? [rawInput] : Array.isArray(rawInput) ? rawInput.map(String) : [],
      apiKey: auth?.startsWith('Bearer ') ? auth.slice('Bearer '.length) : undefined,
      receivedAt: Date.now(),
      settled: false,
    };
    requests.push(request);
    return request;
  }

  function defaultReply(request: MockRequest): MockReply {
    if (request.endpoint === 'embeddings') {
      const dims = typeof request.body?.dimensions === 'number' ? request.body.dimensions : dimensions;
      return reply.embeddings(request.input.map((text) => deterministicVector(text, dims)));
    }
    return reply.text('OK');
  }

  function answer(res: ServerResponse, request: MockRequest, r: MockReply, recordOutcome = true): void {
    if (recordOutcome) request.outcome = r.kind === 'status' ? `status:${r.status}` : r.kind;
    const go = () => {
      if (res.destroyed) return;
      write(res, request, r);
    };
    if (r.latencyMs && r.latencyMs > 0) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        go();
      }, r.latencyMs);
      timers.add(timer);
      res.on('close', () => {
        clearTimeout(timer);
        timers.delete(timer);
      });
    } else {
      go();
    }
  }

  function write(res: ServerResponse, request: MockRequest, r: MockReply): void {
    const extra = r.headers ?? {};
    switch (r.kind) {
      case 'text':
      case 'json': {
        const text = r.kind === 'json' ? JSON.stringify(r.value) : r.text;
        const finishReason = r.finishReason ?? 'stop';
        const usage = r.usage === null ? null : { prompt_tokens: r.usage?.prompt_tokens ?? approxPromptTokens(request), completion_tokens: r.usage?.completion_tokens ?? approxTokens(text) };
        const refusal = r.kind === 'text' ? (r.refusal ?? null) : null;
        if (request.stream) return streamChat(res, request, text, finishReason, usage, extra, refusal);
        return sendJson(res, 200, chatCompletion(request, text, finishReason, usage, refusal), extra);
      }
      case 'embeddings': {
        const asBase64 = request.body?.encoding_format === 'base64' && !options.embeddingsAlwaysFloat;
        const data = r.vectors.map((vector, index) => ({ object: 'embedding', index, embedding: asBase64 ? floatsToBase64(vector) : vector }));
        const tokens = r.usage === null ? undefined : (r.usage?.prompt_tokens ?? request.input.reduce((n, t) => n + approxTokens(t), 0));
        return sendJson(res, 200, { object: 'list', data, model: request.model ?? 'mock-embedding', ...(tokens === undefined ? {} : { usage: { prompt_tokens: tokens, total_tokens: tokens } }) }, extra);
      }
      case 'status': {
        const headers: Record<string, string> = { ...extra };
        if (r.retryAfter !== undefined) headers['retry-after'] = r.retryAfter instanceof Date ? r.retryAfter.toUTCString() : String(r.retryAfter);
        return sendError(res, r.status, r.message ?? `HTTP ${r.status}`, r.type ?? 'invalid_request_error', r.code ?? null, r.param ?? null, headers);
      }
      case 'hang':
        // Headers are not sent either: the client's own timeout is what ends this.
        return;
      case 'malformed': {
        const body = r.body ?? '{"id": "chatcmpl-mock", "choices": [{"message": {"content": "unterminated';
        res.writeHead(200, { 'content-type': r.contentType ?? 'application/json', 'content-length': Buffer.byteLength(body), ...extra });
        res.end(body);
        return;
      }
      case 'truncated': {
        if (request.stream) {
          res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...extra });
          const chunks = splitChunks(r.text, chunkChars);
          res.write(sse(chunk(request, { role: 'assistant', content: '' }, null)));
          for (const piece of chunks.slice(0, r.afterChunks ?? Math.ceil(chunks.length / 2))) res.write(sse(chunk(request, { content: piece }, null)));
          const mode = r.mode ?? 'end';
          if (mode === 'end') res.end();
          else if (mode === 'destroy') res.socket?.destroy();
          return;
        }
        const body = JSON.stringify(chatCompletion(request, r.text, 'stop', null, null));
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...extra });
        res.write(body.slice(0, Math.floor(body.length / 2)));
        // Flush what was written before dropping the connection, so the client sees a cut body.
        if (r.mode !== 'stall') res.socket?.end(() => res.socket?.destroy());
        return;
      }
      case 'reset':
        res.socket?.destroy();
        return;
    }
  }

  function streamChat(res: ServerResponse, request: MockRequest, text: string, finishReason: string, usage: MockUsage | null, extra: Record<string, string>, refusal: string | null): void {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...extra });
    res.write(sse(chunk(request, { role: 'assistant', content: '' }, null)));
    if (refusal) res.write(sse(chunk(request, { refusal }, null)));
    else for (const piece of splitChunks(text, chunkChars)) res.write(sse(chunk(request, { content: piece }, null)));
    res.write(sse(chunk(request, {}, finishReason)));
    const streamOptions = request.body?.stream_options as { include_usage?: unknown } | undefined;
    if (usage && streamOptions?.include_usage === true) {
      res.write(sse({ ...chunkEnvelope(request), choices: [], usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } }));
    }
    res.end('data: [DONE]\n\n');
  }

  function sendModels(res: ServerResponse, request: MockRequest): void {
    request.outcome = 'models';
    const ids = config.models ?? ['mock-model'];
    sendJson(res, 200, { object: 'list', data: ids.map((id) => ({ id, object: 'model', created: 0, owned_by: 'mock' })) });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  const api: MockOpenAI = {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    get requests() {
      return requests;
    },
    get chatRequests() {
      return requests.filter((r) => r.endpoint === 'chat');
    },
    get inFlight() {
      return inFlight;
    },
    get peakConcurrency() {
      return peak;
    },
    get queued() {
      return queue.length;
    },
    enqueue(...replies) {
      queue.push(...replies);
    },
    handle(next) {
      handler = next;
    },
    configure(next) {
      if (next.supportsJsonSchema !== undefined) config.supportsJsonSchema = next.supportsJsonSchema;
      if (next.supportsJsonObject !== undefined) config.supportsJsonObject = next.supportsJsonObject;
      if ('apiKey' in next) config.apiKey = next.apiKey;
      if ('models' in next) config.models = next.models;
    },
    reset() {
      requests = [];
      queue = [];
      peak = inFlight;
    },
    on(event, listener) {
      listeners[event].add(listener);
      return () => listeners[event].delete(listener);
    },
    waitFor(predicate, waitOptions = {}) {
      if (predicate(api)) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!predicate(api)) return;
          done();
          resolve();
        };
        const offRequest = api.on('request', check);
        const offSettled = api.on('settled', check);
        const timer = setTimeout(() => {
          done();
          reject(new Error(`mock server: condition not met within ${waitOptions.timeoutMs ?? 10_000} ms (${requests.length} requests, ${inFlight} in flight)`));
        }, waitOptions.timeoutMs ?? 10_000);
        const done = () => {
          offRequest();
          offSettled();
          clearTimeout(timer);
        };
      });
    },
    waitForRequests(count, waitOptions) {
      return api.waitFor(() => requests.length >= count, waitOptions);
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return api;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function sendError(res: ServerResponse, status: number, message: string, type: string, code: string | null = null, param: string | null = null, headers: Record<string, string> = {}): void {
  sendJson(res, status, { error: { message, type, param, code } }, headers);
}

function chatCompletion(request: MockRequest, text: string, finishReason: string, usage: MockUsage | null, refusal: string | null) {
  return {
    id: `chatcmpl-mock-${request.seq}`,
    object: 'chat.completion',
    created: Math.floor(request.receivedAt / 1000),
    model: request.model ?? 'mock-model',
    choices: [{ index: 0, message: { role: 'assistant', content: refusal ? null : text, refusal }, finish_reason: finishReason, logprobs: null }],
    ...(usage ? { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } } : {}),
  };
}

function chunkEnvelope(request: MockRequest) {
  return { id: `chatcmpl-mock-${request.seq}`, object: 'chat.completion.chunk', created: Math.floor(request.receivedAt / 1000), model: request.model ?? 'mock-model' };
}

function chunk(request: MockRequest, delta: Record<string, string>, finishReason: string | null) {
  return { ...chunkEnvelope(request), choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }] };
}

function sse(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

function splitChunks(text: string, size: number): string[] {
  // Split on code points so a chunk never ends inside a surrogate pair.
  const chars = [...text];
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''));
  return out;
}

/** About four characters a token: close enough for a test server, and predictable. */
function approxTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

function approxPromptTokens(request: MockRequest): number {
  return approxTokens(request.messages.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n'));
}

function floatsToBase64(vector: number[]): string {
  return Buffer.from(new Float32Array(vector).buffer).toString('base64');
}

/** A unit vector derived from the text (FNV-1a seeding xorshift32): the same text always embeds the same way. */
export function deterministicVector(text: string, dimensions: number): number[] {
  let seed = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    seed ^= text.charCodeAt(i);
    seed = Math.imul(seed, 0x01000193) >>> 0;
  }
  const out: number[] = [];
  let x = seed || 1;
  for (let i = 0; i < dimensions; i += 1) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out.push((x / 0xffffffff) * 2 - 1);
  }
  const norm = Math.hypot(...out) || 1;
  return out.map((v) => v / norm);
}
