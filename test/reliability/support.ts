/**
 * Machinery shared by the reliability suite: a seeded generator, a generated note tree, the
 * built CLI in a child process (optionally killed with SIGKILL after a delay), a snapshot of a
 * workspace's ContextFS, the index-versus-tree check, and where each test writes its figures.
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, rmSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { rebuildIndex } from '../../main/engine/index/rebuild.js';
import { ContextFS } from '../../main/engine/tree/context-fs.js';
import { openLanceStore } from '../../main/adapters/store/lancedb/index.js';

export const ROOT = join(import.meta.dirname, '../..');
/**
 * A private copy of the built CLI: other sessions rebuild dist-main while this suite runs, and a
 * rebuild swaps the hashed chunks under a running CLI (ERR_MODULE_NOT_FOUND). test-output/ is
 * inside the repo, so node_modules still resolves from the copy.
 */
export const CLI = join(ROOT, 'test-output/reliability-cli/cli.js');

/** A number from the environment, else the default (the full size). */
export function envInt(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isInteger(value) && value > 0 ? value : fallback;
}

/** Builds dist-main and copies it aside (skipped when CAIRN_REBUILD=0 and the copy exists). */
export function buildCli(): void {
  if (existsSync(CLI) && process.env.CAIRN_REBUILD === '0') return;
  execFileSync(process.execPath, [join(ROOT, 'scripts/build-main.mjs')], { cwd: ROOT });
  const copy = join(ROOT, 'test-output/reliability-cli');
  rmSync(copy, { recursive: true, force: true });
  cpSync(join(ROOT, 'dist-main'), copy, { recursive: true });
  execFileSync(process.execPath, [CLI, '--version']);
}

/**
 * `files` Markdown notes in 7 × 13 folders, of seeded lengths (some split into sections): up to
 * `sections` + 1 sections of 5 to 5 + `sentences` sentences each.
 */
export async function generateTree(dir: string, files: number, random: () => number, size: { sections?: number; sentences?: number } = {}): Promise<void> {
  const words = 'harbour station wind pressure tide gauge packet window forecast battery solar mast pier gust storm'.split(' ');
  for (let i = 0; i < files; i++) {
    const sub = join(dir, `area-${i % 7}`, `group-${i % 13}`);
    await mkdir(sub, { recursive: true });
    const sections = 1 + Math.floor(random() * (size.sections ?? 5));
    let text = `# Note ${i}\n\n`;
    for (let s = 0; s < sections; s++) {
      text += `## Part ${s}\n\n`;
      const sentences = 5 + Math.floor(random() * (size.sentences ?? 50));
      for (let k = 0; k < sentences; k++) text += `${words[Math.floor(random() * words.length)]} ${words[Math.floor(random() * words.length)]} reading ${i}.${s}.${k} was checked. `;
      text += '\n\n';
    }
    await writeFile(join(sub, `note-${i}.md`), text);
  }
}

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs the built CLI; with `killAfterMs`, sends SIGKILL after that long (if it still runs). */
export function runCli(args: string[], options: { killAfterMs?: number; env?: Record<string, string>; onStart?: (kill: () => void, exited: () => boolean) => void } = {}): Promise<CliRun> {
  const started = performance.now();
  // No LLM settings leak in from the developer's shell.
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(OPENAI_|CAIRN_LLM_|CAIRN_WORKSPACE)/.test(k)));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...base, ...options.env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    const timer = options.killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), options.killAfterMs);
    let exited = false;
    child.on('exit', () => (exited = true));
    options.onStart?.(() => child.kill('SIGKILL'), () => exited);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Math.round(performance.now() - started) });
    });
  });
}

const TIMESTAMPS = new Set(['created_at', 'updated_at', 'content_updated_at', 'at']);

/**
 * A meta file as data: keys sorted and timestamps blanked. Which writer touched a meta last (the
 * summarizer, the ingest's record of the run) decides its key order, and the clock its times;
 * neither is content.
 */
function canonicalMeta(text: string): string {
  const canonical = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(canonical);
    if (value === null || typeof value !== 'object') return value;
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(entries.map(([key, inner]) => [key, TIMESTAMPS.has(key) && typeof inner === 'string' ? '' : canonical(inner)]));
  };
  try {
    return JSON.stringify(canonical(JSON.parse(text)), null, 2);
  } catch {
    return text; // A broken meta stays as it is, so the comparison shows it.
  }
}

/** Every file under the scope folders with its content; metas compared as data (canonicalMeta). */
export async function snapshot(workspace: string, scope = 'resources'): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (rel: string) => {
    for (const entry of await readdir(join(workspace, rel), { withFileTypes: true })) {
      const path = `${rel}/${entry.name}`;
      if (entry.isDirectory()) await walk(path);
      else {
        const text = await readFile(join(workspace, path), 'utf8');
        out.set(path, path.endsWith('.meta.json') ? canonicalMeta(text) : text);
      }
    }
  };
  if (existsSync(join(workspace, scope))) await walk(scope);
  return out;
}

/** The ids the tree gives (rebuildIndex) and the ids the LanceDB index holds, duplicates included. */
export async function indexVersusTree(workspace: string): Promise<{ wanted: Set<string>; ids: string[] }> {
  const wanted = new Set<string>();
  await rebuildIndex(await ContextFS.open(workspace), { upsert: async (records) => records.forEach((r) => wanted.add(r.id)), removeUnder: async () => {} });
  const store = await openLanceStore({ uri: join(workspace, '.cairn/index'), dimensions: 512, idleOptimizeMs: 0 });
  const ids = (await store.find({ limit: 1_000_000 })).map((r) => r.id);
  await store.close();
  return { wanted, ids };
}

/** Every file below `dir`, as paths (to search a workspace for a secret, say). */
export async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) if (entry.isFile()) out.push(join(entry.parentPath, entry.name));
  return out;
}

/** Entries of a folder, or [] when it does not exist. */
export async function entries(dir: string): Promise<string[]> {
  return existsSync(dir) ? readdir(dir) : [];
}

/** Where figures go: one JSON per test file, read when RELIABILITY.md is updated. */
export async function writeFigures(name: string, figures: Record<string, unknown>): Promise<void> {
  const dir = process.env.CAIRN_RELIABILITY_OUT ?? join(tmpdir(), 'cairn-reliability');
  await mkdir(dir, { recursive: true });
  const record = { ...figures, machine: `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}`, date: new Date().toISOString() };
  await writeFile(join(dir, `${name}.json`), `${JSON.stringify(record, null, 2)}\n`);
  console.log(`[reliability] ${name}: ${JSON.stringify(record)}`);
}
