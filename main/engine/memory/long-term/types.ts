/**
 * The seam between the dual-track processor (which proposes memories from an analyzed
 * conversation) and the long-term memory store (which deduplicates, merges and keeps them under
 * `ctx://user/memories/{category}/`, recording every change). Both sides code against this.
 */
import type { Extractor, LongTermMemory, MemoryCategory, MemoryChange } from '../../../../shared/types/memory.js';

/** A memory the processor wants kept; the store decides add, update (merge) or none. */
export interface MemoryCandidate {
  category: MemoryCategory;
  title: string;
  content: string;
  keywords: string[];
  /** Never empty: where in the conversation this came from. */
  message_ids: string[];
  conversation_id: string;
  chain_ids?: string[];
  cluster_ids?: string[];
  confidence: number;
  /** The person wrote or accepted it: the memory it makes is pinned, and it may change a pinned memory. */
  pinned?: boolean;
  /** Who extracted what it came from (the chains, clusters or items of the analysis). */
  extractor?: Extractor;
}

export interface MemoryListQuery {
  category?: MemoryCategory;
  /** Most recent first; default 100. */
  limit?: number;
}

export interface MemoryStore {
  /** Dedups each candidate against similar memories of its category; returns one change per candidate. */
  commit(candidates: MemoryCandidate[], options?: { signal?: AbortSignal; dryRun?: boolean }): Promise<MemoryChange[]>;
  list(query?: MemoryListQuery): Promise<LongTermMemory[]>;
  get(id: string): Promise<LongTermMemory | null>;
  /** A person's edit: the fields given replace the memory's and pin it; recorded as an update with before/after. */
  edit(id: string, patch: Partial<Pick<LongTermMemory, 'title' | 'content' | 'keywords' | 'category'>>): Promise<MemoryChange>;
  /** Removes a memory (recorded as a delete with its before, so it can be read back from history). */
  forget(id: string, reason?: string): Promise<MemoryChange>;
  /** The change log, oldest first; of one memory when `id` is given. */
  history(id?: string): Promise<MemoryChange[]>;
}
