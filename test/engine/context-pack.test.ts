/**
 * Context packs: search hits and the chains of their messages become blocks, and the pack
 * fits the budget without cutting a chain, every block naming where it came from.
 */
import { describe, expect, it } from 'vitest';
import { buildContextPack, relevantHits, type PackHit, type PackSources } from '../../main/engine/compress/context-pack.js';
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

  it('titles each block as the search list does: its conversation (chain steps too), its document and section', async () => {
    const session = 'ctx://session/c1/s1.md';
    const ranked = (uri: string, title: string, heading: string | null, context_type: string, message_ids?: string[]) => ({
      uri,
      title,
      score: 0.9,
      scope: 'x',
      weak: false,
      also_at: [],
      hits: [{ uri, level: 2 as const, score: 0.9, context_type, heading, also_at: [], parent_uri: null, abstract: '', provenance: { message_ids } }],
    });
    const found = relevantHits([
      ranked(session, 'Debugging the export crash', null, 'session', ['m3']),
      ranked('ctx://resources/docs/ops.md', 'Operations guide', 'Memory limits', 'resource'),
    ] as never);
    const fileSources: PackSources = {
      read: sources.read,
      readMessages: async (uri, ids) => (uri === session ? ids.map((id) => `[2024-05-08] Ana: message ${id}.`).join('\n') : null),
      chainsFor: async (refs) => (refs.some((r) => r.message_ids.includes('m3')) ? [chain] : []),
    };
    const pack = await buildContextPack(found, fileSources, { query: 'export crash', budget: 10_000 });
    const titles = Object.fromEntries(pack.blocks.map((b) => [b.id, b.provenance?.title]));
    expect(titles[`${session}#m:m3`]).toBe('Debugging the export crash');
    expect(titles['ctx://resources/docs/ops.md#2']).toBe('Operations guide · Memory limits');
    const steps = pack.blocks.filter((b) => b.id.startsWith('chain:'));
    expect(steps.length).toBe(2);
    for (const step of steps) expect(step.provenance?.title).toBe('Debugging the export crash');
  });

  it('brings the question before a message hit and the reply after it, next to the hit and ranked below the hits', async () => {
    const session = 'ctx://session/race/s2.md';
    const messages: Record<string, string> = {
      's2:1': '[2024-10-06] Lucy: How did Chester go?',
      's2:2': "[2024-10-06] Hannah: I finished! 4 hours 12 minutes, and I cried at the end.",
      's2:3': '[2024-10-06] Lucy: That is amazing, I am so proud of you.',
      's2:4': '[2024-10-06] Hannah: My legs are another story.',
    };
    const order = Object.keys(messages);
    const raceSources: PackSources = {
      read: async () => 'the whole session file '.repeat(200),
      readMessages: async (uri, ids) => (uri === session ? ids.map((id) => messages[id]).join('\n') : null),
      neighboursOf: async (uri, ids) => {
        const first = order.indexOf(ids[0] as string);
        const last = order.indexOf(ids[ids.length - 1] as string);
        const ref = (i: number) => (i >= 0 && i < order.length ? [{ uri, message_id: order[i] as string }] : []);
        return { before: ref(first - 1), after: ref(last + 1) };
      },
    };
    // The question matches "Chester"; the reply that answers it does not.
    const raceHits = [hit(session, 2, 0.9, 'session', ['s2:1']), hit('ctx://resources/docs/ops.md', 2, 0.5)];
    const pack = await buildContextPack(raceHits, { ...raceSources, read: sources.read }, { query: 'how long did Hannah take at Chester', budget: 10_000 });
    expect(pack.blocks.map((b) => b.id)).toEqual([`${session}#m:s2:1`, `${session}#m:s2:2`, 'ctx://resources/docs/ops.md#2']);
    const [question, reply] = pack.blocks;
    expect(reply!.content).toBe(messages['s2:2']);
    expect(reply!.provenance).toEqual({ uri: session, message_ids: ['s2:2'] });
    expect(reply!.priority).toBe('MEDIUM');
    expect(reply!.relevance_score).toBeLessThan(question!.relevance_score);
    expect(pack.markdown).toContain(`${session}: [1] message s2:1 · [2] message s2:2`);

    // A hit in the middle of a session brings both sides, in reading order; a neighbour that is a hit itself comes once.
    const middle = await buildContextPack([hit(session, 2, 0.9, 'session', ['s2:2']), hit(session, 2, 0.8, 'session', ['s2:3'])], raceSources, { query: 'q', budget: 10_000 });
    expect(middle.blocks.map((b) => b.provenance?.message_ids?.[0])).toEqual(['s2:1', 's2:2', 's2:3', 's2:4']);
  });
});

describe('room for the top hits', () => {
  const session = 'ctx://session/c2/s1.md';
  const answer = '[2024-06-01] Ana: The backup runs at 02:00 from the replica, never from the primary.';
  const long = (topic: string) => `[2024-06-02] Bo: ${`The ${topic} was discussed at length with every detail of the setup and its history. `.repeat(8)}`;
  const messages: Record<string, string> = { m1: answer, m7: long('migration'), m8: long('rollback'), m9: long('schema') };
  // A lower hit (m7) whose causal chain (m7 → m8 → m9) scores above any plain block under the chain-aware score.
  const lowChain: ExtractedChain = {
    ...chain,
    chain_id: 'chain_low',
    nodes: [
      { id: 'n1', role: 'problem', text: messages.m7 as string, message_ids: ['m7'] },
      { id: 'n2', role: 'cause', text: messages.m8 as string, message_ids: ['m8'] },
      { id: 'n3', role: 'solution', text: messages.m9 as string, message_ids: ['m9'] },
    ],
    source_message_ids: ['m7', 'm8', 'm9'],
  };
  const chainSources = (chains: ExtractedChain[]): PackSources => ({
    read: async () => 'the whole session file '.repeat(200),
    readMessages: async (uri, ids) => (uri === session ? ids.map((id) => messages[id]).join('\n') : null),
    chainsFor: async (refs) => chains.filter((c) => refs.some((r) => r.message_ids.some((id) => c.source_message_ids.includes(id)))),
  });
  const packHits = [hit(session, 2, 0.9, 'session', ['m1']), hit(session, 2, 0.5, 'session', ['m7'])];

  it('puts the top hit in every pack it fits alone, however high a lower hit\'s chain scores', async () => {
    const alone = await buildContextPack([packHits[0] as PackHit], chainSources([]), { query: 'when does the backup run', budget: 10_000 });
    let lostWithoutReserve = 0;
    for (let budget = alone.tokens; budget < alone.tokens + 400; budget += 9) {
      const pack = await buildContextPack(packHits, chainSources([lowChain]), { query: 'when does the backup run', budget });
      expect(pack.tokens).toBeLessThanOrEqual(budget);
      expect(pack.markdown).toContain(answer);
      // The low chain is whole, summarized, or left out whole: never cut.
      expect(pack.result.chains.map((c) => c.status)).not.toContain('partial');
      // Without the reservation the low hit's chain (or its summary) takes the room first.
      const old = await buildContextPack(packHits, chainSources([lowChain]), { query: 'when does the backup run', budget, reservedHits: 0 });
      if (!old.markdown.includes(answer)) lostWithoutReserve += 1;
    }
    expect(lostWithoutReserve).toBeGreaterThan(0);
  });

  it('keeps a top hit whose chain does not fit, whole, and names the chain\'s other steps by reference', async () => {
    // The top hit is the first step of the long chain: m1 → m8 → m9.
    const ownChain: ExtractedChain = { ...lowChain, chain_id: 'chain_own', nodes: [{ id: 'n1', role: 'problem', text: answer, message_ids: ['m1'] }, ...lowChain.nodes.slice(1)], source_message_ids: ['m1', 'm8', 'm9'] };
    const sources = chainSources([ownChain]);
    const small = await buildContextPack([packHits[0] as PackHit], sources, { query: 'when does the backup run', budget: 200 });
    expect(small.markdown).toContain(answer);
    expect(small.result.chains).toEqual([{ id: 'chain_own', block_ids: expect.any(Array), status: 'referenced' }]);
    expect(small.result.broken_chains).toEqual([]);
    expect(small.result.dropped.filter((d) => d.referenced).map((d) => d.provenance?.message_ids)).toEqual([['m8'], ['m9']]);
    // The chain's line names all three steps; the two not packed are in the legend, so an agent can read them.
    expect(small.markdown).toMatch(/chain_own: \[1\] → \[2\] → \[3\] \(not packed: \[2\], \[3\]\)/);
    expect(small.legend.map((r) => r.message_ids)).toEqual([['m1'], ['m8'], ['m9']]);
    // With room for it, the chain comes whole.
    const large = await buildContextPack([packHits[0] as PackHit], sources, { query: 'when does the backup run', budget: 2_000 });
    expect(large.result.chains.map((c) => c.status)).toEqual(['whole']);
    for (const text of [answer, messages.m8, messages.m9]) expect(large.markdown).toContain((text as string).trim());
  });
});
