/**
 * `context:pack` through a real engine: a real LanceDB index, a conversation imported and
 * analyzed (rule tracks in this thread), then a question whose answer sits in a causal chain:
 * the pack brings the chain's other messages along and keeps it whole within the budget.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine, type Engine } from '../../main/engine/engine.js';
import { inProcessParseRunner } from '../../main/engine/parse/runner.js';
import { lazySearchIndex } from '../../main/host/open-index.js';

const ROOT = join(import.meta.dirname, '../..');
let workspace: string;
let engine: Engine;

beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'cairn-context-'));
  engine = await createEngine({ workspace, parser: inProcessParseRunner(), index: lazySearchIndex(workspace, { idleOptimizeMs: 0 }) });
  await engine.call('ingest:start', { path: join(ROOT, 'assets/sample') });
  await engine.call('summarize:run', {});
  await engine.call('sessions:import', { path: join(ROOT, 'test/fixtures/chains/en-memory-leak.json') });
  await engine.call('sessions:analyze', { id: 'en-memory-leak' });
}, 120_000);
afterAll(async () => {
  await engine?.dispose();
  await rm(workspace, { recursive: true, force: true });
});

describe('context:pack', () => {
  it('packs search hits with the chains of their messages, chains whole, within the budget', async () => {
    const { chains } = (await engine.call('sessions:analyze', { id: 'en-memory-leak' })) as { chains: Array<{ chain_id: string; chain_type: string; source_message_ids: string[] }> };
    const causal = chains.filter((c) => c.chain_type === 'CAUSAL');
    expect(causal.length).toBeGreaterThan(0);

    for (const budget of [300, 1500]) {
      const pack = await engine.call('context:pack', { query: 'why were the pods OOM-killed after the deploy', budget });
      expect(pack.result.compressed_tokens).toBeLessThanOrEqual(budget);
      // Every message hit is its own block and brings its chains: some may be left out whole at a
      // small budget, none is ever cut (kept in part).
      expect(pack.result.chains.filter((c) => c.status === 'partial')).toEqual([]);
      // The answer to a "why" is the message that says why ("There's the leak… Because each entry
      // holds the whole `req` object…"), whole, though it shares no word with the question.
      const cause = pack.result.kept.find((b) => b.id === 'ctx://session/en-memory-leak/s1.md#m:s1:11');
      expect(cause?.shortened).toBe(false);
      // The timeline ("we deployed v2.14 ... the first OOM kill") and its chain come with it when
      // there is room, every step (shortened to leading sentences at most); at 300 tokens it is left out whole.
      const timeline = pack.result.chains.find((c) => c.block_ids.includes('ctx://session/en-memory-leak/s1.md#m:s1:3'));
      expect(budget === 300 ? ['whole', 'shortened', 'dropped'] : ['whole', 'shortened']).toContain(timeline?.status);
      // The conversation was found, and at least one chain came with it, whole.
      const chained = pack.blocks.filter((b) => b.chain_links.length > 0);
      expect(chained.length).toBeGreaterThan(1);
      expect(pack.result.intact_chains.length).toBeGreaterThan(0);
      for (const chainId of pack.result.intact_chains) {
        const chain = chains.find((c) => c.chain_id === chainId)!;
        const members = pack.blocks.filter((b) => b.chain_links.includes(chainId)).flatMap((b) => b.provenance?.message_ids ?? []);
        for (const id of chain.source_message_ids) expect(members, `${chainId} has ${id}`).toContain(id);
      }
      expect(pack.markdown).toContain('Query: why were the pods OOM-killed after the deploy');
    }
  });

  it('answers a question about the documents with the documents, though a conversation shares the workspace', async () => {
    // The conversation's session record is near the question by vector alone; routed to its
    // messages, it put "…something called `sessionCache`" (matching "on-call" by "called") first.
    const question = 'what should the on-call person do when a station stops reporting?';
    const { ranked } = await engine.call('search:query', { query: question, topK: 10 });
    expect(ranked[0]?.uri).toBe('ctx://resources/sample/docs/operations.md');
    const pack = await engine.call('context:pack', { query: question, budget: 600 });
    expect(pack.blocks[0]?.id.startsWith('ctx://resources/sample/docs/operations.md')).toBe(true);
    expect(pack.markdown).toContain('A station stopped reporting');
  });

  it('compress:run returns the result and a before/after pair for the diff view', async () => {
    const blocks = [
      { id: 'a', source: 'resource', priority: 'HIGH' as const, content: 'The problem: the export fails at night.', chain_links: ['c1'], chain_types: ['causal' as const] },
      { id: 'b', source: 'resource', priority: 'MEDIUM' as const, content: 'The cause: every row is loaded at once.', chain_links: ['c1'], chain_types: ['causal' as const] },
      { id: 'c', source: 'resource', priority: 'LOW' as const, content: 'Unrelated: the office plants need water on Fridays. '.repeat(5) },
    ];
    const { result, before, after } = await engine.call('compress:run', { blocks, budget: 25 });
    expect(result.compressed_tokens).toBeLessThanOrEqual(25);
    expect(result.intact_chains).toEqual(['c1']);
    expect(before).toContain('### c');
    expect(after).not.toContain('office plants');
  });
});
