import type { Command } from 'commander';
import { SingleBar, Presets } from 'cli-progress';
import type { DagRunResult, EngineEvent } from '../../../shared/contracts/api.js';
import type { IngestResult, Skip } from '../../../shared/types/ingest.js';
import { INGEST_SCOPES, type IngestScope } from '../../../shared/uri.js';
import { openEngine } from '../compose.js';
import { formatBytes, formatCount, formatMs, printJson, reportError, stderrLogger } from '../output.js';

interface IngestFlags {
  workspace?: string;
  scope: string;
  name?: string;
  json?: boolean;
  verbose?: boolean;
  workers?: string;
  maxFileSize?: string;
  maxTokens?: string;
  minTokens?: string;
  codeMode?: string;
  progress: boolean;
  summarize: boolean;
}

export function registerIngest(program: Command): void {
  program
    .command('ingest')
    .description('Turn a folder or a file into a context tree in the workspace (resumes an interrupted run of the same ingest)')
    .argument('<path>', 'folder or file to ingest')
    .option('-w, --workspace <dir>', 'workspace folder (default: $CAIRN_WORKSPACE, else the app-data folder)')
    .option('--scope <scope>', `where the tree goes: ${INGEST_SCOPES.join('|')}`, 'resources')
    .option('--name <name>', 'node name under the scope (default: the folder or file name)')
    .option('--workers <n>', 'parse worker threads (0 = parse in this thread; default: one per core)')
    .option('--max-file-size <bytes>', 'skip files larger than this', String(10 * 1024 * 1024))
    .option('--max-tokens <n>', 'documents up to this many tokens stay one node', '1024')
    .option('--min-tokens <n>', 'sections under this many tokens merge with neighbours', '512')
    .option('--code-mode <mode>', 'code summaries: ast|llm|ast_llm', 'ast')
    .option('--no-summarize', 'only build the tree; leave the L0/L1 summaries queued for later')
    .option('--no-progress', 'no progress bar on stderr')
    .option('--json', 'print the result as one JSON document')
    .option('-v, --verbose', 'log more on stderr')
    .action(async (path: string, flags: IngestFlags) => {
      const logger = stderrLogger(Boolean(flags.verbose));
      let engine;
      try {
        if (!(INGEST_SCOPES as readonly string[]).includes(flags.scope)) {
          throw new Error(`--scope must be one of ${INGEST_SCOPES.join(', ')}, not ${JSON.stringify(flags.scope)}`);
        }
        engine = await openEngine({ workspace: flags.workspace, workers: flags.workers === undefined ? undefined : toInt(flags.workers, '--workers'), logger });
        const progress = flags.progress && process.stderr.isTTY ? progressBar() : null;
        const interrupt = new AbortController();
        const onSignal = () => interrupt.abort();
        process.once('SIGINT', onSignal);
        const events = (event: EngineEvent) => progress?.update(event);
        let result: IngestResult & { summary?: DagRunResult } = await engine
          .call(
            'ingest:start',
            {
              path,
              options: {
                scope: flags.scope as IngestScope,
                ...(flags.name ? { name: flags.name } : {}),
                maxFileBytes: toInt(flags.maxFileSize ?? '', '--max-file-size'),
                split: { maxTokens: toInt(flags.maxTokens ?? '', '--max-tokens'), minTokens: toInt(flags.minTokens ?? '', '--min-tokens') },
                codeSummaryMode: flags.codeMode as 'ast' | 'llm' | 'ast_llm',
              },
            },
            { signal: interrupt.signal, onEvent: events },
          )
          .finally(() => progress?.stop());
        if (flags.summarize) {
          const { runs } = await engine
            .call('summarize:run', { uri: result.root }, { signal: interrupt.signal, onEvent: events })
            .finally(() => progress?.stop());
          const summary = runs.find((run) => run.root === result.root) ?? runs[0];
          if (summary) result = { ...result, llm_calls: result.llm_calls + summary.llm_calls, summary };
        }
        process.off('SIGINT', onSignal);
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
  if (!Number.isInteger(value) || value < 0) throw new Error(`${flag} must be a whole number, not ${JSON.stringify(text)}`);
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
        const payload = { phase: 'summary ', bytes: `${formatCount(c.files_done)}/${formatCount(c.files_total)} files`, current: event.uri.slice(-40) };
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

function printSummary(path: string, result: IngestResult & { summary?: DagRunResult }): void {
  const out: string[] = [];
  out.push(`Ingested ${path} → ${result.root}${result.resumed ? ' (resumed an interrupted run)' : ''}`);
  out.push(
    `  ${formatCount(result.files)} files, ${formatCount(result.nodes)} nodes (${formatCount(result.changed)} new or changed, ${formatCount(result.removed)} removed), ` +
      `${formatBytes(result.bytes)}, ${formatCount(result.tokens)} tokens, ${formatMs(result.ms)}`,
  );
  if (result.summary) {
    const s = result.summary;
    out.push(
      `  Summaries: ${formatCount(s.dirsSummarized)} directories and ${formatCount(s.filesSummarized)} files summarized, ` +
        `${formatCount(s.dirsReused)} directories unchanged, ${formatCount(s.fallbacks)} fallbacks, ${formatCount(s.llm_calls)} LLM calls, ${formatMs(s.ms)}`,
    );
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
