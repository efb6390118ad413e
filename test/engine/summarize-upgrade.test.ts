/**
 * Summaries know who wrote them and can be upgraded (issue 18, item 2): each meta records its
 * summarizer; summarize:run with `redo: 'upgrade'` redoes, bottom-up, only what a weaker
 * summarizer wrote than the one configured now (offline → LLM, an older prompt version; another
 * model is not weaker), `redo: 'force'` everything, and the estimate of either calls nothing.
 * Against the mock OpenAI-compatible server over HTTP; its request count is the LLM calls made.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAIModel } from '../../main/adapters/llm/openai.js';
import { createEngine, type Engine } from '../../main/engine/engine.js';
import { inProcessParseRunner } from '../../main/engine/parse/runner.js';
import { silentLogger } from '../../main/engine/ports/logger.js';
import { SUMMARY_PROMPT_VERSION } from '../../main/engine/summarize/llm-summarizer.js';
import { reply, startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';
import { metasUnder } from '../support/tree-metas.js';

let server: MockOpenAI;
let tmp: string;
let engine: Engine | null = null;

beforeEach(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'cairn-upgrade-'));
  server = await startMockOpenAI();
  server.handle(() => reply.json({ abstract: 'An LLM abstract.', overview: '# LLM\n\n- overview', categories: ['docs'] }, { usage: { prompt_tokens: 30, completion_tokens: 6 } }));
});
afterEach(async () => {
  await engine?.dispose();
  engine = null;
  await server.close();
  await rm(tmp, { recursive: true, force: true });
});

/** notes/ (two documents), notes/deep/ (one), src/ (a code file of 120 lines its skeleton summarizes): 4 files, 4 directories. */
async function sampleTree(): Promise<string> {
  const root = join(tmp, 'project');
  await mkdir(join(root, 'notes', 'deep'), { recursive: true });
  await mkdir(join(root, 'src'), { recursive: true });
  await writeFile(join(root, 'notes', 'storms.md'), '# Storm review\n\nThe uplink dropped twice during the May storm; the relay held.\n');
  await writeFile(join(root, 'notes', 'power.md'), '# Power budget\n\nSolar panels give 40 W at noon; the station draws 12 W.\n');
  await writeFile(join(root, 'notes', 'deep', 'antenna.md'), '# Antenna\n\nThe mast was raised to 6 m, which doubled the link margin.\n');
  // 100 lines or more: ast mode summarizes it with its skeleton.
  const methods = Array.from({ length: 30 }, (_, i) => `    def read_${i}(self) -> float:\n        """Reading ${i}."""\n        return ${i}.0\n`).join('\n');
  await writeFile(join(root, 'src', 'station.py'), `class Station:\n    """A weather station."""\n\n${methods}`);
  return root;
}

async function open(): Promise<Engine> {
  engine = await createEngine({ workspace: join(tmp, 'ws'), parser: inProcessParseRunner(), logger: silentLogger, llm: { createModel: createOpenAIModel, retry: { baseDelayMs: 1, maxDelayMs: 5 } } });
  return engine;
}

const turnOnLlm = (e: Engine, model = 'mock-model') => e.call('settings:set', { llm: { enabled: true, baseUrl: server.url, model, maxConcurrent: 4 } });

describe('summarizer provenance and summarize --upgrade', () => {
  it('records extractive and ast-skeleton offline, then upgrades every node to the LLM once: a second upgrade makes no call', async () => {
    const e = await open();
    const ingest = await e.call('ingest:start', { path: await sampleTree() });
    await e.call('summarize:run', { uri: ingest.root });
    expect(server.chatRequests).toHaveLength(0);
    const offline = await metasUnder(e, ingest.root);
    expect(offline.size).toBe(8);
    for (const [uri, meta] of offline) {
      expect(meta.summarizer, uri).toEqual(uri.endsWith('.py') ? { kind: 'ast-skeleton' } : { kind: 'extractive' });
    }

    // Offline there is nothing stronger to upgrade to: no run, and the answer says why.
    expect(await e.call('summarize:run', { uri: ingest.root, redo: 'upgrade' })).toEqual({ runs: [], nothingStronger: true });

    await turnOnLlm(e);
    const estimate = await e.call('summarize:estimate', { uri: ingest.root, redo: 'upgrade' });
    expect(server.chatRequests).toHaveLength(0);
    expect(estimate.estimates[0]).toMatchObject({ files: 4, directories: 4, calls: 8 });

    const { runs } = await e.call('summarize:run', { uri: ingest.root, redo: 'upgrade' });
    expect(runs[0]).toMatchObject({ filesSummarized: 4, dirsSummarized: 4, fallbacks: 0, llm_calls: 8 });
    expect(server.chatRequests).toHaveLength(8);
    for (const [uri, meta] of await metasUnder(e, ingest.root)) {
      expect(meta.summarizer, uri).toEqual({ kind: 'llm', model: 'mock-model', prompt_version: SUMMARY_PROMPT_VERSION });
      expect(meta.summary_status, uri).toBe('done');
    }
    expect((await e.call('fs:read', { uri: ingest.root, level: 0 })).content).toBe('An LLM abstract.');

    // Nothing weaker is left: the estimate and the run both make no call.
    expect((await e.call('summarize:estimate', { uri: ingest.root, redo: 'upgrade' })).estimates[0]).toMatchObject({ calls: 0, reused_directories: 4 });
    const again = await e.call('summarize:run', { uri: ingest.root, redo: 'upgrade' });
    expect(again.runs[0]).toMatchObject({ filesSummarized: 0, dirsSummarized: 0, dirsReused: 4, llm_calls: 0 });
    expect(server.chatRequests).toHaveLength(8);

    // Another model is not a weaker summarizer: nothing is redone.
    await turnOnLlm(e, 'another-model');
    await e.call('summarize:run', { redo: 'upgrade' });
    expect(server.chatRequests).toHaveLength(8);
  });

  it('upgrades a subtree and the directories above it, and leaves the weaker nodes beside it for another upgrade', async () => {
    const e = await open();
    const ingest = await e.call('ingest:start', { path: await sampleTree() });
    await e.call('summarize:run', { uri: ingest.root });
    await turnOnLlm(e);
    const deep = `${ingest.root}notes/deep/`;
    expect((await e.call('summarize:estimate', { uri: deep, redo: 'upgrade' })).estimates[0]).toMatchObject({ root: ingest.root, calls: 4, files: 1, directories: 3 });
    const { runs } = await e.call('summarize:run', { uri: deep, redo: 'upgrade' });
    expect(runs[0]).toMatchObject({ root: ingest.root, filesSummarized: 1, dirsSummarized: 3, dirsReused: 1 });
    const redone = server.chatRequests.map((r) => /\((ctx:\/\/[^)\s]+)\)/.exec(r.messages.at(-1)?.content ?? '')?.[1]).sort();
    expect(redone).toEqual([ingest.root, `${ingest.root}notes/`, deep, `${deep}antenna.md`].sort());
    const metas = await metasUnder(e, ingest.root);
    expect(metas.get(`${ingest.root}notes/storms.md`)?.summarizer).toEqual({ kind: 'extractive' });
    expect(metas.get(`${ingest.root}notes/`)?.summarizer?.kind).toBe('llm');
  });

  it('redoes only the node an older prompt version wrote and the directories above it; --force redoes every node', async () => {
    const e = await open();
    await turnOnLlm(e);
    const ingest = await e.call('ingest:start', { path: await sampleTree() });
    await e.call('summarize:run', { uri: ingest.root });
    // The code file keeps its skeleton in ast mode, so the first LLM run summarizes 3 files and 4 directories.
    expect(server.chatRequests).toHaveLength(7);

    const antenna = `${ingest.root}notes/deep/antenna.md`;
    const old = (await metasUnder(e, antenna)).get(antenna)!;
    await e.fs.writeMeta(antenna, { ...old, summarizer: { kind: 'llm', model: 'mock-model', prompt_version: SUMMARY_PROMPT_VERSION - 1 } });

    server.reset();
    const { runs } = await e.call('summarize:run', { redo: 'upgrade' });
    // The skeleton of station.py, the old antenna.md, and the three directories above it; src/ is reused.
    const redone = server.chatRequests.map((r) => /\((ctx:\/\/[^)\s]+)\)/.exec(r.messages.at(-1)?.content ?? '')?.[1]).sort();
    expect(redone).toEqual([ingest.root, `${ingest.root}notes/`, `${ingest.root}notes/deep/`, antenna, `${ingest.root}src/`, `${ingest.root}src/station.py`].sort());
    expect(runs[0]).toMatchObject({ filesSummarized: 2, dirsSummarized: 4, dirsReused: 0 });

    server.reset();
    expect((await e.call('summarize:estimate', { uri: ingest.root, redo: 'force' })).estimates[0]).toMatchObject({ calls: 8 });
    expect(server.chatRequests).toHaveLength(0);
    const forced = await e.call('summarize:run', { uri: ingest.root, redo: 'force' });
    expect(forced.runs[0]).toMatchObject({ filesSummarized: 4, dirsSummarized: 4, llm_calls: 8 });
    expect(server.chatRequests).toHaveLength(8);
  });
});
