import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { lazyLanguageModel } from './lazy-model.js';
import type { LanguageModel } from '../ports/language-model.js';

const answering: LanguageModel = {
  provider: 'test',
  modelId: 'm',
  complete: async () => ({ text: 'hi', usage: { inputTokens: 1, outputTokens: 1 }, finishReason: 'stop' }),
  completeJson: async <T>(options: { schema: z.ZodType<T> }) => ({ value: options.schema.parse({ ok: true }), usage: { inputTokens: 1, outputTokens: 1 }, repaired: false }),
};

describe('lazyLanguageModel', () => {
  it('loads the provider on the first call only, and names it before that', async () => {
    let loads = 0;
    const model = lazyLanguageModel({ provider: 'openai-compatible', modelId: 'gpt-x' }, async () => {
      loads += 1;
      return answering;
    });
    expect([model.provider, model.modelId, loads]).toEqual(['openai-compatible', 'gpt-x', 0]);
    await Promise.all([model.complete({ messages: [{ role: 'user', content: 'a' }] }), model.complete({ messages: [{ role: 'user', content: 'b' }] })]);
    const json = await model.completeJson({ messages: [{ role: 'user', content: 'c' }], schema: z.object({ ok: z.boolean() }), schemaName: 'probe' });
    expect(json.value).toEqual({ ok: true });
    expect(loads).toBe(1);
  });

  it('reports a failed load to the call, and tries again on the next one', async () => {
    let attempts = 0;
    const model = lazyLanguageModel({ provider: 'p', modelId: 'm' }, async () => {
      attempts += 1;
      if (attempts === 1) throw new Error('module not found');
      return answering;
    });
    await expect(model.complete({ messages: [] })).rejects.toThrow('module not found');
    await expect(model.complete({ messages: [] })).resolves.toMatchObject({ text: 'hi' });
    expect(attempts).toBe(2);
  });
});
