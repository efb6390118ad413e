/**
 * Drops the progress events of a batch that a later event of the same batch supersedes, before
 * the batch reaches a UI: `ingest/progressed` of the same job and phase, `dag/pending-changed` of
 * the same directory, `llm/stats-changed`. Each carries absolute numbers (done, pending, the run's counts), so the
 * last one says everything the earlier ones did. Every other event is kept, in order.
 */
import type { EngineEvent } from '../../shared/contracts/api.js';

/** The key under which a later event replaces an earlier one, or null when every one counts. */
export function supersedeKey(event: EngineEvent): string | null {
  switch (event.type) {
    case 'ingest/progressed':
      return `ingest:${event.jobId}:${event.phase}`;
    case 'dag/pending-changed':
      return `pending:${event.root}:${event.uri}`;
    case 'llm/stats-changed':
      // Each carries the whole monitor (counters and recent calls).
      return 'llm-stats';
    default:
      return null;
  }
}

export function dropSuperseded(batch: readonly EngineEvent[]): EngineEvent[] {
  const last = new Map<string, number>();
  batch.forEach((event, i) => {
    const key = supersedeKey(event);
    if (key !== null) last.set(key, i);
  });
  if (last.size === 0) return [...batch];
  return batch.filter((event, i) => {
    const key = supersedeKey(event);
    return key === null || last.get(key) === i;
  });
}
