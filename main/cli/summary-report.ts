/**
 * How the commands that summarize (`cairn ingest`, `cairn summarize`) report a run and an
 * estimate as text: one home, so both print the same lines. The fallbacks' line groups their
 * causes (shared/fallback-causes.ts): "29 fallbacks: 27 × HTTP 500 'injected fault', 2 × invalid JSON".
 */
import type { DagRunResult, SummaryEstimate } from '../../shared/contracts/api.js';
import { formatFallbacks } from '../../shared/fallback-causes.js';
import { formatCount, formatMs, formatUsd } from '../../shared/format.js';
import { treeCounts } from '../../shared/tree-counts.js';
import { estimateCostUsd } from '../engine/llm/prices.js';

/** `--estimate`: the DAG's LLM calls and tokens for a tree, priced for the model when its price is known. */
export interface EstimateReport extends SummaryEstimate {
  model: string;
  /** False when no LLM is configured: the run would be extractive and free; the figures say what the model would take. */
  llm_configured: boolean;
  cost_usd: number | null;
  /** With --token-budget: whether the estimate fits in it. */
  fits_budget: boolean | null;
}

export function costed(estimate: SummaryEstimate, model: string, configured: boolean, budget: number | null): EstimateReport {
  const cost = estimateCostUsd({ inputTokens: estimate.input_tokens, outputTokens: estimate.output_tokens }, model);
  return {
    ...estimate,
    model,
    llm_configured: configured,
    cost_usd: cost === null ? null : Math.round(cost * 10_000) / 10_000,
    fits_budget: budget === null ? null : estimate.input_tokens + estimate.output_tokens <= budget,
  };
}

/** The estimate's lines; `next` says how to run it for real. */
export function formatEstimate(e: EstimateReport, next: string): string[] {
  const cost = e.cost_usd === null ? `no list price for ${e.model}` : `≈ ${formatUsd(e.cost_usd)} with ${e.model}`;
  const lines = [
    `  Estimate: summarizing ${e.root} takes ${formatCount(e.calls)} LLM calls (${formatCount(e.files)} files, ${formatCount(e.directories)} directories; ` +
      `${formatCount(e.reused_directories)} directories unchanged), ≈ ${formatCount(e.input_tokens)} input + ${formatCount(e.output_tokens)} output tokens, ${cost}.`,
  ];
  if (e.fits_budget === false) lines.push(`  That is more than the --token-budget: the calls past it will fall back to offline summaries.`);
  if (!e.llm_configured) lines.push('  No LLM is configured: a run now makes extractive summaries offline, at no cost.');
  lines.push(`  Nothing was summarized. ${next}`);
  return lines;
}

/** A summary run's lines: what was summarized, then its fallbacks and their causes when it had any. */
export function runSummaryLines(s: DagRunResult): string[] {
  // Named as Home and the Live DAG name them (shared/tree-counts.ts): a split document is one file.
  const { directories, files, sections } = treeCounts(s);
  const counted = (n: number, one: string, many: string) => `${formatCount(n)} ${n === 1 ? one : many}`;
  const lines = [
    `  Summaries: ${counted(directories.total, 'directory', 'directories')}, ${counted(files.total, 'file', 'files')}, ${counted(sections.total, 'section', 'sections')} ` +
      `(${formatCount(s.dirsSummarized + s.filesSummarized)} summaries written, ${formatCount(s.dirsReused)} unchanged), ${formatCount(s.llm_calls)} LLM calls, ${formatMs(s.ms)}`,
  ];
  lines.push(`  ${formatFallbacks(s.fallbacks, s.fallback_causes)}`);
  return lines;
}
