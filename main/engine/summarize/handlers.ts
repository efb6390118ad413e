/**
 * summarize:run and summarize:estimate, spread into the engine's handlers. A summarize:run is
 * one run of the scheduler (one token budget); naming a root, or none, releases the hold on it.
 * An estimate starts no run: it calls no model and leaves the LLM's counters and budget alone.
 * With `redo` (issue 18) a run or an estimate covers the named node's subtree, or every root, and
 * redoes what a weaker summarizer wrote ('upgrade') or everything ('force'); an upgrade with no
 * LLM configured does nothing (the offline summarizer is the strongest there is).
 */
import type { SummarizerProvenance } from '../../../shared/types/node.js';
import { formatCtxUri, INGEST_SCOPES, parseCtxUri, scopeRootUri } from '../../../shared/uri.js';
import type { CommandHandlers } from '../command-handlers.js';
import { estimateCostUsd } from '../llm/prices.js';
import type { HeldRoots } from '../queue/held-roots.js';
import type { Outbox } from '../queue/outbox.js';
import type { ContextFS } from '../tree/context-fs.js';
import { estimateSummaries } from './estimate.js';
import { SUMMARY_PROMPT_VERSION } from './llm-summarizer.js';
import { redoPredicate, redoWithin } from './provenance.js';
import type { RedoTarget, SummaryScheduler } from './scheduler.js';

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
      const signal = AbortSignal.any([ctx.signal, deps.lifetime]);
      if (request.redo) {
        if (request.redo === 'upgrade' && !deps.nextRun().llm) return { runs: [], nothingStronger: true };
        return { runs: await deps.scheduler.redo(signal, ctx.emit, await redoTargets(deps.fs, request.uri), request.redo) };
      }
      if (request.uri === undefined) await held.clear();
      else await held.delete(request.uri);
      return { runs: await deps.scheduler.run(signal, ctx.emit, request.uri) };
    },
    'summarize:estimate': async (request) => {
      const targets: RedoTarget[] = request.redo
        ? await redoTargets(deps.fs, request.uri)
        : (request.uri ? [request.uri] : (await deps.outbox()).list({ status: ['pending', 'processing', 'failed'] }).map((m) => m.uri)).map((uri) => ({ root: uri, within: uri }));
      const { model, llm, maxChildren } = deps.nextRun();
      // What the next run's summarizer would record (the LLM's even offline: the figures say what it would take).
      const next: SummarizerProvenance = { kind: 'llm', model, prompt_version: SUMMARY_PROMPT_VERSION };
      // An extractive summarizer takes every child at once (Infinity); the LLM's batches are what is estimated.
      const options = {
        ...(maxChildren !== undefined && Number.isFinite(maxChildren) ? { maxChildren } : {}),
      };
      const redo = request.redo;
      const estimates = await Promise.all(
        targets.map(({ root, within }) => estimateSummaries(deps.fs, root, { ...options, ...(redo ? { redo: redoWithin(within, redoPredicate(redo, next)) } : {}) })),
      );
      return {
        estimates: estimates.map((e) => ({ ...e, cost_usd: estimateCostUsd({ inputTokens: e.input_tokens, outputTokens: e.output_tokens }, model) })),
        model,
        llm,
      };
    },
  };
}

/**
 * What a redo covers: the tree `uri` is in, limited to `uri` (a scope: each of its trees); without
 * a URI, every tree of the ingest scopes (folders and single files).
 */
async function redoTargets(fs: ContextFS, uri: string | undefined): Promise<RedoTarget[]> {
  const whole = (roots: string[]) => roots.map((root) => ({ root, within: root }));
  if (uri === undefined) {
    const roots: string[] = [];
    for (const scope of INGEST_SCOPES) roots.push(...(await fs.ls(scopeRootUri(scope)).catch(() => [])).map((entry) => entry.uri));
    return whole(roots);
  }
  const { uri: within } = await fs.canonicalUri(uri);
  const { scope, segments } = parseCtxUri(within);
  if (segments.length === 0) return whole((await fs.ls(within)).map((entry) => entry.uri));
  const { uri: root } = await fs.canonicalUri(formatCtxUri({ scope, segments: segments.slice(0, 1), isDir: segments.length > 1 }));
  return [{ root, within }];
}
