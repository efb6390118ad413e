import type { Command } from 'commander';
import { readFile } from 'node:fs/promises';
import { CairnError } from '../../../shared/errors.js';
import { CompressionStrategy, type CompressionResult, type ContextBlock } from '../../../shared/types/compress.js';
import { oneLine, printJson, reportError } from '../output.js';

interface CompressFlags {
  strategy: string;
  ratio?: string;
  budget?: string;
  json?: boolean;
  markdown?: boolean;
  verbose?: boolean;
}

export function registerCompress(program: Command): void {
  program
    .command('compress')
    .description('Fit context blocks into a token budget, keeping reasoning chains whole (priority | chain_aware | chain_integrity)')
    .argument('<blocks.json>', '{"blocks": [{"id", "source", "priority", "content", "token_count"?, "chain_links"?, "chain_types"?, "relevance_score"?, "freshness_score"?}]}')
    .option('--strategy <strategy>', 'priority (baseline: whole blocks by priority) | chain_aware (blocks ranked by chain membership, relevance and freshness, shortened to fit) | chain_integrity (chains kept whole or summarized)', 'chain_integrity')
    .option('--ratio <r>', 'keep this share of the original tokens, 0..1 (default 0.5)')
    .option('--budget <n>', 'keep at most this many tokens (instead of --ratio)')
    .option('--json', 'print one JSON document: {"kept", "dropped", "replaced", "original_tokens", "compressed_tokens", "intact_chains", "broken_chains", ...}')
    .option('--markdown', 'print the compressed context as Markdown an agent can paste')
    .option('-v, --verbose', 'print the stack of an error')
    .action(async (file: string, flags: CompressFlags) => {
      try {
        const strategy = CompressionStrategy.safeParse(flags.strategy);
        if (!strategy.success) throw new CairnError('INVALID_INPUT', `--strategy must be priority, chain_aware or chain_integrity, not ${JSON.stringify(flags.strategy)}`);
        if (flags.ratio !== undefined && flags.budget !== undefined) throw new CairnError('INVALID_INPUT', 'give --ratio or --budget, not both');
        if (flags.json && flags.markdown) throw new CairnError('INVALID_INPUT', 'give --json or --markdown, not both');
        // Loaded on demand: the compressor pulls in the tokenizer, which `cairn --help` need not pay for.
        const { compressBlocks, parseCompressInput, renderMarkdown } = await import('../../engine/compress/index.js');
        const blocks = await readBlocks(file, parseCompressInput);
        const result = compressBlocks(blocks, {
          strategy: strategy.data,
          ...(flags.budget !== undefined ? { budget: numberFlag('--budget', flags.budget) } : {}),
          ...(flags.ratio !== undefined ? { ratio: numberFlag('--ratio', flags.ratio) } : {}),
        });
        if (flags.json) return printJson(result);
        process.stdout.write(flags.markdown ? renderMarkdown(result) : summaryText(result));
      } catch (error) {
        reportError(error, flags);
      }
    });
}

async function readBlocks(file: string, parseCompressInput: (json: unknown) => ContextBlock[]) {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new CairnError('NOT_FOUND', `Cannot read ${file}: no such file`);
    throw new CairnError('IO_ERROR', `Cannot read ${file}: ${(error as Error).message}`, { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new CairnError('INVALID_INPUT', `${file} is not valid JSON: ${(error as Error).message}`);
  }
  try {
    return parseCompressInput(json);
  } catch (error) {
    if (CairnError.is(error)) throw new CairnError(error.code, `${file}: ${error.message}`, { details: error.details });
    throw error;
  }
}

function numberFlag(name: string, value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) throw new CairnError('INVALID_INPUT', `${name} must be a number, not ${JSON.stringify(value)}`);
  return n;
}

/** The readable report: totals, one line per block in input order, then the chains. */
function summaryText(result: CompressionResult): string {
  const percent = result.original_tokens > 0 ? ` (${Math.round((100 * result.compressed_tokens) / result.original_tokens)}%)` : '';
  const lines = [
    `${result.strategy}: ${result.original_tokens} → ${result.compressed_tokens} tokens${percent}, budget ${result.budget}`,
    `kept ${result.kept.length}, dropped ${result.dropped.length}, chains summarized ${result.replaced.length}`,
    '',
  ];
  const rows: Array<{ index: number; cells: string[] }> = [
    ...result.kept.map((b) => ({
      index: b.index,
      cells: [b.id, b.priority, b.shortened ? `${b.original_token_count}→${b.token_count}` : String(b.token_count), b.score.toFixed(1), b.shortened ? 'shortened' : 'kept', oneLine(b.content, 48)],
    })),
    ...result.dropped.map((b) => ({ index: b.index, cells: [b.id, b.priority, String(b.token_count), b.score.toFixed(1), 'dropped', ''] })),
    ...result.replaced.flatMap((r) =>
      r.parts.map((p, k) => ({
        index: r.index + k / (r.parts.length + 1),
        cells: [p.block_id, '', `${p.original_token_count}→${p.token_count}`, '', `summary of ${r.chain_ids.join(', ')}`, oneLine(p.content, 48)],
      })),
    ),
  ];
  // Blocks of a summary that gave no text still belong to it; list them so every block shows.
  for (const r of result.replaced) {
    const shown = new Set(r.parts.map((p) => p.block_id));
    for (const id of r.block_ids) if (!shown.has(id)) rows.push({ index: r.index + 0.999, cells: [id, '', '→0', '', `summary of ${r.chain_ids.join(', ')}`, '(no room)'] });
  }
  rows.sort((a, b) => a.index - b.index);
  const table = [['id', 'priority', 'tokens', 'score', 'status', 'text'], ...rows.map((r) => r.cells)];
  const widths = table[0]!.map((_, c) => Math.max(...table.map((row) => (row[c] ?? '').length)));
  for (const row of table) lines.push(row.map((cell, c) => cell.padEnd(widths[c]!)).join('  ').trimEnd());
  lines.push('');
  const chainLine = (label: string, ids: string[]) => `${label} ${ids.length}${ids.length ? `: ${ids.join(', ')}` : ''}`;
  lines.push(`chains: ${chainLine('intact', result.intact_chains)}; ${chainLine('broken', result.broken_chains)}`);
  return lines.join('\n') + '\n';
}
