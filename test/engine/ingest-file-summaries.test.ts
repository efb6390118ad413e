/**
 * Offline file summaries at ingest (issue 20): with no LLM configured, each file gets its
 * extractive L0/L1 in the parse (worker), written with its meta and handed to the index with its
 * content, so the summary run only has directories to do. They are what the DAG writes for the
 * same tree (compared with an ingest whose summaries the DAG made), provenance included; the run
 * does not redo them; and with an LLM configured the files stay owed for it, as before.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NodeMeta } from '../../shared/types/node.js';
import { createOpenAIModel } from '../../main/adapters/llm/openai.js';
import { createEngine, type Engine } from '../../main/engine/engine.js';
import { inProcessParseRunner } from '../../main/engine/parse/runner.js';
import type { EngineIndex } from '../../main/engine/ports/engine-index.js';
import { silentLogger } from '../../main/engine/ports/logger.js';
import { reply, startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';
import { metasUnder } from '../support/tree-metas.js';

let server: MockOpenAI;
let tmp: string;
const engines: Engine[] = [];

beforeEach(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'cairn-ingest-summaries-'));
  server = await startMockOpenAI();
  server.handle(() => reply.json({ abstract: 'An LLM abstract.', overview: '# LLM\n\n- overview', categories: ['docs'] }, { usage: { prompt_tokens: 30, completion_tokens: 6 } }));
});
afterEach(async () => {
  for (const e of engines.splice(0)) await e.dispose();
  await server.close();
  await rm(tmp, { recursive: true, force: true });
});

const TOPICS = ['uplink', 'relay', 'battery', 'antenna', 'mast', 'solar', 'storm', 'cable', 'radio', 'logger'];

/** notes/ (two short documents and one long enough to be split into sections), src/ (a short Go file, a Python file its skeleton summarizes). */
async function sampleTree(): Promise<string> {
  const root = join(tmp, 'project');
  await mkdir(join(root, 'notes'), { recursive: true });
  await mkdir(join(root, 'src'), { recursive: true });
  await writeFile(join(root, 'notes', 'storms.md'), '# Storm review\n\nThe uplink dropped twice during the May storm; the relay held.\n');
  await writeFile(join(root, 'notes', 'power.txt'), 'Power budget.\n\nSolar panels give 40 W at noon; the station draws 12 W at night.\n');
  const sections = TOPICS.map(
    (topic, i) =>
      `## The ${topic}\n\n` +
      Array.from({ length: 14 }, (_, j) => `The ${topic} was checked on day ${i * 14 + j} and its reading ${j % 3 === 0 ? 'rose' : 'held'} near ${(i + 1) * (j + 2)} units while the crew logged the ${TOPICS[(i + j) % TOPICS.length]}.`).join(' ') +
      '\n',
  );
  await writeFile(join(root, 'notes', 'handbook.md'), `# Station handbook\n\n${sections.join('\n')}`);
  await writeFile(join(root, 'src', 'relay.go'), 'package relay\n\n// Forward sends a frame to the next station.\nfunc Forward(frame []byte) error {\n\treturn nil\n}\n');
  const methods = Array.from({ length: 30 }, (_, i) => `    def read_${i}(self) -> float:\n        """Reading ${i}."""\n        return ${i}.0\n`).join('\n');
  await writeFile(join(root, 'src', 'station.py'), `class Station:\n    """A weather station."""\n\n${methods}`);
  return root;
}

/** An index that remembers the ids of the records it was given, and during which phase. */
function recordingIndex() {
  const upserts: { phase: string; ids: string[] }[] = [];
  let phase = 'ingest';
  const index: EngineIndex = {
    async upsert(records) {
      upserts.push({ phase, ids: records.map((r) => r.id) });
    },
    async removeUnder() {},
    // The engine flushes its buffered writes before an optimize: after the ingest, after the run.
    async optimize() {},
  };
  return { index, upserts, setPhase: (p: string) => (phase = p) };
}

async function open(name: string, index?: EngineIndex): Promise<Engine> {
  const engine = await createEngine({
    workspace: join(tmp, name),
    parser: inProcessParseRunner(),
    logger: silentLogger,
    ...(index ? { index } : {}),
    llm: { createModel: createOpenAIModel, retry: { baseDelayMs: 1, maxDelayMs: 5 } },
  });
  engines.push(engine);
  return engine;
}

const fileUris = (metas: Map<string, NodeMeta>) => [...metas.keys()].filter((uri) => !uri.endsWith('/'));

describe('offline file summaries at ingest', () => {
  it('writes each file with its L0/L1 and provenance, the same the DAG writes; the run does not redo them and the index gets them once', async () => {
    const recorder = recordingIndex();
    const e = await open('ws-at-ingest', recorder.index);
    const ingest = await e.call('ingest:start', { path: await sampleTree() });

    const atIngest = await metasUnder(e, ingest.root);
    const files = fileUris(atIngest);
    // 4 whole files and the handbook's sections.
    expect(files.length).toBeGreaterThan(5);
    expect(files.some((uri) => uri.includes('/handbook.md/'))).toBe(true);
    for (const uri of files) {
      const meta = atIngest.get(uri)!;
      expect(meta.summary_status, uri).toBe('done');
      expect(meta.abstract, uri).toBeTruthy();
      expect(meta.overview, uri).toBeTruthy();
      expect(meta.summarizer, uri).toEqual(uri.endsWith('.py') ? { kind: 'ast-skeleton' } : { kind: 'extractive' });
    }
    // Directories are still the run's to do.
    expect(atIngest.get(ingest.root)!.summary_status).toBe('owed');

    recorder.setPhase('summaries');
    const {
      runs: [run],
    } = await e.call('summarize:run', { uri: ingest.root });
    expect(run!.filesSummarized).toBe(0);
    expect(run!.files_done).toBe(run!.files_total);
    expect(server.chatRequests).toHaveLength(0);
    const after = await metasUnder(e, ingest.root);
    for (const uri of files) expect(after.get(uri), uri).toEqual(atIngest.get(uri));

    // Each file's L0 and L1 reached the index once, with its content; the run sent directories only.
    for (const uri of files) {
      for (const level of [0, 1]) {
        const sent = recorder.upserts.filter((u) => u.ids.includes(`${uri}#${level}`));
        expect(sent.map((u) => u.phase), `${uri}#${level}`).toEqual(['ingest']);
      }
    }
    const runIds = recorder.upserts.filter((u) => u.phase === 'summaries').flatMap((u) => u.ids);
    expect(runIds.length).toBeGreaterThan(0);
    expect(runIds.every((id) => id.split('#')[0]!.endsWith('/'))).toBe(true);

    // The same tree, its file summaries left to the DAG (held at ingest, then summarized by the run).
    const dag = await open('ws-by-dag');
    const held = await dag.call('ingest:start', { path: join(tmp, 'project'), summarize: false });
    const owed = await metasUnder(dag, held.root);
    expect(fileUris(owed).filter((uri) => owed.get(uri)!.summary_status === 'owed').length).toBe(files.length - 1);
    const {
      runs: [dagRun],
    } = await dag.call('summarize:run', { uri: held.root });
    expect(dagRun!.filesSummarized).toBe(files.length - 1);
    const byDag = await metasUnder(dag, held.root);
    expect([...byDag.keys()]).toEqual([...after.keys()]);
    for (const [uri, meta] of after) {
      const other = byDag.get(uri)!;
      const pick = (m: NodeMeta) => ({ abstract: m.abstract, overview: m.overview, summary_status: m.summary_status, summary_reason: m.summary_reason, summarizer: m.summarizer });
      expect(pick(meta), uri).toEqual(pick(other));
      if (uri.endsWith('/')) for (const level of [0, 1] as const) expect(await e.call('fs:read', { uri, level }), `${uri} L${level}`).toEqual(await dag.call('fs:read', { uri, level }));
    }
  });

  it('leaves the files owed for the LLM when one is configured, and the run summarizes them with it', async () => {
    const e = await open('ws-llm');
    await e.call('settings:set', { llm: { enabled: true, baseUrl: server.url, model: 'mock-model', maxConcurrent: 4 } });
    const ingest = await e.call('ingest:start', { path: await sampleTree() });
    const atIngest = await metasUnder(e, ingest.root);
    const files = fileUris(atIngest).filter((uri) => !uri.endsWith('.py'));
    for (const uri of files) {
      expect(atIngest.get(uri)!.summary_status, uri).toBe('owed');
      expect(atIngest.get(uri)!.abstract, uri).toBeUndefined();
    }
    const {
      runs: [run],
    } = await e.call('summarize:run', { uri: ingest.root });
    expect(run!.filesSummarized).toBe(files.length);
    const after = await metasUnder(e, ingest.root);
    for (const uri of files) {
      expect(after.get(uri)!.abstract, uri).toBe('An LLM abstract.');
      expect(after.get(uri)!.summarizer?.kind, uri).toBe('llm');
    }
  });
});
