/**
 * What the ingest and the DAG summarizer hand their L0/L1/L2 records to. The search index
 * implements it (embedding and storing); until one is configured, `noopIndex` keeps the
 * pipeline whole. The files in ContextFS stay the truth: an index can always be rebuilt.
 */
import type { ContextType, Provenance } from '../../../shared/types/node.js';

export interface IndexInput {
  /** Stable id: the same node and level always give the same id, so upserts replace. */
  id: string;
  uri: string;
  parent_uri: string | null;
  level: 0 | 1 | 2;
  context_type: ContextType;
  category: string;
  text: string;
  tokens: number;
  content_hash: string;
  updated_at: string;
  provenance: Provenance;
}

export interface ContextIndex {
  upsert(records: IndexInput[]): Promise<void>;
  /** Removes every record of `uri` and of the nodes below it. */
  removeUnder(uri: string): Promise<void>;
}

export const noopIndex: ContextIndex = {
  async upsert() {},
  async removeUnder() {},
};
