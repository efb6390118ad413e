/**
 * The outbox under real kills: a child process enqueues and processes messages and is killed with
 * SIGKILL at random moments; after each kill the outbox is reopened and checked. Every message
 * must be there exactly once, nothing the outbox acknowledged may be lost, and a completed
 * message's handler must never run again.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Outbox, type SemanticMsg } from '../../main/engine/queue/outbox.js';
import { bundleForTest, type TestBundle } from '../support/rpc-bundle.js';

const TOTAL = 200;
const KILLS = 8;
/** The child's runOutbox concurrency. */
const CONCURRENCY = 3;

let bundle: TestBundle;
let root: string;

beforeAll(async () => {
  bundle = await bundleForTest('test/support/outbox-crash-child.ts');
  root = await mkdtemp(join(tmpdir(), 'cairn-outbox-crash-'));
});

afterAll(async () => {
  await bundle?.dispose();
  if (root) await rm(root, { recursive: true, force: true });
});

interface ChildRun {
  killed: boolean;
  code: number | null;
  lines: string[];
  stderr: string;
}

/** Runs the child; with `killAfter`, kills it with SIGKILL after that many transition lines (0: right after it opened). */
function runChild(dir: string, effects: string, killAfter: number | null): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bundle.file, dir, effects, String(TOTAL), '16'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const run: ChildRun = { killed: false, code: null, lines: [], stderr: '' };
    let pending = '';
    let transitions = 0;
    const kill = () => {
      if (run.killed) return;
      run.killed = true;
      // A few milliseconds of random slack so the kill lands anywhere in the child's work.
      setTimeout(() => child.kill('SIGKILL'), Math.floor(Math.random() * 4));
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      pending += chunk;
      const parts = pending.split('\n');
      pending = parts.pop() ?? '';
      for (const line of parts) {
        run.lines.push(line);
        if (line === 'opened' && killAfter === 0) kill();
        else if (line !== 'opened' && line !== 'finished') {
          transitions += 1;
          if (killAfter !== null && transitions >= killAfter) kill();
        }
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => (run.stderr += chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      run.code = code;
      resolve(run);
    });
  });
}

async function effectCounts(effects: string): Promise<Map<string, number>> {
  const text = await readFile(effects, 'utf8').catch(() => '');
  const counts = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line) continue;
    const id = line.split(' ')[0]!;
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

describe('outbox under kill -9', () => {
  it('loses nothing, duplicates nothing and never re-runs completed work', { timeout: 180_000 }, async () => {
    const dir = join(root, 'queue');
    const effects = join(root, 'effects.log');
    const acknowledgedUris = new Set<string>();
    const acknowledgedCompleted = new Set<string>();
    const completedEffects = new Map<string, number>();
    let killedMidWork = 0;

    const inspect = async (): Promise<SemanticMsg[]> => {
      const outbox = await Outbox.open(dir);
      try {
        const messages = outbox.list();
        const uris = messages.map((m) => m.uri);
        expect(new Set(uris).size, 'one message per URI').toBe(uris.length);
        for (const uri of acknowledgedUris) expect(uris, `acknowledged enqueue of ${uri} survives`).toContain(uri);
        for (const id of acknowledgedCompleted) expect(outbox.get(id)?.status, `acknowledged completion of ${id} survives`).toBe('completed');
        expect(messages.filter((m) => m.status === 'processing'), 'nothing stays processing after a reopen').toEqual([]);

        const counts = await effectCounts(effects);
        const byId = new Map(messages.map((m) => [m.id, m]));
        for (const [id, count] of counts) {
          const message = byId.get(id);
          expect(message, `side effect for ${id} belongs to a message in the outbox`).toBeDefined();
          // Each handler run follows a durable claim, which counts an attempt.
          expect(count, `runs of ${id} never exceed its attempts`).toBeLessThanOrEqual(message!.attempts);
        }
        for (const [id, before] of completedEffects) expect(counts.get(id), `completed ${id} did not run again`).toBe(before);
        for (const message of messages) if (message.status === 'completed') completedEffects.set(message.id, counts.get(message.id) ?? 0);
        return messages;
      } finally {
        await outbox.close();
      }
    };

    for (let trial = 0; trial < KILLS; trial += 1) {
      const killAfter = trial % 4 === 0 ? 0 : 1 + Math.floor(Math.random() * 120);
      const run = await runChild(dir, effects, killAfter);
      expect(run.stderr).toBe('');
      for (const line of run.lines) {
        const [op, id, uri] = line.split(' ');
        if (op === 'enqueue' && uri) acknowledgedUris.add(uri);
        if (op === 'complete' && id) acknowledgedCompleted.add(id);
      }
      if (run.killed && !run.lines.includes('finished')) killedMidWork += 1;
      await inspect();
    }
    expect(killedMidWork, 'the kills interrupted work in progress').toBeGreaterThanOrEqual(KILLS - 1);

    const last = await runChild(dir, effects, null);
    expect(last.stderr).toBe('');
    expect(last.code).toBe(0);
    expect(last.lines).toContain('finished');

    const messages = await inspect();
    expect(messages).toHaveLength(TOTAL);
    expect(new Set(messages.map((m) => m.uri))).toEqual(new Set(Array.from({ length: TOTAL }, (_, i) => `ctx://resources/crash/${i}/`)));
    expect(messages.every((m) => m.status === 'completed')).toBe(true);
    const counts = await effectCounts(effects);
    let reruns = 0;
    for (const message of messages) {
      const count = counts.get(message.id) ?? 0;
      expect(count, `${message.uri} ran`).toBeGreaterThanOrEqual(1);
      reruns += count - 1;
    }
    // Only a kill between a handler's side effect and its durable completion causes a re-run:
    // at most one per message in flight (the child's concurrency) per kill.
    expect(reruns).toBeLessThanOrEqual(KILLS * CONCURRENCY);
    expect([...counts.keys()].every((id) => messages.some((m) => m.id === id))).toBe(true);
  });
});
