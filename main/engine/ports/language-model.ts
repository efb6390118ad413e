/**
 * The LanguageModel port (AI SDK shape): a chat model behind any OpenAI-compatible endpoint.
 * Retry, circuit breaking, concurrency limits and budgets are wrappers that implement this same
 * port. Errors are CairnErrors whose `retryable` flag tells the wrappers what to do.
 *
 * @example
 * const { value } = await llm.completeJson({ messages, schema: DirectorySummarySchema, schemaName: 'directory_summary' });
 */
import type { z } from 'zod';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

export interface CompleteOptions {
  messages: ChatMessage[];
  maxOutputTokens?: number;
  temperature?: number;
  signal?: AbortSignal;
}

export interface CompleteResult {
  text: string;
  usage: Usage;
  finishReason: 'stop' | 'length' | 'other';
}

export interface CompleteJsonOptions<T> extends CompleteOptions {
  schema: z.ZodType<T>;
  /** A short snake_case name for the schema, sent to servers that support structured outputs. */
  schemaName: string;
}

export interface CompleteJsonResult<T> {
  value: T;
  usage: Usage;
  /** True when the answer was not valid JSON as sent and had to be repaired. */
  repaired: boolean;
}

export interface LanguageModel {
  readonly provider: string;
  readonly modelId: string;
  complete(options: CompleteOptions): Promise<CompleteResult>;
  completeJson<T>(options: CompleteJsonOptions<T>): Promise<CompleteJsonResult<T>>;
}
