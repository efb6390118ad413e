/**
 * The export view: exporting memories and context in one of the export formats
 * (docs/ARCHITECTURE.md#export-and-import) to a path on the engine's machine, and importing what an
 * export wrote.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ExportFormat, ExportResult, ImportResult } from '../../shared/contracts/api';
import type { CairnClient } from '../api/client';

export const EXPORT_FORMATS = ['json', 'jsonl', 'markdown', 'contextfs'] as const satisfies readonly ExportFormat[];

type Phase = 'idle' | 'running' | 'done' | 'failed';

export interface PortabilityState {
  format: ExportFormat;
  out: string;
  exportStatus: Phase;
  exported: ExportResult | null;
  exportError: string | null;
  importPath: string;
  importStatus: Phase;
  imported: ImportResult | null;
  importError: string | null;
  setFormat(format: ExportFormat): void;
  setOut(out: string): void;
  setImportPath(path: string): void;
  runExport(): Promise<void>;
  runImport(): Promise<void>;
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

export function createPortabilityStore(client: Pick<CairnClient, 'call'>): StoreApi<PortabilityState> {
  return createStore<PortabilityState>()((set, get) => ({
    format: 'json',
    out: '',
    exportStatus: 'idle',
    exported: null,
    exportError: null,
    importPath: '',
    importStatus: 'idle',
    imported: null,
    importError: null,

    setFormat: (format) => set({ format }),
    setOut: (out) => set({ out }),
    setImportPath: (importPath) => set({ importPath }),

    async runExport() {
      const out = get().out.trim();
      if (!out || get().exportStatus === 'running') return;
      set({ exportStatus: 'running', exportError: null, exported: null });
      try {
        const exported = await client.call('export:run', { format: get().format, out });
        set({ exportStatus: 'done', exported });
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
