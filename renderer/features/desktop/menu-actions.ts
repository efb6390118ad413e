/**
 * What the page does with an application-menu action (shared/contracts/host.ts `MenuAction`):
 * it goes to the view the action belongs to and runs it there as the view's own controls would,
 * so its progress, result or error shows where a person looks for it.
 */
import type { ExportFormat } from '../../../shared/contracts/api';
import type { MenuAction } from '../../../shared/contracts/host';
import type { Stores } from '../../stores';

/** A `.json` or `.jsonl` path exports in that format; any other keeps the Export view's choice. */
export function exportFormatFor(path: string, chosen: ExportFormat): ExportFormat {
  const lower = path.toLowerCase();
  if (lower.endsWith('.jsonl')) return 'jsonl';
  if (lower.endsWith('.json')) return 'json';
  return chosen;
}

export function applyMenuAction(stores: Pick<Stores, 'app' | 'ingest' | 'sessions' | 'portability'>, action: MenuAction): Promise<void> {
  const { setView } = stores.app.getState();
  switch (action.action) {
    case 'navigate':
      setView(action.view);
      return Promise.resolve();
    case 'ingest': {
      setView('home');
      const ingest = stores.ingest.getState();
      if (ingest.status === 'running') return Promise.resolve();
      ingest.setForm({ path: action.path });
      return stores.ingest.getState().start();
    }
    case 'reingest':
      setView('home');
      return stores.ingest.getState().reingest(action.item);
    case 'import-conversation': {
      setView('sessions');
      stores.sessions.getState().setImportPath(action.path);
      return stores.sessions.getState().importPathNow();
    }
    case 'export': {
      setView('export');
      const portability = stores.portability.getState();
      portability.setFormat(exportFormatFor(action.path, portability.format));
      portability.setOut(action.path);
      return stores.portability.getState().runExport();
    }
  }
}
