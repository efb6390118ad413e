/**
 * The LanguageModel port over any OpenAI-compatible endpoint (OpenAI, Ollama, vLLM, LM Studio,
 * llama.cpp) with the `openai` SDK.
 *
 * One attempt per call: the SDK's own retries are off (`maxRetries: 0`) because `withRetry`
 * decides, from the `retryable` flag and `retryAfterMs` this adapter puts on every CairnError.
 * `timeoutMs` bounds the whole call, reading the body or the stream included (the SDK's own
 * timeout stops at the response headers).
 *
 * `completeJson` asks for structured outputs (`response_format: json_schema`). A server that
 * rejects it (400 naming response_format or json_schema) is remembered for this model, and
 * the call steps down to `json_object` and then to plain text with the schema in the prompt.
 * Answers are parsed with tolerant repair and validated with the zod schema; what cannot be
 * repaired or validated is LLM_BAD_RESPONSE (retryable: a second answer often parses).
 *
 * @example
 * const llm = createOpenAIModel({ baseURL: 'http://127.0.0.1:11434/v1', apiKey: 'ollama', model: 'qwen2.5:7b', timeoutMs: 60_000 });
 * const { value, usage } = await llm.completeJson({
 *   messages: [{ role: 'user', content: 'Summarize: ...' }],
 *   schema: z.object({ abstract: z.string(), overview: z.string() }),
 *   schemaName: 'file_summary',
 * });
 */
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { z } from 'zod';
import { CairnError } from '../../../shared/errors.js';
import { repairJson } from '../../lib/json-repair.js';
import { retryAfterMs } from '../../lib/retry-after.js';
import { countTokens, estimateTokens } from '../../lib/tokens.js';
import type {
  ChatMessage,
  CompleteJsonOptions,
  CompleteJsonResult,
  CompleteOptions,
  CompleteResult,
  LanguageModel,
  Usage,
} from '../../engine/ports/language-model.js';
import { silentLogger, type Logger } from '../../engine/ports/logger.js';
import { createNodeFetch } from './node-fetch.js';

/** How completeJson asks for JSON, from the strongest guarantee to the weakest. */
export type JsonMode = 'json_schema' | 'json_object' | 'prompt';

export interface OpenAIModelOptions {
  /** e.g. 'http://127.0.0.1:11434/v1'; the SDK's default (api.openai.com) when absent. */
  baseURL?: string;
  /** Sent as the bearer token; servers that need none (Ollama, vLLM) take any, so '' is fine. */
  apiKey: string;
  model: string;
  /** Bound on one whole call, body or stream included. Default 60 s. */
  timeoutMs?: number;
  logger?: Logger;
  /** Names the provider in errors and stats. Default 'openai-compatible'. */
  provider?: string;
  /** Read answers as an SSE stream (asks for usage in the stream). Default false. */
  stream?: boolean;
  /** Where completeJson starts; it steps down from here when the server rejects a mode. Default 'json_schema'. */
  jsonMode?: JsonMode;
  /** Structured outputs `strict`: 'auto' (default) sets it when the schema meets OpenAI's strict rules. */
  strictSchema?: boolean | 'auto';
  /** Older local servers know only `max_tokens`; OpenAI's reasoning models want `max_completion_tokens`. Default 'max_tokens'. */
  maxTokensParam?: 'max_tokens' | 'max_completion_tokens';
  /** Extra headers on every request (e.g. an organisation or a gateway key). */
  headers?: Record<string, string>;
  /** Current time in ms, for Retry-After dates. Default Date.now. */
  now?: () => number;
}

export interface OpenAIModel extends LanguageModel {
  /** How completeJson asks for JSON now (it steps down, and stays down, when a server rejects a mode). */
  readonly jsonMode: JsonMode;
}

interface RawAnswer {
  text: string;
  finishReason: CompleteResult['finishReason'];
  usage: Usage;
  refusal?: string;
}

type ChatBody = Omit<OpenAI.Chat.ChatCompletionCreateParamsNonStreaming, 'stream'>;

const DEFAULT_TIMEOUT_MS = 60_000;
const OPENAI_BASE_URL = 'https://api.openai.com/v1';

export function createOpenAIModel(options: OpenAIModelOptions): OpenAIModel {
  const provider = options.provider ?? 'openai-compatible';
  const modelId = options.model;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const logger = options.logger ?? silentLogger;
  const now = options.now ?? Date.now;
  // Every option the SDK would otherwise read from the environment is given here: configuration
  // comes from the caller (the CLI resolves flags, settings and environment: docs/ARCHITECTURE.md#the-cli).
  const client = new OpenAI({
    baseURL: options.baseURL ?? OPENAI_BASE_URL,
    // Local servers take any key; the SDK refuses to start without one.
    apiKey: options.apiKey || 'none',
    adminAPIKey: null,
    organization: null,
    project: null,
    webhookSecret: null,
    // Problems reach the caller as CairnErrors and through our logger, not the SDK's console.
    logLevel: 'off',
    maxRetries: 0,
    timeout: timeoutMs,
    defaultHeaders: options.headers,
    // Plain calls go over node:http, a fraction of the built-in fetch's CPU per call (node-fetch.ts).
    ...(options.stream ? {} : { fetch: createNodeFetch() }),
  });
  let jsonMode: JsonMode = options.jsonMode ?? 'json_schema';
  const context = { provider, modelId, timeoutMs, now };

  async function send(body: ChatBody, messages: ChatMessage[], signal: AbortSignal | undefined): Promise<RawAnswer> {
    if (signal?.aborted) throw cancelled(context, signal.reason);
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = () => controller.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const answer = options.stream ? await sendStreaming(body, controller.signal) : await sendPlain(body, controller.signal);
      return { ...answer, usage: answer.usage ?? countedUsage(messages, answer.text) };
    } catch (error) {
      if (signal?.aborted) throw cancelled(context, error);
      throw toCairnError(error, context, timedOut);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  async function sendPlain(body: ChatBody, signal: AbortSignal): Promise<Omit<RawAnswer, 'usage'> & { usage?: Usage }> {
    const response: unknown = await client.chat.completions.create({ ...body, stream: false }, { signal, timeout: timeoutMs });
    if (typeof response !== 'object' || response === null || !Array.isArray((response as { choices?: unknown }).choices)) {
      throw badResponse(context, 'the answer is not a chat completion', { excerpt: excerpt(typeof response === 'string' ? response : JSON.stringify(response ?? null)) });
    }
    const completion = response as OpenAI.Chat.ChatCompletion;
    const choice = completion.choices[0];
    if (!choice) throw badResponse(context, 'the answer has no choices');
    const refusal = choice.message.refusal ?? undefined;
    if (typeof choice.message.content !== 'string' && !refusal) throw badResponse(context, 'the answer has no text content', { finishReason: choice.finish_reason });
    return {
      text: choice.message.content ?? '',
      finishReason: finishReasonOf(choice.finish_reason),
      usage: completion.usage ? { inputTokens: completion.usage.prompt_tokens, outputTokens: completion.usage.completion_tokens } : undefined,
      ...(refusal ? { refusal } : {}),
    };
  }

  async function sendStreaming(body: ChatBody, signal: AbortSignal): Promise<Omit<RawAnswer, 'usage'> & { usage?: Usage }> {
    const stream = await client.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } }, { signal, timeout: timeoutMs });
    let text = '';
    let refusal = '';
    let finish: string | null = null;
    let usage: Usage | undefined;
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      if (choice?.delta?.content) text += choice.delta.content;
      if (choice?.delta?.refusal) refusal += choice.delta.refusal;
      if (choice?.finish_reason) finish = choice.finish_reason;
      if (chunk.usage) usage = { inputTokens: chunk.usage.prompt_tokens, outputTokens: chunk.usage.completion_tokens };
    }
    // The SDK ends the iteration quietly when the request is aborted; the caller's catch names the cause.
    if (signal.aborted) throw new Error('the request was aborted while streaming');
    // A stream that stops without a finish reason was cut off, however cleanly the socket closed.
    if (finish === null) throw badResponse(context, 'the stream ended before the answer was complete', { receivedChars: text.length });
    return { text, finishReason: finishReasonOf(finish), usage, ...(refusal ? { refusal } : {}) };
  }

  function bodyFor(messages: ChatMessage[], call: CompleteOptions): ChatBody {
    const body: ChatBody = { model: modelId, messages: messages.map((m) => ({ role: m.role, content: m.content })) };
    if (call.temperature !== undefined) body.temperature = call.temperature;
    if (call.maxOutputTokens !== undefined) {
      if (options.maxTokensParam === 'max_completion_tokens') body.max_completion_tokens = call.maxOutputTokens;
      else body.max_tokens = call.maxOutputTokens;
    }
    return body;
  }

  return {
    provider,
    modelId,
    get jsonMode() {
      return jsonMode;
    },

    async complete(call: CompleteOptions): Promise<CompleteResult> {
      const answer = await send(bodyFor(call.messages, call), call.messages, call.signal);
      if (answer.refusal) throw refused(context, answer.refusal);
      return { text: answer.text, usage: answer.usage, finishReason: answer.finishReason };
    },

    async completeJson<T>(call: CompleteJsonOptions<T>): Promise<CompleteJsonResult<T>> {
      const schema = jsonSchemaOf(call.schema);
      const expect = schema?.type === 'array' ? 'array' : schema?.type === 'object' ? 'object' : 'any';
      const name = schemaNameOf(call.schemaName);
      // Without a JSON Schema to send, structured outputs have nothing to enforce.
      let mode: JsonMode = schema === undefined && jsonMode === 'json_schema' ? 'json_object' : jsonMode;
      for (;;) {
        const messages = withJsonInstruction(call.messages, mode, name, schema);
        const body = bodyFor(messages, call);
        if (mode === 'json_schema' && schema) {
          const strict = options.strictSchema === 'auto' || options.strictSchema === undefined ? isStrictCompatible(schema) : options.strictSchema;
          body.response_format = { type: 'json_schema', json_schema: { name, schema, strict } };
        } else if (mode === 'json_object') {
          body.response_format = { type: 'json_object' };
        }
        let answer: RawAnswer;
        try {
          answer = await send(body, messages, call.signal);
        } catch (error) {
          if (mode !== 'prompt' && CairnError.is(error) && error.details?.responseFormatRejected === true) {
            const next: JsonMode = mode === 'json_schema' ? 'json_object' : 'prompt';
            logger.warn('llm: the server rejected response_format; asking for JSON another way', { provider, model: modelId, rejected: mode, next, server: error.details.serverMessage });
            // Remembered for this model: later calls start at the mode that works.
            if (jsonMode === mode) jsonMode = next;
            mode = next;
            continue;
          }
          throw error;
        }
        return parseAnswer(answer, call.schema, expect, mode);
      }
    },
  };

  function parseAnswer<T>(answer: RawAnswer, schema: z.ZodType<T>, expect: 'object' | 'array' | 'any', mode: JsonMode): CompleteJsonResult<T> {
    if (answer.refusal) throw refused(context, answer.refusal);
    const details = { mode, finishReason: answer.finishReason, usage: answer.usage, excerpt: excerpt(answer.text) };
    const repaired = repairJson(answer.text, { expect });
    if (!repaired.ok) throw badResponse(context, `the answer is not JSON (${repaired.error})`, { ...details, problem: 'invalid_json' });
    const parsed = schema.safeParse(repaired.value);
    if (!parsed.success) {
      const issues = parsed.error.issues.slice(0, 5).map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
      throw badResponse(context, `the answer does not match the schema (${issues.join('; ')})`, { ...details, issues, problem: 'schema' });
    }
    if (repaired.repaired) logger.debug('llm: repaired a JSON answer', { provider, model: modelId, mode, truncated: repaired.truncated });
    return { value: parsed.data, usage: answer.usage, repaired: repaired.repaired };
  }
}

interface ErrorContext {
  provider: string;
  modelId: string;
  timeoutMs: number;
  now: () => number;
}

/** Maps whatever the SDK or the network threw to a CairnError with a stable code and `retryable`. */
function toCairnError(error: unknown, ctx: ErrorContext, timedOut: boolean): CairnError {
  const base = { provider: ctx.provider, model: ctx.modelId };
  // Whatever an abort by our own deadline surfaced as (an abort error, a cut stream), it was the deadline.
  if (timedOut || error instanceof APIConnectionTimeoutError) {
    return new CairnError('TIMEOUT', `${ctx.provider} ${ctx.modelId}: no answer within ${ctx.timeoutMs} ms`, { cause: error, retryable: true, details: { ...base, timeoutMs: ctx.timeoutMs } });
  }
  if (CairnError.is(error)) return error;
  if (error instanceof APIUserAbortError) return cancelled(ctx, error);
  if (error instanceof APIConnectionError) {
    return new CairnError('LLM_REQUEST_FAILED', `${ctx.provider} ${ctx.modelId}: could not reach the server (${causeMessage(error)})`, { cause: error, retryable: true, details: { ...base, problem: 'network' } });
  }
  if (error instanceof APIError && typeof error.status === 'number') return fromStatus(error, error.status, ctx);
  // The SDK parses a JSON body itself; a body that is not JSON surfaces as a SyntaxError.
  if (error instanceof SyntaxError) {
    return new CairnError('LLM_BAD_RESPONSE', `${ctx.provider} ${ctx.modelId}: the response body is not valid JSON`, { cause: error, retryable: true, details: base });
  }
  if (isNetworkError(error)) {
    return new CairnError('LLM_REQUEST_FAILED', `${ctx.provider} ${ctx.modelId}: the connection failed mid-response (${causeMessage(error)})`, { cause: error, retryable: true, details: base });
  }
  return new CairnError('LLM_REQUEST_FAILED', `${ctx.provider} ${ctx.modelId}: ${error instanceof Error ? error.message : String(error)}`, { cause: error, retryable: false, details: base });
}

function fromStatus(error: APIError, status: number, ctx: ErrorContext): CairnError {
  const serverMessage = serverMessageOf(error);
  const wait = retryAfterMs(error.headers, ctx.now());
  const details: Record<string, unknown> = { provider: ctx.provider, model: ctx.modelId, status, serverMessage };
  if (wait !== undefined) details.retryAfterMs = wait;
  if (error.requestID) details.requestId = error.requestID;
  if (error.code) details.serverCode = error.code;
  const prefix = `${ctx.provider} ${ctx.modelId}: HTTP ${status}`;
  if (status === 429) {
    // Out of credit is a 429 too, and waiting does not fix it.
    const quota = error.code === 'insufficient_quota';
    return new CairnError('LLM_RATE_LIMITED', `${prefix}: ${quota ? 'the account is out of quota' : 'rate limited'} (${serverMessage})`, { cause: error, retryable: !quota, details });
  }
  if ((status === 400 || status === 422) && rejectsResponseFormat(error, serverMessage)) details.responseFormatRejected = true;
  const retryable = status === 408 || status === 409 || status >= 500;
  const hint = status === 401 || status === 403 ? 'the server refused the API key' : status === 404 ? 'unknown model or wrong base URL' : retryable ? 'the server failed' : 'the server rejected the request';
  return new CairnError('LLM_REQUEST_FAILED', `${prefix}: ${hint} (${serverMessage})`, { cause: error, retryable, details });
}

/**
 * Servers without structured outputs answer a json_schema request with a 400 (or 422) whose
 * message or `param` names the response format. OpenAI's own "invalid schema for
 * response_format" matches too, which also steps down: a schema it will not take is as
 * unusable as a server that takes none.
 */
function rejectsResponseFormat(error: APIError, serverMessage: string): boolean {
  const text = `${serverMessage} ${error.param ?? ''} ${error.message}`;
  return /response_format|json_schema|json_object|structured output|guided_json/i.test(text);
}

function serverMessageOf(error: APIError): string {
  const body = error.error as { message?: unknown } | undefined;
  if (body && typeof body.message === 'string') return body.message;
  return error.message;
}

function isNetworkError(error: unknown): error is Error {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth += 1) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^(ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|UND_ERR_)/.test(code)) return true;
    if (e instanceof TypeError && /terminated|fetch failed|network/i.test(e.message)) return true;
  }
  return false;
}

function causeMessage(error: Error): string {
  const cause = error.cause;
  return cause instanceof Error ? `${error.message}: ${cause.message}` : error.message;
}

function cancelled(ctx: ErrorContext, cause: unknown): CairnError {
  return new CairnError('CANCELLED', `${ctx.provider} ${ctx.modelId}: the call was cancelled`, { cause, retryable: false, details: { provider: ctx.provider, model: ctx.modelId } });
}

function badResponse(ctx: ErrorContext, message: string, details: Record<string, unknown> = {}): CairnError {
  return new CairnError('LLM_BAD_RESPONSE', `${ctx.provider} ${ctx.modelId}: ${message}`, { retryable: true, details: { provider: ctx.provider, model: ctx.modelId, ...details } });
}

function refused(ctx: ErrorContext, refusal: string): CairnError {
  // A refusal is the model's considered answer; asking again gets the same one.
  return new CairnError('LLM_BAD_RESPONSE', `${ctx.provider} ${ctx.modelId}: the model refused (${refusal})`, { retryable: false, details: { provider: ctx.provider, model: ctx.modelId, refusal } });
}

function finishReasonOf(reason: string | null | undefined): CompleteResult['finishReason'] {
  return reason === 'stop' ? 'stop' : reason === 'length' ? 'length' : 'other';
}

function countedUsage(messages: ChatMessage[], text: string): Usage {
  return { inputTokens: estimateTokens(messages), outputTokens: countTokens(text) };
}

function excerpt(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** Converted once per schema: the conversion costs more CPU than the rest of a call's set-up. */
const jsonSchemas = new WeakMap<z.ZodType<unknown>, Record<string, unknown> | undefined>();

/** The zod schema as JSON Schema, or undefined when it has parts JSON Schema cannot say. */
function jsonSchemaOf(schema: z.ZodType<unknown>): Record<string, unknown> | undefined {
  if (!jsonSchemas.has(schema)) jsonSchemas.set(schema, convertSchema(schema));
  return jsonSchemas.get(schema);
}

function convertSchema(schema: z.ZodType<unknown>): Record<string, unknown> | undefined {
  try {
    // The model writes what the schema parses, so the schema's input side is what it must follow.
    const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'throw' }) as Record<string, unknown>;
    delete json.$schema;
    closeObjects(json);
    return json;
  } catch {
    return undefined;
  }
}

/**
 * Marks objects that say nothing about extra keys as closed. A plain z.object strips unknown
 * keys when it parses, so forbidding them asks the model for nothing the parse would keep;
 * objects that do keep extras (z.looseObject, records) already say so and are left alone.
 */
function closeObjects(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(closeObjects);
  if (typeof node !== 'object' || node === null) return;
  const schema = node as Record<string, unknown>;
  if (schema.type === 'object' && schema.properties !== undefined && schema.additionalProperties === undefined) schema.additionalProperties = false;
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties' || key === '$defs' || key === 'definitions') {
      for (const child of Object.values(value as Record<string, unknown>)) closeObjects(child);
    } else if (typeof value === 'object') {
      closeObjects(value);
    }
  }
}

/**
 * OpenAI's strict mode needs every object closed (`additionalProperties: false`) with every
 * property required; anything else is sent with `strict: false`, which servers still use as
 * guidance (vLLM and llama.cpp constrain decoding to the schema either way).
 */
export function isStrictCompatible(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.every(isStrictCompatible);
  if (typeof schema !== 'object' || schema === null) return true;
  const node = schema as Record<string, unknown>;
  if (node.type === 'object' || node.properties !== undefined) {
    const properties = (node.properties ?? {}) as Record<string, unknown>;
    const required = Array.isArray(node.required) ? (node.required as string[]) : [];
    if (node.additionalProperties !== false) return false;
    if (!Object.keys(properties).every((key) => required.includes(key))) return false;
  }
  return Object.values(node).every(isStrictCompatible);
}

function schemaNameOf(name: string): string {
  const clean = name.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);
  return clean.length > 0 ? clean : 'response';
}

/**
 * Adds the JSON instruction to the system message (appended, so servers whose chat templates
 * allow one system message at the start keep working). json_object mode needs the word "JSON"
 * in the messages (OpenAI refuses the request otherwise); without structured outputs the
 * schema itself goes in the prompt.
 */
function withJsonInstruction(messages: ChatMessage[], mode: JsonMode, name: string, schema: Record<string, unknown> | undefined): ChatMessage[] {
  const instruction =
    mode === 'json_schema'
      ? `Answer with one JSON value that follows the response schema "${name}".`
      : `Answer with one JSON value and nothing else: no prose, no Markdown code fences.${schema ? ` It must follow this JSON Schema:\n${JSON.stringify(schema)}` : ''}`;
  const first = messages[0];
  if (first?.role === 'system') return [{ role: 'system', content: `${first.content}\n\n${instruction}` }, ...messages.slice(1)];
  return [{ role: 'system', content: instruction }, ...messages];
}
