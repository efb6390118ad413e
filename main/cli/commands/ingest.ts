import { resolve } from 'node:path';
import type { Command } from 'commander';
import { SingleBar, Presets } from 'cli-progress';
import type { DagRunResult, EngineEvent, LlmStatsView } from '../../../shared/contracts/api.js';
import { DEFAULT_LLM_MODEL } from '../../../shared/contracts/llm-limits.js';
import type { IngestResult, Skip } from '../../../shared/types/ingest.js';
import { CairnError } from '../../../shared/errors.js';
import { INGEST_SCOPES, type IngestScope } from '../../../shared/uri.js';
import { isGitUrl } from '../../../shared/git-url.js';
import type { LlmFlags } from '../llm-config.js';
import { addLlmOptions } from '../llm-flags.js';
import { addIndexOptions, indexConfig, type IndexFlags } from '../index-config.js';
import { addLockOptions, lockWaitFromFlags, printWaits, type LockFlags } from '../lock-flags.js';
import { formatBytes, formatCount, formatMs } from '../../../shared/format.js';
import { costed, formatEstimate, runSummaryLines, type EstimateReport } from '../summary-report.js';
import { printJson, reportError, stderrLogger } from '../output.js';
import { treeCounts } from '../../../shared/tree-counts.js';

interface IngestFlags extends LlmFlags, IndexFlags, LockFlags {
  workspace?: string;
  scope: string;
  name?: string;
  reason?: string;
  json?: boolean;
  verbose?: boolean;
  workers?: string;
  maxFileSize?: string;
  maxTokens?: string;
  minTokens?: string;
  codeMode?: string;
  progress: boolean;
  summarize: boolean;
  estimate?: boolean;
  ref?: string;
}

export function registerIngest(program: Command): void {
  const command = program
    .command('ingest')
    .description('Turn a folder, a file or a git repository into a context tree in the workspace (resumes an interrupted run of the same ingest)')
    .argument('<path>', 'folder or file to ingest, or a git URL (https://, ssh://, git@host:path, file://) to clone and ingest')
    .option('--ref <ref>', 'git: the branch, tag or commit to ingest (default: the default branch); with a local path, clones that repository')
    .option('-w, --workspace <dir>', 'workspace folder (default: $CAIRN_WORKSPACE, else the app-data folder)')
    .option('--scope <scope>', `where the tree goes: ${INGEST_SCOPES.join('|')}`, 'resources')
    .option('--name <name>', 'node name under the scope (default: the folder or file name)')
    .option('--reason <text>', "why it is added, kept on the root's meta (meta.reason; shown in the Explorer)")
    .option('--workers <n>', 'parse worker threads (0 = parse, and embed and index, in this thread; default: one per core)')
    .option('--max-file-size <bytes>', 'skip files larger than this', String(10 * 1024 * 1024))
    .option('--max-tokens <n>', 'documents up to this many tokens stay one node', '1024')
    .option('--min-tokens <n>', 'sections under this many tokens merge with neighbours', '512')
    .option('--code-mode <mode>', 'code summaries: ast|llm|ast_llm', 'ast');
  addLockOptions(addIndexOptions(addLlmOptions(command)))
    .option('--no-summarize', 'only build the tree; leave the L0/L1 summaries queued for later')
    .option('--estimate', 'build the tree (no LLM calls), then print the LLM calls and tokens (and cost, for known models) summarizing it would take; run again without --estimate to summarize')
    .option('--no-progress', 'no progress bar on stderr')
    .option('--json', 'print the result as one JSON document')
    .option('-v, --verbose', 'log more on stderr')
    .action(async (path: string, flags: IngestFlags) => {
      const logger = stderrLogger(Boolean(flags.verbose));
      let engine;
      try {
        if (!(INGEST_SCOPES as readonly string[]).includes(flags.scope)) {
          throw new CairnError('INVALID_INPUT', `--scope must be one of ${INGEST_SCOPES.join(', ')}, not ${JSON.stringify(flags.scope)}`);
        }
        // Loaded here, not at start-up, so `cairn --help` and other commands never pay for them.
        const { llmFromFlags } = await import('../llm-config.js');
        const { openEngine } = await import('../compose.js');
        engine = await openEngine({
          workspace: flags.workspace,
          workers: flags.workers === undefined ? undefined : toInt(flags.workers, '--workers'),
          logger,
          index: indexConfig(flags, logger),
          llm: llmFromFlags(flags, process.env, 'one-shot'),
          lockWaitMs: lockWaitFromFlags(flags),
        });
        engine.subscribe(printWaits);
        const progress = flags.progress && process.stderr.isTTY ? progressBar() : null;
        const interrupt = new AbortController();
        // Ctrl-C while waiting for another process's ingest: nothing was written yet, so just stop.
        let waiting = false;
        engine.subscribe((event) => {
          if (event.type === 'workspace/waiting') waiting = true;
          else if (event.type === 'ingest/started') waiting = false;
        });
        const onSignal = () => {
          interrupt.abort();
          if (!waiting) return;
          reportError(new CairnError('CANCELLED', 'Stopped while waiting for the workspace; nothing was ingested'), flags);
          process.exit(process.exitCode);
        };
        process.once('SIGINT', onSignal);
        const events = (event: EngineEvent) => progress?.update(event);
        // A local repository stays a folder (its working files as they are) unless a ref asks for a clone.
        const git = isGitUrl(path) || flags.ref !== undefined ? { ...(flags.ref !== undefined ? { ref: flags.ref } : {}) } : undefined;
        const source = git && !isGitUrl(path) ? resolve(path) : path;
        let result: IngestOutput = await engine
          .call(
            'ingest:start',
            {
              path: source,
              ...(git ? { git } : {}),
              // The summary run below optimizes the index when it ends.
              summaryFollows: flags.summarize && !flags.estimate,
              options: {
                scope: flags.scope as IngestScope,
                ...(flags.name ? { name: flags.name } : {}),
                ...(flags.reason !== undefined ? { reason: flags.reason } : {}),
                maxFileBytes: toInt(flags.maxFileSize ?? '', '--max-file-size'),
                split: { maxTokens: toInt(flags.maxTokens ?? '', '--max-tokens'), minTokens: toInt(flags.minTokens ?? '', '--min-tokens') },
                codeSummaryMode: flags.codeMode as 'ast' | 'llm' | 'ast_llm',
              },
            },
            { signal: interrupt.signal, onEvent: events },
          )
          .finally(() => progress?.stop());
        if (flags.estimate) {
          const { estimates, model, llm } = await engine.call('summarize:estimate', { uri: result.root });
          const { tokenBudget } = (await engine.call('settings:get', {})).llm;
          result = { ...result, estimate: costed(estimates[0]!, model ?? DEFAULT_LLM_MODEL, llm === true, tokenBudget) };
        } else if (flags.summarize) {
          const { runs } = await engine
            .call('summarize:run', { uri: result.root }, { signal: interrupt.signal, onEvent: events })
            .finally(() => progress?.stop());
          const summary = runs.find((run) => run.root === result.root) ?? runs[0];
          if (summary) result = { ...result, llm_calls: result.llm_calls + summary.llm_calls, summary };
        }
        process.off('SIGINT', onSignal);
        const stats = await engine.call('llm:stats', {});
        if (stats.active && !flags.estimate) result = { ...result, llm: llmReport(stats) };
        if (flags.json) printJson(result);
        else printSummary(path, result);
      } catch (error) {
        reportError(error, flags);
      } finally {
        await engine?.dispose();
      }
    });
}

function toInt(text: string, flag: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0) throw new CairnError('INVALID_INPUT', `${flag} must be a whole number, not ${JSON.stringify(text)}`);
  return value;
}

/** A progress bar on stderr that follows the ingest's phases. */
function progressBar() {
  const bar = new SingleBar(
    { format: ' {phase} [{bar}] {value}/{total} {bytes} {current}', hideCursor: true, clearOnComplete: true, stream: process.stderr, fps: 10, barsize: 30 },
    Presets.shades_classic,
  );
  let phase = '';
  let started = false;
  return {
    update(event: EngineEvent) {
      if (event.type.startsWith('dag/') && 'counts' in event) {
        const c = event.counts;
        const { files } = treeCounts(c);
        const payload = { phase: 'summary ', bytes: `${formatCount(files.done)}/${formatCount(files.total)} files`, current: event.uri.slice(-40) };
        if (phase !== 'dag') {
          if (started) bar.stop();
          bar.start(Math.max(c.dirs_total, 1), c.dirs_done, payload);
          started = true;
          phase = 'dag';
        }
        bar.setTotal(Math.max(c.dirs_total, 1));
        bar.update(c.dirs_done, payload);
        return;
      }
      if (event.type !== 'ingest/progressed') return;
      const label = { scan: 'scanning', parse: 'parsing ', build: 'building' }[event.phase];
      const payload = { phase: label, bytes: formatBytes(event.bytes), current: (event.current ?? '').slice(-40) };
      if (!started || phase !== event.phase) {
        if (started) bar.stop();
        bar.start(event.total ?? event.done, event.done, payload);
        started = true;
        phase = event.phase;
        return;
      }
      if (event.total !== null) bar.setTotal(event.total);
      else bar.setTotal(Math.max(event.done, 1));
      bar.update(event.done, payload);
    },
    stop() {
      if (started) bar.stop();
      started = false;
      phase = '';
    },
  };
}

/** What `--json` prints about the LLM: the model and server, counts and the budget; never the key. */
interface LlmReport {
  model: string;
  base_url: string | null;
  calls: number;
  retries: number;
  failed: number;
  input_tokens: number;
  output_tokens: number;
  fallbacks: number;
  fallback_reasons: Record<string, number>;
  token_budget: { max: number; spent: number; refusals: number; exhausted: boolean } | null;
}

type IngestOutput = IngestResult & { summary?: DagRunResult; llm?: LlmReport; estimate?: EstimateReport };

/** The engine's LLM counters (llm:stats) as `--json` has always printed them. */
function llmReport(s: LlmStatsView): LlmReport {
  const b = s.budget;
  return {
    model: s.model ?? DEFAULT_LLM_MODEL,
    base_url: s.baseUrl,
    calls: s.calls,
    retries: s.retries,
    failed: s.failed,
    input_tokens: s.inputTokens,
    output_tokens: s.outputTokens,
    fallbacks: s.fallbacks,
    fallback_reasons: s.fallbackReasons,
    token_budget: b ? { max: b.maxTokens, spent: b.spent, refusals: b.refusals, exhausted: b.exhausted } : null,
  };
}

function printSummary(path: string, result: IngestOutput): void {
  const out: string[] = [];
  const at = result.git ? ` at ${result.git.ref} (${result.git.commit.slice(0, 12)})` : '';
  out.push(`Ingested ${path}${at} → ${result.root}${result.resumed ? ' (resumed an interrupted run)' : ''}`);
  out.push(
    `  ${formatCount(result.files)} files, ${formatCount(result.nodes)} nodes (${formatCount(result.changed)} new or changed, ${formatCount(result.removed)} removed), ` +
      `${formatBytes(result.bytes)}, ${formatCount(result.tokens)} tokens, ${formatMs(result.ms)}`,
  );
  if (result.summary) out.push(...runSummaryLines(result.summary));
  if (result.estimate) out.push(...formatEstimate(result.estimate, 'Run the same command without --estimate to summarize.'));
  if (result.llm) {
    const l = result.llm;
    const reasons = Object.entries(l.fallback_reasons).map(([reason, n]) => `${reason} ${formatCount(n)}`);
    out.push(
      `  LLM ${l.model}: ${formatCount(l.calls)} calls (${formatCount(l.retries)} retries, ${formatCount(l.failed)} failed), ` +
        `${formatCount(l.input_tokens)} input + ${formatCount(l.output_tokens)} output tokens, ${formatCount(l.fallbacks)} fallbacks${reasons.length ? ` (${reasons.join(', ')})` : ''}`,
    );
    if (l.token_budget?.exhausted) {
      out.push(`  The token budget of ${formatCount(l.token_budget.max)} ran out: ${formatCount(l.token_budget.refusals)} calls were refused and fell back to offline summaries.`);
    }
  } else if (result.summary) {
    out.push('  No LLM configured: summaries are extractive (set --llm-base-url or --llm-api-key).');
  }
  if (result.skipped.length === 0) out.push('  Nothing skipped.');
  else out.push(...formatSkips(result.skipped));
  out.push(`Browse it: cairn tree ${result.root}`);
  process.stdout.write(out.join('\n') + '\n');
}

const SKIPS_SHOWN_PER_REASON = 10;

export function formatSkips(skipped: Skip[]): string[] {
  const byReason = new Map<string, Skip[]>();
  for (const skip of skipped) byReason.set(skip.reason, [...(byReason.get(skip.reason) ?? []), skip]);
  const lines = [`  Skipped ${formatCount(skipped.length)}:`];
  for (const [reason, skips] of [...byReason].sort((a, b) => b[1].length - a[1].length)) {
    lines.push(`    ${reason} (${formatCount(skips.length)})`);
    for (const skip of skips.slice(0, SKIPS_SHOWN_PER_REASON)) lines.push(`      ${JSON.stringify(skip.path).slice(1, -1)}${skip.detail ? `: ${skip.detail}` : ''}`);
    if (skips.length > SKIPS_SHOWN_PER_REASON) lines.push(`      … and ${formatCount(skips.length - SKIPS_SHOWN_PER_REASON)} more (--json lists every skip)`);
  }
  return lines;
}
