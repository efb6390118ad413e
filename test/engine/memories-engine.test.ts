/**
 * The memories:* commands on a real engine: a real ContextFS, a real LanceDB index with the local
 * embedder, the durable outbox and the DAG. Committed memories are searchable with the messages
 * they came from, each category folder (and the memories folder) gets its L0/L1 from the DAG,
 * with the seed's fallback ("包含 N 条preference相关记忆") when the summarizer fails.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine, type Engine } from '../../main/engine/engine.js';
import { inProcessParseRunner } from '../../main/engine/parse/runner.js';
import type { NodeSummarizer } from '../../main/engine/summarize/types.js';
import { extractiveSummarizer } from '../../main/engine/summarize/extractive-summarizer.js';
import { lazySearchIndex } from '../../main/host/open-index.js';
import { memoryHandlers } from '../../main/engine/memory/long-term/handlers.js';
import { Outbox } from '../../main/engine/queue/outbox.js';
import { ContextFS } from '../../main/engine/tree/context-fs.js';
import { silentLogger } from '../../main/engine/ports/logger.js';
import { systemClock } from '../../main/engine/ports/clock.js';
import type { CommandRequest } from '../../shared/contracts/api.js';
import { CairnError } from '../../shared/errors.js';

type Candidates = CommandRequest<'memories:commit'>['candidates'];

const workspaces: string[] = [];
const engines: Engine[] = [];

async function engineWith(options: { index?: boolean; summarizer?: NodeSummarizer } = {}): Promise<Engine> {
  const workspace = await mkdtemp(join(tmpdir(), 'cairn-memories-engine-'));
  workspaces.push(workspace);
  const engine = await createEngine({
    workspace,
    parser: inProcessParseRunner(),
    ...(options.index ? { index: lazySearchIndex(workspace, { idleOptimizeMs: 0 }) } : {}),
    ...(options.summarizer ? { summarizer: options.summarizer } : {}),
  });
  engines.push(engine);
  return engine;
}

afterEach(async () => {
  for (const engine of engines.splice(0)) await engine.dispose();
  for (const dir of workspaces.splice(0)) await rm(dir, { recursive: true, force: true });
});

const ENGLISH: Candidates = [
  { category: 'preference', title: 'Dark theme', content: 'Ana prefers the dark theme in her editor.', keywords: ['theme'], message_ids: ['s1:4'], conversation_id: 'c1', confidence: 0.9 },
  { category: 'preference', title: 'Green tea', content: 'Ana drinks green tea every morning.', keywords: ['tea'], message_ids: ['s1:7'], conversation_id: 'c1', confidence: 0.8 },
  { category: 'preference', title: 'Standing desk', content: 'Ana works at a standing desk.', keywords: ['desk'], message_ids: ['s1:9'], conversation_id: 'c1', confidence: 0.7 },
  { category: 'event', title: 'Lisbon trip', content: 'Ana flies to Lisbon on 3 May for a conference.', keywords: ['lisbon', 'trip'], message_ids: ['s2:1', 's2:2'], conversation_id: 'c1', confidence: 0.9 },
];

/** A summarizer whose directory calls fail, as an LLM without a server would: the DAG falls back to the seed's summary. */
function failingSummarizer(): NodeSummarizer {
  const extractive = extractiveSummarizer();
  return {
    id: 'llm:down',
    summarizeFile: (input) => extractive.summarizeFile(input),
    summarizeDirectory: async () => {
      throw new CairnError('LLM_REQUEST_FAILED', 'connection refused');
    },
  };
}

describe('memories:* on the engine', () => {
  it('commits, summarizes the category folders, searches with message ids, edits and forgets', async () => {
    const engine = await engineWith({ index: true });
    const { changes } = await engine.call('memories:commit', { candidates: ENGLISH });
    expect(changes.map((c) => c.op)).toEqual(['add', 'add', 'add', 'add']);
    const darkId = changes[0]!.memory_id;

    // The DAG gives every category folder and the memories folder an L0/L1 (the offline extractive summarizer).
    const { runs } = await engine.call('summarize:run', {});
    expect(runs.map((r) => r.root)).toEqual(['ctx://user/memories/']);
    expect(runs[0]).toMatchObject({ dirsSummarized: 3, filesSummarized: 0, fallbacks: 0 });
    for (const dir of ['ctx://user/memories/preference/', 'ctx://user/memories/event/', 'ctx://user/memories/']) {
      const stat = await engine.call('fs:stat', { uri: dir });
      expect(stat).toMatchObject({ has_abstract: true, has_overview: true, meta: { context_type: 'memory', summary_status: 'done' } });
    }
    expect((await engine.call('fs:read', { uri: 'ctx://user/memories/preference/', level: 1 })).content).toContain('Dark theme');

    const { hits } = await engine.call('memories:search', { query: 'dark theme editor', topK: 3 });
    expect(hits[0]).toMatchObject({ uri: `ctx://user/memories/preference/${darkId}.md`, context_type: 'memory', category: 'preference', provenance: { message_ids: ['s1:4'] }, memory: { id: darkId } });
    expect(hits.every((h) => h.uri.endsWith('.md') && h.uri.startsWith('ctx://user/memories/'))).toBe(true);
    const trip = await engine.call('memories:search', { query: 'Lisbon conference', topK: 1 });
    expect(trip.hits[0]!.provenance.message_ids).toEqual(['s2:1', 's2:2']);

    const listed = await engine.call('memories:list', { category: 'preference' });
    expect(listed.memories).toHaveLength(3);
    expect((await engine.call('memories:get', { id: darkId })).memory.title).toBe('Dark theme');

    const edited = await engine.call('memories:edit', { id: darkId, patch: { content: 'Ana prefers the dark theme everywhere, on Solarized.' } });
    expect(edited.change).toMatchObject({ op: 'update', before: { content: 'Ana prefers the dark theme in her editor.' } });
    expect((await engine.call('memories:search', { query: 'Solarized', topK: 1 })).hits[0]?.memory.id).toBe(darkId);

    const forgotten = await engine.call('memories:forget', { id: darkId, reason: 'no longer true' });
    expect(forgotten.change).toMatchObject({ op: 'delete', before: { id: darkId } });
    const after = await engine.call('memories:search', { query: 'dark theme Solarized', topK: 5 });
    expect(after.hits.some((h) => h.memory.id === darkId)).toBe(false);
    // The preference folder is summarized again without the forgotten memory.
    await engine.call('summarize:run', {});
    expect((await engine.call('fs:read', { uri: 'ctx://user/memories/preference/', level: 1 })).content).not.toContain('Dark theme');

    const history = await engine.call('memories:history', { id: darkId });
    expect(history.changes.map((c) => c.op)).toEqual(['add', 'update', 'delete']);
    expect(history.changes[2]!.before!.content).toContain('Solarized');
    expect((await engine.call('memories:history', {})).changes).toHaveLength(6);

    const missing = await engine.call('memories:get', { id: darkId }).catch((e: unknown) => e);
    expect(CairnError.is(missing, 'NOT_FOUND')).toBe(true);
    expect((missing as Error).message).toContain(darkId);
    const bad = await engine.call('memories:commit', { candidates: [{ ...ENGLISH[0]!, message_ids: [] }] }).catch((e: unknown) => e);
    expect(CairnError.is(bad, 'INVALID_INPUT')).toBe(true);
  }, 120_000);

  it('gives memory folders the seed fallback abstract when the summarizer fails', async () => {
    const engine = await engineWith({ summarizer: failingSummarizer() });
    const zh: Candidates = [
      { category: 'preference', title: '深色主题', content: '用户喜欢深色主题。', keywords: ['主题'], message_ids: ['s1:1'], conversation_id: 'c1', confidence: 0.9 },
      { category: 'preference', title: '编辑器', content: '用户使用 VS Code 写代码。', keywords: ['编辑器'], message_ids: ['s1:2'], conversation_id: 'c1', confidence: 0.9 },
      { category: 'preference', title: '绿茶', content: '用户每天早上喝绿茶。', keywords: ['绿茶'], message_ids: ['s1:3'], conversation_id: 'c1', confidence: 0.9 },
      { category: 'event', title: '周会', content: '团队每周一上午十点开会。', keywords: ['周会'], message_ids: ['s1:4'], conversation_id: 'c1', confidence: 0.9 },
      { category: 'event', title: '截止日期', content: '项目周五截止。', keywords: ['截止'], message_ids: ['s1:5'], conversation_id: 'c1', confidence: 0.9 },
    ];
    await engine.call('memories:commit', { candidates: zh });
    const { runs } = await engine.call('summarize:run', {});
    expect(runs[0]).toMatchObject({ dirsSummarized: 3, fallbacks: 3 });
    expect((await engine.call('fs:read', { uri: 'ctx://user/memories/preference/', level: 0 })).content).toBe('包含 3 条preference相关记忆');
    expect((await engine.call('fs:read', { uri: 'ctx://user/memories/event/', level: 0 })).content).toBe('包含 2 条event相关记忆');
    // The memories folder counts its category folders, each under its own category.
    expect((await engine.call('fs:read', { uri: 'ctx://user/memories/', level: 0 })).content).toBe('包含 2 条event、preference相关记忆');
    const overview = (await engine.call('fs:read', { uri: 'ctx://user/memories/preference/', level: 1 })).content;
    expect(overview).toContain('# 目录内容概览');
    expect(overview).toContain('## preference (3条)');
    expect(overview).toContain('- 深色主题: 用户喜欢深色主题。...');
  }, 60_000);

  it('says the same in English for English memories', async () => {
    const engine = await engineWith({ summarizer: failingSummarizer() });
    await engine.call('memories:commit', { candidates: ENGLISH });
    await engine.call('summarize:run', {});
    expect((await engine.call('fs:read', { uri: 'ctx://user/memories/preference/', level: 0 })).content).toBe('Contains 3 items about preference');
    expect((await engine.call('fs:read', { uri: 'ctx://user/memories/', level: 0 })).content).toBe('Contains 2 items about event, preference');
  }, 60_000);

  it('queues the memories folder again when a change lands while a run holds it', async () => {
    const workspace = await mkdtemp(join(tmpdir(), 'cairn-memories-requeue-'));
    workspaces.push(workspace);
    const outbox = await Outbox.open(join(workspace, '.cairn', 'queue'));
    try {
      let queued = 0;
      const handlers = memoryHandlers({
        fs: await ContextFS.open(workspace),
        stateDir: join(workspace, '.cairn'),
        index: null,
        outbox: async () => outbox,
        search: async () => ({ hits: [], ranked: [], weak_below: 0 }),
        onQueued: () => void (queued += 1),
        logger: silentLogger,
        clock: systemClock,
      });
      const ctx = { signal: new AbortController().signal, emit: () => {} };
      await handlers['memories:commit']({ candidates: [{ ...ENGLISH[0]!, keywords: ['theme'] }] }, ctx);
      const running = await outbox.claim();
      expect(running).toMatchObject({ uri: 'ctx://user/memories/', status: 'processing' });
      await handlers['memories:commit']({ candidates: [{ ...ENGLISH[3]!, keywords: ['lisbon'] }] }, ctx);
      expect(outbox.list({ status: 'pending' })).toHaveLength(0);
      await outbox.complete(running!.id);
      await vi.waitFor(() => {
        expect(outbox.list({ status: 'pending', uri: 'ctx://user/memories/' })).toHaveLength(1);
        expect(queued).toBe(3);
      }, { timeout: 10_000 });
    } finally {
      await outbox.close();
    }
  });
});
