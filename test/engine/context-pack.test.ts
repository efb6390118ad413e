/**
 * Context packs: search hits and the chains of their messages become blocks, and the pack
 * fits the budget without cutting a chain, every block naming where it came from.
 */
import { describe, expect, it } from 'vitest';
import { buildContextPack, type PackHit, type PackSources } from '../../main/engine/compress/context-pack.js';
import type { ExtractedChain } from '../../shared/types/memory.js';

const texts: Record<string, string> = {
  'ctx://session/c1/m3#2': '[2024-05-08] Ana: The export job crashed again last night with an out-of-memory error.',
  'ctx://resources/docs/ops.md#2': 'Operations guide. '.repeat(40) + 'Restart the exporter with a smaller batch size when memory runs short.',
  'ctx://resources/docs/#0': 'Documentation of the export pipeline and its operations.',
  'ctx://user/memories/preference/mem_1.md#2': 'Ana prefers fixes that do not need a redeploy.',
  'ctx://resources/docs/misc.md#2': 'Office plants need water on Fridays. '.repeat(30),
};

const chain: ExtractedChain = {
  chain_id: 'chain_causal_1',
  chain_type: 'CAUSAL',
  content: '',
  nodes: [
    { id: 'n1', role: 'problem', text: 'The export job crashed with an out-of-memory error.', message_ids: ['m3'] },
    { id: 'n2', role: 'cause', text: 'The new version loads every row into memory before writing.', message_ids: ['m5'] },
    { id: 'n3', role: 'solution', text: 'Stream rows with a cursor and restore the batch size of 5000.', message_ids: ['m8'] },
  ],
  extraction_confidence: 0.8,
  created_at: '2024-05-08T10:00:00Z',
  source_message_ids: ['m3', 'm5', 'm8'],
  summary: 'crash → rows loaded at once → stream with a cursor',
  metadata: { method: 'rules' },
};

function hit(uri: string, level: 0 | 1 | 2, score: number, context_type = 'resource', message_ids: string[] = []): PackHit {
  return { uri, level, score, context_type, provenance: { source: `/src/${uri.split('/').pop()}`, message_ids } };
}

const hits: PackHit[] = [
  hit('ctx://session/c1/m3', 2, 0.9, 'session', ['m3']),
  hit('ctx://resources/docs/ops.md', 2, 0.7),
  hit('ctx://resources/docs/', 0, 0.6),
  hit('ctx://user/memories/preference/mem_1.md', 2, 0.4, 'memory'),
  hit('ctx://resources/docs/misc.md', 2, 0.1),
  // The same node at a lower-scoring level: only its best level becomes a block.
  hit('ctx://resources/docs/ops.md', 0, 0.5),
];

const sources: PackSources = {
  read: async (uri, level) => texts[`${uri}#${level}`] ?? `${uri} at L${level}`,
  chainsFor: async (refs) => (refs.some((r) => r.uri === 'ctx://session/c1/m3' && r.message_ids.includes('m3')) ? [chain] : []),
};

describe('context packs', () => {
  it('adds the rest of a hit message\'s chain and keeps the chain whole within the budget', async () => {
    // The budget holds the whole text (heading, references, legend): 150 tokens is about the smallest that fits the chain.
    for (const budget of [150, 400]) {
      const pack = await buildContextPack(hits, sources, { query: 'why did the export crash', budget });
      expect(pack.tokens).toBeLessThanOrEqual(budget);
      expect(pack.result.compressed_tokens).toBeLessThan(budget);
      // Every chain member is in the pack's blocks, tagged with the chain.
      const members = pack.blocks.filter((b) => b.chain_links.includes('chain_causal_1'));
      expect(members.map((b) => b.provenance?.message_ids)).toEqual([['m3'], ['m5'], ['m8']]);
      expect(members.every((b) => b.chain_types.includes('causal'))).toBe(true);
      expect(pack.result.broken_chains).toEqual([]);
      expect(pack.result.intact_chains).toEqual(['chain_causal_1']);
    }
  });

  it('makes one block per node, memories and top hits HIGH, weak hits LOW, each with its provenance', async () => {
    const pack = await buildContextPack(hits, sources, { query: 'export crash', budget: 10_000 });
    const ids = pack.blocks.map((b) => b.id);
    expect(ids.filter((id) => id.startsWith('ctx://resources/docs/ops.md'))).toEqual(['ctx://resources/docs/ops.md#2']);
    const byId = Object.fromEntries(pack.blocks.map((b) => [b.id, b]));
    expect(byId['ctx://user/memories/preference/mem_1.md#2']!.priority).toBe('HIGH');
    expect(byId['ctx://session/c1/m3#2']!.priority).toBe('HIGH');
    expect(byId['ctx://resources/docs/misc.md#2']!.priority).toBe('LOW');
    expect(byId['ctx://resources/docs/ops.md#2']!.provenance).toMatchObject({ uri: 'ctx://resources/docs/ops.md', source: '/src/ops.md' });
    // With room for everything, everything is kept and the Markdown names each block's origin.
    expect(pack.result.dropped).toEqual([]);
    expect(pack.markdown).toContain('Query: export crash');
    expect(pack.legend).toContainEqual({ ref: '[1]', uri: 'ctx://session/c1/m3', message_ids: ['m3'], source: '/src/m3' });
    expect(pack.markdown).toContain('[1] ctx://session/c1/m3, message m3');
    expect(pack.legend.find((r) => r.uri === 'ctx://resources/docs/ops.md')).toMatchObject({ source: '/src/ops.md' });
  });

  it('is deterministic and leaves out what does not fit rather than exceed the budget', async () => {
    const a = await buildContextPack(hits, sources, { query: 'q', budget: 50, now: new Date('2026-01-01') });
    const b = await buildContextPack(hits, sources, { query: 'q', budget: 50, now: new Date('2026-01-01') });
    expect(a).toEqual(b);
    expect(a.result.compressed_tokens).toBeLessThanOrEqual(50);
    expect(a.result.dropped.length).toBeGreaterThan(0);
  });

  it('makes each message hit of a session file its own block, holding only that message', async () => {
    const session = 'ctx://session/c1/s1.md';
    const messages: Record<string, string> = { m3: '[2024-05-08] Ana: The export job crashed again.', m5: '[2024-05-08] Bo: It loads every row at once.' };
    const fileSources: PackSources = {
      read: async () => 'the whole session file '.repeat(200),
      readMessages: async (uri, ids) => (uri === session ? ids.map((id) => messages[id]).join('\n') : null),
      chainsFor: async (refs) => (refs.some((r) => r.message_ids.includes('m3')) ? [chain] : []),
    };
    const pack = await buildContextPack([hit(session, 2, 0.9, 'session', ['m3']), hit(session, 2, 0.8, 'session', ['m5'])], fileSources, { query: 'export crash', budget: 10_000 });
    const own = pack.blocks.filter((b) => b.provenance?.uri === session);
    expect(own.map((b) => [b.id, b.content, b.provenance?.message_ids])).toEqual([
      [`${session}#m:m3`, messages.m3, ['m3']],
      [`${session}#m:m5`, messages.m5, ['m5']],
    ]);
    // Both messages belong to the causal chain: each block carries it, and only its third step joins from the analysis.
    for (const block of own) expect(block.chain_links).toEqual(['chain_causal_1']);
    expect(pack.blocks.filter((b) => b.id.startsWith('chain:')).map((b) => b.provenance?.message_ids)).toEqual([['m8']]);
  });
});
