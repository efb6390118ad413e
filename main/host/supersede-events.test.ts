import { describe, expect, it } from 'vitest';
import type { DagCounts, EngineEvent } from '../../shared/contracts/api.js';
import { dropSuperseded } from './supersede-events.js';

const counts = (n: number): DagCounts => ({ dirs_total: 2, dirs_done: 0, files_total: 9, files_done: n, llm_calls: 0 });

describe('dropSuperseded', () => {
  it('keeps the last progress of each job phase and each directory, and every other event in order', () => {
    const batch: EngineEvent[] = [
      { type: 'ingest/progressed', jobId: 'j', phase: 'scan', done: 1, total: null, bytes: 0 },
      { type: 'dag/pending-changed', root: 'ctx://resources/r/', uri: 'ctx://resources/r/a/', pending: 3, counts: counts(1) },
      { type: 'ingest/progressed', jobId: 'j', phase: 'parse', done: 1, total: 9, bytes: 0 },
      { type: 'dag/pending-changed', root: 'ctx://resources/r/', uri: 'ctx://resources/r/b/', pending: 1, counts: counts(2) },
      { type: 'ingest/skipped', jobId: 'j', skip: { path: 'x.bin', reason: 'binary' } },
      { type: 'dag/pending-changed', root: 'ctx://resources/r/', uri: 'ctx://resources/r/a/', pending: 2, counts: counts(3) },
      { type: 'ingest/progressed', jobId: 'j', phase: 'parse', done: 2, total: 9, bytes: 0 },
    ];
    expect(dropSuperseded(batch)).toEqual([batch[0], batch[3], batch[4], batch[5], batch[6]]);
  });

  it('keeps only the last LLM monitor snapshot of a batch', () => {
    const stats = (calls: number) => ({ active: true, model: 'm', baseUrl: null, calls, inFlight: 0, succeeded: calls, failed: 0, retries: 0, fallbacks: 0, fallbackReasons: {}, inputTokens: 0, outputTokens: 0, costUsd: null, breaker: 'closed' as const, budget: null, errors: {}, recent: [] });
    const batch: EngineEvent[] = [
      { type: 'llm/stats-changed', stats: stats(1) },
      { type: 'dag/started', root: 'ctx://resources/r/', messageId: 'm' },
      { type: 'llm/stats-changed', stats: stats(2) },
    ];
    expect(dropSuperseded(batch)).toEqual([batch[1], batch[2]]);
  });

  it('returns a batch without progress as it is', () => {
    const batch: EngineEvent[] = [{ type: 'dag/started', root: 'ctx://resources/r/', messageId: 'm' }];
    expect(dropSuperseded(batch)).toEqual(batch);
  });
});
