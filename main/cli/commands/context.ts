import type { Command } from 'commander';
import { CairnError } from '../../../shared/errors.js';
import { CompressionStrategy } from '../../../shared/types/compress.js';
import { SCOPES } from '../../../shared/uri.js';
import type { Engine } from '../../engine/engine.js';
import { addIndexOptions, indexConfig, type IndexFlags } from '../index-config.js';
import { formatCount } from '../../../shared/format.js';
import { printJson, reportError, stderrLogger } from '../output.js';

interface ContextFlags extends IndexFlags {
  workspace?: string;
  budget?: string;
  strategy: string;
  scope?: string;
  topK: string;
  json?: boolean;
  markdown?: boolean;
  verbose?: boolean;
}

export function registerContext(program: Command): void {
  addIndexOptions(
    program
      .command('context')
      .description(
        'A context pack for an agent: what matters for QUERY in N tokens (the whole text), gathered from relevant search results, memories and their chains, compressed without cutting a chain or a sentence; blocks open with short references, one legend of sources at the end',
      )
      .argument('<query>', 'the question the context is for')
      .requiredOption('-b, --budget <n>', 'tokens the pack may take, references and legend included')
      .option('-w, --workspace <dir>', 'workspace folder')
      .option('--strategy <strategy>', 'chain_integrity (default: chains kept whole or summarized) | chain_aware | priority', 'chain_integrity')
      .option('--scope <scope>', `only this scope: ${SCOPES.join('|')}`)
      .option('-k, --top-k <n>', 'search hits gathered before compressing', '40')
      .option('--markdown', 'print the pack as Markdown (the default)')
      .option('--json', 'print one JSON document: {"query", "budget", "blocks", "result", "markdown", "legend", "tokens"}')
      .option('-v, --verbose', 'log more on stderr'),
  ).action(async (query: string, flags: ContextFlags) => {
    const logger = stderrLogger(Boolean(flags.verbose));
    let engine: Engine | undefined;
    try {
      if (flags.json && flags.markdown) throw new CairnError('INVALID_INPUT', 'give --json or --markdown, not both');
      const budget = Number(flags.budget);
      if (!Number.isInteger(budget) || budget < 1) throw new CairnError('INVALID_INPUT', `--budget must be a whole number of tokens, not ${JSON.stringify(flags.budget)}`);
      const strategy = CompressionStrategy.safeParse(flags.strategy);
      if (!strategy.success) throw new CairnError('INVALID_INPUT', `--strategy must be chain_integrity, chain_aware or priority, not ${JSON.stringify(flags.strategy)}`);
      if (flags.scope && !(SCOPES as readonly string[]).includes(flags.scope)) throw new CairnError('INVALID_INPUT', `--scope must be one of ${SCOPES.join(', ')}`);
      const topK = Number(flags.topK);
      if (!Number.isInteger(topK) || topK < 1 || topK > 200) throw new CairnError('INVALID_INPUT', `--top-k must be a whole number from 1 to 200, not ${JSON.stringify(flags.topK)}`);
      const { openEngine } = await import('../compose.js');
      engine = await openEngine({ workspace: flags.workspace, workers: 0, logger, index: indexConfig(flags, logger) });
      const pack = await engine.call('context:pack', {
        query,
        budget,
        strategy: strategy.data,
        topK,
        ...(flags.scope ? { scope: flags.scope as (typeof SCOPES)[number] } : {}),
      });
      if (flags.json) return printJson(pack);
      process.stdout.write(pack.markdown);
      const r = pack.result;
      process.stderr.write(
        `${formatCount(pack.blocks.length)} blocks gathered, ${formatCount(r.kept.length)} kept, ${formatCount(r.replaced.length)} chain summaries; ` +
          `${formatCount(r.original_tokens)} → ${formatCount(r.compressed_tokens)} tokens of blocks, ${formatCount(pack.tokens)} with references and legend (budget ${formatCount(budget)}); ` +
          `chains intact ${formatCount(r.intact_chains.length)}, broken ${formatCount(r.broken_chains.length)}\n`,
      );
    } catch (error) {
      reportError(error, flags);
    } finally {
      await engine?.dispose();
    }
  });
}
