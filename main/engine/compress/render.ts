/**
 * Pure renderers of a compression result: Markdown an agent can paste (each block under a
 * heading with where it came from), and a before/after text pair for a diff view.
 */
import type { BlockProvenance, CompressionResult, ContextBlock, KeptBlock, ReplacedChain } from '../../../shared/types/compress.js';

/** The output in input order: kept blocks and chain summaries, each with its provenance. */
export function renderMarkdown(result: CompressionResult): string {
  const lines = [
    `# Context (${result.strategy}: ${result.original_tokens} → ${result.compressed_tokens} tokens, budget ${result.budget})`,
    '',
  ];
  for (const entry of outputOrder(result)) {
    if (entry.kind === 'block') lines.push(...blockSection(entry.block));
    else lines.push(...summarySection(entry.summary));
  }
  if (result.broken_chains.length > 0) lines.push(`_Chains cut or left out: ${result.broken_chains.join(', ')}._`, '');
  return lines.join('\n').trimEnd() + '\n';
}

function blockSection(block: KeptBlock): string[] {
  const size = block.shortened ? `${block.token_count} of ${block.original_token_count} tokens, shortened` : `${block.token_count} tokens`;
  const facts = [`${block.priority}`, block.source, size].filter(Boolean).join(' · ');
  const chains = block.chain_links.length > 0 ? `chains: ${block.chain_links.join(', ')}${block.chain_types.length > 0 ? ` (${block.chain_types.join(', ')})` : ''}` : '';
  const origin = [provenanceText(block.provenance), chains].filter(Boolean).join(' · ');
  return [`## ${block.id} · ${facts}`, ...(origin ? [`_${origin}_`] : []), '', block.content.trimEnd(), ''];
}

function summarySection(summary: ReplacedChain): string[] {
  const out = [
    `## Summary of chain ${summary.chain_ids.join(', ')} · ${summary.token_count} of ${summary.original_token_count} tokens, ${summary.summary_source}`,
    `_blocks: ${summary.block_ids.join(', ')}_`,
    '',
  ];
  for (const part of summary.parts) {
    const origin = provenanceText(part.provenance);
    out.push(`### ${part.block_id}${part.shortened ? ' (shortened)' : ''}`, ...(origin ? [`_${origin}_`] : []), '', part.content.trimEnd(), '');
  }
  return out;
}

function provenanceText(provenance: BlockProvenance | undefined): string {
  if (!provenance) return '';
  const parts: string[] = [];
  if (provenance.source) parts.push(`source: ${provenance.source}`);
  if (provenance.uri) parts.push(provenance.uri);
  if (provenance.lines) parts.push(`lines ${provenance.lines[0]}–${provenance.lines[1]}`);
  if (provenance.message_ids && provenance.message_ids.length > 0) parts.push(`messages ${provenance.message_ids.join(', ')}`);
  return parts.join(' · ');
}

type OutputEntry = { kind: 'block'; index: number; block: KeptBlock } | { kind: 'summary'; index: number; summary: ReplacedChain };

function outputOrder(result: CompressionResult): OutputEntry[] {
  const entries: OutputEntry[] = [
    ...result.kept.map((block) => ({ kind: 'block' as const, index: block.index, block })),
    ...result.replaced.map((summary) => ({ kind: 'summary' as const, index: summary.index, summary })),
  ];
  return entries.sort((a, b) => a.index - b.index);
}

export interface DiffPair {
  before: string;
  after: string;
}

/**
 * The input and the output as two texts with the same shape (a `### id` line, then the text),
 * so a line diff shows dropped blocks as deletions and shortened ones as edits. A summarized
 * block shows its part of the chain summary under its own id.
 */
export function renderDiffPair(blocks: readonly ContextBlock[], result: CompressionResult): DiffPair {
  const before = blocks.map((b) => section(b.id, b.content)).join('\n');
  const after: string[] = [];
  const parts = new Map(result.replaced.flatMap((r) => r.parts.map((p) => [p.block_id, { chain: r.chain_ids.join(', '), content: p.content }] as const)));
  const kept = new Map(result.kept.map((b) => [b.id, b]));
  for (const block of blocks) {
    const keptBlock = kept.get(block.id);
    const part = parts.get(block.id);
    if (keptBlock) after.push(section(block.id, keptBlock.content));
    else if (part) after.push(section(`${block.id} [summary of ${part.chain}]`, part.content));
  }
  return { before, after: after.join('\n') };
}

function section(title: string, content: string): string {
  return `### ${title}\n${content.trimEnd()}\n`;
}
