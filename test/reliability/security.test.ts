/**
 * Security (issue 10): URI and path traversal through the engine contract and the built CLI;
 * the web host's doors (token, Origin, Host); fuzzed WebSocket and IPC messages against the zod
 * contract; and an API key given by flag or environment that must never show up in output, the
 * workspace or an export. Electron is mocked for IPC, as in main/app/app.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { commands, parseRequest, type CommandName } from '../../shared/contracts/api.js';
import { MAX_CLIENT_MESSAGE_BYTES } from '../../shared/contracts/wire.js';
import { CairnError } from '../../shared/errors.js';
import { createEngine, type Engine } from '../../main/engine/engine.js';
import { inProcessParseRunner } from '../../main/engine/parse/runner.js';
import type { EngineConnection } from '../../main/host/engine-connection.js';
import { startWebHost, type WebHost } from '../../main/host/web-host.js';
import { reply, startMockOpenAI } from '../support/mock-openai-server.js';
import { buildCli, envInt, runCli, writeFigures } from './support.js';
import { prng } from '../support/prng.js';

const handlers = vi.hoisted(() => new Map<string, (event: unknown, request: unknown) => Promise<unknown>>());
vi.mock('electron', () => ({
  ipcMain: {
    handle: (channel: string, handler: (event: unknown, request: unknown) => Promise<unknown>) => handlers.set(channel, handler),
    removeHandler: (channel: string) => handlers.delete(channel),
  },
}));

const FUZZ = envInt('CAIRN_FUZZ_INPUTS', 300);
const REFUSED = ['PATH_ESCAPE', 'INVALID_URI', 'INVALID_INPUT'];
const PASSWD_LINE = /root:.*:0:0:/;
const COMMAND_NAMES = Object.keys(commands) as CommandName[];

let tmp: string;
let workspace: string;
let engine: Engine;
const figures: Record<string, unknown> = {};

/** Traversal attempts: dot segments, percent-encoded (once and twice), backslashes, NULs, absolute paths, other schemes, links out. */
const ATTACKS = [
  'ctx://resources/../../etc/passwd',
  'ctx://resources/notes/../../../etc/passwd',
  'ctx://resources/%2e%2e/%2e%2e/etc/passwd',
  'ctx://resources/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd',
  'ctx://resources/..%2f..%2fetc%2fpasswd',
  'ctx://resources/..%5c..%5cetc%5cpasswd',
  'ctx://resources/..\\..\\etc\\passwd',
  'ctx://resources//etc/passwd',
  'ctx://resources/notes/a\0/../../../etc/passwd',
  'ctx://resources/%00',
  'ctx://resources/C:/Windows/win.ini',
  'ctx://temp/../../etc/passwd',
  'ctx:///etc/passwd',
  'ctx://etc/passwd',
  '/etc/passwd',
  '../../etc/passwd',
  'file:///etc/passwd',
  'ctx://resources/out-dir/passwd',
  'ctx://resources/out-dir/',
  'ctx://resources/out-file',
  'ctx://resources/notes/out-nested/passwd',
];

/** Runs a call and returns the error code it was refused with ('OK' when it was not refused). */
async function codeOf(run: () => Promise<unknown>): Promise<string> {
  try {
    const result = await run();
    expect(JSON.stringify(result)).not.toMatch(PASSWD_LINE);
    return 'OK';
  } catch (error) {
    if (CairnError.is(error)) return error.code;
    throw error;
  }
}

/** Random JSON-ish values: wrong types, huge and odd strings, deep nesting, prototype-pollution keys. */
function randomValue(random: () => number, depth = 0): unknown {
  const keys = ['uri', 'path', 'level', 'query', 'options', 'scope', 'format', 'out', 'id', 'jobId', 'depth', 'blocks', '__proto__', 'constructor', 'prototype', 'toString', 'x'];
  const pick = Math.floor(random() * (depth > 4 ? 7 : 10));
  switch (pick) {
    case 0:
      return null;
    case 1:
      return [0, -1, 1e308, -0, 2 ** 53 + 1, 0.5, 65][Math.floor(random() * 7)];
    case 2:
      return random() < 0.5;
    case 3:
      return ['', 'ctx://resources/', 'ctx://resources/../../etc/passwd', 'a'.repeat(200_000), '\0', '\u202e', '{"__proto__":1}', 'x'.repeat(5000)][Math.floor(random() * 8)];
    case 4:
      return 'ctx://resources/' + String.fromCharCode(...Array.from({ length: 8 }, () => Math.floor(random() * 0x3000)));
    case 5:
      return undefined;
    case 6:
      return random() < 0.5 ? 2 : 'x';
    case 7:
      return Array.from({ length: Math.floor(random() * 4) }, () => randomValue(random, depth + 1));
    default: {
      // Built through JSON.parse so that `__proto__` is an own key, as it is on the wire.
      const fields: string[] = [];
      for (let i = Math.floor(random() * 5); i > 0; i--) fields.push(`${JSON.stringify(keys[Math.floor(random() * keys.length)])}: ${JSON.stringify(randomValue(random, depth + 1)) ?? 'null'}`);
      return JSON.parse(`{${fields.join(',')}}`);
    }
  }
}

/** What the contract says about an input: valid, or refused with INVALID_INPUT (anything else fails the test). */
function contractVerdict(command: CommandName, input: unknown): 'valid' | 'INVALID_INPUT' {
  try {
    parseRequest(command, input);
    return 'valid';
  } catch (error) {
    expect(CairnError.is(error, 'INVALID_INPUT'), `${command}: ${String(error)}`).toBe(true);
    return 'INVALID_INPUT';
  }
}

beforeAll(async () => {
  buildCli();
  tmp = await mkdtemp(join(tmpdir(), 'cairn-security-'));
  const source = join(tmp, 'notes');
  await mkdir(source, { recursive: true });
  await writeFile(join(source, 'a.md'), '# A\n\nThe harbour gauge reads the tide.\n');
  await writeFile(join(source, 'b.md'), '# B\n\nThe mast carries the wind sensor.\n');
  workspace = join(tmp, 'ws');
  engine = await createEngine({ workspace, parser: inProcessParseRunner() });
  await engine.call('ingest:start', { path: source });
  await engine.call('summarize:run', {});
  // Links planted inside the workspace that lead out of it.
  await symlink('/etc', join(workspace, 'resources', 'out-dir'));
  await symlink('/etc/passwd', join(workspace, 'resources', 'out-file'));
  await symlink('/etc', join(workspace, 'resources', 'notes', 'out-nested'));
}, 240_000);
afterAll(async () => {
  await engine?.dispose();
  await writeFigures('security', figures);
  await rm(tmp, { recursive: true, force: true });
});

describe('path traversal', () => {
  it('refuses every attempt through the engine contract with PATH_ESCAPE, INVALID_URI or INVALID_INPUT', async () => {
    const refusals: Record<string, number> = {};
    let tried = 0;
    for (const uri of ATTACKS) {
      for (const command of ['fs:ls', 'fs:read', 'fs:stat', 'fs:tree'] as const) {
        const code = await codeOf(() => engine.call(command, parseRequest(command, { uri }) as never));
        tried += 1;
        expect(REFUSED, `${command} ${JSON.stringify(uri)} gave ${code}`).toContain(code);
        refusals[code] = (refusals[code] ?? 0) + 1;
      }
    }
    // An export into the workspace itself is refused too (it would feed on its own output).
    const exportInside = await codeOf(() => engine.call('export:run', { format: 'json', out: join(workspace, 'resources', 'x.json') }));
    expect(REFUSED).toContain(exportInside);
    figures.engine_traversal = { attempts: tried + 1, refusals, export_into_workspace: exportInside };
  });

  it('refuses every attempt through the built CLI, with the code in --json and no file content', async () => {
    const refusals: Record<string, number> = {};
    // A process argument cannot carry a NUL byte (spawn refuses it), so those stay engine-only.
    const cliAttacks = ATTACKS.filter((uri) => !uri.includes('\0'));
    // Every attempt through `cat`; `ls` and `stat` (the same resolver) on a sample, to keep the run short.
    const runs = cliAttacks.flatMap((uri, i) => (i % 4 === 0 ? ['cat', 'ls', 'stat'] : ['cat']).map((command) => [command, uri] as const));
    for (const [command, uri] of runs) {
      {
        const run = await runCli([command, uri, '--workspace', workspace, '--json']);
        expect(run.code, `${command} ${uri}: ${run.stdout}${run.stderr}`).not.toBe(0);
        expect(run.stdout + run.stderr).not.toMatch(PASSWD_LINE);
        const code = (JSON.parse(run.stdout) as { error: { code: string } }).error.code;
        expect(REFUSED, `${command} ${JSON.stringify(uri)} gave ${code}`).toContain(code);
        refusals[code] = (refusals[code] ?? 0) + 1;
      }
    }
    figures.cli_traversal = { attempts: runs.length, refusals };
  }, 240_000);
});

describe('the web host', () => {
  let host: WebHost;
  const calls: { command: string; request: unknown }[] = [];
  const TOKEN = 'reliability-token-0123456789abcdefghijklmn';

  beforeAll(async () => {
    await mkdir(join(tmp, 'renderer'), { recursive: true });
    await writeFile(join(tmp, 'renderer', 'index.html'), '<!doctype html><title>Cairn</title>');
    const fake: EngineConnection = {
      subscribe: () => () => {},
      async call(command, request) {
        calls.push({ command, request });
        return {} as never;
      },
    };
    host = await startWebHost({ engine: fake, rendererDir: join(tmp, 'renderer'), token: TOKEN });
  });
  afterAll(async () => {
    await host?.close();
  });

  /** Resolves with the HTTP status a WebSocket upgrade was refused with, or 101 when it was accepted. */
  function upgrade(token: string, origin: string | null, hostHeader?: string): Promise<number> {
    return new Promise((resolve) => {
      const ws = new WebSocket(`ws://127.0.0.1:${host.port}/ws?token=${encodeURIComponent(token)}`, { ...(origin !== null ? { origin } : {}), headers: hostHeader ? { Host: hostHeader } : {} });
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('open', () => {
        ws.close();
        resolve(101);
      });
      ws.on('error', () => resolve(-1));
    });
  }

  it('refuses wrong tokens, foreign Origins and foreign Hosts', async () => {
    const origin = host.origin;
    expect(await upgrade(TOKEN, origin)).toBe(101);
    const attempts: [string, string, string | null, string | undefined][] = [
      ['no token', '', origin, undefined],
      ['wrong token', 'x'.repeat(TOKEN.length), origin, undefined],
      ['token off by one character', `${TOKEN.slice(0, -1)}X`, origin, undefined],
      ['token prefix', TOKEN.slice(0, 10), origin, undefined],
      ['token with a suffix', `${TOKEN}x`, origin, undefined],
      ['foreign Origin', TOKEN, 'http://evil.example', undefined],
      ['Origin on another port', TOKEN, `http://127.0.0.1:${host.port + 1}`, undefined],
      ['null Origin', TOKEN, 'null', undefined],
      ['no Origin', TOKEN, null, undefined],
      ['https Origin', TOKEN, `https://127.0.0.1:${host.port}`, undefined],
      ['foreign Host (DNS rebinding)', TOKEN, `http://evil.example:${host.port}`, `evil.example:${host.port}`],
      ['look-alike Host', TOKEN, `http://127.0.0.1.nip.io:${host.port}`, `127.0.0.1.nip.io:${host.port}`],
      ['Host on another port', TOKEN, origin, `127.0.0.1:${host.port + 1}`],
    ];
    const refused: Record<string, number> = {};
    for (const [what, token, o, h] of attempts) {
      const status = await upgrade(token, o, h);
      expect([401, 403], `${what} got ${status}`).toContain(status);
      refused[what] = status;
    }
    expect(host.connections).toBe(0);
    expect(calls).toEqual([]);
    figures.web_host_doors = refused;
  });

  it('answers fuzzed WebSocket messages with INVALID_INPUT (or a call the contract allows) and never crashes', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${host.port}/ws?token=${TOKEN}`, { origin: host.origin });
    const answers = new Map<number, Record<string, unknown>>();
    let nullAnswers = 0;
    ws.on('message', (data) => {
      const message = JSON.parse(data.toString()) as Record<string, unknown>;
      if (message.type !== 'result') return;
      if (typeof message.id === 'number') answers.set(message.id, message);
      else nullAnswers += 1;
    });
    await new Promise((resolve) => ws.once('open', resolve));
    const random = prng(99);
    const expected = new Map<number, 'valid' | 'INVALID_INPUT'>();
    let raw = 0;
    for (let id = 1; id <= FUZZ; id++) {
      const command = random() < 0.8 ? COMMAND_NAMES[Math.floor(random() * COMMAND_NAMES.length)]! : (JSON.stringify(randomValue(random)) ?? 'undefined');
      const request = randomValue(random);
      if (id % 10 === 0) {
        // Not an envelope at all: raw garbage, wrong envelope types, pollution keys at the top.
        raw += 1;
        ws.send(['{', '[]', '"call"', '{"__proto__":{"polluted":1},"type":"call"}', 'null', '1e999'][id % 6]!);
        continue;
      }
      const text = JSON.stringify({ type: 'call', id, command, request });
      // Over the host's message limit the connection is closed instead (tested below).
      if (Buffer.byteLength(text) > MAX_CLIENT_MESSAGE_BYTES) continue;
      const known = (COMMAND_NAMES as string[]).includes(command);
      expected.set(id, known ? contractVerdict(command as CommandName, request) : 'INVALID_INPUT');
      ws.send(text);
    }
    await vi.waitFor(() => expect(answers.size).toBe(expected.size), { timeout: 60_000, interval: 100 });
    let invalid = 0;
    for (const [id, verdict] of expected) {
      const answer = answers.get(id)!;
      if (verdict === 'valid') expect(answer.ok, JSON.stringify(answer).slice(0, 300)).toBe(true);
      else {
        expect(answer, JSON.stringify(answer).slice(0, 300)).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
        invalid += 1;
      }
    }
    // The connection survived it all and still answers.
    ws.send(JSON.stringify({ type: 'call', id: FUZZ + 1, command: 'fs:ls', request: { uri: 'ctx://resources/' } }));
    await vi.waitFor(() => expect(answers.get(FUZZ + 1)).toMatchObject({ ok: true }), { timeout: 10_000 });
    ws.close();
    // Only requests the contract accepts ever reached the engine, and nothing polluted Object.prototype.
    for (const call of calls) expect(contractVerdict(call.command as CommandName, call.request)).toBe('valid');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // A message over the limit closes that connection (1009, message too big), and only that one.
    const big = new WebSocket(`ws://127.0.0.1:${host.port}/ws?token=${TOKEN}`, { origin: host.origin });
    await new Promise((resolve) => big.once('open', resolve));
    const closed = new Promise<number>((resolve) => big.once('close', (code) => resolve(code)));
    big.send(JSON.stringify({ type: 'call', id: 1, command: 'fs:ls', request: { uri: 'x'.repeat(MAX_CLIENT_MESSAGE_BYTES) } }));
    expect(await closed).toBe(1009);
    const after = new WebSocket(`ws://127.0.0.1:${host.port}/ws?token=${TOKEN}`, { origin: host.origin });
    await new Promise((resolve) => after.once('open', resolve));
    after.close();
    figures.websocket_fuzz = { messages: FUZZ, envelopes: expected.size, raw, invalid_input: invalid, accepted: expected.size - invalid, unenveloped_answers: nullAnswers, oversized_closed_with: 1009 };
  }, 120_000);
});

describe('the IPC handlers', () => {
  it('answer fuzzed requests on every channel with INVALID_INPUT (or a call the contract allows) and never throw', async () => {
    const { registerIpcHandlers } = await import('../../main/app/ipc.js');
    const { silentLogger } = await import('../../main/engine/ports/logger.js');
    const reached: { command: string; request: unknown }[] = [];
    const remove = registerIpcHandlers(
      {
        subscribe: () => () => {},
        async call(command, request) {
          reached.push({ command, request });
          return {} as never;
        },
      },
      silentLogger,
    );
    const fromApp = { senderFrame: { url: 'app://cairn/index.html' } };
    const random = prng(7);
    let invalid = 0;
    for (let i = 0; i < FUZZ; i++) {
      const command = COMMAND_NAMES[i % COMMAND_NAMES.length]!;
      // IPC uses structured clone, not JSON: NaN, Infinity, big ints as numbers and undefined come through.
      const request = i % 17 === 0 ? { uri: NaN, level: Infinity, path: undefined } : randomValue(random);
      const verdict = contractVerdict(command, request);
      const answer = (await handlers.get(`cairn:${command}`)!(fromApp, request)) as { ok: boolean; error?: { code: string } };
      if (verdict === 'valid') expect(answer.ok).toBe(true);
      else {
        expect(answer).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
        invalid += 1;
      }
    }
    remove();
    for (const call of reached) expect(contractVerdict(call.command as CommandName, call.request)).toBe('valid');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    figures.ipc_fuzz = { requests: FUZZ, channels: COMMAND_NAMES.length, invalid_input: invalid, accepted: FUZZ - invalid };
  });
});

describe('secrets', () => {
  it('never shows an API key given by flag or environment in output, logs, the workspace or an export', async () => {
    const KEY = 'sk-reliability-5e3c1f9a7b2d4680';
    const server = await startMockOpenAI();
    try {
      server.handle((request) => (request.seq % 4 === 0 ? reply.unauthorized() : reply.json({ abstract: 'Tide notes.', overview: '# Tide', categories: ['notes'] })));
      const ws = join(tmp, 'ws-secrets');
      const source = join(tmp, 'notes');
      const runs = [
        await runCli(['ingest', source, '--workspace', ws, '--json', '--workers', '0', '-v', '--llm-base-url', server.url, '--llm-api-key', KEY]),
        await runCli(['ingest', source, '--workspace', ws, '--name', 'again', '--workers', '0', '-v', '--llm-base-url', server.url], { env: { OPENAI_API_KEY: KEY } }),
        // A bad base URL: the connection error must not echo the key either.
        await runCli(['ingest', source, '--workspace', ws, '--name', 'unreachable', '--workers', '0', '-v', '--llm-base-url', 'http://127.0.0.1:9/v1', '--llm-timeout', '1000'], { env: { OPENAI_API_KEY: KEY } }),
      ];
      for (const run of runs) expect(run.code, run.stderr).toBe(0);
      expect(server.chatRequests.some((r) => r.apiKey === KEY)).toBe(true);
      const out = join(tmp, 'exports');
      for (const format of ['json', 'jsonl', 'markdown', 'contextfs']) {
        const target = join(out, format === 'json' || format === 'jsonl' ? `export.${format}` : format);
        const run = await runCli(['export', '--format', format, '--out', target, '--workspace', ws, '--json'], { env: { OPENAI_API_KEY: KEY } });
        expect(run.code, run.stderr).toBe(0);
        runs.push(run);
      }
      for (const run of runs) expect(run.stdout + run.stderr).not.toContain(KEY);
      let scanned = 0;
      for (const dir of [ws, out]) {
        for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
          if (!entry.isFile()) continue;
          scanned += 1;
          const path = join(entry.parentPath, entry.name);
          expect((await readFile(path)).includes(KEY), path).toBe(false);
        }
      }
      expect(scanned).toBeGreaterThan(10);
      figures.secrets = { runs: runs.length, files_scanned: scanned, key_found: 0 };
    } finally {
      await server.close();
    }
  }, 240_000);
});
