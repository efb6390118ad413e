/**
 * The Home view's ingest: the form, the live progress of the running job (from `ingest/*`
 * events of its job id; an ingest started elsewhere, by a second launch of the desktop app or an
 * engine restart, is followed the same way) and the result or error it ended with; with "estimate first", the
 * estimate of the summaries the tree still owes and the run started from it; and the list of
 * folders recently ingested into the workspace.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { DagRunResult, EngineEvent, IngestPhase, PricedEstimate, RecentIngest } from '../../shared/contracts/api';
import { CairnError } from '../../shared/errors';
import type { CodeSummaryMode, IngestResult } from '../../shared/types/ingest';
import { INGEST_SCOPES, type IngestScope } from '../../shared/uri';
import type { CairnClient } from '../api/client';

export interface IngestForm {
  path: string;
  scope: IngestScope;
  codeMode: CodeSummaryMode;
  /** Build the tree without summarizing, then show what summarizing it would take. */
  estimateFirst: boolean;
}

/**
 * After an "estimate first" ingest: loading the estimate, showing it, summarizing, done, or
 * dismissed ("not now": the summaries stay queued).
 */
export interface EstimateState {
  phase: 'loading' | 'ready' | 'running' | 'done' | 'dismissed' | 'failed';
  root: string;
  estimate: PricedEstimate | null;
  /** The model a run would use, and whether it would use it (false: extractive, offline). */
  model: string | null;
  llm: boolean;
  run: DagRunResult | null;
  error: string | null;
}

export interface RecentState {
  phase: 'idle' | 'loading' | 'ready' | 'failed';
  items: RecentIngest[];
  error: string | null;
}

export type IngestStatus = 'idle' | 'running' | 'done' | 'failed' | 'cancelled';

export interface IngestProgress {
  phase: IngestPhase | null;
  done: number;
  total: number | null;
  bytes: number;
  current: string | null;
  skipped: number;
  /** While the workspace is busy with another process: "waiting for the ingest of /x, pid 12, started 12 s ago". */
  waiting: string | null;
}

export interface IngestState {
  form: IngestForm;
  status: IngestStatus;
  jobId: string | null;
  root: string | null;
  progress: IngestProgress;
  result: IngestResult | null;
  error: { code: string; message: string } | null;
  estimate: EstimateState | null;
  recent: RecentState;
  /** The latest summary run of each root this view saw end (`dag/finished`), for its fallbacks and their causes. */
  lastRuns: Record<string, DagRunResult>;
  setForm(patch: Partial<IngestForm>): void;
  /**
   * `onClash`: what to do when a tree of another source has the name (the upload asks; see
   * features/upload/clash.ts). `git`: clone and ingest this repository instead of the form's path.
   */
  start(options?: { onClash?: 'update' | 'copy'; git?: { url: string; ref?: string } }): Promise<void>;
  /** Starts the last ingest again (the error banner's "Try again"). */
  retry(): Promise<void>;
  cancel(): Promise<void>;
  /** Runs the summaries the estimated tree owes ("Summarize now"). */
  summarizeNow(): Promise<void>;
  /** "Not now": hides the estimate; the summaries stay queued. */
  dismissEstimate(): void;
  loadRecent(): Promise<void>;
  /** Ingests a recent folder again, into the same root (only what changed is updated). */
  reingest(item: RecentIngest): Promise<void>;
  applyEvents(events: readonly EngineEvent[]): void;
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

const idleProgress: IngestProgress = { phase: null, done: 0, total: null, bytes: 0, current: null, skipped: 0, waiting: null };

export function createIngestStore(client: CairnClient, newJobId: () => string = () => crypto.randomUUID()): StoreApi<IngestState> {
  return createStore<IngestState>()((set, get) => {
    /** The job of an ingest this view did not start, followed from its events alone. */
    let adopted: string | null = null;
    /** What the last start was given, for retry. */
    let lastStart: Parameters<IngestState['start']>[0] = {};
    const estimateFor = async (root: string) => {
      set({ estimate: { phase: 'loading', root, estimate: null, model: null, llm: false, run: null, error: null } });
      try {
        const answer = await client.call('summarize:estimate', { uri: root });
        if (get().estimate?.root !== root) return;
        set({ estimate: { ...get().estimate!, phase: 'ready', estimate: answer.estimates[0] ?? null, model: answer.model ?? null, llm: answer.llm ?? false } });
      } catch (error) {
        if (get().estimate?.root === root) set({ estimate: { ...get().estimate!, phase: 'failed', error: message(error) } });
      }
    };
    return {
      form: { path: '', scope: 'resources', codeMode: 'ast', estimateFirst: false },
      status: 'idle',
      jobId: null,
      root: null,
      progress: idleProgress,
      result: null,
      error: null,
      estimate: null,
      recent: { phase: 'idle', items: [], error: null },
      lastRuns: {},
      setForm: (patch) => set({ form: { ...get().form, ...patch } }),

      async start(startOptions = {}) {
        const { form, status } = get();
        if (status === 'running') return;
        lastStart = startOptions;
        const jobId = newJobId();
        const git = startOptions.git;
        set({ status: 'running', jobId, root: null, progress: idleProgress, result: null, error: null, estimate: null });
        try {
          const result = await client.call('ingest:start', {
            path: git ? git.url.trim() : form.path.trim(),
            ...(git ? { git: git.ref?.trim() ? { ref: git.ref.trim() } : {} } : {}),
            options: { scope: form.scope, codeSummaryMode: form.codeMode, ...(startOptions.onClash ? { onClash: startOptions.onClash } : {}) },
            jobId,
            ...(form.estimateFirst ? { summarize: false } : {}),
          });
          if (get().jobId !== jobId) return;
          set({ status: 'done', result, root: result.root });
          void get().loadRecent();
          if (form.estimateFirst) await estimateFor(result.root);
        } catch (error) {
          if (get().jobId !== jobId) return;
          // The engine crashed and the desktop host runs this ingest again, same job: its events end it.
          if (CairnError.is(error, 'ENGINE_RESTARTED')) adopted = jobId;
          else if (CairnError.is(error, 'CANCELLED')) set({ status: 'cancelled' });
          else set({ status: 'failed', error: { code: CairnError.is(error) ? error.code : 'INTERNAL', message: error instanceof Error ? error.message : String(error) } });
        }
      },

      retry: () => get().start(lastStart),

      async summarizeNow() {
        const estimate = get().estimate;
        if (!estimate || estimate.phase === 'running' || estimate.phase === 'loading') return;
        set({ estimate: { ...estimate, phase: 'running', error: null } });
        try {
          const { runs } = await client.call('summarize:run', { uri: estimate.root });
          const run = runs.find((r) => r.root === estimate.root) ?? runs[0] ?? null;
          if (get().estimate?.root === estimate.root) set({ estimate: { ...get().estimate!, phase: 'done', run } });
        } catch (error) {
          if (get().estimate?.root === estimate.root) set({ estimate: { ...get().estimate!, phase: 'failed', error: message(error) } });
        }
        void get().loadRecent();
      },

      dismissEstimate() {
        const estimate = get().estimate;
        if (estimate && estimate.phase !== 'running') set({ estimate: { ...estimate, phase: 'dismissed' } });
      },

      async loadRecent() {
        const recent = get().recent;
        set({ recent: { ...recent, phase: recent.phase === 'ready' ? 'ready' : 'loading' } });
        try {
          const { items } = await client.call('ingest:recent', {});
          set({ recent: { phase: 'ready', items, error: null } });
        } catch (error) {
          set({ recent: { ...get().recent, phase: 'failed', error: message(error) } });
        }
      },

      async reingest(item) {
        if (get().status === 'running') return;
        const scope = (INGEST_SCOPES as readonly string[]).includes(item.scope) ? (item.scope as IngestScope) : get().form.scope;
        if (item.git) {
          set({ form: { ...get().form, scope } });
          await get().start({ git: { url: item.source, ref: item.git.ref } });
          return;
        }
        set({ form: { ...get().form, path: item.source, scope } });
        await get().start();
      },

      async cancel() {
        const { jobId, status } = get();
        if (status !== 'running' || !jobId) return;
        await client.call('ingest:cancel', { jobId });
      },

      applyEvents(events) {
        // A summary run starting or ending changes a recent folder's state.
        if (get().recent.phase === 'ready' && events.some((e) => e.type === 'dag/started' || e.type === 'dag/finished' || e.type === 'dag/run-failed')) void get().loadRecent();
        const finished = events.filter((e) => e.type === 'dag/finished');
        if (finished.length > 0) set({ lastRuns: { ...get().lastRuns, ...Object.fromEntries(finished.map((e) => [e.root, e.result])) } });
        let { progress, root } = get();
        const flush = () => {
          if (progress !== get().progress || root !== get().root) set({ progress, root });
        };
        for (const event of events) {
          if (event.type === 'ingest/started' && get().status !== 'running') {
            // An ingest this view did not start (a folder handed over by a second launch of the
            // app, one the desktop host resumed after an engine restart): shown as its own.
            flush();
            adopted = event.jobId;
            progress = idleProgress;
            root = null;
            set({ status: 'running', jobId: event.jobId, root, progress, result: null, error: null, estimate: null, form: { ...get().form, path: event.source } });
          }
          if (event.type === 'engine/stopped' && get().status === 'running') {
            flush();
            set({ status: 'failed', error: { code: 'WORKER_CRASHED', message: event.reason } });
          }
          const state = get();
          if (state.status !== 'running') continue;
          // Before it starts, this ingest may wait for another process that holds the workspace.
          if (event.type === 'workspace/waiting' && root === null) {
            progress = { ...progress, waiting: event.message };
            continue;
          }
          if (!('jobId' in event) || event.jobId !== state.jobId) continue;
          switch (event.type) {
            case 'ingest/started':
              root = event.root;
              progress = { ...progress, waiting: null };
              break;
            case 'ingest/progressed':
              progress = { ...progress, phase: event.phase, done: event.done, total: event.total, bytes: event.bytes, current: event.current ?? progress.current };
              break;
            case 'ingest/skipped':
              progress = { ...progress, skipped: progress.skipped + 1 };
              break;
            // The end of an ingest `start` runs comes with its answer; an adopted one ends here.
            case 'ingest/finished':
              if (adopted !== event.jobId) break;
              flush();
              set({ status: 'done', result: event.result, root: event.result.root });
              void get().loadRecent();
              break;
            case 'ingest/failed':
              if (adopted !== event.jobId) break;
              flush();
              set(event.error.code === 'CANCELLED' ? { status: 'cancelled' } : { status: 'failed', error: event.error });
              break;
            default:
              break;
          }
        }
        flush();
      },
    };
  });
}
