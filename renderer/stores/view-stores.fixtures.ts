/** Test data shared by the unit tests of the sessions, memories, compression and export stores. */
import type { CairnClient } from '../api/client';
import type { ContextBlock, CompressionResult } from '../../shared/types/compress';
import type { LongTermMemory, MemoryChange } from '../../shared/types/memory';

export interface RecordedCall {
  command: string;
  request: Record<string, unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** A client whose calls stay pending until the test answers them. */
export function pendingClient(): { client: Pick<CairnClient, 'call'>; calls: RecordedCall[]; next(command: string): RecordedCall } {
  const calls: RecordedCall[] = [];
  const client = {
    call: (command: string, request: Record<string, unknown>) => new Promise((resolve, reject) => calls.push({ command, request, resolve, reject })),
  } as unknown as Pick<CairnClient, 'call'>;
  const next = (command: string) => {
    const call = calls.find((c) => c.command === command);
    if (!call) throw new Error(`no pending ${command}; calls: ${calls.map((c) => c.command).join(', ')}`);
    calls.splice(calls.indexOf(call), 1);
    return call;
  };
  return { client, calls, next };
}

/** Lets pending promise chains run until the next awaited call. */
export const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

export const memory = (id: string, category: LongTermMemory['category'], title = `title ${id}`): LongTermMemory => ({
  id,
  category,
  title,
  content: `content of ${id}`,
  keywords: ['heap', 'leak'],
  message_ids: ['s1:3', 's1:4'],
  conversation_id: 'c1',
  confidence: 0.8,
  created_at: '2024-05-08T14:00:00Z',
  updated_at: '2024-05-08T14:00:00Z',
});

export const change = (op: MemoryChange['op'], before?: LongTermMemory, after?: LongTermMemory): MemoryChange => ({
  at: '2024-05-09T10:00:00Z',
  op,
  memory_id: (after ?? before)!.id,
  ...(before ? { before } : {}),
  ...(after ? { after } : {}),
  reason: op === 'delete' ? 'forgotten by user' : 'edited by user',
});

export const block = (id: string, tokens: number, chain: string[] = []): ContextBlock => ({
  id,
  source: 'long_term_memory',
  priority: 'HIGH',
  content: `block ${id}`,
  token_count: tokens,
  chain_links: chain,
  chain_types: chain.length ? ['causal'] : [],
  relevance_score: 0.5,
  freshness_score: 0.5,
});

export const compression = (blocks: ContextBlock[]): CompressionResult => ({
  strategy: 'chain_integrity',
  budget: 100,
  original_tokens: blocks.reduce((n, b) => n + b.token_count, 0),
  compressed_tokens: 60,
  kept: [
    { ...blocks[0]!, index: 0, score: 50, shortened: false, original_token_count: blocks[0]!.token_count },
    { ...blocks[1]!, index: 1, score: 40, shortened: true, token_count: 20, original_token_count: blocks[1]!.token_count },
  ],
  dropped: [{ id: blocks[3]!.id, index: 3, source: 'resource', priority: 'LOW', token_count: blocks[3]!.token_count, score: 5, chain_links: [] }],
  replaced: [
    { chain_ids: ['c9'], block_ids: [blocks[2]!.id], index: 2, summary_source: 'extractive', content: 'sum', token_count: 5, original_token_count: blocks[2]!.token_count, parts: [] },
  ],
  chains: [{ id: 'c9', block_ids: [blocks[2]!.id], status: 'summarized' }],
  intact_chains: ['c9'],
  broken_chains: [],
});
