/**
 * LLM failures a person can diagnose (issue 18, item 3), through the engine's LLM stack and the
 * mock OpenAI-compatible server over HTTP: every failed call keeps its cause (the HTTP status and
 * the server's message, invalid JSON with how the answer began) in the monitor's recent calls and
 * grouped in the run's result; the breaker is the run's, so the next run asks the server again;
 * an answer of the wrong shape is retried once with the schema restated before falling back.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAIModel } from '../../main/adapters/llm/openai.js';
import { createEngine, type Engine } from '../../main/engine/engine.js';
import { inProcessParseRunner } from '../../main/engine/parse/runner.js';
import { silentLogger } from '../../main/engine/ports/logger.js';
import { formatCauses, formatFallbacks } from '../../shared/fallback-causes.js';
import { describeCause, englishCause } from '../../shared/llm-cause.js';
import { reply, startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';

const KEY = 'sk-causes-test-0a1b2c3d';
const GOOD = { abstract: 'An LLM abstract.', overview: '# LLM\n\n- overview', categories: ['docs'] };

let server: MockOpenAI;
let tmp: string;
let engine: Engine | null = null;

beforeEach(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'cairn-causes-'));
  server = await startMockOpenAI();
});
afterEach(async () => {
  await engine?.dispose();
  engine = null;
  await server.close();
  await rm(tmp, { recursive: true, force: true });
});

/** A folder of `files` notes: `files` file calls and one directory call. */
async function notes(name: string, files: number): Promise<string> {
  const root = join(tmp, name);
  await mkdir(root, { recursive: true });
  for (let i = 0; i < files; i += 1) await writeFile(join(root, `note-${i}.md`), `# Note ${i}\n\nObservation ${i} of the ${name} station.\n`);
  return root;
}

async function open(): Promise<Engine> {
  engine = await createEngine({
    workspace: join(tmp, 'ws'),
    parser: inProcessParseRunner(),
    logger: silentLogger,
    llm: { createModel: createOpenAIModel, apiKey: KEY, retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2 }, breaker: { failureThreshold: 100 } },
  });
  await engine.call('settings:set', { llm: { enabled: true, baseUrl: server.url, model: 'mock-model', maxConcurrent: 1 } });
  return engine;
}

async function summarize(e: Engine, path: string) {
  const ingest = await e.call('ingest:start', { path });
  const { runs } = await e.call('summarize:run', { uri: ingest.root });
  return runs[0]!;
}

describe('LLM failure causes', () => {
  it('keeps the HTTP status and the server message per call, grouped in the run result and in one line', async () => {
    const e = await open();
    let n = 0;
    // Every third request answers invalid JSON, the others fail with a 500 the server explains.
    server.handle(() => (++n % 3 === 0 ? reply.text('Sorry, I cannot summarize this.') : reply.serverError(500, { message: 'injected fault' })));
    const run = await summarize(e, await notes('causes', 3));
    expect(run.fallbacks).toBe(4);
    const causes = run.fallback_causes ?? [];
    expect(causes.reduce((sum, c) => sum + c.count, 0)).toBe(4);
    // Structured at the source: a code and its parameters, never a sentence to parse back.
    expect(causes.map((c) => c.cause)).toEqual(expect.arrayContaining([{ code: 'http_status', status: 500, message: 'injected fault' }, { code: 'invalid_json' }]));
    expect(causes).toHaveLength(2);
    expect(formatFallbacks(run.fallbacks, causes)).toMatch(/^4 fallbacks: \d × (HTTP 500 'injected fault'|invalid JSON), \d × (HTTP 500 'injected fault'|invalid JSON)$/);

    const { recent } = await e.call('llm:stats', {});
    expect(recent).toHaveLength(4);
    for (const call of recent) expect(call.outcome).not.toBe('ok');
    const invalid = recent.find((c) => typeof c.cause === 'object' && c.cause.code === 'invalid_json');
    // The first 200 characters of the answer, so a person sees what the model said.
    expect(invalid?.cause).toMatchObject({ answer: 'Sorry, I cannot summarize this.' });
    expect(describeCause(invalid!.cause!, englishCause)).toBe('invalid JSON (the answer began: "Sorry, I cannot summarize this.")');
    expect(recent.some((c) => typeof c.cause === 'object' && describeCause(c.cause, englishCause) === "HTTP 500 'injected fault'")).toBe(true);
  });

  it('notes the run on its root, so Home still says "4 fallbacks" and why after a restart', async () => {
    let e = await open();
    server.handle(() => reply.serverError(500, { message: 'injected fault' }));
    const run = await summarize(e, await notes('restart', 3));
    expect(run.fallbacks).toBe(4);
    await e.dispose();
    engine = null;
    e = await open();
    const [item] = (await e.call('ingest:recent', {})).items;
    expect(item).toMatchObject({ root: run.root, state: 'summarized', summary: { fallbacks: 4, fallback_causes: [{ cause: { code: 'http_status', status: 500, message: 'injected fault' }, count: 4 }] } });
    // A later run replaces it.
    server.handle(() => reply.json(GOOD));
    await e.call('summarize:run', { uri: run.root, redo: 'upgrade' });
    expect((await e.call('ingest:recent', {})).items[0]!.summary).toMatchObject({ fallbacks: 0 });
  });

  it('opens the breaker for a run on a refused key, and starts the next run closed', async () => {
    const e = await open();
    server.configure({ apiKey: 'sk-the-right-one' });
    server.handle(() => reply.json(GOOD));
    const first = await summarize(e, await notes('refused', 4));
    expect(first.fallbacks).toBe(5);
    // The first 401 opens the breaker for the run: the other calls never reach the server.
    expect(server.chatRequests).toHaveLength(1);
    expect((await e.call('llm:stats', {})).breaker).toBe('open');
    expect(formatCauses(first.fallback_causes)).toBe("4 × circuit open: authentication failed (401), 1 × HTTP 401 'Incorrect API key provided'");

    // The key is fixed on the server's side: the next run asks it again and summarizes.
    server.configure({ apiKey: KEY });
    const second = await e.call('summarize:run', { uri: first.root, redo: 'upgrade' });
    expect(second.runs[0]).toMatchObject({ fallbacks: 0, filesSummarized: 4, dirsSummarized: 1 });
    expect((await e.call('llm:stats', {})).breaker).toBe('closed');
    expect(server.chatRequests).toHaveLength(1 + 5);
  });

  it('retries an answer of the wrong shape once with the schema restated; wrong twice falls back with the cause', async () => {
    const e = await open();
    // One file, one directory: the file's first answer has the wrong keys, its retry the right ones.
    server.enqueue(reply.json({ summary: 'no abstract here' }), reply.json(GOOD), reply.json(GOOD));
    const repaired = await summarize(e, await notes('shape', 1));
    expect(repaired).toMatchObject({ fallbacks: 0, llm_calls: 2 });
    expect(server.chatRequests).toHaveLength(3);
    const retry = server.chatRequests[1]!.messages.at(-1)!;
    expect(retry.role).toBe('user');
    expect(retry.content).toContain('does not match the schema');
    expect(retry.content).toContain('JSON Schema');
    expect(retry.content).toContain('"abstract"');

    server.reset();
    server.enqueue(reply.json({ summary: 'wrong' }), reply.json({ summary: 'wrong again' }), reply.json(GOOD));
    const fellBack = await summarize(e, await notes('shape-twice', 1));
    expect(server.chatRequests).toHaveLength(3);
    expect(fellBack.fallbacks).toBe(1);
    expect(fellBack.fallback_causes).toEqual([{ cause: { code: 'schema' }, count: 1 }]);
    const failed = (await e.call('llm:stats', {})).recent.find((c) => c.outcome !== 'ok');
    const said = describeCause(failed!.cause!, englishCause);
    expect(said).toContain('JSON of the wrong shape');
    expect(said).toContain('wrong again');
  });
});
