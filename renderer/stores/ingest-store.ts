/**
 * The Home view's ingest: the form, the live progress of the running job (from `ingest/*`
 * events of its job id) and the result or error it ended with.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { EngineEvent, IngestPhase } from '../../shared/contracts/api';
import { CairnError } from '../../shared/errors';
import type { CodeSummaryMode, IngestResult } from '../../shared/types/ingest';
import type { IngestScope } from '../../shared/uri';
import type { CairnClient } from '../api/client';

export interface IngestForm {
  path: string;
  scope: IngestScope;
  codeMode: CodeSummaryMode;
}

export type IngestStatus = 'idle' | 'running' | 'done' | 'failed' | 'cancelled';

export interface IngestProgress {
  phase: IngestPhase | null;
  done: number;
  total: number | null;
  bytes: number;
  current: string | null;
  skipped: number;
}

export interface IngestState {
  form: IngestForm;
  status: IngestStatus;
  jobId: string | null;
  root: string | null;
  progress: IngestProgress;
  result: IngestResult | null;
  error: { code: string; message: string } | null;
  setForm(patch: Partial<IngestForm>): void;
  start(): Promise<void>;
  cancel(): Promise<void>;
  applyEvents(events: readonly EngineEvent[]): void;
}

const idleProgress: IngestProgress = { phase: null, done: 0, total: null, bytes: 0, current: null, skipped: 0 };

export function createIngestStore(client: CairnClient, newJobId: () => string = () => crypto.randomUUID()): StoreApi<IngestState> {
  return createStore<IngestState>()((set, get) => ({
    form: { path: '', scope: 'resources', codeMode: 'ast' },
    status: 'idle',
    jobId: null,
    root: null,
    progress: idleProgress,
    result: null,
    error: null,
    setForm: (patch) => set({ form: { ...get().form, ...patch } }),

    async start() {
      const { form, status } = get();
      if (status === 'running') return;
      const jobId = newJobId();
      set({ status: 'running', jobId, root: null, progress: idleProgress, result: null, error: null });
      try {
        const result = await client.call('ingest:start', {
          path: form.path.trim(),
          options: { scope: form.scope, codeSummaryMode: form.codeMode },
          jobId,
        });
        if (get().jobId === jobId) set({ status: 'done', result, root: result.root });
      } catch (error) {
        if (get().jobId !== jobId) return;
        if (CairnError.is(error, 'CANCELLED')) set({ status: 'cancelled' });
        else set({ status: 'failed', error: { code: CairnError.is(error) ? error.code : 'INTERNAL', message: error instanceof Error ? error.message : String(error) } });
      }
    },

    async cancel() {
      const { jobId, status } = get();
      if (status !== 'running' || !jobId) return;
      await client.call('ingest:cancel', { jobId });
    },

    applyEvents(events) {
      const state = get();
      if (state.status !== 'running' || !state.jobId) return;
      let progress = state.progress;
      let root = state.root;
      for (const event of events) {
        if (!('jobId' in event) || event.jobId !== state.jobId) continue;
        switch (event.type) {
          case 'ingest/started':
            root = event.root;
            break;
          case 'ingest/progressed':
            progress = { ...progress, phase: event.phase, done: event.done, total: event.total, bytes: event.bytes, current: event.current ?? progress.current };
            break;
          case 'ingest/skipped':
            progress = { ...progress, skipped: progress.skipped + 1 };
            break;
          default:
            break;
        }
      }
      if (progress !== state.progress || root !== state.root) set({ progress, root });
    },
  }));
}
