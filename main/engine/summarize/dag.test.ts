import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContextFS } from '../tree/context-fs.js';
import { DirectoryEventHandler, MAX_DIRECTORY_LISTINGS, isCurrent } from './dag.js';
import { extractiveSummarizer } from './extractive-summarizer.js';
import { noopIndex, type ContextIndex, type IndexInput } from '../ports/context-index.js';
import { nodeRecords, shapeNodeRecords } from '../index/node-records.js';
import { memoryLogger } from '../ports/logger.js';
import type { EngineEvent } from '../../../shared/contracts/api.js';
import type { NodeMeta } from '../../../shared/types/node.js';
import type { NodeSummarizer } from './types.js';

let dir: string;
let fs: ContextFS;
const clock = { now: () => new Date('2026-01-01T00:00:00Z') };

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cairn-dag-'));
  fs = await ContextFS.open(dir);
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

const fileMeta = (uri: string, abstract: string, category: string): NodeMeta => ({
  uri, kind: 'file', context_type: 'memory', category, abstract, overview: abstract, summary_status: 'done',
  created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z',
});

/** The real extractive summarizer, counting directory calls, with a small context window. */
function counting(maxChildren: number, fail = false) {
  const inner = extractiveSummarizer();
  const calls: number[] = [];
  const summarizer: NodeSummarizer = {
    id: 'counting',
    maxChildren,
    summarizeFile: inner.summarizeFile,
    async summarizeDirectory(input) {
      calls.push(input.children.length);
      if (fail) throw new Error('model unavailable (503)');
      return inner.summarizeDirectory(input);
    },
  };
  return { summarizer, calls };
}

function handler(summarizer: NodeSummarizer, events: EngineEvent[] = [], index: ContextIndex = noopIndex) {
  return new DirectoryEventHandler({ fs, summarizer, fileFallback: extractiveSummarizer(), index, logger: memoryLogger(), clock, emit: (e) => events.push(e) });
}

describe('DAG summarizer', () => {
  it('counts split documents and their sections apart, and says which directories are documents', async () => {
    const base = 'ctx://resources/notes/';
    const doc = `${base}guide.md/`;
    await fs.writeFile(`${base}readme.md`, 'Readme', fileMeta(`${base}readme.md`, 'The readme', 'docs'));
    await fs.writeFile(`${base}sub/a.md`, 'A', fileMeta(`${base}sub/a.md`, 'Note a', 'docs'));
    for (const part of ['01-intro.md', '02-usage.md']) await fs.writeFile(`${doc}${part}`, part, fileMeta(`${doc}${part}`, `Part ${part}`, 'docs'));
    await fs.writeMeta(doc, { uri: doc, kind: 'dir', context_type: 'resource', document: true, created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z' });
    const events: EngineEvent[] = [];
    const result = await handler(counting(50).summarizer, events).processDirectoryEvent(base);
    // Nodes: 3 directories (one a document) and 4 files (two of them its sections).
    expect(result).toMatchObject({ dirs_total: 3, dirs_done: 3, files_total: 4, files_done: 4, documents_total: 1, documents_done: 1, sections_total: 2, sections_done: 2 });
    const dispatched = events.filter((e) => e.type === 'dag/dir-dispatched');
    expect(dispatched.map((e) => [e.uri, e.document === true])).toEqual(
      expect.arrayContaining([
        [base, false],
        [doc, true],
        [`${base}sub/`, false],
      ]),
    );
  });

  it('lists at most MAX_DIRECTORY_LISTINGS directories at once, and still summarizes every one', async () => {
    const base = 'ctx://resources/wide/';
    // 30 sub-folders of 3 sub-folders each: 121 directories, all listable at the same moment.
    for (let i = 0; i < 30; i++) for (let j = 0; j < 3; j++) await fs.writeFile(`${base}d${i}/e${j}/f.md`, `Note ${i} ${j}`, fileMeta(`${base}d${i}/e${j}/f.md`, `Note ${i} ${j}`, 'docs'));
    let inFlight = 0;
    let most = 0;
    const listing = fs.lsWithMeta.bind(fs);
    fs.lsWithMeta = async (uri) => {
      most = Math.max(most, ++inFlight);
      try {
        await new Promise((resolve) => setTimeout(resolve, 2));
        return await listing(uri);
      } finally {
        inFlight -= 1;
      }
    };
    const result = await handler(counting(50).summarizer).processDirectoryEvent(base);
    expect(result).toMatchObject({ dirs_total: 121, dirs_done: 121, dirsSummarized: 121, files_done: 90 });
    expect(most).toBe(MAX_DIRECTORY_LISTINGS);
  });

  it('summarizes a large directory in batches of max_children, then merges', async () => {
    for (let i = 0; i < 7; i++) {
      const uri = `ctx://user/memories/preference/p${i}.md`;
      await fs.writeFile(uri, `Preference ${i}`, fileMeta(uri, `Prefers setting number ${i} in the editor`, 'preference'));
    }
    const { summarizer, calls } = counting(3);
    const result = await handler(summarizer).processDirectoryEvent('ctx://user/memories/preference/');
    expect(calls).toEqual([3, 3, 1, 3]);
    expect(result.dirsSummarized).toBe(1);
    expect((await fs.readMeta('ctx://user/memories/preference/'))?.summary_status).toBe('done');
    expect(await fs.read('ctx://user/memories/preference/', 0)).not.toBe('');
  });

  it('falls back to the seed summary when the summarizer fails, and says so', async () => {
    for (const [name, abstract, category] of [
      ['a.md', '用户偏好 PEP8 编码风格', 'preference'],
      ['b.md', '偏好深色主题', 'preference'],
      ['c.md', '每周一上午有团队例会', 'event'],
    ]) await fs.writeFile(`ctx://user/memories/${name}`, abstract!, fileMeta(`ctx://user/memories/${name}`, abstract!, category!));
    const events: EngineEvent[] = [];
    const { summarizer } = counting(50, true);
    const result = await handler(summarizer, events).processDirectoryEvent('ctx://user/memories/');
    expect(result.fallbacks).toBe(1);
    expect(await fs.read('ctx://user/memories/', 0)).toBe('包含 3 条preference、event相关记忆');
    expect(await fs.read('ctx://user/memories/', 1)).toContain('## preference (2条)');
    const meta = await fs.readMeta('ctx://user/memories/');
    expect(meta?.summary_status).toBe('fallback');
    expect(meta?.summary_reason).toContain('model unavailable (503)');
    expect(events.some((e) => e.type === 'dag/fallback-used')).toBe(true);
  });

  it('works bottom-up, skips empty directories and reuses current summaries', async () => {
    await fs.writeFile('ctx://resources/r/a/x.md', '# X\n\nThe tide gauge on pier four reads water level every second.\n');
    await fs.writeFile('ctx://resources/r/a/b/y.md', '# Y\n\nStations send ten-minute aggregates over LoRa.\n');
    await fs.mkdir('ctx://resources/r/empty/');
    const events: EngineEvent[] = [];
    const { summarizer, calls } = counting(50);
    const first = await handler(summarizer, events).processDirectoryEvent('ctx://resources/r/');
    expect(first.filesSummarized).toBe(2);
    expect(first.dirsSummarized).toBe(3);
    const done = events.filter((e) => e.type === 'dag/summary-done').map((e) => (e as { uri: string }).uri);
    expect(done).toEqual(['ctx://resources/r/a/b/', 'ctx://resources/r/a/', 'ctx://resources/r/']);
    expect(await fs.kindOf('ctx://resources/r/empty/')).toBe('dir');
    expect((await fs.stat('ctx://resources/r/empty/')).has_abstract).toBe(false);

    const before = calls.length;
    const second = await handler(summarizer).processDirectoryEvent('ctx://resources/r/');
    expect(calls.length).toBe(before);
    expect(second.dirsReused).toBe(1);
    expect(second.filesSummarized).toBe(0);
  });

  it('starts the deepest chains first, so a deep directory does not climb alone at the end', async () => {
    for (let i = 0; i < 4; i++) await fs.writeFile(`ctx://resources/t/r${i}.md`, `# R${i}\n\nA top-level note, number ${i}.\n`);
    await fs.writeFile('ctx://resources/t/a/b/c/deep.md', '# Deep\n\nA note three folders down.\n');
    const inner = extractiveSummarizer();
    const order: string[] = [];
    // The first call (r0) holds the only slot until the whole tree is listed and deep.md queued.
    let listed!: () => void;
    const allListed = new Promise<void>((resolve) => (listed = resolve));
    const summarizer: NodeSummarizer = {
      id: 'ordered',
      async summarizeFile(input) {
        order.push(input.name);
        if (input.name === 'r0.md') await allListed;
        return inner.summarizeFile(input);
      },
      async summarizeDirectory(input) {
        order.push(`${input.name}/`);
        return inner.summarizeDirectory(input);
      },
    };
    const emit = (event: EngineEvent) => {
      // deep.md's task is queued right after its directory's dispatch event.
      if (event.type === 'dag/dir-dispatched' && event.uri.endsWith('/c/')) setImmediate(listed);
    };
    const dag = new DirectoryEventHandler({ fs, summarizer, fileFallback: inner, index: noopIndex, logger: memoryLogger(), clock, emit, concurrency: 1 });
    await dag.processDirectoryEvent('ctx://resources/t/');
    // r0 took the free slot at once; then deep.md, queued after r1..r3, went ahead of them, and
    // c/ went ahead of r2 and r3 as soon as it was ready (a slot passes on before the finished
    // task marks its parent ready, so r1 slips in first). Where b/ lands among r2 and r3 depends
    // on when c/'s writes finish. First come, first served ran r0..r3 first, then the chain.
    expect(order.slice(0, 4)).toEqual(['r0.md', 'deep.md', 'r1.md', 'c/']);
    expect(order.slice(4, 7).sort()).toEqual(['b/', 'r2.md', 'r3.md']);
    expect(order.slice(7)).toEqual(['a/', 't/']);
  });

  describe('while an ingest changes the tree under a run', () => {
    const owedFile = (uri: string, source_hash: string): NodeMeta => ({
      uri, kind: 'file', context_type: 'resource', source_hash, summary_status: 'owed',
      created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z',
    });
    const dirMeta = (uri: string, tree_hash: string): NodeMeta => ({
      uri, kind: 'dir', context_type: 'resource', tree_hash, summary_status: 'owed',
      created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z',
    });

    it('does not give a file replaced mid-summary the old version\'s L0/L1', async () => {
      await fs.writeFile('ctx://resources/docs/a.md', 'Old text about installing.', owedFile('ctx://resources/docs/a.md', 'old'));
      await fs.writeMeta('ctx://resources/docs/', dirMeta('ctx://resources/docs/', 't1'));
      const inner = extractiveSummarizer();
      const summarizer: NodeSummarizer = {
        ...inner,
        async summarizeFile(input) {
          // The ingest replaces the file while the summary call is out.
          await fs.writeFile('ctx://resources/docs/a.md', 'New text about upgrading.', owedFile('ctx://resources/docs/a.md', 'new'));
          return inner.summarizeFile(input);
        },
      };
      await handler(summarizer).processDirectoryEvent('ctx://resources/docs/');
      const meta = await fs.readMeta('ctx://resources/docs/a.md');
      expect(meta?.source_hash).toBe('new');
      expect(meta?.abstract).toBeUndefined();
      expect(meta?.summary_status).toBe('owed');
    });

    it('keeps what an ingest wrote on a folder meta meanwhile, and leaves a changed folder owed', async () => {
      await fs.writeFile('ctx://resources/docs/a.md', 'Text.', fileMeta('ctx://resources/docs/a.md', 'How to install', 'document'));
      await fs.writeMeta('ctx://resources/docs/', dirMeta('ctx://resources/docs/', 't1'));
      const inner = extractiveSummarizer();
      const summarizer: NodeSummarizer = {
        ...inner,
        async summarizeDirectory(input) {
          // The ingest notes itself on the root and finds the folder changed (a new tree hash).
          const current = (await fs.readMeta('ctx://resources/docs/'))!;
          await fs.writeMeta('ctx://resources/docs/', { ...current, tree_hash: 't2', last_ingest: { at: '2026-01-02T00:00:00Z', files: 2, bytes: 10, skipped: 0 } } as NodeMeta);
          return inner.summarizeDirectory(input);
        },
      };
      await handler(summarizer).processDirectoryEvent('ctx://resources/docs/');
      const meta = (await fs.readMeta('ctx://resources/docs/')) as NodeMeta & { last_ingest?: unknown };
      expect(meta.last_ingest).toMatchObject({ files: 2 });
      expect(meta.tree_hash).toBe('t2');
      expect(meta.summarized_tree_hash).toBe('t1');
      expect(isCurrent(meta)).toBe(false);
    });
  });

  it("hands the index a file's new L0/L1 only, and its L2 record stays the one a rebuild makes", async () => {
    // As the ingest leaves a file: content and meta written, L2 indexed, the summary owed.
    const uri = 'ctx://resources/notes/uplink.md';
    const content = '# Uplink\n\nThe uplink station retries a failed transfer three times before it raises an alarm.\n';
    const ingested: NodeMeta = { uri, kind: 'file', context_type: 'resource', source_format: 'markdown', tokens: 20, summary_status: 'owed', created_at: '2025-12-31T00:00:00.000Z', updated_at: '2025-12-31T00:00:00.000Z' };
    await fs.writeFile(uri, content, ingested);
    const ingestL2 = shapeNodeRecords(uri, ingested, { content });
    const upserts: IndexInput[] = [];
    const recording: ContextIndex = { upsert: async (records) => void upserts.push(...records), removeUnder: async () => undefined };

    await handler(extractiveSummarizer(), [], recording).processDirectoryEvent('ctx://resources/notes/');

    // Writing the content again cost LanceDB as much as the ingest's own write of it (issue 20).
    expect(upserts.filter((r) => r.uri === uri).map((r) => r.level)).toEqual([0, 1]);
    const meta = await fs.readMeta(uri);
    expect(meta).toMatchObject({ summary_status: 'done', updated_at: '2026-01-01T00:00:00.000Z', content_updated_at: '2025-12-31T00:00:00.000Z' });
    // What the index now holds (the ingest's L2, the DAG's L0/L1) is what a rebuild from the files makes.
    expect(await nodeRecords(fs, uri, 'file')).toEqual([...ingestL2, ...upserts.filter((r) => r.uri === uri)]);
  });
});
