/**
 * `cairn summarize [URI] [--upgrade | --force] [--estimate]`: summary runs without an ingest.
 * Alone it summarizes the queued work (trees ingested with --no-summarize or --estimate);
 * `--upgrade` redoes, bottom-up, every summary under URI (default: every root) that a weaker
 * summarizer wrote than the one configured (offline → LLM, an older prompt version; another
 * model is not weaker), `--force` every summary; `--estimate` prints the calls, tokens and cost
 * of that run and makes no call. The LLM and budget flags are ingest's (llm-flags.ts).
 */
import type { Command } from 'commander';
import type { DagRunResult } from '../../../shared/contracts/api.js';
import { DEFAULT_LLM_MODEL } from '../../../shared/contracts/llm-limits.js';
import { CairnError } from '../../../shared/errors.js';
import type { RedoMode } from '../../engine/summarize/provenance.js';
import type { LlmFlags } from '../llm-config.js';
import { addLlmOptions } from '../llm-flags.js';
import { addIndexOptions, indexConfig, type IndexFlags } from '../index-config.js';
import { addLockOptions, lockWaitFromFlags, printWaits, type LockFlags } from '../lock-flags.js';
import { printJson, reportError, stderrLogger } from '../output.js';
import { costed, formatEstimate, runSummaryLines } from '../summary-report.js';

interface SummarizeFlags extends LlmFlags, IndexFlags, LockFlags {
  workspace?: string;
  upgrade?: boolean;
  force?: boolean;
  estimate?: boolean;
  json?: boolean;
  verbose?: boolean;
}

/** The one line an upgrade prints when no LLM is configured. */
export const NOTHING_STRONGER =
  'Nothing to upgrade: without an LLM the offline summarizer is the strongest there is; configure one with --llm-base-url or --llm-api-key (or $OPENAI_BASE_URL / $OPENAI_API_KEY)';

export function registerSummarize(program: Command): void {
  const command = program
    .command('summarize')
    .description('Summarize the queued trees; with --upgrade, redo the summaries a weaker summarizer wrote than the one configured')
    .argument('[uri]', 'a tree, or a node in one (default: every queued tree; with --upgrade or --force, every root)')
    .option('-w, --workspace <dir>', 'workspace folder (default: $CAIRN_WORKSPACE, else the app-data folder)');
  addLockOptions(addIndexOptions(addLlmOptions(command)))
    .option('--upgrade', 're-summarize, bottom-up, what a weaker summarizer wrote (offline or code skeleton → LLM, an older prompt version); another model is not weaker')
    .option('--force', 're-summarize every summary under URI')
    .option('--estimate', 'print the LLM calls, tokens (and cost, for known models) the run would take; summarize nothing')
    .option('--json', 'print the result as one JSON document')
    .option('-v, --verbose', 'log more on stderr')
    .action(async (uri: string | undefined, flags: SummarizeFlags) => {
      const logger = stderrLogger(Boolean(flags.verbose));
      let engine;
      try {
        if (flags.upgrade && flags.force) throw new CairnError('INVALID_INPUT', '--upgrade and --force exclude each other: --force already redoes every summary');
        const redo: RedoMode | undefined = flags.upgrade ? 'upgrade' : flags.force ? 'force' : undefined;
        const { llmFromFlags } = await import('../llm-config.js');
        const { openEngine } = await import('../compose.js');
        engine = await openEngine({
          workspace: flags.workspace,
          logger,
          index: indexConfig(flags, logger),
          llm: llmFromFlags(flags, process.env, 'one-shot'),
          lockWaitMs: lockWaitFromFlags(flags),
        });
        engine.subscribe(printWaits);
        const target = { ...(uri ? { uri } : {}), ...(redo ? { redo } : {}) };

        if (flags.estimate) {
          const { estimates, model, llm } = await engine.call('summarize:estimate', target);
          const { tokenBudget } = (await engine.call('settings:get', {})).llm;
          const reports = estimates.map((e) => costed(e, model ?? DEFAULT_LLM_MODEL, llm === true, tokenBudget));
          if (flags.json) printJson({ estimates: reports });
          else if (reports.length === 0) process.stdout.write('Nothing to summarize.\n');
          else process.stdout.write(reports.flatMap((r) => formatEstimate(r, 'Run the same command without --estimate to summarize.')).join('\n') + '\n');
          return;
        }

        const interrupt = new AbortController();
        const onSignal = () => interrupt.abort();
        process.once('SIGINT', onSignal);
        const { runs, nothingStronger } = await engine.call('summarize:run', target, { signal: interrupt.signal }).finally(() => process.off('SIGINT', onSignal));
        if (flags.json) printJson({ runs, ...(nothingStronger ? { nothing_stronger: true } : {}) });
        else if (nothingStronger) process.stdout.write(`${NOTHING_STRONGER}\n`);
        else printRuns(runs, redo);
      } catch (error) {
        reportError(error, flags);
      } finally {
        await engine?.dispose();
      }
    });
}

function printRuns(runs: DagRunResult[], redo: RedoMode | undefined): void {
  if (runs.length === 0) {
    process.stdout.write(redo ? 'Nothing to summarize: no tree in this workspace.\n' : 'Nothing queued to summarize (--upgrade redoes what a weaker summarizer wrote).\n');
    return;
  }
  const verb = redo === 'upgrade' ? 'Upgraded' : redo === 'force' ? 'Re-summarized' : 'Summarized';
  const lines = runs.flatMap((run) => [`${verb} ${run.root}`, ...runSummaryLines(run)]);
  process.stdout.write(lines.join('\n') + '\n');
}
