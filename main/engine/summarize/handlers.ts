/**
 * summarize:run and summarize:estimate, spread into the engine's handlers. A summarize:run is
 * one run of the scheduler (one token budget); naming a root, or none, releases the hold on it.
 * An estimate starts no run: it calls no model and leaves the LLM's counters and budget alone.
 */
import type { CommandHandlers } from '../command-handlers.js';
import { estimateCostUsd } from '../llm/prices.js';
import type { HeldRoots } from '../queue/held-roots.js';
import type { Outbox } from '../queue/outbox.js';
import type { ContextFS } from '../tree/context-fs.js';
import { estimateSummaries } from './estimate.js';
import type { SummaryScheduler } from './scheduler.js';

export interface SummarizeHandlerDeps {
  fs: ContextFS;
  outbox: () => Promise<Outbox>;
  held: HeldRoots;
  scheduler: SummaryScheduler;
  /** Aborted when the engine stops: a run stops with it (the next one resumes its roots). */
  lifetime: AbortSignal;
  /**
   * What a new run would use, for estimates: the model, whether it is an LLM (false: extractive,
   * offline), and the children one call takes when the summarizer says (the estimate's own otherwise).
   */
  nextRun: () => { model: string; llm: boolean; maxChildren?: number | undefined };
}

export function summarizeHandlers(deps: SummarizeHandlerDeps): Pick<CommandHandlers, 'summarize:run' | 'summarize:estimate'> {
  const { held } = deps;
  return {
    'summarize:run': async (request, ctx) => {
      if (request.uri === undefined) await held.clear();
      else await held.delete(request.uri);
      return { runs: await deps.scheduler.run(AbortSignal.any([ctx.signal, deps.lifetime]), ctx.emit, request.uri) };
    },
    'summarize:estimate': async (request) => {
      const roots = request.uri ? [request.uri] : (await deps.outbox()).list({ status: ['pending', 'processing', 'failed'] }).map((m) => m.uri);
      const { model, llm, maxChildren } = deps.nextRun();
      // An extractive summarizer takes every child at once (Infinity); the LLM's batches are what is estimated.
      const options = maxChildren !== undefined && Number.isFinite(maxChildren) ? { maxChildren } : {};
      const estimates = await Promise.all(roots.map((uri) => estimateSummaries(deps.fs, uri, options)));
      return {
        estimates: estimates.map((e) => ({ ...e, cost_usd: estimateCostUsd({ inputTokens: e.input_tokens, outputTokens: e.output_tokens }, model) })),
        model,
        llm,
      };
    },
  };
}
