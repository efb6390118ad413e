/**
 * kill -9 in the middle of a real ingest (the built CLI in a child process), several times, then
 * a run to the end: the tree must equal the one a clean ingest builds, with nothing lost,
 * nothing duplicated and nothing left in staging; the search index must hold exactly the
 * records the tree gives (records buffered by a killed process are replayed from the journal).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtemp, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine } from '../../main/engine/engine.js';
import { inProcessParseRunner } from '../../main/engine/parse/runner.js';
import { rebuildIndex } from '../../main/engine/index/rebuild.js';
import { ContextFS } from '../../main/engine/tree/context-fs.js';
import { openLanceStore } from '../../main/adapters/store/lancedb.js';

const ROOT = join(import.meta.dirname, '../..');
const CLI = join(ROOT, 'dist-main/cli.js');
let tmp: string;
let source: string;

function prng(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
}

async function generateTree(dir: string, files: number, random: () => number): Promise<void> {
  const words = 'harbour station wind pressure tide gauge packet window forecast battery solar mast pier gust storm'.split(' ');
  for (let i = 0; i < files; i++) {
    const sub = join(dir, `area-${i % 7}`, `group-${i % 13}`);
    await mkdir(sub, { recursive: true });
    const sections = 1 + Math.floor(random() * 6);
    let text = `# Note ${i}\n\n`;
    for (let s = 0; s < sections; s++) {
      text += `## Part ${s}\n\n`;
      const sentences = 5 + Math.floor(random() * 60);
      for (let k = 0; k < sentences; k++) text += `${words[Math.floor(random() * words.length)]} ${words[Math.floor(random() * words.length)]} reading ${i}.${s}.${k} was checked. `;
      text += '\n\n';
    }
    await writeFile(join(sub, `note-${i}.md`), text);
  }
}

/** Every file under the scope folders with its content; meta timestamps blanked out. */
async function snapshot(workspace: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (rel: string) => {
    for (const entry of await readdir(join(workspace, rel), { withFileTypes: true })) {
      const path = `${rel}/${entry.name}`;
      if (entry.isDirectory()) await walk(path);
      else {
        let text = await readFile(join(workspace, path), 'utf8');
        if (path.endsWith('.meta.json')) text = text.replace(/"(created_at|updated_at)": "[^"]*"/g, '"$1": ""');
        out.set(path, text);
      }
    }
  };
  await walk('resources');
  return out;
}

function runCli(args: string[], killAfterMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  if (!existsSync(CLI) || process.env.CAIRN_REBUILD !== '0') execFileSync(process.execPath, [join(ROOT, 'scripts/build-main.mjs')], { cwd: ROOT });
  tmp = await mkdtemp(join(tmpdir(), 'cairn-kill-'));
  source = join(tmp, 'field-notes');
  await generateTree(source, 1200, prng(42));
}, 120_000);
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('ingest survives kill -9', () => {
  it('resumes after repeated kills and ends with exactly the tree a clean run builds', async () => {
    const reference = join(tmp, 'ws-reference');
    const engine = await createEngine({ workspace: reference, parser: inProcessParseRunner() });
    await engine.call('ingest:start', { path: source });
    await engine.call('summarize:run', {});
    await engine.dispose();
    const expected = await snapshot(reference);
    expect(expected.size).toBeGreaterThan(2400);

    const workspace = join(tmp, 'ws-killed');
    const random = prng(7);
    let killed = 0;
    for (let trial = 0; trial < 5; trial++) {
      const delay = 250 + Math.floor(random() * 2500);
      const run = await runCli(['ingest', source, '--workspace', workspace, '--workers', '2', '--json'], delay);
      if (run.signal === 'SIGKILL') killed += 1;
      else expect(run.code, run.stderr).toBe(0);
    }
    expect(killed).toBeGreaterThan(0);

    const final = await runCli(['ingest', source, '--workspace', workspace, '--workers', '2', '--json']);
    expect(final.code, final.stderr).toBe(0);
    const result = JSON.parse(final.stdout);
    expect(result.root).toBe('ctx://resources/field-notes/');

    const actual = await snapshot(workspace);
    expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [path, text] of expected) expect(actual.get(path), path).toBe(text);
    expect(existsSync(join(workspace, 'temp')) ? await readdir(join(workspace, 'temp')) : []).toEqual([]);
    expect((await readdir(join(workspace, '.cairn/jobs'))).filter((n) => n.endsWith('.json'))).toEqual([]);
    // The queue holds the root once, finished: no message was lost or duplicated by the kills.
    const { Outbox } = await import('../../main/engine/queue/outbox.js');
    const queue = await Outbox.open(join(workspace, '.cairn/queue'));
    const messages = queue.list();
    await queue.close();
    expect(messages.map((m) => [m.uri, m.status])).toEqual([['ctx://resources/field-notes/', 'completed']]);

    // The index agrees with ContextFS: every record the tree gives, once, and nothing else.
    const wanted = new Set<string>();
    await rebuildIndex(await ContextFS.open(workspace), { upsert: async (records) => records.forEach((r) => wanted.add(r.id)), removeUnder: async () => {} });
    const store = await openLanceStore({ uri: join(workspace, '.cairn/index'), dimensions: 512, idleOptimizeMs: 0 });
    const ids = (await store.find({ limit: 1_000_000 })).map((r) => r.id);
    await store.close();
    expect(ids.length).toBe(new Set(ids).size);
    expect(new Set(ids)).toEqual(wanted);
    expect(existsSync(join(workspace, '.cairn/index-journal')) ? await readdir(join(workspace, '.cairn/index-journal')) : []).toEqual([]);
  }, 420_000);
});
