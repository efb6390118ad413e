/**
 * The index the engine is handed: a ContextIndex that may also search, optimize after bulk
 * writes, open ahead of use and own resources to close. The search index implements it in the
 * process or in the index worker; hosts compose it (main/host/open-index.ts).
 */
import type { ContextIndex } from './context-index.js';
import type { SearchIndex } from '../index/search-index.js';

export interface EngineIndex extends ContextIndex {
  search?: SearchIndex['search'];
  optimize?(): Promise<void>;
  /** Every record id, and removal by id: how a rebuild in place sweeps what the tree no longer holds. */
  recordIds?: SearchIndex['recordIds'];
  removeRecords?: SearchIndex['removeRecords'];
  close?(): Promise<void>;
  /**
   * Opens the index (loads the store and the embedder, with its lexicon) if it is not open yet;
   * resolves when it is, and never rejects: a failure is the one the first write will report.
   * Loading is synchronous CPU (native modules, the lexicon): started ahead of a run, it does not
   * stall the calls of a run in flight.
   */
  prepare?(): Promise<void>;
}
