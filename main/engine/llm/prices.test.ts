import { describe, expect, it } from 'vitest';
import { estimateCostUsd, priceFor } from './prices.js';

describe('priceFor', () => {
  it('knows OpenAI models and their dated snapshots', () => {
    expect(priceFor('gpt-4o')).toEqual({ inputPerMillion: 2.5, outputPerMillion: 10 });
    expect(priceFor('gpt-4o-mini-2024-07-18')).toEqual({ inputPerMillion: 0.15, outputPerMillion: 0.6 });
    expect(priceFor('openai/GPT-4.1-mini')).toEqual({ inputPerMillion: 0.4, outputPerMillion: 1.6 });
    expect(priceFor('gpt-3.5-turbo-0125')).toEqual({ inputPerMillion: 0.5, outputPerMillion: 1.5 });
  });

  it('does not confuse a family with a bigger sibling', () => {
    expect(priceFor('gpt-4o-mini')?.inputPerMillion).not.toBe(priceFor('gpt-4o')?.inputPerMillion);
  });

  it('returns null for local and unknown models', () => {
    expect(priceFor('llama3.1:8b')).toBeNull();
    expect(priceFor('Qwen/Qwen2.5-7B-Instruct')).toBeNull();
    expect(priceFor('gpt-4o-banana')).toBeNull();
  });

  it('estimates a cost from usage', () => {
    expect(estimateCostUsd({ inputTokens: 2_000_000, outputTokens: 500_000 }, 'gpt-4o-mini')).toBeCloseTo(0.6, 10);
    expect(estimateCostUsd({ inputTokens: 10, outputTokens: 10 }, 'mistral-7b')).toBeNull();
  });
});
