/**
 * ingest:start, ingest:cancel and ingest:recent, spread into the engine's handlers. An ingest
 * runs until it finishes, its caller cancels it (the call's signal or ingest:cancel), or the
 * engine stops (`lifetime`).
 */
import { IngestOptions } from '../../../shared/types/ingest.js';
import { CairnError } from '../../../shared/errors.js';
import type { CommandHandlers } from '../command-handlers.js';
import type { EngineIndex } from '../ports/engine-index.js';
import type { ParseRunner } from '../parse/runner.js';
import type { Clock } from '../ports/clock.js';
import { noopIndex } from '../ports/context-index.js';
import type { Logger } from '../ports/logger.js';
import type { HeldRoots } from '../queue/held-roots.js';
import type { Outbox } from '../queue/outbox.js';
import type { ContextFS } from '../tree/context-fs.js';
import { withGitCheckout } from './git-source.js';
import { ingest } from './ingest.js';
import type { JobStore } from './job-store.js';
import { noteIngest, recentIngests } from './recent.js';

export interface IngestHandlerDeps {
  fs: ContextFS;
  jobs: JobStore;
  parser: ParseRunner;
  index: EngineIndex | null;
  outbox: () => Promise<Outbox>;
  /** Roots ingested with `summarize: false` are held here, out of background summary runs. */
  held: HeldRoots;
  optimizeIndex: () => Promise<void>;
  /** After an ingest finished (the app then summarizes in the background). */
  onIngested: () => void;
  lifetime: AbortSignal;
  logger: Logger;
  clock: Clock;
  /** Whether the next summary run would summarize files offline (no LLM configured): the ingest then does it. */
  filesSummarizedOffline?: () => boolean;
}

export function ingestHandlers(deps: IngestHandlerDeps): Pick<CommandHandlers, 'ingest:start' | 'ingest:cancel' | 'ingest:recent'> {
  const { fs, index, held, logger, clock } = deps;
  const running = new Map<string, AbortController>();
  return {
    'ingest:start': async (request, ctx) => {
      const options = IngestOptions.parse(request.options ?? {});
      const jobId = request.jobId ?? crypto.randomUUID();
      const cancel = new AbortController();
      running.set(jobId, cancel);
      let letGo: (() => void) | undefined;
      try {
        // One ingest at a time in a workspace, whichever process runs it: this waits for another
        // (or refuses, as the host chose) and keeps the workspace until this one is done.
        const queue = await deps.outbox();
        letGo = await queue.hold(`the ingest of ${request.path}`);
        // Opens the index with the first file that changed, beside its parse, so neither the
        // ingest's first records nor the summary run after it wait for LanceDB and the embedder
        // to load; an unchanged tree (no parse) never loads them (issue 20: a re-ingest under 1 s).
        let indexPrepared = false;
        const parser: ParseRunner = {
          concurrency: deps.parser.concurrency,
          dispose: () => deps.parser.dispose(),
          parse: (input, parseSignal) => {
            if (!indexPrepared) void index?.prepare?.();
            indexPrepared = true;
            return deps.parser.parse(input, parseSignal);
          },
        };
        // Held summaries (--no-summarize, --estimate) stay owed: they may be meant for an LLM.
        const summarizeFilesAtParse = request.summarize !== false && (deps.filesSummarizedOffline?.() ?? false);
        const ingestDeps = { fs, jobs: deps.jobs, parser, index: index ?? noopIndex, queue, logger, clock, summarizeFilesAtParse };
        const signal = AbortSignal.any([cancel.signal, ctx.signal, deps.lifetime]);
        const run = { signal, emit: ctx.emit, jobId };
        const result = await (
          request.git
            ? // A repository: its checkout is ingested as the URL's tree, then removed.
              withGitCheckout({ url: request.path, ref: request.git.ref }, { signal }, async ({ dir, remote, ref, commit, name }) => {
                const git = { remote, ref, commit };
                return { ...(await ingest(ingestDeps, dir, options, run, { source: remote, name, rootMeta: { git } })), git };
              })
            : ingest(ingestDeps, request.path, options, run)
        ).catch((error: unknown) => {
          const cairn = CairnError.is(error) ? error : new CairnError('INTERNAL', String((error as Error)?.message ?? error), { cause: error });
          ctx.emit({ type: 'ingest/failed', jobId, error: { code: cairn.code, message: cairn.message } });
          throw cairn;
        });
        // Rows are searchable before an optimize (unindexed ones by a flat scan); it only makes
        // searches fast, so it waits for the summary run when one follows at once.
        if (result.changed > 0 && request.summaryFollows !== true) await deps.optimizeIndex();
        if (request.summarize === false) await held.add(result.root);
        else await held.delete(result.root);
        await noteIngest(fs, result, clock, logger);
        ctx.emit({ type: 'ingest/finished', jobId: result.jobId, result });
        deps.onIngested();
        return result;
      } finally {
        letGo?.();
        running.delete(jobId);
      }
    },
    'ingest:cancel': async (request) => {
      const controller = running.get(request.jobId);
      controller?.abort();
      return { cancelled: controller !== undefined };
    },
    'ingest:recent': async (request) => {
      // The outbox says what is queued or running; without it (another process holds it) the metas still answer.
      const queued = await deps
        .outbox()
        .then((queue) => queue.list({ status: ['pending', 'processing', 'failed'] }))
        .catch(() => []);
      return { items: await recentIngests(fs, queued, request.limit) };
    },
  };
}
