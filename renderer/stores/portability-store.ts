/**
 * The export view: exporting memories and context in one of the formats (README "Export and
 * import"), of every scope or one, to a path on the engine's machine or (browser mode) as a
 * download, and importing what an export wrote.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { CommandRequest, ExportFormat, ExportResult, ImportResult } from '../../shared/contracts/api';
import type { CairnClient } from '../api/client';

export const EXPORT_FORMATS = ['json', 'jsonl', 'markdown', 'contextfs'] as const satisfies readonly ExportFormat[];

type Phase = 'idle' | 'running' | 'done' | 'failed';

export type ExportScope = NonNullable<CommandRequest<'export:run'>['scope']>;
export const EXPORT_SCOPES = ['resources', 'user', 'agent', 'session'] as const satisfies readonly ExportScope[];
/** What a download asks the host for (see features/export/download.ts). */
export type DownloadExport = (request: { format: ExportFormat; scope?: ExportScope }) => Promise<ExportResult>;

export interface PortabilityState {
  format: ExportFormat;
  /** Only this scope; null: every scope. */
  scope: ExportScope | null;
  out: string;
  exportStatus: Phase;
  exported: ExportResult | null;
  exportError: string | null;
  importPath: string;
  importStatus: Phase;
  imported: ImportResult | null;
  importError: string | null;
  setFormat(format: ExportFormat): void;
  setScope(scope: ExportScope | null): void;
  setOut(out: string): void;
  setImportPath(path: string): void;
  runExport(): Promise<void>;
  /** Browser mode: the export as a download; `exported` then names the file. */
  runDownload(download: DownloadExport): Promise<void>;
  runImport(): Promise<void>;
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

export function createPortabilityStore(client: Pick<CairnClient, 'call'>): StoreApi<PortabilityState> {
  return createStore<PortabilityState>()((set, get) => ({
    format: 'json',
    scope: null,
    out: '',
    exportStatus: 'idle',
    exported: null,
    exportError: null,
    importPath: '',
    importStatus: 'idle',
    imported: null,
    importError: null,

    setFormat: (format) => set({ format }),
    setScope: (scope) => set({ scope }),
    setOut: (out) => set({ out }),
    setImportPath: (importPath) => set({ importPath }),

    async runExport() {
      const out = get().out.trim();
      if (!out || get().exportStatus === 'running') return;
      set({ exportStatus: 'running', exportError: null, exported: null });
      try {
        const { format, scope } = get();
        const exported = await client.call('export:run', { format, out, ...(scope ? { scope } : {}) });
        set({ exportStatus: 'done', exported });
      } catch (error) {
        set({ exportStatus: 'failed', exportError: message(error) });
      }
    },

    async runDownload(download) {
      if (get().exportStatus === 'running') return;
      set({ exportStatus: 'running', exportError: null, exported: null });
      try {
        const { format, scope } = get();
        set({ exportStatus: 'done', exported: await download({ format, ...(scope ? { scope } : {}) }) });
      } catch (error) {
        set({ exportStatus: 'failed', exportError: message(error) });
      }
    },

    async runImport() {
      const path = get().importPath.trim();
      if (!path || get().importStatus === 'running') return;
      set({ importStatus: 'running', importError: null, imported: null });
      try {
        const imported = await client.call('import:run', { path });
        set({ importStatus: 'done', imported });
      } catch (error) {
        set({ importStatus: 'failed', importError: message(error) });
      }
    },
  }));
}
