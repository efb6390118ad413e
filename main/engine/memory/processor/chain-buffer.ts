/**
 * The seed's ChainBuffer (docs/SPEC.md#track-b-chains): short-term room for the chains track B
 * extracted, per conversation, apart from the buckets (track A's short-term store), until they are
 * committed or expire. The processor puts every conversation's chains here; callers read them back
 * by conversation or by chain type without re-running the analysis.
 *
 * @example
 * const buffer = new ChainBuffer({ ttlMs: 600_000 });
 * buffer.put('c1', chains);
 * buffer.ofType('CAUSAL');
 */
import type { ChainType, ExtractedChain } from '../../../../shared/types/memory.js';

export interface ChainBufferOptions {
  /** Milliseconds a conversation's chains stay; default 30 minutes. */
  ttlMs?: number;
  /** Conversations kept; the oldest write goes first. Default 256. */
  maxConversations?: number;
  now?: () => number;
}

export interface BufferedChains {
  conversation_id: string;
  chains: ExtractedChain[];
  /** Milliseconds (of `now`) when the slot expires. */
  expires_at: number;
}

interface Slot {
  chains: ExtractedChain[];
  expiresAt: number;
}

export class ChainBuffer {
  private readonly slots = new Map<string, Slot>();
  private readonly ttlMs: number;
  private readonly max: number;
  private readonly now: () => number;

  constructor(options: ChainBufferOptions = {}) {
    this.ttlMs = Math.max(1, options.ttlMs ?? 30 * 60_000);
    this.max = Math.max(1, options.maxConversations ?? 256);
    this.now = options.now ?? Date.now;
  }

  /** Replaces the chains of a conversation (a re-analysis supersedes the last one). */
  put(conversationId: string, chains: ExtractedChain[]): void {
    this.slots.delete(conversationId);
    this.slots.set(conversationId, { chains, expiresAt: this.now() + this.ttlMs });
    while (this.slots.size > this.max) this.slots.delete(this.slots.keys().next().value as string);
  }

  get(conversationId: string): ExtractedChain[] | undefined {
    const slot = this.slots.get(conversationId);
    if (!slot) return undefined;
    if (slot.expiresAt <= this.now()) {
      this.slots.delete(conversationId);
      return undefined;
    }
    return slot.chains;
  }

  /** Live chains of one type across conversations. */
  ofType(type: ChainType): ExtractedChain[] {
    this.sweep();
    return [...this.slots.values()].flatMap((slot) => slot.chains.filter((chain) => chain.chain_type === type));
  }

  /** Forgets a conversation's chains (after they are committed). */
  take(conversationId: string): ExtractedChain[] | undefined {
    const chains = this.get(conversationId);
    this.slots.delete(conversationId);
    return chains;
  }

  /** The live slots, oldest write first (what the stats show and what is saved between processes). */
  entries(): BufferedChains[] {
    this.sweep();
    return [...this.slots].map(([conversation_id, slot]) => ({ conversation_id, chains: slot.chains, expires_at: slot.expiresAt }));
  }

  /** Puts back slots saved by an earlier process, keeping their expiry; expired ones are dropped. */
  restore(saved: BufferedChains[]): void {
    const now = this.now();
    for (const entry of saved) {
      if (entry.expires_at <= now) continue;
      this.slots.delete(entry.conversation_id);
      this.slots.set(entry.conversation_id, { chains: entry.chains, expiresAt: entry.expires_at });
    }
    while (this.slots.size > this.max) this.slots.delete(this.slots.keys().next().value as string);
  }

  get ttl(): number {
    return this.ttlMs;
  }

  sweep(): number {
    const now = this.now();
    let dropped = 0;
    for (const [id, slot] of [...this.slots]) {
      if (slot.expiresAt <= now) {
        this.slots.delete(id);
        dropped += 1;
      }
    }
    return dropped;
  }

  get size(): number {
    return this.slots.size;
  }
}
