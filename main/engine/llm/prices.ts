/**
 * List prices of well-known OpenAI models, for the cost line of `cairn ingest --estimate`.
 * Prices change: these are USD per million tokens as published in mid 2025, and the result is
 * an estimate. Local and unknown models have no price (null), and the estimate says so rather
 * than guessing.
 *
 * @example
 * priceFor('gpt-4o-mini-2024-07-18'); // { inputPerMillion: 0.15, outputPerMillion: 0.6 }
 * estimateCostUsd({ inputTokens: 1_000_000, outputTokens: 0 }, 'gpt-4o'); // 2.5
 * priceFor('llama3.1:8b'); // null
 */
import type { Usage } from '../ports/language-model.js';

export interface ModelPrice {
  inputPerMillion: number;
  outputPerMillion: number;
}

const PRICES: Record<string, ModelPrice> = {
  'gpt-5': { inputPerMillion: 1.25, outputPerMillion: 10 },
  'gpt-5-mini': { inputPerMillion: 0.25, outputPerMillion: 2 },
  'gpt-5-nano': { inputPerMillion: 0.05, outputPerMillion: 0.4 },
  'gpt-4.1': { inputPerMillion: 2, outputPerMillion: 8 },
  'gpt-4.1-mini': { inputPerMillion: 0.4, outputPerMillion: 1.6 },
  'gpt-4.1-nano': { inputPerMillion: 0.1, outputPerMillion: 0.4 },
  'gpt-4o': { inputPerMillion: 2.5, outputPerMillion: 10 },
  'gpt-4o-mini': { inputPerMillion: 0.15, outputPerMillion: 0.6 },
  o1: { inputPerMillion: 15, outputPerMillion: 60 },
  'o1-mini': { inputPerMillion: 1.1, outputPerMillion: 4.4 },
  o3: { inputPerMillion: 2, outputPerMillion: 8 },
  'o3-mini': { inputPerMillion: 1.1, outputPerMillion: 4.4 },
  'o4-mini': { inputPerMillion: 1.1, outputPerMillion: 4.4 },
  'gpt-4-turbo': { inputPerMillion: 10, outputPerMillion: 30 },
  'gpt-4': { inputPerMillion: 30, outputPerMillion: 60 },
  'gpt-3.5-turbo': { inputPerMillion: 0.5, outputPerMillion: 1.5 },
};

/** A dated snapshot ("-2024-08-06", "-0613") or "-latest" names the same price as its family. */
const SNAPSHOT_SUFFIX = /-(\d{4}-\d{2}-\d{2}|\d{4}|latest)$/;

/** The price of a model id, or null when it is not a known OpenAI model. */
export function priceFor(modelId: string): ModelPrice | null {
  let id = modelId.trim().toLowerCase();
  // Routers and gateways prefix the vendor ("openai/gpt-4o").
  if (id.startsWith('openai/')) id = id.slice('openai/'.length);
  for (;;) {
    const price = PRICES[id];
    if (price) return { ...price };
    const stripped = id.replace(SNAPSHOT_SUFFIX, '');
    if (stripped === id) return null;
    id = stripped;
  }
}

/** Estimated USD for some usage, or null when the model's price is unknown. */
export function estimateCostUsd(usage: Usage, modelId: string): number | null {
  const price = priceFor(modelId);
  if (!price) return null;
  return (usage.inputTokens * price.inputPerMillion + usage.outputTokens * price.outputPerMillion) / 1_000_000;
}
