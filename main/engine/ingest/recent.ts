/**
 * The folders ingested into a workspace, for the Home view's "Recent" list (ingest:recent).
 *
 * Nothing new is kept beside the tree: each ingest notes `last_ingest` (when, files, bytes,
 * skips) on its root's meta, each summary run `last_summary` (its fallbacks and their causes), and the list is the roots of the ingest scopes that came from a
 * source path, newest first, with where their summaries stand (the outbox while queued or
 * running, else the root's summary_status). A root ingested before `last_ingest` existed shows
 * its meta's updated_at and no file count.
 *
 * @example
 * await noteIngest(fs, result, systemClock, logger);
 * const items = await recentIngests(fs, outbox.list({ status: ['pending', 'processing', 'failed'] }), 20);
 * items[0]; // { root: 'ctx://resources/docs/', source: '/data/docs', at: '2026-…', files: 9, state: 'queued', … }
 */
import { LastIngest, LastSummaryRun, type DagRunResult, type RecentIngest, type RecentIngestState } from '../../../shared/contracts/api.js';
import type { IngestResult } from '../../../shared/types/ingest.js';
import type { NodeMeta } from '../../../shared/types/node.js';
import { INGEST_SCOPES } from '../../../shared/uri.js';
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { ContextFS } from '../tree/context-fs.js';

/** The outbox messages that matter here (a structural subset of SemanticMsg). */
export interface QueuedRoot {
  uri: string;
  status: 'pending' | 'processing' | 'completed' | 'failed';
}

/** Notes this ingest on its root's meta; a failure to note costs the Recent list one line, never the ingest. */
export async function noteIngest(fs: ContextFS, result: IngestResult, clock: Clock, logger: Logger): Promise<void> {
  try {
    const meta = await fs.readMeta(result.root);
    if (!meta) return;
    const lastIngest: LastIngest = { at: clock.now().toISOString(), files: result.files, bytes: result.bytes, skipped: result.skipped.length };
    await fs.writeMeta(result.root, { ...meta, last_ingest: lastIngest });
  } catch (error) {
    logger.warn(`Could not note the ingest of ${result.root} for the recent list: ${String((error as Error)?.message ?? error)}`);
  }
}

/**
 * Notes a finished summary run's fallbacks on its root's meta (`last_summary`), so Home says
 * "summarized with 29 fallbacks" after a restart too; like noteIngest, a failure costs only that line.
 */
export async function noteSummaryRun(fs: ContextFS, result: DagRunResult, clock: Clock, logger: Logger): Promise<void> {
  try {
    const meta = await fs.readMeta(result.root);
    if (!meta) return;
    const run: LastSummaryRun = { at: clock.now().toISOString(), fallbacks: result.fallbacks, ...(result.fallback_causes ? { fallback_causes: result.fallback_causes } : {}) };
    await fs.writeMeta(result.root, { ...meta, last_summary: run });
  } catch (error) {
    logger.warn(`Could not note the summary run of ${result.root} for the recent list: ${String((error as Error)?.message ?? error)}`);
  }
}

const QUEUE_RANK: Record<QueuedRoot['status'], number> = { processing: 3, pending: 2, failed: 1, completed: 0 };

/** Where a root's summaries stand. */
export function stateOf(meta: NodeMeta, queued: readonly QueuedRoot[]): RecentIngestState {
  const message = queued
    .filter((m) => m.uri === meta.uri && m.status !== 'completed')
    .sort((a, b) => QUEUE_RANK[b.status] - QUEUE_RANK[a.status])[0];
  if (message?.status === 'processing') return 'summarizing';
  if (message?.status === 'pending') return 'queued';
  if (message?.status === 'failed') return 'failed';
  switch (meta.summary_status) {
    case 'done':
    case 'fallback':
      return 'summarized';
    case 'failed':
      return 'failed';
    case 'pending':
      return 'summarizing';
    default:
      return 'unsummarized';
  }
}

/** The ingested roots of every ingest scope, most recently ingested first, at most `limit`. */
export async function recentIngests(fs: ContextFS, queued: readonly QueuedRoot[], limit: number): Promise<RecentIngest[]> {
  const items: RecentIngest[] = [];
  for (const scope of INGEST_SCOPES) {
    let children: Awaited<ReturnType<ContextFS['lsWithMeta']>>;
    try {
      children = await fs.lsWithMeta(`ctx://${scope}/`);
    } catch {
      continue; // nothing ingested into this scope yet
    }
    for (const { entry, meta } of children) {
      // Roots an ingest made carry their source; memories and other trees in the scope do not.
      if (!meta?.source_path) continue;
      const noted = LastIngest.safeParse((meta as Record<string, unknown>).last_ingest);
      const summary = LastSummaryRun.safeParse((meta as Record<string, unknown>).last_summary);
      items.push({
        root: entry.uri,
        scope,
        name: entry.name,
        source: meta.source_path,
        ...(meta.git ? { git: { ref: meta.git.ref } } : {}),
        kind: entry.kind,
        at: noted.success ? noted.data.at : meta.updated_at,
        files: noted.success ? noted.data.files : null,
        state: stateOf({ ...meta, uri: entry.uri }, queued),
        ...(summary.success ? { summary: summary.data } : {}),
      });
    }
  }
  return items.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : a.root < b.root ? -1 : 1)).slice(0, limit);
}
