/**
 * Context packs worth their tokens (issue 19, item 3), through a real engine: real files ingested
 * into a temporary workspace, a conversation imported and analyzed, a real LanceDB index. The
 * pack's text opens every block with a short reference and names each source once in its legend,
 * cuts blocks only between sentences (a shortened page keeps the sentences that match the question), holds only results above the pack floor (and the messages next to a message hit), ranks the
 * decision up for a "what did we decide" question and the cause for a "why" question, and fits the budget, legend included.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine, type Engine } from '../../main/engine/engine.js';
import { inProcessParseRunner } from '../../main/engine/parse/runner.js';
import { lazySearchIndex } from '../../main/host/open-index.js';
import { countTokens } from '../../main/lib/tokens.js';
import { sentenceEnds } from '../../main/engine/compress/shorten.js';
import { PACK_FLOOR } from '../../main/engine/compress/context-pack.js';

let tmp: string;
let engine: Engine;

const BACKUPS = [
  '# Database backups',
  '',
  // A sentence longer than the room a small pack leaves: a pack must leave it out, not cut it.
  'The booking database, which holds every reservation, payment, refund and cancellation the booking service has taken since it opened in 2019, ' +
    'is backed up every night at 02:00 by a pg_basebackup job that runs on the replica rather than on the primary, so that the copy never slows down checkout, ' +
    'and the job streams its output straight into the storage bucket in the second region, where it is encrypted with the backup key that the security team rotates every quarter. ' +
    'Each backup is copied to the storage bucket in the second region. ' +
    'Backups are kept for thirty days; the monthly ones for a year. A restore test runs every Monday on a scratch server, and its log goes to the ops channel. ' +
    'When a backup fails, the on-call engineer reruns it by hand and checks the free disk space on the database host. ' +
    'The backup job writes its own metrics, so a missing backup raises an alert within an hour.',
  '',
].join('\n');

// No heading: the block's first sentence is this long one.
const BACKUPS_ZH = [
  '预订数据库保存着预订服务自二零一九年上线以来的每一笔预订、付款、退款和取消记录，它每天凌晨两点由一个在从库而不是主库上运行的备份任务完整备份，这样备份永远不会拖慢结账，' +
    '而且备份任务会把数据直接写进第二个地区的存储桶，在那里用安全团队每个季度轮换一次的备份密钥加密。每个备份保留三十天！每月的备份保留一年。恢复演练每周一进行？是的，在一台临时服务器上。',
  '',
].join('\n');

const TOMATOES = ['# Growing tomatoes', '', 'Tomatoes want six hours of sun and deep watering twice a week. Pinch the side shoots so the plant puts its energy into fruit.', ''].join('\n');

const conversation = {
  id: 'booking-db',
  title: 'Choosing the booking database',
  sessions: [
    {
      id: 's1',
      started_at: '2024-03-04T10:00:00Z',
      messages: [
        // The discussion says "decide" and "booking database" more often than the decision does.
        { id: 's1:1', role: 'user', speaker: 'Priya', text: 'We have to decide on the booking database this week: Postgres or MongoDB?', timestamp: '2024-03-04T10:00:00Z' },
        { id: 's1:2', role: 'user', speaker: 'Marco', text: 'Before we decide on the booking database, remember that MongoDB is flexible for booking documents.', timestamp: '2024-03-04T10:02:00Z' },
        { id: 's1:3', role: 'user', speaker: 'Jonas', text: 'I cannot decide about the booking database yet; the booking database must never double-book.', timestamp: '2024-03-04T10:04:00Z' },
        { id: 's1:4', role: 'user', speaker: 'Marco', text: 'Hard to decide: the booking database needs transactions, and MongoDB has them too, just slower.', timestamp: '2024-03-04T10:06:00Z' },
        { id: 's1:5', role: 'user', speaker: 'Priya', text: "OK, let's go with Postgres for the booking database.", timestamp: '2024-03-04T10:08:00Z' },
      ],
    },
  ],
};

// A "why" question: the messages that state the failure repeat its words; the one that says why does not.
const nightly = {
  id: 'nightly-build',
  title: 'The nightly build',
  sessions: [
    {
      id: 's1',
      started_at: '2024-04-02T09:00:00Z',
      messages: [
        { id: 's1:1', role: 'user', speaker: 'Lena', text: 'The nightly build failed again at 3am, the third night in a row the nightly build failed.', timestamp: '2024-04-02T09:00:00Z' },
        { id: 's1:2', role: 'user', speaker: 'Sam', text: 'Did the nightly build fail on the test step or on the packaging step?', timestamp: '2024-04-02T09:01:00Z' },
        { id: 's1:3', role: 'user', speaker: 'Lena', text: 'It failed on packaging, and the nightly build log only says "exit 137".', timestamp: '2024-04-02T09:02:00Z' },
        { id: 's1:4', role: 'user', speaker: 'Sam', text: 'Exit 137 means the process was killed. It was killed because the runner has 2 GB of memory and the new asset bundler needs almost 3.', timestamp: '2024-04-02T09:04:00Z' },
        { id: 's1:5', role: 'user', speaker: 'Lena', text: 'I moved it to the large runner this morning.', timestamp: '2024-04-02T09:06:00Z' },
      ],
    },
  ],
};

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'cairn-pack-text-'));
  const docs = join(tmp, 'docs');
  await mkdir(docs);
  await writeFile(join(docs, 'backups.md'), BACKUPS);
  await writeFile(join(docs, 'tomatoes.md'), TOMATOES);
  await writeFile(join(docs, '备份.md'), BACKUPS_ZH);
  await writeFile(join(tmp, 'booking-db.json'), JSON.stringify(conversation));
  const workspace = join(tmp, 'ws');
  engine = await createEngine({ workspace, parser: inProcessParseRunner(), index: lazySearchIndex(workspace, { idleOptimizeMs: 0 }) });
  await engine.call('ingest:start', { path: docs });
  await engine.call('summarize:run', {});
  await engine.call('sessions:import', { path: join(tmp, 'booking-db.json') });
  await engine.call('sessions:analyze', { id: 'booking-db' });
  await writeFile(join(tmp, 'nightly-build.json'), JSON.stringify(nightly));
  await engine.call('sessions:import', { path: join(tmp, 'nightly-build.json') });
  await engine.call('sessions:analyze', { id: 'nightly-build' });
}, 120_000);
afterAll(async () => {
  await engine?.dispose();
  await rm(tmp, { recursive: true, force: true });
});

/** The text before the legend: where the blocks are. */
const body = (markdown: string) => markdown.slice(0, markdown.indexOf('\nSources:'));

describe('context pack text', () => {
  it('opens blocks with short references and names each source once, in a legend at the end', async () => {
    const pack = await engine.call('context:pack', { query: 'how is the booking database backed up', budget: 1500 });
    expect(pack.blocks.length).toBeGreaterThan(0);
    expect(pack.tokens).toBe(countTokens(pack.markdown));
    expect(pack.tokens).toBeLessThanOrEqual(1500);
    // No URI in the blocks' text: only references.
    expect(body(pack.markdown)).not.toContain('ctx://');
    const refs = [...new Set(body(pack.markdown).match(/^\[\d+\]/gm))];
    expect(refs.length).toBeGreaterThan(0);
    expect(pack.legend.map((r) => r.ref)).toEqual(refs.map((_, i) => `[${i + 1}]`));
    const legend = pack.markdown.slice(pack.markdown.indexOf('\nSources:'));
    for (const entry of pack.legend) {
      expect(entry.uri).toMatch(/^ctx:\/\//);
      expect(legend).toContain(entry.ref);
    }
    // Each URI is written once, however many references point into it.
    const named = legend.match(/ctx:\/\/[^\s,:]+/g) ?? [];
    expect(named.sort()).toEqual([...new Set(pack.legend.map((r) => r.uri as string))].sort());
    // The backups document answers the question and is in.
    expect(pack.legend.some((r) => r.uri?.includes('backups'))).toBe(true);
  });

  it('leaves out results below the pack floor, however much room is left, but for the messages next to a packed hit', async () => {
    const pack = await engine.call('context:pack', { query: 'how is the booking database backed up', budget: 100_000 });
    const search = await engine.call('search:query', { query: 'how is the booking database backed up', mode: 'hybrid', topK: 40 });
    // A node, or a message of a conversation: what a block stands for.
    const key = (uri: string | undefined, messages: string[] | undefined) => `${uri} ${messages?.join(',') ?? ''}`;
    const below = search.ranked.filter((r) => r.score < PACK_FLOOR);
    expect(below.some((r) => r.uri.includes('tomatoes'))).toBe(true);
    // A message gets in below the floor only as the one before or after a message that made it.
    const order = conversation.sessions[0]!.messages.map((m) => m.id);
    const packedIds = new Set(pack.blocks.flatMap((b) => b.provenance?.message_ids ?? []));
    const nextToPacked = (id: string | undefined) => [-1, 1].some((step) => packedIds.has(order[order.indexOf(id ?? '') + step] ?? ''));
    const packed = pack.blocks.map((b) => key(b.provenance?.uri, b.provenance?.message_ids));
    for (const result of below) {
      for (const hit of result.hits) {
        if (hit.provenance.message_ids.length === 1 && nextToPacked(hit.provenance.message_ids[0])) continue;
        expect(packed).not.toContain(key(hit.uri, hit.provenance.message_ids.length ? hit.provenance.message_ids : undefined));
      }
    }
    expect(pack.legend.map((r) => r.uri)).not.toContain('ctx://resources/docs/tomatoes.md');
  });

  it('cuts a block only between sentences, Latin or Chinese, never inside one', async () => {
    const cases = [120, 160, 200, 260].flatMap((budget) => [
      { query: 'how is the booking database backed up', budget },
      { query: '预订数据库怎么备份', budget },
    ]);
    let shortened = 0;
    for (const { query, budget } of cases) {
      const pack = await engine.call('context:pack', { query, budget });
      expect(pack.tokens).toBeLessThanOrEqual(budget);
      const pieces = [
        ...pack.result.kept.filter((b) => b.shortened).map((b) => ({ id: b.id, content: b.content })),
        ...pack.result.replaced.flatMap((r) => r.parts.filter((p) => p.shortened).map((p) => ({ id: p.block_id, content: p.content }))),
      ];
      shortened += pieces.length;
      for (const piece of pieces) {
        // The block's head, then whole sentences of it in reading order ("…" where some are left
        // out): each part starts and ends where one of its sentences (or lines) does.
        const whole = pack.blocks.find((b) => b.id === piece.id)!.content;
        const ends = sentenceEnds(whole);
        let from = 0;
        for (const [k, part] of piece.content.split(/\n…\n| … /).entries()) {
          const at = whole.indexOf(part, from);
          if (k === 0) expect(at, `${query}: ${piece.content}`).toBe(0);
          else expect(at, `${query}: ${piece.content}`).toBeGreaterThanOrEqual(from);
          if (k > 0) expect(ends, `${query}: ${part}`).toContain(whole.slice(0, at).trimEnd().length);
          expect(ends, `${query}: ${part}`).toContain(at + part.length);
          from = at + part.length;
        }
        expect(piece.content.endsWith('…'), piece.content).toBe(false);
      }
    }
    // The budgets are small enough that blocks had to be shortened.
    expect(shortened).toBeGreaterThan(0);
  });

  it('shortens a page for a small pack to its title and the sentences that answer, not its title alone', async () => {
    // The page's first sentence does not fit: its leading sentences were "# Database backups".
    const pack = await engine.call('context:pack', { query: 'how long are backups kept', budget: 100 });
    const backups = pack.result.kept.find((b) => b.provenance?.uri?.endsWith('backups.md'));
    expect(backups, pack.markdown).toMatchObject({ shortened: true });
    expect(backups!.content).toMatch(/^# Database backups\n…\n.*Backups are kept for thirty days; the monthly ones for a year\./);
    expect(body(pack.markdown)).toContain('(excerpt) # Database backups\n…\n');
  });

  it('ranks the decision up for a "what did we decide" question', async () => {
    const question = 'What did we decide about the booking database?';
    // The decision ranks sixth in the search, under four messages that only discuss it.
    const search = await engine.call('search:query', { query: question, mode: 'hybrid', topK: 40 });
    const order = search.ranked.map((r) => r.hits[0]?.provenance.message_ids[0]);
    expect(order.indexOf('s1:5')).toBeGreaterThan(order.indexOf('s1:1'));
    const pack = await engine.call('context:pack', { query: question, budget: 200 });
    const decision = pack.blocks.find((b) => b.provenance?.message_ids?.includes('s1:5'));
    expect(decision).toBeDefined();
    expect(decision?.priority).toBe('CRITICAL');
    expect(pack.result.kept.map((b) => b.id)).toContain(decision!.id);
    // A question that does not ask for a decision leaves the ranking to relevance.
    const plain = await engine.call('context:pack', { query: 'booking database MongoDB transactions', budget: 200 });
    expect(plain.blocks.every((b) => b.priority !== 'CRITICAL')).toBe(true);
  });

  it('ranks the message that says why up for a "why" question, never a document that says "so"', async () => {
    const question = 'Why did the nightly build fail?';
    const search = await engine.call('search:query', { query: question, mode: 'hybrid', topK: 40 });
    const order = search.ranked.map((r) => r.hits[0]?.provenance.message_ids[0]);
    // The cause shares one word with the question ("build" is not even in it): it ranks under the messages that repeat it.
    expect(order.indexOf('s1:4')).toBeGreaterThan(order.indexOf('s1:1'));
    const pack = await engine.call('context:pack', { query: question, budget: 300 });
    const cause = pack.blocks.find((b) => b.provenance?.uri?.includes('nightly-build') && b.provenance.message_ids?.includes('s1:4'));
    expect(cause?.priority).toBe('CRITICAL');
    expect(pack.result.kept.map((b) => b.id)).toContain(cause!.id);
    expect(pack.markdown).toContain('It was killed because the runner has 2 GB of memory');
    // The backups page says ", so a missing backup raises an alert": a document's "so" is not the answer to a why.
    const docs = await engine.call('context:pack', { query: 'why does a missing backup raise an alert', budget: 1500 });
    const page = docs.blocks.find((b) => b.provenance?.uri?.includes('backups'));
    expect(page).toBeDefined();
    expect(page?.priority).not.toBe('CRITICAL');
  });
});
