/**
 * The EmbeddingModel port on any OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, Azure
 * OpenAI's compatible route, Ollama, vLLM, LM Studio, text-embeddings-inference, ...).
 *
 * - `encoding_format: 'float'` always: without it the SDK asks for base64, and openai 6.x turns a
 *   server's float answer into `[]` without a word (docs/STACK.md#openai-embeddings-default-to-base64).
 * - Texts go in batches of `batchSize`, one request at a time, in order.
 * - Retries are ours (the SDK's are off), so every attempt is counted and logged: 408, 409, 429,
 *   5xx, connection errors and timeouts are retried with exponential backoff and jitter, waiting
 *   at least what `Retry-After` (or `retry-after-ms`) asks. Anything else fails at once.
 * - Dimensions: when not given, the first response decides; every later vector must match.
 * - Failures are `CairnError('EMBED_FAILED')` with the status, the model and the batch, and
 *   `retryable` set when trying later may help.
 *
 * @example
 * const embedder = createOpenAIEmbedder({ baseURL: 'http://127.0.0.1:11434/v1', apiKey: 'ollama', model: 'nomic-embed-text' });
 * await embedder.discoverDimensions(); // 768, from one request
 * const { vectors } = await embedder.embed({ texts: ['storm review'] });
 */
import OpenAI from 'openai';
import { CairnError, errorMessage } from '../../../shared/errors.js';
import type { EmbedOptions, EmbedResult, EmbeddingModel } from '../../engine/ports/embedding-model.js';
import { silentLogger, type Logger } from '../../engine/ports/logger.js';
import { retryAfterMs } from '../../lib/retry-after.js';

export interface OpenAIEmbedderOptions {
  /** e.g. 'https://api.openai.com/v1' or 'http://127.0.0.1:11434/v1'. */
  baseURL: string;
  apiKey: string;
  model: string;
  /**
   * The vector length. Left out: learned from the first response. Given: every response must
   * match it (and with `requestDimensions` it is also asked of the server).
   */
  dimensions?: number;
  /** Send `dimensions` in the request (models that can shorten vectors, like text-embedding-3-*). Default false. */
  requestDimensions?: boolean;
  /** Texts per request. Default 64. */
  batchSize?: number;
  /** Per request. Default 60 000 ms. */
  timeoutMs?: number;
  /** Tries per request, the first included. Default 4. */
  maxAttempts?: number;
  /** First backoff delay; doubles per attempt, with jitter. Default 500 ms. */
  retryBaseMs?: number;
  /** Longest wait between attempts, Retry-After included. Default 30 000 ms. */
  retryMaxMs?: number;
  /** Texts longer than this (in characters) are cut before sending. Default 8000. */
  maxInputChars?: number;
  logger?: Logger;
}

export interface OpenAIEmbedder extends EmbeddingModel {
  /** Asks the server for one vector when the dimensions are not known yet; returns them. */
  discoverDimensions(signal?: AbortSignal): Promise<number>;
}

const RETRYABLE_STATUS = new Set([408, 409, 429]);

function isRetryable(error: unknown): boolean {
  if (error instanceof OpenAI.APIConnectionError) return true; // timeouts included (a subclass)
  if (error instanceof OpenAI.APIError && typeof error.status === 'number') return RETRYABLE_STATUS.has(error.status) || error.status >= 500;
  return false;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new CairnError('CANCELLED', 'Embedding cancelled', { cause: signal.reason }));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new CairnError('CANCELLED', 'Embedding cancelled', { cause: signal?.reason }));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function describe(error: unknown): { status?: number; message: string } {
  if (error instanceof OpenAI.APIConnectionTimeoutError) return { message: 'request timed out' };
  if (error instanceof OpenAI.APIError) return { status: error.status, message: error.message };
  return { message: errorMessage(error) };
}

/**
 * Creates an embedder for an OpenAI-compatible endpoint.
 *
 * @example
 * const embedder = createOpenAIEmbedder({ baseURL: 'https://api.openai.com/v1', apiKey, model: 'text-embedding-3-small', dimensions: 512, requestDimensions: true });
 */
export function createOpenAIEmbedder(options: OpenAIEmbedderOptions): OpenAIEmbedder {
  const batchSize = options.batchSize ?? 64;
  const maxAttempts = options.maxAttempts ?? 4;
  const retryBaseMs = options.retryBaseMs ?? 500;
  const retryMaxMs = options.retryMaxMs ?? 30_000;
  const maxInputChars = options.maxInputChars ?? 8000;
  const logger = options.logger ?? silentLogger;
  if (!options.model) throw new CairnError('INVALID_INPUT', 'An embedding model name is required');
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new CairnError('INVALID_INPUT', `batchSize must be a positive integer, got ${batchSize}`);
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new CairnError('INVALID_INPUT', `maxAttempts must be a positive integer, got ${maxAttempts}`);
  if (options.dimensions !== undefined && (!Number.isInteger(options.dimensions) || options.dimensions < 1)) {
    throw new CairnError('INVALID_INPUT', `dimensions must be a positive integer, got ${options.dimensions}`);
  }
  if (options.requestDimensions && options.dimensions === undefined) throw new CairnError('INVALID_INPUT', 'requestDimensions needs dimensions');

  const client = new OpenAI({ baseURL: options.baseURL, apiKey: options.apiKey, maxRetries: 0, timeout: options.timeoutMs ?? 60_000 });
  let dimensions = options.dimensions;
  // Shortened vectors are different vectors: the requested length is part of the model's identity.
  const modelId = `openai:${options.model}${options.requestDimensions ? `@${options.dimensions}` : ''}`;
  const context = { model: options.model, baseURL: options.baseURL };

  async function requestBatch(texts: string[], signal: AbortSignal | undefined): Promise<{ vectors: Float32Array[]; tokens: number }> {
    // The API refuses empty strings; a space embeds as "nothing" on every server we know.
    const input = texts.map((text) => (text.trim() === '' ? ' ' : text.length > maxInputChars ? text.slice(0, maxInputChars) : text));
    for (let attempt = 1; ; attempt += 1) {
      if (signal?.aborted) throw new CairnError('CANCELLED', 'Embedding cancelled', { cause: signal.reason });
      try {
        const response = await client.embeddings.create(
          {
            model: options.model,
            input,
            encoding_format: 'float',
            ...(options.requestDimensions ? { dimensions: options.dimensions } : {}),
          },
          { signal },
        );
        return { vectors: readVectors(response, input.length), tokens: response.usage?.prompt_tokens ?? 0 };
      } catch (error) {
        if (CairnError.is(error)) throw error;
        if (signal?.aborted) throw new CairnError('CANCELLED', 'Embedding cancelled', { cause: error });
        const { status, message } = describe(error);
        const retryable = isRetryable(error);
        if (!retryable || attempt >= maxAttempts) {
          throw new CairnError(
            'EMBED_FAILED',
            `Embedding ${texts.length} texts with ${options.model} at ${options.baseURL} failed${status ? ` (HTTP ${status})` : ''}${retryable ? ` after ${attempt} attempts` : ''}: ${message}`,
            { cause: error, retryable, details: { ...context, status, attempts: attempt, batch: texts.length } },
          );
        }
        const backoff = Math.min(retryMaxMs, retryBaseMs * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2);
        const asked = error instanceof OpenAI.APIError ? retryAfterMs(error.headers) : undefined;
        const delay = Math.min(retryMaxMs, Math.max(backoff, asked ?? 0));
        logger.warn('Embedding request failed; retrying', { ...context, status, attempt, delayMs: Math.round(delay), error: message });
        await sleep(delay, signal);
      }
    }
  }

  function readVectors(response: OpenAI.Embeddings.CreateEmbeddingResponse, expected: number): Float32Array[] {
    const bad = (why: string): never => {
      throw new CairnError('EMBED_FAILED', `${options.model} at ${options.baseURL} sent a bad embeddings response: ${why}`, { details: context });
    };
    const data = Array.isArray(response?.data) ? response.data : bad('no data array');
    if (data.length !== expected) bad(`${data.length} embeddings for ${expected} inputs`);
    const vectors: Float32Array[] = new Array(expected);
    data.forEach((item, position) => {
      // Servers may answer out of order; `index` says which input an embedding belongs to.
      const index = typeof item.index === 'number' ? item.index : position;
      const embedding = item.embedding as unknown;
      if (!Array.isArray(embedding) || embedding.length === 0) bad(`embedding ${index} is not a list of numbers (was encoding_format honoured?)`);
      const vector = Float32Array.from(embedding as number[]);
      if (vector.some((x) => !Number.isFinite(x))) bad(`embedding ${index} has non-finite values`);
      if (index < 0 || index >= expected || vectors[index] !== undefined) bad(`embedding index ${index} is out of range or repeated`);
      vectors[index] = vector;
    });
    const length = vectors[0]?.length ?? 0;
    if (dimensions === undefined) {
      dimensions = length;
      logger.info('Embedding dimensions discovered', { ...context, dimensions });
    }
    for (const vector of vectors) {
      if (vector.length !== dimensions) {
        throw new CairnError('EMBED_FAILED', `${options.model} returned ${vector.length}-dimensional vectors; expected ${dimensions}`, {
          details: { ...context, expected: dimensions, got: vector.length },
        });
      }
    }
    return vectors;
  }

  const embedder: OpenAIEmbedder = {
    provider: 'openai-compatible',
    modelId,
    get dimensions(): number {
      if (dimensions === undefined) {
        throw new CairnError('EMBED_FAILED', `The dimensions of ${options.model} are not known before its first response; call discoverDimensions() or pass dimensions`, {
          details: context,
        });
      }
      return dimensions;
    },
    maxBatchSize: batchSize,
    async embed({ texts, signal }: EmbedOptions): Promise<EmbedResult> {
      const vectors: Float32Array[] = [];
      let tokens = 0;
      for (let start = 0; start < texts.length; start += batchSize) {
        const batch = await requestBatch(texts.slice(start, start + batchSize), signal);
        vectors.push(...batch.vectors);
        tokens += batch.tokens;
      }
      return { vectors, usage: { tokens } };
    },
    async discoverDimensions(signal) {
      if (dimensions === undefined) await requestBatch(['dimensions probe'], signal);
      return dimensions as number;
    },
  };
  return embedder;
}
