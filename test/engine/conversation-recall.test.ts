/**
 * Conversational recall (main/engine/index/conversation-recall.ts) on a real engine: a
 * conversation imported with sessions:import into a real workspace and LanceDB index, searched
 * with search:query as the CLI and MCP do. A session's own record routes to its messages and is
 * never a hit, and an exact match stays first; a question asking when prefers messages that
 * state a time. Plus the eval's counting rule (bench/lib/recall-eval.ts).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

vi.hoisted(() => {
  process.env.LANCEDB_LOG ??= 'error';
});

import { createEngine, type Engine } from '../../main/engine/engine.js';
import { inProcessParseRunner } from '../../main/engine/parse/runner.js';
import { lazySearchIndex } from '../../main/host/open-index.js';
import { asksWhen, isSessionRecord, namedSpeakers, questionParts, statesTime, withoutNames } from '../../main/engine/index/conversation-recall.js';
import type { StoredRecord } from '../../main/engine/ports/vector-store.js';
import { openLanceStore } from '../../main/adapters/store/lancedb/index.js';
import { createLocalEmbedder } from '../../main/adapters/embed/local.js';
import { citedMessageIds, recallOf } from '../../bench/lib/recall-eval.js';
import type { SearchResponse } from '../../shared/contracts/api.js';

const say = (id: string, speaker: string, text: string) => ({ id, role: 'user', speaker, text });

/** Elena's knee: the date of the operation is in a reply that names neither knee nor operation. */
const CONVERSATION = {
  id: 'knee',
  title: 'Elena and Sam',
  sessions: [
    {
      id: 's1',
      started_at: '2024-03-02T18:00:00Z',
      messages: [
        say('s1:1', 'Elena', 'I hurt my knee at five-a-side and the physio says it needs an operation.'),
        say('s1:2', 'Sam', 'Oh no. Does the operation mean crutches for weeks?'),
        say('s1:3', 'Elena', 'Probably. The surgeon said recovery after this kind of operation is slow.'),
        say('s1:4', 'Sam', 'I can drive you to the hospital for the operation if you want.'),
        say('s1:5', 'Elena', 'That would be kind. Mum wants to come to the operation too.'),
      ],
    },
    {
      id: 's2',
      started_at: '2024-03-20T19:00:00Z',
      messages: [
        say('s2:1', 'Sam', 'Any news from the hospital? When is the operation booked for?'),
        say('s2:2', 'Elena', 'Yes, finally. The 16th of April, first thing.'),
        say('s2:3', 'Sam', 'Good. The operation worry can stop now.'),
        say('s2:4', 'Elena', 'Talking of worry, the operation waiting list was the worst part.'),
        say('s2:5', 'Sam', 'I made a playlist for after the operation.'),
        say('s2:6', 'Elena', 'You are the best. Operation playlist it is.'),
      ],
    },
    {
      // Each message names one word of SPREAD_QUERY: only the session's own record (its whole
      // transcript) names them all, so it ranks first on the words and must still not be a hit.
      id: 's3',
      started_at: '2024-05-04T10:00:00Z',
      messages: [
        say('s3:1', 'Sam', 'For your recovery party I booked the lighthouse cafe.'),
        say('s3:2', 'Elena', 'Lovely. My cousin will bring her trombone, be warned.'),
        say('s3:3', 'Sam', 'Then I will cook an aubergine bake to drown it out.'),
        say('s3:4', 'Elena', 'Deal. Saturday at noon?'),
      ],
    },
    {
      // The reply to the matching message is a question of its own; the answer comes after it.
      id: 's4',
      started_at: '2024-08-11T20:40:00Z',
      messages: [
        say('s4:1', 'Elena', 'The journal accepted our glacier paper!'),
        say('s4:2', 'Sam', 'Brilliant! How did you celebrate?'),
        say('s4:3', 'Elena', 'I screamed, woke the neighbours, then we ordered pizza.'),
        say('s4:4', 'Sam', 'Pizza is the right call.'),
      ],
    },
  ],
};

const SPREAD_QUERY = 'lighthouse trombone aubergine';

let workspace: string;
let engine: Engine;

beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'cairn-conversation-recall-'));
  engine = await createEngine({ workspace, parser: inProcessParseRunner(), index: lazySearchIndex(workspace, { idleOptimizeMs: 0 }) });
  const file = join(workspace, 'knee.json');
  await writeFile(file, JSON.stringify(CONVERSATION));
  const { conversations } = await engine.call('sessions:import', { path: file });
  expect(conversations[0]?.records).toBe(19);
}, 60_000);

afterAll(async () => {
  await engine.dispose();
  await rm(workspace, { recursive: true, force: true });
});

describe('conversational search', () => {
  it('never returns a session record, even one that ranks first on the words: each hit cites one message', async () => {
    for (const mode of ['hybrid', 'fts', 'vector', 'hierarchical'] as const) {
      const { hits } = await engine.call('search:query', { query: SPREAD_QUERY, mode, topK: 10 });
      expect(hits.length, mode).toBeGreaterThan(0);
      for (const hit of hits) expect(hit.provenance.message_ids, `${mode}: ${hit.uri}`).toHaveLength(1);
    }
    // And the corpus is such that a session record wins the raw full-text list, read from the index's own
    // table (after the searches above, which made its full-text index).
    const raw = await openLanceStore({ uri: join(workspace, '.cairn', 'index'), dimensions: (await createLocalEmbedder()).dimensions, idleOptimizeMs: 0 });
    try {
      const best = (await raw.textSearch({ query: SPREAD_QUERY, k: 5 }))[0]?.record;
      expect(best?.uri).toBe('ctx://session/knee/s3.md');
      expect(best && isSessionRecord(best)).toBe(true);
    } finally {
      await raw.close();
    }
    // Hybrid search routes the record's score to its messages: the three that name a word come
    // first, with the reply after one of them (s3:4, lifted as its neighbour) and nothing else.
    const { hits } = await engine.call('search:query', { query: SPREAD_QUERY, topK: 4 });
    expect(hits.flatMap((hit) => hit.provenance.message_ids).sort()).toEqual(['s3:1', 's3:2', 's3:3', 's3:4']);
  }, 60_000);

  it('finds the reply to the message a question matches, though it shares no word with the question', async () => {
    const { hits } = await engine.call('search:query', { query: 'Any news from the hospital about the operation?', topK: 3 });
    const ids = hits.map((hit) => hit.provenance.message_ids[0]);
    expect(ids[0]).toBe('s2:1');
    expect(ids).toContain('s2:2');
    // The reply is there as the question's context: under it in the ranked list, not a result of its own, and counted right after it.
    const response = await engine.call('search:query', { query: 'Any news from the hospital about the operation?', topK: 3 });
    const reply = response.hits.find((hit) => hit.provenance.message_ids[0] === 's2:2');
    expect(reply?.neighbour_of).toBe('s2:1');
    expect(response.ranked[0]?.hits.map((hit) => [hit.provenance.message_ids[0], hit.neighbour_of ?? null])).toEqual([
      ['s2:1', null],
      ['s2:2', 's2:1'],
    ]);
    expect(response.ranked.slice(1).flatMap((result) => result.hits.map((hit) => hit.provenance.message_ids[0]))).not.toContain('s2:2');
    expect(citedMessageIds(response).slice(0, 2)).toEqual(['s2:1', 's2:2']);
  }, 60_000);

  it('finds the answer after a reply that asks a question, two messages after the match', async () => {
    const response = await engine.call('search:query', { query: 'How did Elena react to the glacier paper news?', topK: 4 });
    const cited = citedMessageIds(response);
    expect(cited[0]).toBe('s4:1');
    expect(cited.slice(0, 3)).toContain('s4:3');
    // It is there as the match's context, not a result of its own.
    expect(response.hits.find((hit) => hit.provenance.message_ids[0] === 's4:3')?.neighbour_of).toBe('s4:1');
  }, 60_000);

  it('searches a question naming a speaker on its other words: the name does not pull in their short messages', async () => {
    // "Elena" opens every record of hers; the answer is Sam's message naming the hospital.
    const { hits } = await engine.call('search:query', { query: "Who offered to drive Elena to the hospital?", topK: 2 });
    expect(hits.map((hit) => hit.provenance.message_ids[0])).toContain('s1:4');
  }, 60_000);

  it('keeps the message holding the exact words first', async () => {
    const { hits } = await engine.call('search:query', { query: 'playlist', topK: 3 });
    expect(hits[0]?.provenance.message_ids).toEqual(['s2:5']);
  }, 60_000);
});

describe('speakers a question names', () => {
  const message = (speaker: string, id: string) => ({ id: `ctx://session/c/s1.md#m:${id}`, uri: 'ctx://session/c/s1.md', level: 2, text: `[2024-03-02] ${speaker}: Hello.`, provenance: { message_ids: [id] } }) as unknown as StoredRecord;
  const records = [message('Elena', 's1:1'), message('Will', 's1:2'), message('林晓', 's1:3')];

  it('takes a speaker named as written, with a possessive, and a Chinese name inside a sentence', () => {
    expect(namedSpeakers("Who supervises Elena's PhD?", records)).toEqual(['Elena']);
    expect(withoutNames("Who supervises Elena's PhD?", ['Elena'])).toBe('Who supervises PhD?');
    expect(namedSpeakers('林晓什么时候考研？', records)).toEqual(['林晓']);
    expect(withoutNames('林晓什么时候考研？', ['林晓'])).toBe('什么时候考研？');
  });

  it('does not take a word for a speaker of that name', () => {
    expect(namedSpeakers('What will Elena do next?', records)).toEqual(['Elena']);
    expect(namedSpeakers('Did Will get the job?', records)).toEqual(['Will']);
    expect(namedSpeakers('What did Helena say?', records)).toEqual([]);
  });
});

describe('questions asking two things', () => {
  it('splits at a second clause, gives each part the speakers the question names, and leaves a one-part or vague-part question whole', () => {
    expect(questionParts("Who is Lucy's manager now, and who did she work for before?", ['Lucy'])).toEqual(["Who is Lucy's manager now", 'Lucy who did she work for before?']);
    expect(questionParts('How much did each sister pay for the party, and why was the room cheaper than planned?')).toEqual(['How much did each sister pay for the party', 'why was the room cheaper than planned?']);
    // A part naming one thing is too vague to search alone: the question stays whole.
    expect(questionParts('What temperature, how long for the tray bake with sausages?')).toEqual([]);
    expect(questionParts('陈阳在深圳最后住在哪？跟他原来的打算一样吗？')).toEqual(['陈阳在深圳最后住在哪', '跟他原来的打算一样吗？']);
    // "and" between two names, not before a question word, is one question.
    expect(questionParts('Why did Jake and Amy split up?')).toEqual([]);
    expect(questionParts('When is the operation?')).toEqual([]);
  });
});

describe('when-questions', () => {
  it('tells a question asking when, and a message stating a time', () => {
    expect(asksWhen('When did Lucy move to Bristol?')).toBe(true);
    expect(asksWhen('How long was Jake out of work?')).toBe(true);
    expect(asksWhen('他们什么时候去的杭州？')).toBe(true);
    expect(asksWhen('Who did Lucy share a flat with?')).toBe(false);
    expect(statesTime('[2024-03-20] Elena: Yes, finally. The 16th of April, first thing.')).toBe(true);
    expect(statesTime('[2024-03-20] Elena: First run was on Tuesday.')).toBe(true);
    expect(statesTime('[2024-03-20] 小林: 我们下周三出发。')).toBe(true);
    // The record's own date prefix is not a time the message states.
    expect(statesTime('[2024-03-20] Sam: Good. The worry can stop now.')).toBe(false);
  });
});

describe('the recall count (as the held-out judge counts)', () => {
  const hit = (ids: string[]) => ({ uri: 'u', level: 2 as const, score: 1, snippet: '', highlights: [], context_type: 'session' as const, category: 'message', provenance: { source: null, lines: null, message_ids: ids }, heading: null, also_at: [] });
  const response = (...hits: ReturnType<typeof hit>[][]): Pick<SearchResponse, 'ranked'> => ({
    ranked: hits.map((h) => ({ uri: 'u', title: 't', score: 1, scope: 'session', weak: false, hits: h, also_at: [] })),
  });

  it('keeps the first 10 distinct message ids in rank order', () => {
    const cited = citedMessageIds(response([hit(['s1:1'])], [hit(['s1:1']), hit(['s1:2'])], [hit(['s2:1'])]));
    expect(cited).toEqual(['s1:1', 's1:2', 's2:1']);
    expect(recallOf(['s1:2', 's9:9'], cited)).toBe(0.5);
  });

  it('lets a hit citing 30 messages spend the whole budget', () => {
    const session = Array.from({ length: 30 }, (_, i) => `s1:${i + 1}`);
    const cited = citedMessageIds(response([hit(session)], [hit(['s2:4'])]));
    expect(cited).toHaveLength(10);
    expect(recallOf(['s2:4'], cited)).toBe(0);
  });
});
