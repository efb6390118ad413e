/**
 * The long-term memory store on a real ContextFS in a temp folder: pages and meta on disk,
 * dedup and merge without losing a fact (also over generated candidate sets), provenance on
 * every memory, the history of every change, edit and forget, ids that do not move, and a
 * store that reopens (and repairs an interrupted change) from what is on disk.
 */
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContextFS } from '../../main/engine/tree/context-fs.js';
import { ContextFsMemoryStore } from '../../main/engine/memory/long-term/store.js';
import { memoryId, memoryUri } from '../../main/engine/memory/long-term/memory-file.js';
import { coverage } from '../../main/engine/memory/long-term/similarity.js';
import type { MemoryCandidate } from '../../main/engine/memory/long-term/types.js';
import type { ContextIndex, IndexInput } from '../../main/engine/ports/context-index.js';
import { createOpenAIModel } from '../../main/adapters/llm/openai.js';
import { createMemoryLlm } from '../../main/engine/memory/llm-run.js';
import { memoryLogger } from '../../main/engine/ports/logger.js';
import type { LongTermMemory, MemoryCategory, MemoryChange } from '../../shared/types/memory.js';
import { CairnError } from '../../shared/errors.js';
import { reply, startMockOpenAI } from '../support/mock-openai-server.js';
import { prng } from '../support/prng.js';

let workspace: string;
let fs: ContextFS;
let tick = 0;
const clock = { now: () => new Date(Date.UTC(2026, 0, 1, 0, 0, tick++)) };

function recordingIndex() {
  const rows = new Map<string, IndexInput>();
  const index: ContextIndex = {
    async upsert(records) {
      for (const r of records) rows.set(r.id, r);
    },
    async removeUnder(uri) {
      for (const id of [...rows.keys()]) if (rows.get(id)!.uri.startsWith(uri)) rows.delete(id);
    },
  };
  return { index, rows };
}

function open(extra: Partial<Parameters<typeof ContextFsMemoryStore.open>[0]> = {}) {
  return ContextFsMemoryStore.open({ fs, stateDir: join(workspace, '.cairn'), clock, ...extra });
}

function candidate(category: MemoryCategory, title: string, content: string, message_ids: string[], keywords: string[] = []): MemoryCandidate {
  return { category, title, content, keywords, message_ids, conversation_id: 'c1', confidence: 0.8 };
}

beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'cairn-memories-'));
  fs = await ContextFS.open(workspace);
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

describe('ContextFsMemoryStore', () => {
  it('writes each memory as a page with its meta, provenance and the memory itself', async () => {
    const { index, rows } = recordingIndex();
    const enqueued: string[] = [];
    const store = await open({ index, enqueue: async (uri) => void enqueued.push(uri) });
    const [change] = await store.commit([candidate('preference', 'Dark theme', 'Ana prefers the dark theme in every editor.', ['s1:4', 's1:5'], ['theme', 'dark'])]);
    expect(change).toMatchObject({ op: 'add', reason: 'new fact' });
    const memory = change!.after!;
    expect(memory.id).toBe(memoryId('preference', 'Dark theme', 's1:4'));
    const uri = `ctx://user/memories/preference/${memory.id}.md`;
    expect(await fs.read(uri, 2)).toBe(
      '# Dark theme\n\nAna prefers the dark theme in every editor.\n\nKeywords: theme, dark\nProvenance: messages s1:4, s1:5 (conversation c1)\n',
    );
    const meta = await fs.readMeta(uri);
    expect(meta).toMatchObject({ context_type: 'memory', category: 'preference', provenance: { message_ids: ['s1:4', 's1:5'] }, abstract: 'Dark theme: Ana prefers the dark theme in every editor.' });
    expect(meta!.abstract).not.toContain('\n');
    expect((meta as { memory?: unknown }).memory).toEqual(memory);
    expect(await store.get(memory.id)).toEqual(memory);
    // Records for the index name the messages; the folders are queued for the DAG and owe a summary.
    expect([...rows.values()].filter((r) => r.uri === uri).map((r) => r.level).sort()).toEqual([0, 1, 2]);
    expect(rows.get(`${uri}#2`)).toMatchObject({ context_type: 'memory', category: 'preference', provenance: { message_ids: ['s1:4', 's1:5'] } });
    expect(enqueued).toEqual(['ctx://user/memories/']);
    expect(await fs.readMeta('ctx://user/memories/preference/')).toMatchObject({ context_type: 'memory', category: 'preference', summary_status: 'owed' });
    expect(await fs.readMeta('ctx://user/memories/')).toMatchObject({ context_type: 'memory', summary_status: 'owed' });
  });

  it('keeps a near-identical candidate out but adds its messages, recorded as an update', async () => {
    const store = await open();
    const [first] = await store.commit([candidate('event', 'Weekly meeting', 'The team meets every Monday at 10.', ['s1:1'], ['meeting'])]);
    const [again] = await store.commit([candidate('event', 'Weekly meeting', 'The team meets every Monday at 10.', ['s7:2'], ['meeting'])]);
    expect(again).toMatchObject({ op: 'none', memory_id: first!.memory_id });
    expect(again!.after!.message_ids).toEqual(['s1:1', 's7:2']);
    const history = await store.history(first!.memory_id);
    expect(history.map((c) => c.op)).toEqual(['add', 'update']);
    expect(history[1]!.before!.message_ids).toEqual(['s1:1']);
    expect(history[1]!.reason).toMatch(/message ids added/);
    // The same messages once more: nothing to record.
    const [third] = await store.commit([candidate('event', 'Weekly meeting', 'The team meets every Monday at 10.', ['s7:2'], ['meeting'])]);
    expect(third!.op).toBe('none');
    expect(await store.history(first!.memory_id)).toHaveLength(2);
    expect(await store.list()).toHaveLength(1);
  });

  it('merges a similar statement keeping both, and replaces a contradicted one keeping it in history', async () => {
    const store = await open();
    const [added] = await store.commit([candidate('preference', 'Editor', 'Ana uses VS Code. Ana prefers the dark theme.', ['s1:1'], ['editor', 'theme'])]);
    const id = added!.memory_id;
    const [merged] = await store.commit([candidate('preference', 'Editor', 'Ana uses VS Code with the Vim keymap.', ['s2:1'], ['editor', 'vim'])]);
    expect(merged).toMatchObject({ op: 'update', memory_id: id });
    expect(merged!.after!.content).toContain('Ana uses VS Code with the Vim keymap.');
    expect(merged!.after!.content).toContain('Ana prefers the dark theme.');
    expect(merged!.after!.message_ids).toEqual(['s1:1', 's2:1']);

    const [replaced] = await store.commit([candidate('preference', 'Theme', 'Ana prefers the light theme.', ['s3:1'], ['theme', 'light'])]);
    expect(replaced).toMatchObject({ op: 'update', memory_id: id });
    expect(replaced!.reason).toMatch(/dark → light/);
    expect(replaced!.before!.content).toContain('Ana prefers the dark theme.');
    expect(replaced!.after!.content).not.toContain('dark theme');
    expect(replaced!.after!.content).toContain('Ana prefers the light theme.');
    expect(replaced!.after!.content).toContain('Vim keymap');
    expect(replaced!.after!.message_ids).toEqual(['s1:1', 's2:1', 's3:1']);
    // The old statement is readable in the history, with the message it came from.
    const history = await store.history(id);
    expect(history.map((c) => c.op)).toEqual(['add', 'update', 'update']);
    expect(history[2]!.before!.content).toContain('dark theme');
  });

  it('edits and forgets, recording before and after; forgotten memories stay forgotten', async () => {
    const { index, rows } = recordingIndex();
    const store = await open({ index });
    const [added] = await store.commit([candidate('semantic', 'LanceDB', 'LanceDB is an embedded vector database.', ['s1:2'])]);
    const id = added!.memory_id;
    const edited = await store.edit(id, { title: 'LanceDB basics', category: 'entity' });
    expect(edited).toMatchObject({ op: 'update', reason: 'edited by user', before: { title: 'LanceDB', category: 'semantic' }, after: { title: 'LanceDB basics', category: 'entity' } });
    // The page moved with its category; the empty old folder went, with its records.
    expect(await fs.kindOf(memoryUri('semantic', id))).toBeNull();
    expect(await fs.kindOf('ctx://user/memories/semantic/')).toBeNull();
    expect(await fs.read(memoryUri('entity', id), 2)).toContain('# LanceDB basics');
    expect([...rows.keys()].some((k) => k.includes('/semantic/'))).toBe(false);
    expect((await store.get(id))!.id).toBe(id);
    expect((await store.edit(id, { title: 'LanceDB basics' })).op).toBe('none');

    const forgotten = await store.forget(id, 'outdated');
    expect(forgotten).toMatchObject({ op: 'delete', memory_id: id, reason: 'forgotten by user: outdated', before: { title: 'LanceDB basics' } });
    expect(forgotten.after).toBeUndefined();
    expect(await store.get(id)).toBeNull();
    expect(await fs.kindOf('ctx://user/memories/')).toBeNull();
    expect(rows.size).toBe(0);
    expect((await store.history(id)).map((c) => c.op)).toEqual(['add', 'update', 'delete']);

    // Re-running the same extraction does not bring it back.
    const [again] = await store.commit([candidate('semantic', 'LanceDB', 'LanceDB is an embedded vector database.', ['s1:2'])]);
    expect(again).toMatchObject({ op: 'none', reason: 'forgotten by user earlier; not added again' });

    for (const bad of [() => store.edit('mem_ffffffffffffffff', { title: 'x' }), () => store.forget('mem_ffffffffffffffff')]) {
      const error = await bad().catch((e: unknown) => e);
      expect(CairnError.is(error, 'NOT_FOUND')).toBe(true);
      expect((error as Error).message).toContain('mem_ffffffffffffffff');
    }
    expect(CairnError.is(await store.get('../../etc').catch((e: unknown) => e), 'INVALID_INPUT')).toBe(true);
    const [live] = await store.commit([candidate('event', 'Trip', 'Ana flies to Lisbon.', ['s9:1'])]);
    expect(CairnError.is(await store.edit(live!.memory_id, { title: ' ' }).catch((e: unknown) => e), 'INVALID_INPUT')).toBe(true);
    expect(CairnError.is(await store.edit(live!.memory_id, { category: 'nope' as MemoryCategory }).catch((e: unknown) => e), 'INVALID_INPUT')).toBe(true);
  });

  it('rejects candidates without provenance', async () => {
    const store = await open();
    const error = await store.commit([candidate('event', 'Trip', 'Ana flies to Lisbon.', [])]).catch((e: unknown) => e);
    expect(CairnError.is(error, 'INVALID_INPUT')).toBe(true);
    expect((error as Error).message).toMatch(/no message ids/);
  });

  it('reads everything back after reopening, with the same ids', async () => {
    const store = await open();
    const changes = await store.commit([
      candidate('preference', 'Tabs', 'Bo indents with tabs.', ['s1:1']),
      candidate('event', 'Launch', 'The launch is on 3 March.', ['s1:2']),
      candidate('profile', 'Home', 'Bo lives in Porto.', ['s1:3']),
    ]);
    const reopened = await open();
    expect(await reopened.list()).toEqual(await store.list());
    expect(await reopened.history()).toEqual(await store.history());
    expect((await reopened.list({ category: 'event' })).map((m) => m.id)).toEqual([changes[1]!.memory_id]);
    expect(await reopened.list({ limit: 2 })).toHaveLength(2);

    // Same candidates in another workspace: the same ids.
    const other = await mkdtemp(join(tmpdir(), 'cairn-memories-other-'));
    try {
      const store2 = await ContextFsMemoryStore.open({ fs: await ContextFS.open(other), stateDir: join(other, '.cairn'), clock });
      const again = await store2.commit([candidate('preference', 'tabs!', 'Bo indents with tabs.', ['s1:1'])]);
      expect(again[0]!.memory_id).toBe(changes[0]!.memory_id); // title compared as words
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });

  it('redoes a change whose page was not written (a crash after the history line) and cuts a torn line', async () => {
    const store = await open();
    const [added] = await store.commit([candidate('event', 'Launch', 'The launch is on 3 March.', ['s1:2'])]);
    const before = added!.after!;
    const after: LongTermMemory = { ...before, content: 'The launch moved to 10 March.', updated_at: '2026-02-01T00:00:00.000Z' };
    const historyPath = join(workspace, '.cairn', 'memory-history.jsonl');
    const pending: MemoryChange = { at: after.updated_at, op: 'update', memory_id: before.id, before, after, reason: 'edited by user' };
    await appendFile(historyPath, JSON.stringify(pending) + '\n' + '{"at":"2026-02-01T00:00:0');
    const logger = memoryLogger();
    const reopened = await open({ logger });
    expect(await reopened.get(before.id)).toEqual(after);
    expect(await fs.read(memoryUri('event', before.id), 2)).toContain('10 March');
    expect(logger.lines.map((l) => l.message).join('\n')).toMatch(/torn last line[\s\S]*redoing the last change/);
    expect((await readFile(historyPath, 'utf8')).endsWith('}\n')).toBe(true);
    expect((await reopened.history(before.id)).map((c) => c.op)).toEqual(['add', 'update']);
  });

  it('lets a model decide, and falls back to the rules when it fails or names a memory it was not shown', async () => {
    // The model over HTTP (the mock OpenAI server): an update of the memory shown, then a memory it was not shown, then a 500.
    const server = await startMockOpenAI();
    onTestFinished(() => server.close());
    let target = '';
    const answers = [
      () => reply.json({ decision: 'update', target_id: target, title: 'Editor', content: 'Ana uses VS Code with the Vim keymap.', reason: 'same editor' }),
      () => reply.json({ decision: 'none', target_id: 'mem_0000000000000000', title: null, content: null, reason: 'made up' }),
      () => reply.serverError(500, { message: 'server down' }),
    ];
    server.handle(() => answers[server.chatRequests.length - 1]!());
    const run = createMemoryLlm(createOpenAIModel({ baseURL: server.url, apiKey: 'sk-test', model: 'scripted' }));
    const store = await open();
    const commit = (c: MemoryCandidate) => store.commit([c], { llm: run });
    const [added] = await commit(candidate('preference', 'Editor', 'Ana uses VS Code.', ['s1:1'], ['editor']));
    expect(server.chatRequests).toHaveLength(0); // nothing to compare with: no call
    target = added!.memory_id;
    const [byModel] = await commit(candidate('preference', 'Editor', 'Ana uses VS Code and Vim keys.', ['s2:1'], ['editor']));
    expect(byModel).toMatchObject({ op: 'update', reason: 'llm scripted: same editor', after: { content: 'Ana uses VS Code with the Vim keymap.', message_ids: ['s1:1', 's2:1'] } });
    const [wrongTarget] = await commit(candidate('preference', 'Editor', 'Ana uses VS Code with the Vim keymap.', ['s3:1'], ['editor']));
    expect(wrongTarget!.op).toBe('none'); // the rules: nothing new
    const [failed] = await commit(candidate('preference', 'Editor', 'Ana uses VS Code daily.', ['s4:1'], ['editor']));
    expect(failed!.op).toBe('update'); // the rules: merged
    expect(server.chatRequests).toHaveLength(3);
    expect(run.report()).toMatchObject({ stages: { dedup: { llm: 1, fallbacks: 2 } }, fallback_causes: [{ cause: { code: 'unusable', message: 'a dedup decision naming a memory it was not shown' }, count: 1 }, { cause: { code: 'http_status', status: 500, message: 'server down' }, count: 1 }] });
  });

  it('never changes a pinned memory for a machine candidate (merge, contradiction, a model\'s delete), and applies the person\'s own', async () => {
    const [added] = await (await open()).commit([candidate('preference', 'Theme', 'Ana prefers the dark theme.', ['s1:1'], ['theme'])]);
    const id = added!.memory_id;
    let store = await open();
    const edit = await store.edit(id, { content: 'Ana prefers the dark theme in the editor.' });
    expect(edit.after).toMatchObject({ pinned: true, content: 'Ana prefers the dark theme in the editor.' });
    const mine = (await store.get(id))!;
    const held = await store.commit([
      candidate('preference', 'Theme', 'Ana prefers the dark theme in the editor and the terminal.', ['s2:1'], ['theme']),
      candidate('preference', 'Theme', 'Ana prefers the light theme in the editor.', ['s3:1'], ['theme']),
    ]);
    for (const change of held) expect(change).toMatchObject({ op: 'none', memory_id: id, after: mine, reason: expect.stringContaining('is pinned') });
    expect(held[0]!.proposed?.content).toContain('and the terminal');
    expect(held[1]!.proposed?.content).toContain('light theme');
    expect(await store.get(id)).toEqual(mine);

    // A model deciding the memory is obsolete does not delete it either.
    const server = await startMockOpenAI();
    onTestFinished(() => server.close());
    server.handle(() => reply.json({ decision: 'delete', target_id: id, title: null, content: null, reason: 'obsolete' }));
    const llm = createOpenAIModel({ baseURL: server.url, apiKey: 'sk-test', model: 'scripted' });
    const [byModel] = await (await open()).commit([candidate('preference', 'Theme', 'Ana prefers the dark theme everywhere.', ['s4:1'], ['theme'])], { llm: createMemoryLlm(llm) });
    expect(byModel).toMatchObject({ op: 'none', memory_id: id, proposed: { content: 'Ana prefers the dark theme everywhere.' } });
    store = await open();
    expect(await store.get(id)).toEqual(mine);
    expect((await store.history(id)).map((c) => c.op)).toEqual(['add', 'update']);

    // The person's yes (a pinned candidate) applies, and the memory stays theirs.
    const [accepted] = await store.commit([{ ...candidate('preference', 'Theme', 'Ana prefers the dark theme in the editor and the terminal.', ['s2:1'], ['theme']), pinned: true }]);
    expect(accepted).toMatchObject({ op: 'update', memory_id: id, after: { pinned: true } });
    expect((await store.get(id))!.content).toContain('and the terminal');
    // A dry run writes nothing.
    const before = await store.history();
    const [dry] = await store.commit([candidate('event', 'Trip', 'Ana flies to Lisbon on 3 May.', ['s5:1'])], { dryRun: true });
    expect(dry!.op).toBe('add');
    expect(await store.history()).toEqual(before);
    expect(await store.get(dry!.memory_id)).toBeNull();
  });
});

// ---------------------------------------------------------------------------------------------

const PEOPLE = ['Ana', 'Bo', 'Chen'];
const FACTS: [MemoryCategory, string, (p: string) => string][] = [
  ['preference', 'Theme', (p) => `${p} prefers the dark theme.`],
  ['preference', 'Theme', (p) => `${p} prefers the light theme.`],
  ['preference', 'Editor', (p) => `${p} uses VS Code.`],
  ['preference', 'Editor', (p) => `${p} uses VS Code with the Vim keymap.`],
  ['preference', 'Coffee', (p) => `${p} likes coffee.`],
  ['preference', 'Coffee', (p) => `${p} does not like coffee.`],
  ['preference', 'Tea', (p) => `${p} drinks green tea every morning.`],
  ['event', 'Meeting', (p) => `${p} meets the team every Monday at 10.`],
  ['event', 'Trip', (p) => `${p} flies to Lisbon on 3 May.`],
  ['event', 'Trip', (p) => `${p} flies to Lisbon on 3 May for a conference.`],
  ['profile', 'Home', (p) => `${p} lives in Porto.`],
  ['profile', 'Home', (p) => `${p} now lives in Berlin.`],
  ['semantic', '喜好', (p) => `${p}喜欢深色主题。`],
  ['semantic', '喜好', (p) => `${p}喜欢浅色主题。`],
];

describe('dedup never drops a distinct fact', () => {
  it('keeps every candidate text and message id in some memory or in the history (generated candidate sets)', async () => {
    for (let seed = 1; seed <= 8; seed += 1) {
      const random = prng(seed);
      const dir = await mkdtemp(join(tmpdir(), `cairn-memories-prop-${seed}-`));
      try {
        const store = await ContextFsMemoryStore.open({ fs: await ContextFS.open(dir), stateDir: join(dir, '.cairn'), clock });
        const all: { candidate: MemoryCandidate; change: MemoryChange }[] = [];
        for (let batch = 0; batch < 4; batch += 1) {
          const candidates: MemoryCandidate[] = [];
          const size = 1 + Math.floor(random() * 8);
          for (let i = 0; i < size; i += 1) {
            const [category, title, text] = FACTS[Math.floor(random() * FACTS.length)]!;
            const person = PEOPLE[Math.floor(random() * PEOPLE.length)]!;
            const id = `s${seed}:${all.length + candidates.length + 1}`;
            candidates.push(candidate(category, `${person} ${title}`, text(person), [id], [title.toLowerCase()]));
          }
          const changes = await store.commit(candidates);
          expect(changes).toHaveLength(candidates.length);
          all.push(...candidates.map((c, i) => ({ candidate: c, change: changes[i]! })));
        }
        const memories = await store.list({ limit: 10_000 });
        const history = await store.history();
        const versions = [...memories, ...history.flatMap((c) => [c.before, c.after]).filter((m): m is LongTermMemory => m !== undefined)];
        for (const { candidate: c, change } of all) {
          // Kept word for word, or dropped as 'none' because a memory already says all of it.
          const verbatim = versions.some((m) => m.content.includes(c.content));
          const restated = change.op === 'none' && change.after !== undefined && coverage(`${c.title}\n${c.content}`, `${change.after.title}\n${change.after.content}\n${change.after.keywords.join(' ')}`) === 1;
          expect(verbatim || restated, `seed ${seed}: "${c.content}" (${change.op}) is nowhere`).toBe(true);
          expect(versions.some((m) => m.message_ids.includes(c.message_ids[0]!)), `seed ${seed}: ${c.message_ids[0]} is nowhere`).toBe(true);
        }
        expect(all.some((a) => a.change.op === 'update') && all.some((a) => a.change.op === 'add')).toBe(true);
        for (const m of memories) expect(m.message_ids.length).toBeGreaterThan(0);
        // Every change in the history that writes a memory left it as the page shows, for the live ones.
        for (const m of memories) expect(history.filter((c) => c.memory_id === m.id).at(-1)!.after).toEqual(m);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }
  }, 60_000);
});
