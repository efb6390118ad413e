import type { Command } from 'commander';
import { resolve, sep } from 'node:path';
import type { DagRunResult } from '../../../shared/contracts/api.js';
import { CairnError } from '../../../shared/errors.js';
import { INGEST_SCOPES, type IngestScope } from '../../../shared/uri.js';
import type { Engine } from '../../engine/engine.js';
import type { LlmFlags } from '../llm-config.js';
import { addIndexOptions, indexConfig, type IndexFlags } from '../index-config.js';
import { addLlmOptions } from '../llm-flags.js';
import { addLockOptions, lockWaitFromFlags, printWaits, type LockFlags } from '../lock-flags.js';
import { formatFallbacks } from '../../../shared/fallback-causes.js';
import { formatCount, formatMs } from '../../../shared/format.js';
import { reportError, stderrLogger } from '../output.js';

interface WatchFlags extends LlmFlags, IndexFlags, LockFlags {
  workspace?: string;
  scope: string;
  name?: string;
  debounce: string;
  json?: boolean;
  verbose?: boolean;
}

/** One ingest + summary pass, as `--json` prints it (one object per line). */
interface Cycle {
  at: string;
  /** "initial", or the changed paths (relative to the watched folder) that started it. */
  reason: 'initial' | 'changes';
  paths: string[];
  root: string;
  files: number;
  changed: number;
  removed: number;
  summary: Pick<DagRunResult, 'dirsSummarized' | 'dirsReused' | 'filesSummarized' | 'fallbacks' | 'fallback_causes' | 'llm_calls'> | null;
  ms: number;
}

/** Paths shown per cycle in text mode. */
const PATHS_SHOWN = 5;

export function registerWatch(program: Command): void {
  const command = program
    .command('watch')
    .description('Ingest a folder, then keep it in step: each change re-parses only the changed files and re-summarizes only their ancestors')
    .argument('<path>', 'folder to watch')
    .option('-w, --workspace <dir>', 'workspace folder (default: $CAIRN_WORKSPACE, else the app-data folder)')
    .option('--scope <scope>', `where the tree goes: ${INGEST_SCOPES.join('|')}`, 'resources')
    .option('--name <name>', 'node name under the scope (default: the folder name)')
    .option('--debounce <ms>', 'wait this long after the last change before updating', '300');
  addLockOptions(addIndexOptions(addLlmOptions(command)))
    .option('--json', 'print one JSON object per update (JSON Lines) on stdout')
    .option('-v, --verbose', 'log more on stderr')
    .action(async (path: string, flags: WatchFlags) => {
      const logger = stderrLogger(Boolean(flags.verbose));
      let engine: Engine | undefined;
      let watcher: { close(): Promise<void> } | undefined;
      const stop = new AbortController();
      const stopped = new Promise<void>((done) => {
        const finish = () => {
          stop.abort();
          done();
        };
        process.once('SIGINT', finish);
        process.once('SIGTERM', finish);
      });
      try {
        if (!(INGEST_SCOPES as readonly string[]).includes(flags.scope)) {
          throw new CairnError('INVALID_INPUT', `--scope must be one of ${INGEST_SCOPES.join(', ')}, not ${JSON.stringify(flags.scope)}`);
        }
        const debounceMs = Number(flags.debounce);
        if (!Number.isInteger(debounceMs) || debounceMs < 0) throw new CairnError('INVALID_INPUT', `--debounce must be a whole number of milliseconds, not ${JSON.stringify(flags.debounce)}`);
        const { llmFromFlags } = await import('../llm-config.js');
        const { openEngine } = await import('../compose.js');
        const { resolveWorkspace } = await import('../../host/app-paths.js');
        const { watch } = await import('chokidar');
        const llm = llmFromFlags(flags, process.env, 'one-shot');
        const folder = resolve(path);
        const workspace = resolve(resolveWorkspace(flags.workspace));
        // Each cycle's summarize:run is one run of the engine's LLM: it gets the whole --token-budget.
        engine = await openEngine({ workspace, logger, index: indexConfig(flags, logger), llm, lockWaitMs: lockWaitFromFlags(flags) });
        engine.subscribe(printWaits);
        const running = engine;
        const options = { scope: flags.scope as IngestScope, ...(flags.name ? { name: flags.name } : {}) };

        const cycle = async (reason: Cycle['reason'], paths: string[]): Promise<void> => {
          const started = performance.now();
          const result = await running.call('ingest:start', { path: folder, options }, { signal: stop.signal });
          const { runs } = await running.call('summarize:run', { uri: result.root }, { signal: stop.signal });
          const run = runs.find((r) => r.root === result.root) ?? null;
          report(
            {
              at: new Date().toISOString(),
              reason,
              paths,
              root: result.root,
              files: result.files,
              changed: result.changed,
              removed: result.removed,
              summary: run && { dirsSummarized: run.dirsSummarized, dirsReused: run.dirsReused, filesSummarized: run.filesSummarized, fallbacks: run.fallbacks, fallback_causes: run.fallback_causes ?? [], llm_calls: run.llm_calls },
              ms: Math.round(performance.now() - started),
            },
            Boolean(flags.json),
          );
        };

        // Changes are gathered while the timer runs and while an update is under way; one update
        // then covers them all, so a burst of saves costs one pass.
        const changed = new Set<string>();
        let timer: NodeJS.Timeout | undefined;
        let busy: Promise<void> | null = null;
        const update = () => {
          timer = undefined;
          if (busy || changed.size === 0) return;
          const paths = [...changed].sort();
          changed.clear();
          busy = cycle('changes', paths)
            .catch((error: unknown) => {
              if (!stop.signal.aborted) logger.error(`Update failed: ${(error as Error).message ?? String(error)}`);
            })
            .finally(() => {
              busy = null;
              if (changed.size > 0 && !stop.signal.aborted) update();
            });
        };
        const inWorkspace = (p: string) => p === workspace || p.startsWith(workspace + sep);
        const fsWatcher = watch(folder, {
          ignoreInitial: true,
          // The workspace may sit inside the folder: its own writes must not wake the watcher.
          ignored: (p: string) => inWorkspace(resolve(p)) || /(^|[\\/])\.git([\\/]|$)/.test(p),
        });
        watcher = fsWatcher;
        fsWatcher.on('all', (_event, changedPath) => {
          changed.add(changedPath.slice(folder.length + 1) || '.');
          clearTimeout(timer);
          timer = setTimeout(update, debounceMs);
        });
        fsWatcher.on('error', (error) => logger.warn(`Watching ${folder}: ${(error as Error).message ?? String(error)}`));
        // Watching starts before the first pass, so an edit made while it runs is not missed.
        await new Promise<void>((ready) => fsWatcher.once('ready', ready));
        busy = cycle('initial', []).finally(() => {
          busy = null;
          if (changed.size > 0 && !stop.signal.aborted) update();
        });
        await busy;
        if (!flags.json) process.stderr.write(`Watching ${folder} (Ctrl+C to stop)\n`);

        await stopped;
        clearTimeout(timer);
        await busy;
      } catch (error) {
        // Ctrl+C during a pass cancels it; that is a clean stop (the next run resumes it).
        if (!stop.signal.aborted) reportError(error, flags);
      } finally {
        await watcher?.close();
        await engine?.dispose();
      }
    });
}

function report(cycle: Cycle, json: boolean): void {
  if (json) {
    process.stdout.write(JSON.stringify(cycle) + '\n');
    return;
  }
  const time = cycle.at.slice(11, 19);
  const s = cycle.summary;
  const summary = s
    ? `${plural(s.dirsSummarized, 'directory', 'directories')} and ${plural(s.filesSummarized, 'file', 'files')} summarized, ${plural(s.dirsReused, 'directory', 'directories')} unchanged` +
      (s.llm_calls ? `, ${formatCount(s.llm_calls)} LLM calls` : '') +
      (s.fallbacks ? `, ${formatFallbacks(s.fallbacks, s.fallback_causes)}` : '')
    : 'no summary run';
  const what =
    cycle.reason === 'initial'
      ? `${cycle.root}: ${plural(cycle.files, 'file', 'files')}`
      : `${cycle.paths.slice(0, PATHS_SHOWN).join(', ')}${cycle.paths.length > PATHS_SHOWN ? ` and ${formatCount(cycle.paths.length - PATHS_SHOWN)} more` : ''}`;
  process.stdout.write(`${time}  ${what}: ${plural(cycle.changed, 'node', 'nodes')} new or changed, ${formatCount(cycle.removed)} removed; ${summary} (${formatMs(cycle.ms)})\n`);
}

function plural(n: number, one: string, many: string): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}
