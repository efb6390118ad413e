import { describe, expect, it } from 'vitest';
import type { NodeMeta } from '../../../shared/types/node.js';
import { isWeaker, provenanceOf, redoPredicate } from './provenance.js';

const meta = (fields: Partial<NodeMeta>): NodeMeta => ({ uri: 'ctx://resources/a.md', kind: 'file', context_type: 'resource', created_at: '', updated_at: '', ...fields });
const llm = (model: string, prompt_version: number) => ({ kind: 'llm' as const, model, prompt_version });

describe('summary provenance', () => {
  it('ranks fallback < offline < LLM; an older prompt is weaker, another model is not', () => {
    expect(isWeaker({ kind: 'extractive' }, llm('m', 1))).toBe(true);
    expect(isWeaker({ kind: 'ast-skeleton' }, llm('m', 1))).toBe(true);
    expect(isWeaker({ kind: 'fallback' }, { kind: 'extractive' })).toBe(true);
    expect(isWeaker(llm('m', 1), llm('m', 2))).toBe(true);
    expect(isWeaker(llm('old-model', 2), llm('new-model', 2))).toBe(false);
    expect(isWeaker(llm('m', 2), { kind: 'extractive' })).toBe(false);
    expect(isWeaker({ kind: 'ast-skeleton' }, { kind: 'extractive' })).toBe(false);
  });

  it('reads who wrote a summary from metas written before it was recorded, and leaves what no summarizer wrote alone', () => {
    expect(provenanceOf(meta({ summary_status: 'done', summary_reason: 'llm:gpt-4o-mini' }))).toEqual(llm('gpt-4o-mini', 1));
    expect(provenanceOf(meta({ summary_status: 'done', summary_reason: 'skeleton' }))).toEqual({ kind: 'ast-skeleton' });
    expect(provenanceOf(meta({ summary_status: 'fallback', summary_reason: 'extractive after: HTTP 500' }))).toEqual({ kind: 'extractive' });
    expect(provenanceOf(meta({ summary_status: 'fallback', summary_reason: 'seed fallback after: timeout' }))).toEqual({ kind: 'fallback' });
    expect(provenanceOf(meta({ summary_status: 'done', summary_reason: 'memory' }))).toBeNull();
    expect(provenanceOf(meta({ summary_status: 'owed' }))).toBeNull();
    // A memory's own text is never redone, not even by --force.
    expect(redoPredicate('force', llm('m', 1))(meta({ summary_status: 'done', summary_reason: 'memory' }))).toBe(false);
    expect(redoPredicate('force', llm('m', 1))(meta({ summary_status: 'done', summarizer: llm('m', 1) }))).toBe(true);
    expect(redoPredicate('upgrade', llm('m', 1))(meta({ summary_status: 'done', summarizer: llm('m', 1) }))).toBe(false);
  });
});
