/**
 * Chain-aware compression (docs/SPEC.md#chain-aware-compression): the spec's worked example under the three
 * strategies, the hard rules (budget, determinism, input order) over many random block sets,
 * and the edge cases: empty input, ties, a block larger than the budget, long and overlapping
 * chains, chain summaries.
 */
import { describe, expect, it } from 'vitest';
import type { CompressionResult, CompressionStrategy, ContextBlock, ContextBlockInput } from '../../shared/types/compress.js';
import { CompressionResult as CompressionResultSchema } from '../../shared/types/compress.js';
import { chainAwareScore, compressBlocks, parseCompressInput, renderDiffPair, renderMarkdown } from '../../main/engine/compress/index.js';
import { countTokens } from '../../main/lib/tokens.js';
import { prng } from '../support/prng.js';

const STRATEGIES: CompressionStrategy[] = ['priority', 'chain_aware', 'chain_integrity'];

/** The seed's five blocks (500 tokens): problem → cause → solution in chain_001, two unrelated blocks. */
function seedBlocks(): ContextBlock[] {
  return parseCompressInput({
    blocks: [
      {
        id: 'problem', source: 'short_term_memory', priority: 'HIGH', token_count: 100, chain_links: ['chain_001'], chain_types: ['causal'],
        content: 'The nightly export job fails with a timeout after 30 minutes. It started on Monday after the database upgrade. Every retry fails the same way. The dashboard shows the export queue growing without bound.',
        provenance: { source: 'chat/ops.json', message_ids: ['m1', 'm2'] },
      },
      {
        id: 'cause', source: 'short_term_memory', priority: 'MEDIUM', token_count: 80, chain_links: ['chain_001'], chain_types: ['causal'],
        content: 'The upgrade dropped the index on orders.created_at. Without it the export query scans the whole table. Each scan takes forty minutes on production data. The timeout is thirty minutes, so every run is killed.',
        provenance: { source: 'chat/ops.json', message_ids: ['m3'] },
      },
      {
        id: 'solution', source: 'short_term_memory', priority: 'HIGH', token_count: 100, chain_links: ['chain_001'], chain_types: ['causal'],
        content: 'Recreate the index on orders.created_at concurrently. Then rerun the export by hand to drain the queue. Add a migration test that checks the index exists. Alert when an export runs longer than ten minutes.',
        provenance: { source: 'chat/ops.json', lines: [40, 52], message_ids: ['m4'] },
      },
      {
        id: 'plain-d', source: 'long_term_memory', priority: 'MEDIUM', token_count: 100,
        content: 'The office coffee machine was replaced last week. The new one makes espresso. Nobody has read the manual yet.',
      },
      {
        id: 'plain-e', source: 'resource', priority: 'MEDIUM', token_count: 120,
        content: 'The team offsite is planned for the spring. Three venues are on the shortlist. The budget was approved in January.',
      },
    ],
  });
}

/** Every block appears exactly once: kept, dropped, or inside a chain summary. */
function expectPartition(blocks: ContextBlock[], result: CompressionResult) {
  const seen = [...result.kept.map((b) => b.id), ...result.dropped.map((b) => b.id), ...result.replaced.flatMap((r) => r.block_ids)];
  expect(seen.sort()).toEqual(blocks.map((b) => b.id).sort());
}

function expectHardRules(blocks: ContextBlock[], result: CompressionResult) {
  expect(result.compressed_tokens).toBeLessThanOrEqual(result.budget);
  const sum = result.kept.reduce((s, b) => s + b.token_count, 0) + result.replaced.reduce((s, r) => s + r.token_count, 0);
  expect(result.compressed_tokens).toBe(sum);
  expect(result.original_tokens).toBe(blocks.reduce((s, b) => s + b.token_count, 0));
  expectPartition(blocks, result);
  // Input order, for kept blocks and for summaries alike.
  const order = [...result.kept.map((b) => b.index), ...result.replaced.map((r) => r.index)];
  expect(result.kept.map((b) => b.index)).toEqual([...result.kept.map((b) => b.index)].sort((a, b) => a - b));
  expect(new Set(order).size).toBe(order.length);
  for (const kept of result.kept) {
    const original = blocks[kept.index] as ContextBlock;
    expect(kept.id).toBe(original.id);
    expect(kept.original_token_count).toBe(original.token_count);
    if (kept.shortened) {
      expect(kept.token_count).toBeLessThan(original.token_count);
      expect(kept.content.length).toBeGreaterThan(0);
    } else expect(kept.content).toBe(original.content);
  }
  expect(new Set([...result.intact_chains, ...result.broken_chains]).size).toBe(result.chains.length);
  expect(CompressionResultSchema.safeParse(result).success).toBe(true);
}

describe('the seed example: five blocks, 500 tokens, compressed to 250', () => {
  it('scores with the seed formula', () => {
    const [problem, cause, , plain] = seedBlocks();
    // HIGH 7·10 + causal 40 + one link 15; MEDIUM 4·10 + 40 + 15; MEDIUM alone 40.
    expect(chainAwareScore(problem as ContextBlock)).toBe(125);
    expect(chainAwareScore(cause as ContextBlock)).toBe(95);
    expect(chainAwareScore(plain as ContextBlock)).toBe(40);
    expect(chainAwareScore({ ...(plain as ContextBlock), relevance_score: 0.5, freshness_score: 1, chain_types: ['logic', 'time'], chain_links: ['a', 'b'] })).toBe(40 + 35 + 25 + 30 + 5 + 10);
  });

  it('priority keeps problem and solution but loses the cause: the chain is cut', () => {
    const blocks = seedBlocks();
    const result = compressBlocks(blocks, { strategy: 'priority', ratio: 0.5 });
    expectHardRules(blocks, result);
    expect(result.budget).toBe(250);
    expect(result.kept.map((b) => b.id)).toEqual(['problem', 'solution']);
    expect(result.dropped.map((b) => b.id)).toEqual(['cause', 'plain-d', 'plain-e']);
    expect(result.broken_chains).toEqual(['chain_001']);
    expect(result.chains).toEqual([{ id: 'chain_001', block_ids: ['problem', 'cause', 'solution'], status: 'partial' }]);
  });

  it('chain_aware keeps problem, cause and solution, shortening one block to fit', () => {
    const blocks = seedBlocks();
    const result = compressBlocks(blocks, { strategy: 'chain_aware', budget: 250 });
    expectHardRules(blocks, result);
    expect(result.kept.map((b) => b.id)).toEqual(['problem', 'cause', 'solution']);
    const cause = result.kept[1]!;
    expect(cause.shortened).toBe(true);
    expect(cause.original_token_count).toBe(80);
    expect(cause.token_count).toBeLessThanOrEqual(50);
    // Sentence-wise: the leading sentences, whole.
    expect(cause.content).toMatch(/^The upgrade dropped the index on orders\.created_at\..*\.$/);
    expect(blocks[1]!.content.startsWith(cause.content)).toBe(true);
    expect(result.intact_chains).toEqual(['chain_001']);
    expect(result.chains[0]!.status).toBe('shortened');
    expect(result.dropped.map((b) => b.id)).toEqual(['plain-d', 'plain-e']);
  });

  it('chain_integrity replaces the chain that cannot fit whole by its summary, with all three steps', () => {
    const blocks = seedBlocks();
    const result = compressBlocks(blocks, { strategy: 'chain_integrity', ratio: 0.5 });
    expectHardRules(blocks, result);
    expect(result.replaced).toHaveLength(1);
    const summary = result.replaced[0]!;
    expect(summary).toMatchObject({ chain_ids: ['chain_001'], block_ids: ['problem', 'cause', 'solution'], index: 0, summary_source: 'extractive', original_token_count: 280 });
    expect(summary.parts.map((p) => p.block_id)).toEqual(['problem', 'cause', 'solution']);
    for (const part of summary.parts) expect(blocks.find((b) => b.id === part.block_id)!.content.startsWith(part.content)).toBe(true);
    expect(summary.token_count).toBeGreaterThan(200);
    expect(summary.parts[2]!.provenance).toEqual({ source: 'chat/ops.json', lines: [40, 52], message_ids: ['m4'] });
    expect(result.intact_chains).toEqual(['chain_001']);
    expect(result.chains[0]!.status).toBe('summarized');
    expect(result.kept.map((b) => b.id)).not.toContain('cause');
  });

  it('chain_integrity keeps the chain whole when it fits', () => {
    const blocks = seedBlocks();
    const result = compressBlocks(blocks, { strategy: 'chain_integrity', budget: 300 });
    expectHardRules(blocks, result);
    expect(result.kept.filter((b) => !b.shortened).map((b) => b.id)).toEqual(['problem', 'cause', 'solution']);
    expect(result.chains[0]!.status).toBe('whole');
    expect(result.replaced).toEqual([]);
  });
});

const WORDS = 'index export queue timeout retry cache disk upgrade query table scan alert migration node worker lock 索引 超时 队列 数据库'.split(' ');
const PRIORITIES = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW'] as const;
const TYPES = ['causal', 'logic', 'operation', 'narrative', 'time'] as const;

function randomBlocks(random: () => number): ContextBlock[] {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const n = Math.floor(random() * 30);
  const blocks: ContextBlockInput[] = [];
  for (let i = 0; i < n; i += 1) {
    const sentences = Array.from({ length: 1 + Math.floor(random() * 6) }, () => {
      const words = Array.from({ length: 2 + Math.floor(random() * 25) }, () => pick(WORDS));
      return `${words.join(' ')}${pick(['.', '!', '?', '。'])}`;
    });
    const chainCount = random() < 0.5 ? 0 : 1 + Math.floor(random() * 3);
    const block: ContextBlockInput = {
      id: `b${i}`,
      source: pick(['short_term_memory', 'resource']),
      priority: pick(PRIORITIES),
      content: sentences.join(random() < 0.3 ? '\n' : ' '),
      chain_links: Array.from({ length: chainCount }, () => `c${Math.floor(random() * 6)}`),
      chain_types: chainCount ? [pick(TYPES)] : [],
      relevance_score: Math.round(random() * 4) / 4,
      freshness_score: Math.round(random() * 4) / 4,
    };
    // Half the blocks carry a count in another tokenizer's units, as callers may give.
    if (random() < 0.5) block.token_count = Math.floor(countTokens(block.content as string) * (0.5 + random() * 2));
    if (random() < 0.2) block.summary = sentences[0];
    blocks.push(block);
  }
  return parseCompressInput({ blocks });
}

describe('hard rules over random block sets', () => {
  it('never exceeds the budget, partitions the input, keeps input order, chain_integrity never cuts a chain', () => {
    const random = prng(20261201);
    let shortened = 0;
    let summarized = 0;
    for (let round = 0; round < 250; round += 1) {
      const blocks = randomBlocks(random);
      const total = blocks.reduce((s, b) => s + b.token_count, 0);
      const budget = random() < 0.2 ? { ratio: Math.round(random() * 10) / 10 } : { budget: Math.floor(random() * (total + 20)) };
      for (const strategy of STRATEGIES) {
        const result = compressBlocks(blocks, { strategy, ...budget });
        expectHardRules(blocks, result);
        if (strategy === 'priority') expect(result.kept.every((b) => !b.shortened)).toBe(true);
        if (strategy === 'chain_integrity') expect(result.chains.every((c) => c.status !== 'partial')).toBe(true);
        shortened += result.kept.filter((b) => b.shortened).length;
        summarized += result.replaced.length;
      }
    }
    // The random sets really exercise shortening and summaries, not just whole blocks.
    expect(shortened).toBeGreaterThan(50);
    expect(summarized).toBeGreaterThan(20);
  });

  it('keeps reserved blocks first: the first one whenever it fits the budget alone, and chain_integrity still cuts no chain', () => {
    const random = prng(20261202);
    let referenced = 0;
    for (let round = 0; round < 250; round += 1) {
      const blocks = randomBlocks(random);
      if (blocks.length === 0) continue;
      const total = blocks.reduce((s, b) => s + b.token_count, 0);
      const budget = Math.floor(random() * (total + 20));
      // A few groups of random blocks, as a pack reserves its top hits with their neighbours.
      const reserve = Array.from({ length: 1 + Math.floor(random() * 4) }, () =>
        Array.from({ length: 1 + Math.floor(random() * 3) }, () => Math.floor(random() * blocks.length)),
      );
      const first = reserve[0]![0]!;
      for (const strategy of STRATEGIES) {
        const result = compressBlocks(blocks, { strategy, budget, reserve, cutSentences: false });
        expectHardRules(blocks, result);
        if (blocks[first]!.token_count <= budget) expect(result.kept.find((b) => b.index === first)).toMatchObject({ shortened: false });
        if (strategy !== 'chain_integrity') continue;
        expect(result.chains.every((c) => c.status !== 'partial')).toBe(true);
        // A block named by reference is a step of a chain that holds a reserved block (or is
        // joined to one by a shared block); each chain it is in is named whole, by reference.
        const status = new Map(result.chains.map((c) => [c.id, c.status]));
        for (const block of result.dropped.filter((d) => d.referenced)) {
          expect(block.chain_links.every((id) => status.get(id) === 'referenced')).toBe(true);
          referenced += 1;
        }
      }
    }
    expect(referenced).toBeGreaterThan(20);
  });

  it('is deterministic: the same input gives the same output', () => {
    const random = prng(7);
    for (let round = 0; round < 30; round += 1) {
      const blocks = randomBlocks(random);
      for (const strategy of STRATEGIES) {
        const budget = Math.floor(blocks.reduce((s, b) => s + b.token_count, 0) / 3);
        const first = JSON.stringify(compressBlocks(blocks, { strategy, budget }));
        const again = JSON.stringify(compressBlocks(structuredClone(blocks), { strategy, budget }));
        expect(again).toBe(first);
      }
    }
  });
});

function block(id: string, content: string, extra: Partial<ContextBlockInput> = {}): ContextBlockInput {
  return { id, source: 'resource', priority: 'MEDIUM', content, ...extra };
}

describe('edge cases', () => {
  it('handles empty input under every strategy', () => {
    for (const strategy of STRATEGIES) {
      for (const budget of [{ budget: 0 }, { budget: 100 }, { ratio: 0.5 }, {}]) {
        const result = compressBlocks([], { strategy, ...budget });
        expect(result).toMatchObject({ strategy, original_tokens: 0, compressed_tokens: 0, kept: [], dropped: [], replaced: [], chains: [], intact_chains: [], broken_chains: [] });
      }
    }
  });

  it('chain_integrity keeps the blocks that fit whole before it shortens a longer, higher one below HIGH into the room left', () => {
    // A pack's weak page cut to fill the room used to leave out the short reply that answers.
    const page = block('page', Array.from({ length: 10 }, (_, i) => `Sentence ${i + 1} of a long page about something else.`).join(' '));
    const reply = block('reply', 'The answer is in this short reply.', { priority: 'LOW' });
    const blocks = parseCompressInput({ blocks: [page, reply] });
    const result = compressBlocks(blocks, { strategy: 'chain_integrity', budget: 60 });
    expectHardRules(blocks, result);
    expect(result.kept.map((b) => [b.id, b.shortened])).toEqual([['page', true], ['reply', false]]);
    expect(result.compressed_tokens).toBeGreaterThan(60 - 13);
    // A HIGH block (a pack's top hit) is still shortened in its turn: its excerpt is worth more.
    const high = compressBlocks(parseCompressInput({ blocks: [{ ...page, priority: 'HIGH' }, reply] }), { strategy: 'chain_integrity', budget: 60 });
    expect(high.kept.map((b) => [b.id, b.shortened])).toEqual([['page', true]]);
  });

  it('breaks ties by input order', () => {
    const blocks = parseCompressInput({ blocks: ['one', 'two', 'three', 'four'].map((id) => block(id, 'Same words here.', { token_count: 10 })) });
    for (const strategy of STRATEGIES) {
      const result = compressBlocks(blocks, { strategy, budget: 25 });
      expect(result.kept.filter((b) => !b.shortened).map((b) => b.id)).toEqual(['one', 'two']);
      expect(result.dropped.map((b) => b.id)).toContain('four');
    }
  });

  it('shortens a block larger than the whole budget (priority drops it)', () => {
    const long = Array.from({ length: 200 }, (_, i) => `Sentence number ${i} explains one more detail of the incident.`).join(' ');
    const blocks = parseCompressInput({ blocks: [block('big', long)] });
    expect(blocks[0]!.token_count).toBeGreaterThan(1000);
    expect(compressBlocks(blocks, { strategy: 'priority', budget: 100 }).kept).toEqual([]);
    for (const strategy of ['chain_aware', 'chain_integrity'] as const) {
      const result = compressBlocks(blocks, { strategy, budget: 100 });
      expect(result.kept).toHaveLength(1);
      const kept = result.kept[0]!;
      expect(kept.shortened).toBe(true);
      expect(kept.token_count).toBeLessThanOrEqual(100);
      expect(kept.token_count).toBeGreaterThan(80);
      expect(kept.content).toBe(long.slice(0, kept.content.length));
      expect(kept.content.endsWith('incident.')).toBe(true);
      expect(countTokens(kept.content)).toBe(kept.token_count);
    }
  });

  it('cuts a first sentence too long for the budget at a word, marked with an ellipsis', () => {
    const runOn = Array.from({ length: 300 }, (_, i) => `word${i}`).join(' ');
    const blocks = parseCompressInput({ blocks: [block('run-on', runOn)] });
    const result = compressBlocks(blocks, { strategy: 'chain_aware', budget: 60 });
    const kept = result.kept[0]!;
    expect(kept.content).toMatch(/^word0 word1 .* word\d+…$/);
    expect(kept.token_count).toBeLessThanOrEqual(60);
    // Too little room for a meaningful cut: left out rather than kept as a scrap.
    expect(compressBlocks(blocks, { strategy: 'chain_aware', budget: 20 }).kept).toEqual([]);
  });

  it('keeps a chain spread over many blocks whole, or summarizes all of it', () => {
    const steps = Array.from({ length: 20 }, (_, i) =>
      block(`step${i}`, `Step ${i} runs the migration for shard ${i}. It then verifies the row counts. Finally it logs the result.`, {
        chain_links: ['deploy'],
        chain_types: ['operation'],
      }),
    );
    const noise = Array.from({ length: 10 }, (_, i) => block(`note${i}`, `Unrelated note ${i} about lunch plans and the weather.`, { priority: 'LOW' }));
    const blocks = parseCompressInput({ blocks: [...steps.slice(0, 10), ...noise, ...steps.slice(10)] });
    const chainTokens = blocks.filter((b) => b.chain_links.length).reduce((s, b) => s + b.token_count, 0);

    const roomy = compressBlocks(blocks, { strategy: 'chain_integrity', budget: chainTokens });
    expectHardRules(blocks, roomy);
    expect(roomy.kept.map((b) => b.id)).toEqual(blocks.filter((b) => b.chain_links.length).map((b) => b.id));
    expect(roomy.chains[0]!.status).toBe('whole');

    const tight = compressBlocks(blocks, { strategy: 'chain_integrity', budget: Math.floor(chainTokens / 2) });
    expectHardRules(blocks, tight);
    expect(tight.chains[0]!.status).toBe('summarized');
    expect(tight.replaced[0]!.block_ids).toHaveLength(20);
    expect(tight.replaced[0]!.parts.length).toBeGreaterThanOrEqual(15);
    // Chain-aware alone cuts the same chain on the same budget: the difference stage 2 makes.
    const stage1 = compressBlocks(blocks, { strategy: 'chain_aware', budget: Math.floor(chainTokens / 2) });
    expect(stage1.chains[0]!.status).toBe('partial');
  });

  it('keeps or drops blocks in several chains together with all of those chains', () => {
    const blocks = parseCompressInput({
      blocks: [
        block('a1', 'Alpha starts here. It has two sentences.', { chain_links: ['A'], chain_types: ['causal'] }),
        block('filler', 'Filler text that matters little. It is only here to take room.', { priority: 'LOW' }),
        block('shared', 'This block belongs to both chains. It links them.', { chain_links: ['A', 'B'], chain_types: ['causal', 'logic'] }),
        block('b1', 'Beta ends here. It also has two sentences.', { chain_links: ['B'], chain_types: ['logic'] }),
      ],
    });
    const chainTotal = blocks.filter((b) => b.chain_links.length).reduce((s, b) => s + b.token_count, 0);
    const whole = compressBlocks(blocks, { strategy: 'chain_integrity', budget: chainTotal });
    expect(whole.kept.map((b) => b.id)).toEqual(['a1', 'shared', 'b1']);
    expect(whole.intact_chains).toEqual(['A', 'B']);

    const tight = compressBlocks(blocks, { strategy: 'chain_integrity', budget: chainTotal - 2 });
    expectHardRules(blocks, tight);
    expect(tight.replaced).toHaveLength(1);
    expect(tight.replaced[0]).toMatchObject({ chain_ids: ['A', 'B'], block_ids: ['a1', 'shared', 'b1'], index: 0 });
    expect(tight.chains.map((c) => c.status)).toEqual(['summarized', 'summarized']);

    const none = compressBlocks(blocks, { strategy: 'chain_integrity', budget: 5 });
    expect(none.broken_chains).toEqual(['A', 'B']);
    expect(none.chains.map((c) => c.status)).toEqual(['dropped', 'dropped']);
  });

  it("uses the blocks' given summaries when every block has one and they fit", () => {
    const input = [
      block('p', 'The build broke on the release branch after the merge. Nobody could ship for a day. The logs were long.', { chain_links: ['c'], chain_types: ['causal'], summary: 'Release build broke.' }),
      block('q', 'A dependency bumped its major version without notice. The lock file was not committed. So CI pulled the new one.', { chain_links: ['c'], chain_types: ['causal'], summary: 'Unpinned dependency.' }),
      block('r', 'We pinned the dependency and committed the lock file. A CI check now fails when it is missing.', { chain_links: ['c'], chain_types: ['causal'], summary: 'Pinned it; CI checks the lock file.' }),
    ];
    const blocks = parseCompressInput({ blocks: input });
    const result = compressBlocks(blocks, { strategy: 'chain_integrity', budget: 30 });
    expectHardRules(blocks, result);
    expect(result.replaced[0]).toMatchObject({ summary_source: 'given', content: 'Release build broke.\n\nUnpinned dependency.\n\nPinned it; CI checks the lock file.' });
    expect(result.replaced[0]!.token_count).toBe(['Release build broke.', 'Unpinned dependency.', 'Pinned it; CI checks the lock file.'].reduce((s, t) => s + countTokens(t), 0));

    // One block without a summary: the summary is extracted from the blocks' text instead.
    const partial = parseCompressInput({ blocks: input.map((b, i) => (i === 1 ? { ...b, summary: undefined } : b)) });
    expect(compressBlocks(partial, { strategy: 'chain_integrity', budget: 30 }).replaced[0]!.summary_source).toBe('extractive');
  });

  it('shortens Chinese text at sentence ends', () => {
    const content = '导出任务在凌晨超时。原因是升级后索引丢失。查询因此扫描全表。重建索引后恢复正常。';
    const blocks = parseCompressInput({ blocks: [block('zh', content, { token_count: 100 })] });
    const result = compressBlocks(blocks, { strategy: 'chain_aware', budget: 60 });
    const kept = result.kept[0]!;
    expect(kept.shortened).toBe(true);
    expect(kept.content.endsWith('。')).toBe(true);
    expect(content.startsWith(kept.content)).toBe(true);
    expect(kept.token_count).toBeLessThanOrEqual(60);
  });
});

describe('shortening for a question', () => {
  const page = [
    '# Database backups',
    '',
    'The booking database, which holds every reservation, payment and refund since 2019, is backed up every night at 02:00 by a job on the replica.',
    'Each backup is copied to the bucket in the second region.',
    '',
    '## Keeping',
    'Backups are kept for thirty days; the monthly ones for a year. A restore test',
    'runs every Monday on a scratch server.',
  ].join('\n');
  const fit = (query: string | undefined, budget: number) =>
    compressBlocks(parseCompressInput({ blocks: [block('page', page)] }), { strategy: 'chain_aware', budget, cutSentences: false, ...(query ? { query } : {}) }).kept[0];

  it('keeps the heading and the sentences that match the question, under their own heading, when the leading ones would be the title alone', () => {
    // Without a question the room holds the title only: the first sentence is longer than what is left.
    expect(fit(undefined, 30)?.content).toBe('# Database backups');
    const kept = fit('how long are backups kept', 30)!;
    expect(kept).toMatchObject({ shortened: true, content: '# Database backups\n…\n## Keeping\nBackups are kept for thirty days; the monthly ones for a year.' });
    expect(kept.token_count).toBe(countTokens(kept.content));
    expect(kept.token_count).toBeLessThanOrEqual(30);
  });

  it('keeps a sentence of a hard-wrapped paragraph whole, and the leading sentences when they say as much of the question', () => {
    const kept = fit('when does the restore test run', 40)!;
    expect(kept.content).toContain('A restore test\nruns every Monday on a scratch server.');
    expect(kept.content.endsWith('…')).toBe(false);
    // The leading sentences hold the question's terms: they stay the excerpt, in one piece.
    const lead = fit('when is the booking database backed up every night', 50)!.content;
    expect(page.startsWith(lead)).toBe(true);
    expect(lead).toContain('is backed up every night at 02:00');
  });
});

describe('reading blocks', () => {
  it('fills in token counts and default scores, and accepts upper-case chain types', () => {
    const [b] = parseCompressInput({ blocks: [{ id: 'x', source: 'resource', priority: 'LOW', content: 'Hello, world', chain_links: ['k'], chain_types: ['CAUSAL'] }] });
    expect(b).toMatchObject({ token_count: 3, relevance_score: 0, freshness_score: 0, chain_types: ['causal'] });
    const [bare] = parseCompressInput({ blocks: [{ id: 'y', source: 's', priority: 'HIGH', content: 'x', token_count: 9 }] });
    expect(bare).toMatchObject({ token_count: 9, chain_links: [], chain_types: [] });
  });

  it('names the path of a bad field', () => {
    expect(() => parseCompressInput({ blocks: [block('a', 'x'), { ...block('b', 'y'), priority: 'URGENT' }] })).toThrow(/^blocks\[1\]\.priority: /);
    expect(() => parseCompressInput({ blocks: [{ ...block('a', 'x'), relevance_score: 2 }] })).toThrow(/blocks\[0\]\.relevance_score/);
    expect(() => parseCompressInput({ blocks: [block('a', 'x'), block('a', 'y')] })).toThrow(/blocks\[1\]\.id: duplicate block id "a"/);
    expect(() => parseCompressInput({ items: [] })).toThrow(/^blocks: /);
  });

  it('rejects budgets that make no sense', () => {
    const blocks = seedBlocks();
    expect(() => compressBlocks(blocks, { budget: -1 })).toThrow(/budget/);
    expect(() => compressBlocks(blocks, { ratio: 1.5 })).toThrow(/ratio/);
    expect(compressBlocks(blocks, { ratio: 1 }).compressed_tokens).toBe(500);
    expect(compressBlocks(blocks, { budget: 0 }).kept).toEqual([]);
  });
});

describe('rendering', () => {
  it('prints Markdown in input order with each block and summary part under its provenance', () => {
    const blocks = seedBlocks();
    const aware = renderMarkdown(compressBlocks(blocks, { strategy: 'chain_aware', budget: 250 }));
    expect(aware).toContain('# Context (chain_aware: 500 → 250 tokens, budget 250)'.replace('250 tokens', `${compressBlocks(blocks, { strategy: 'chain_aware', budget: 250 }).compressed_tokens} tokens`));
    expect(aware.indexOf('## problem')).toBeLessThan(aware.indexOf('## cause'));
    expect(aware.indexOf('## cause')).toBeLessThan(aware.indexOf('## solution'));
    expect(aware).toMatch(/## cause · MEDIUM · short_term_memory · \d+ of 80 tokens, shortened/);
    expect(aware).toContain('_source: chat/ops.json · lines 40–52 · messages m4 · chains: chain_001 (causal)_');
    expect(aware).not.toContain('plain-d');

    const integrity = renderMarkdown(compressBlocks(blocks, { strategy: 'chain_integrity', budget: 250 }));
    expect(integrity).toMatch(/## Summary of chain chain_001 · \d+ of 280 tokens, extractive/);
    expect(integrity).toContain('### cause (shortened)\n_source: chat/ops.json · messages m3_');

    const priority = renderMarkdown(compressBlocks(blocks, { strategy: 'priority', budget: 250 }));
    expect(priority).toContain('_Chains cut or left out: chain_001._');
  });

  it('gives a before/after pair a line diff can compare', () => {
    const blocks = seedBlocks();
    const { before, after } = renderDiffPair(blocks, compressBlocks(blocks, { strategy: 'chain_integrity', budget: 250 }));
    expect(before.split('\n').filter((l) => l.startsWith('### '))).toEqual(['### problem', '### cause', '### solution', '### plain-d', '### plain-e']);
    expect(after.split('\n').filter((l) => l.startsWith('### ')).slice(0, 3)).toEqual([
      '### problem [summary of chain_001]',
      '### cause [summary of chain_001]',
      '### solution [summary of chain_001]',
    ]);
    expect(after.length).toBeLessThan(before.length);
  });
});
