/** Chain-aware context compression (docs/SPEC.md#chain-aware-compression). */
export { compressBlocks, type CompressOptions } from './compress.js';
export { parseCompressInput, resolveBudget, DEFAULT_RATIO, type BudgetOptions } from './blocks.js';
export { chainAwareScore, PRIORITY_WEIGHTS, CHAIN_TYPE_WEIGHTS } from './scoring.js';
export { renderMarkdown, renderDiffPair } from './render.js';
