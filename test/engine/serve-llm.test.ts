/**
 * `cairn serve --llm-*`, as a user starts it: the built CLI, the engine worker, a WebSocket client
 * speaking the wire protocol, and a real scripted OpenAI-compatible server on 127.0.0.1. An ingest
 * through the web host is summarized by the LLM, llm:stats counts the calls, `llm/stats-changed`
 * events arrive, and the key appears in no file, log line or response.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { WebSocket } from 'ws';
import type { EngineEvent } from '../../shared/contracts/api.js';
import { reply, startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';
import { filesUnder } from '../reliability/support.js';

const ROOT = join(import.meta.dirname, '../..');
const CLI = join(ROOT, 'dist-main/cli.js');
const DOCS = join(ROOT, 'assets/sample/docs');
const KEY = 'sk-serve-secret-9d8c7b6a5f4e';

let server: MockOpenAI;
let tmp: string;
let child: ChildProcess | null = null;
let stderr = '';

function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(OPENAI_|CAIRN_)/.test(k)));
}

async function serve(args: string[]): Promise<string> {
  const renderer = join(tmp, 'renderer');
  await mkdir(renderer, { recursive: true });
  await writeFile(join(renderer, 'index.html'), '<!doctype html><title>stub</title>');
  child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--workspace', join(tmp, 'ws'), '--renderer', renderer, ...args], { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child!.once('exit', resolve));
  return new Promise<string>((resolve, reject) => {
    createInterface({ input: child!.stdout! }).once('line', resolve);
    void exited.then((code) => reject(new Error(`cairn serve exited (${code}):\n${stderr}`)));
  });
}

/** A wire-protocol client: `call` resolves with the result or rejects with the wire error. */
async function connect(url: string) {
  const page = new URL(url);
  const ws = new WebSocket(`ws://${page.host}/ws?token=${page.searchParams.get('token')}`, { headers: { Origin: page.origin } });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const events: EngineEvent[] = [];
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  ws.on('message', (data) => {
    const message = JSON.parse(data.toString()) as { type: string; id?: number; ok?: boolean; result?: unknown; error?: { message: string }; events?: EngineEvent[] };
    if (message.type === 'events') events.push(...message.events!);
    if (message.type === 'result' && message.id != null) {
      const call = pending.get(message.id);
      pending.delete(message.id);
      if (message.ok) call?.resolve(message.result);
      else call?.reject(new Error(message.error!.message));
    }
  });
  let seq = 0;
  return {
    events,
    call<T>(command: string, request: unknown): Promise<T> {
      const id = ++seq;
      return new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        ws.send(JSON.stringify({ type: 'call', id, command, request }));
      });
    },
    close: () => ws.close(),
  };
}

beforeAll(() => {
  execFileSync(process.execPath, [join(ROOT, 'scripts/build-main.mjs')], { cwd: ROOT });
}, 180_000);
beforeEach(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'cairn-serve-llm-'));
  stderr = '';
  server = await startMockOpenAI({ apiKey: KEY });
  server.handle(() => reply.json({ abstract: 'Served by the mock LLM.', overview: '# Mock\n\n- overview', categories: ['docs'] }, { usage: { prompt_tokens: 30, completion_tokens: 6 } }));
});
/** Stops `cairn serve` and waits for it, so its files are all written. */
async function stop(): Promise<void> {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  child = null;
}

afterEach(async () => {
  await stop();
  await server.close();
  await rm(tmp, { recursive: true, force: true });
});

describe('cairn serve with --llm-* flags', () => {
  it('summarizes an ingest through the web host with the LLM and counts the calls in llm:stats', async () => {
    const url = await serve(['--llm-base-url', server.url, '--llm-api-key', KEY, '--llm-model', 'gpt-4o-mini', '--max-concurrent-llm', '3']);
    const client = await connect(url);
    const settings = await client.call<{ summarizer: string; apiKey: { set: boolean }; llm: { maxConcurrent: number; baseUrl: string } }>('settings:get', {});
    expect(settings).toMatchObject({ summarizer: 'llm', apiKey: { set: true }, llm: { maxConcurrent: 3, baseUrl: server.url } });
    expect(JSON.stringify(settings)).not.toContain(KEY.slice(0, 12));

    const ingest = await client.call<{ root: string }>('ingest:start', { path: DOCS });
    // The app summarizes in the background right after the ingest.
    await expect.poll(() => client.events.some((e) => e.type === 'dag/finished' && e.root === ingest.root), { timeout: 60_000, interval: 100 }).toBe(true);
    const finished = client.events.find((e): e is Extract<EngineEvent, { type: 'dag/finished' }> => e.type === 'dag/finished')!;
    expect(finished.result.llm_calls).toBeGreaterThan(0);
    expect(finished.result.fallbacks).toBe(0);
    const l0 = await client.call<{ content: string }>('fs:read', { uri: ingest.root, level: 0 });
    expect(l0.content).toContain('Served by the mock LLM.');

    const stats = await client.call<{ calls: number; succeeded: number; inputTokens: number; costUsd: number | null; recent: unknown[] }>('llm:stats', {});
    expect(stats.calls).toBe(server.chatRequests.length);
    expect(stats.calls).toBeGreaterThan(0);
    expect(stats.succeeded).toBe(stats.calls);
    expect(stats.inputTokens).toBe(30 * stats.calls);
    expect(stats.costUsd).toBeGreaterThan(0);
    expect(stats.recent.length).toBeGreaterThan(0);
    expect(server.peakConcurrency).toBeLessThanOrEqual(3);
    await expect.poll(() => client.events.some((e) => e.type === 'llm/stats-changed' && e.stats.calls === stats.calls), { timeout: 5_000 }).toBe(true);
    client.close();
    await stop();

    // The key went to the server only: not in the workspace, the log, nor any answer.
    expect(server.chatRequests.every((r) => r.apiKey === KEY)).toBe(true);
    expect(stderr).not.toContain(KEY);
    for (const file of await filesUnder(join(tmp, 'ws'))) expect(await readFile(file, 'latin1'), file).not.toContain(KEY);
  }, 120_000);

  it('refuses flags the settings do not allow, with the flag named', async () => {
    await expect(serve(['--llm-base-url', server.url, '--max-concurrent-llm', '100'])).rejects.toThrow(/--max-concurrent-llm must be at most 64/);
  }, 60_000);
});
