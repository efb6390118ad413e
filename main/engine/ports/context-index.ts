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
  /**
   * Text read together with `text` when the record is embedded, but not indexed for full text nor
   * stored: a message's neighbours, so its vector knows what the conversation was about while
   * full-text hits stay on the words of the message itself. `content_hash` must cover it, since
   * an unchanged record keeps its vector.
   */
  embed_context?: string;
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
