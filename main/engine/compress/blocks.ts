/**
 * Reading context blocks: validating the `cairn compress` file format, filling in what it may
 * omit (token counts are counted, scores default to 0), and turning --budget / --ratio into tokens.
 */
import type { z } from 'zod';
import { CairnError } from '../../../shared/errors.js';
import { CompressInput, type ContextBlock } from '../../../shared/types/compress.js';
import { countTokens } from '../../lib/tokens.js';

/**
 * Validates `{"blocks": [...]}` and returns complete blocks.
 * Throws INVALID_INPUT naming the path of the first bad field ("blocks[2].priority: ...").
 */
export function parseCompressInput(value: unknown): ContextBlock[] {
  const parsed = CompressInput.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues.map(describeIssue);
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
    throw new CairnError('INVALID_INPUT', `${issues[0]}${more}`, { details: { issues } });
  }
  return parsed.data.blocks.map((block) => ({
    ...block,
    token_count: block.token_count ?? countTokens(block.content),
  }));
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const path = issue.path.reduce<string>((out, key) => (typeof key === 'number' ? `${out}[${key}]` : out ? `${out}.${String(key)}` : String(key)), '');
  return `${path || '(top level)'}: ${issue.message}`;
}

export interface BudgetOptions {
  /** Tokens; wins over `ratio`. */
  budget?: number;
  /** Share of the original tokens to keep, 0..1. */
  ratio?: number;
}

/**
 * The seed's example (docs/SPEC.md#chain-aware-compression) compresses to half
 * (compression_ratio=0.5); that is the default.
 */
export const DEFAULT_RATIO = 0.5;

export function resolveBudget(options: BudgetOptions, originalTokens: number): number {
  if (options.budget !== undefined) {
    if (!Number.isInteger(options.budget) || options.budget < 0) throw new CairnError('INVALID_INPUT', `budget must be a whole number of tokens ≥ 0, not ${options.budget}`);
    return options.budget;
  }
  const ratio = options.ratio ?? DEFAULT_RATIO;
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1) throw new CairnError('INVALID_INPUT', `ratio must be between 0 and 1, not ${ratio}`);
  return Math.floor(originalTokens * ratio);
}
