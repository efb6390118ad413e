/**
 * export:run and import:run on real workspaces: a source holding the sample folder (ingested and
 * summarized) and an imported, analyzed, committed conversation, with an edited and a forgotten
 * memory in its history. Each format goes out and back into a fresh workspace (nothing lost) and
 * into the same one (nothing changes, nothing duplicated); a ContextFS copy comes back equal file
 * by file; conflicts keep the newer side; bad files are refused naming the file and the reason.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { createEngine, type Engine } from '../../main/engine/engine.js';
import { inProcessParseRunner } from '../../main/engine/parse/runner.js';
import { lazySearchIndex } from '../../main/host/open-index.js';
import { CairnError } from '../../shared/errors.js';
import type { ExportFormat } from '../../shared/contracts/api.js';

const ROOT = join(import.meta.dirname, '../..');
const CLI = join(ROOT, 'dist-main/cli.js');
let dir: string;
let source: Engine;
const engines: Engine[] = [];

async function open(workspace: string): Promise<Engine> {
  const engine = await createEngine({ workspace, parser: inProcessParseRunner(), index: lazySearchIndex(workspace, { idleOptimizeMs: 0 }) });
  engines.push(engine);
  return engine;
}

/** Every file of the scope folders (and the memory history), path → content hash. */
async function snapshot(workspace: string, scopes = ['resources', 'user', 'agent', 'session'], withHistory = scopes.length > 1): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (path: string) => {
    for (const entry of await readdir(path, { withFileTypes: true }).catch(() => [])) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) await walk(full);
      else out[relative(workspace, full)] = createHash('sha256').update(await readFile(full)).digest('hex');
    }
  };
  for (const scope of scopes) await walk(join(workspace, scope));
  const history = join(workspace, '.cairn/memory-history.jsonl');
  if (withHistory && existsSync(history)) out['.cairn/memory-history.jsonl'] = createHash('sha256').update(await readFile(history)).digest('hex');
  return out;
}

async function state(engine: Engine) {
  const { memories } = await engine.call('memories:list', { limit: 100_000 });
  const { conversations } = await engine.call('sessions:list', {});
  const full = await Promise.all(conversations.map(async (c) => (await engine.call('sessions:get', { id: c.id })).conversation));
  const analyses = await Promise.all(conversations.map((c) => engine.call('sessions:analyze', { id: c.id })));
  return {
    memories: [...memories].sort((a, b) => a.id.localeCompare(b.id)),
    conversations: full,
    chains: analyses.map((a) => a.chains),
    clusters: analyses.map((a) => a.clusters),
    cached: analyses.map((a) => a.cached),
    history: (await engine.call('memories:history', {})).changes,
  };
}

/**
 * What an export holds, as lines of text per file ('' for a json or jsonl file), with the time of
 * the export (the one thing two exports of the same data may differ in) blanked out.
 */
async function exported(path: string): Promise<Record<string, string[]>> {
  const blank = (text: string) =>
    text
      .replace(/"exported_at": ?"[^"]*"/g, '"exported_at":"…"')
      .replace(/^Exported \S+/m, 'Exported …')
      .split('\n');
  const out: Record<string, string[]> = {};
  const walk = async (file: string, name: string) => {
    const entries = await readdir(file, { withFileTypes: true }).catch(() => null);
    if (entries === null) return void (out[name] = blank(await readFile(file, 'utf8')));
    for (const entry of entries) await walk(join(file, entry.name), name ? `${name}/${entry.name}` : entry.name);
  };
  await walk(path, '');
  return out;
}

function nothingNew(result: { added: Record<string, number>; updated: Record<string, number> }) {
  expect(Object.values(result.added).every((n) => n === 0), JSON.stringify(result.added)).toBe(true);
  expect(Object.values(result.updated).every((n) => n === 0), JSON.stringify(result.updated)).toBe(true);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cairn-portability-'));
  source = await open(join(dir, 'source'));
  await source.call('ingest:start', { path: join(ROOT, 'assets/sample') });
  await source.call('sessions:import', { path: join(ROOT, 'test/fixtures/chains/en-memory-leak.json'), commit: true });
  const { memories } = await source.call('memories:list', {});
  // History with an edit and a forget, so it is more than adds.
  await source.call('memories:edit', { id: memories[0]!.id, patch: { keywords: ['edited', 'keyword'] } });
  await source.call('memories:forget', { id: memories[1]!.id, reason: 'not needed' });
  await source.call('summarize:run', {});
}, 180_000);

afterAll(async () => {
  for (const engine of engines) await engine.dispose().catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
});

describe('export and import', () => {
  const outOf = (format: ExportFormat) => join(dir, 'exports', format === 'json' ? 'cairn.json' : format === 'jsonl' ? 'cairn.jsonl' : `cairn-${format}`);

  for (const format of ['json', 'jsonl', 'markdown', 'contextfs'] as const) {
    it(`${format}: round trip into a fresh workspace loses nothing, and a second import changes nothing`, async () => {
      const before = await state(source);
      expect(before.memories.length).toBeGreaterThan(3);
      expect(before.chains[0]!.length).toBeGreaterThan(0);
      const exported = await source.call('export:run', { format, out: outOf(format) });
      expect(exported).toMatchObject({ format, memories: before.memories.length, conversations: 1, chains: before.chains[0]!.length, clusters: before.clusters[0]!.length });

      const workspace = join(dir, `fresh-${format}`);
      const fresh = await open(workspace);
      const first = await fresh.call('import:run', { path: outOf(format) });
      expect(first.format).toBe(format);
      expect(first.added.memories).toBe(before.memories.length);
      expect(first.kept).toEqual([]);

      const after = await state(fresh);
      expect(after.memories).toEqual(before.memories);
      expect(after.conversations).toEqual(before.conversations);
      expect(after.chains).toEqual(before.chains);
      expect(after.clusters).toEqual(before.clusters);
      // The analysis came with its cache key: sessions:analyze answers from it.
      expect(after.cached).toEqual([true]);
      if (format === 'contextfs') {
        // A ContextFS copy carries no history; each memory page gets an "imported" line.
        expect(after.history.filter((c) => c.reason.startsWith('imported from')).map((c) => c.memory_id).sort()).toEqual(before.memories.map((m) => m.id).sort());
        const copied = await snapshot(workspace);
        delete copied['.cairn/memory-history.jsonl'];
        const original = await snapshot(join(dir, 'source'));
        delete original['.cairn/memory-history.jsonl'];
        expect(copied).toEqual(original);
      } else {
        // The whole history came along, and only it: the import records nothing it brought.
        expect(after.history).toEqual(before.history);
      }
      if (format === 'json' || format === 'jsonl') {
        expect(await snapshot(workspace, ['resources'])).toEqual(await snapshot(join(dir, 'source'), ['resources']));
        expect(first.added.nodes).toBeGreaterThan(10);
      }

      const settled = await snapshot(workspace);
      const second = await fresh.call('import:run', { path: outOf(format) });
      nothingNew(second);
      expect(second.unchanged.memories).toBe(before.memories.length);
      expect(await snapshot(workspace)).toEqual(settled);
      expect((await state(fresh)).memories).toEqual(before.memories);
      expect((await fresh.call('sessions:list', {})).conversations).toHaveLength(1);
    }, 120_000);
  }

  for (const format of ['json', 'jsonl', 'markdown', 'contextfs'] as const) {
    it(`${format}: export, import into a fresh workspace, export again: the same records, byte for byte apart from the export's time`, async () => {
      const first = join(dir, 'round-trip', `first-${format}`);
      const second = join(dir, 'round-trip', `second-${format}`);
      await source.call('export:run', { format, out: first });
      const copy = await open(join(dir, `round-trip-${format}`));
      await copy.call('import:run', { path: first });
      await copy.call('export:run', { format, out: second });
      const records = await exported(first);
      expect(Object.keys(records).length).toBeGreaterThan(0);
      expect(await exported(second)).toEqual(records);
      if (format === 'jsonl') {
        const lines = records['']!;
        expect(lines.filter((line) => line.includes('"type":"memory_change"')).length).toBe((await source.call('memories:history', {})).changes.length);
        expect(lines.some((line) => line.includes('"type":"node"'))).toBe(true);
        expect(lines.some((line) => line.includes('"type":"chain"'))).toBe(true);
      }

      // Importing it once more changes nothing, and the export stays the same.
      nothingNew(await copy.call('import:run', { path: first }));
      const third = join(dir, 'round-trip', `third-${format}`);
      await copy.call('export:run', { format, out: third });
      expect(await exported(third)).toEqual(records);
    }, 120_000);
  }

  it('importing every export into the workspace it came from changes nothing', async () => {
    const before = await snapshot(join(dir, 'source'));
    for (const format of ['json', 'jsonl', 'markdown', 'contextfs'] as const) {
      if (!existsSync(outOf(format))) await source.call('export:run', { format, out: outOf(format) });
      const result = await source.call('import:run', { path: outOf(format) });
      nothingNew(result);
      expect(result.kept).toEqual([]);
    }
    expect(await snapshot(join(dir, 'source'))).toEqual(before);
  }, 120_000);

  it('exports one scope only, and never .cairn/ or temp/', async () => {
    const out = join(dir, 'exports', 'user-only');
    const result = await source.call('export:run', { format: 'contextfs', out, scope: 'user' });
    expect(result.conversations).toBe(0);
    expect((await readdir(out)).sort()).toEqual(['cairn-export.json', 'user']);
    const all = join(dir, 'exports', 'all');
    await source.call('export:run', { format: 'contextfs', out: all });
    expect((await readdir(all)).sort()).toEqual(['cairn-export.json', 'resources', 'session', 'user']);
    const doc = JSON.parse(await readFile(outOf('json'), 'utf8')) as { memories: unknown[]; sessions: unknown[]; nodes: Array<{ uri: string }> };
    expect(doc.nodes.some((n) => n.uri.startsWith('ctx://temp/') || n.uri.includes('.cairn'))).toBe(false);
    // Nodes go out in the order ls lists them (natural: README.md between notes/ and src/).
    const top = doc.nodes.map((n) => n.uri).filter((uri) => /^ctx:\/\/resources\/sample\/[^/]+\/?$/.test(uri));
    expect(top).toEqual(['.gitignore', 'docs/', 'notes/', 'README.md', 'src/'].map((name) => `ctx://resources/sample/${name}`));
    const jsonUser = JSON.parse(await readFile((await source.call('export:run', { format: 'json', out: join(dir, 'exports', 'user.json'), scope: 'session' })).out, 'utf8')) as typeof doc;
    expect(jsonUser.memories).toEqual([]);
    expect(jsonUser.sessions).toHaveLength(1);
    expect(jsonUser.nodes).toEqual([]);
  });

  it('keeps the newer side of a conflict, and a memory forgotten here stays forgotten', async () => {
    const workspace = join(dir, 'conflicts');
    const target = await open(workspace);
    await target.call('import:run', { path: outOf('jsonl') });
    const { memories } = await target.call('memories:list', {});
    const [edited, forgotten] = [memories[0]!, memories[1]!];
    await target.call('memories:edit', { id: edited.id, patch: { content: 'Changed here after the export.' } });
    await target.call('memories:forget', { id: forgotten.id });

    const result = await target.call('import:run', { path: outOf('json') });
    nothingNew(result);
    expect(result.kept.map((k) => k.id).sort()).toEqual([edited.id, forgotten.id].sort());
    expect(result.kept.find((k) => k.id === edited.id)?.reason).toMatch(/newer/);
    expect(result.kept.find((k) => k.id === forgotten.id)?.reason).toMatch(/forgotten by user/);
    // And as a structure the Export view says in its own language.
    expect(result.kept.find((k) => k.id === edited.id)?.cause).toMatchObject({ code: 'newer_here' });
    expect(result.kept.find((k) => k.id === forgotten.id)?.cause).toMatchObject({ code: 'forgotten_here' });
    expect((await target.call('memories:get', { id: edited.id })).memory.content).toBe('Changed here after the export.');
    await expect(target.call('memories:get', { id: forgotten.id })).rejects.toThrow(/No memory/);
  }, 60_000);

  it('refuses exports into the workspace or over a folder that is not an export', async () => {
    await expect(source.call('export:run', { format: 'json', out: join(dir, 'source', 'out.json') })).rejects.toThrow(/inside the workspace/);
    const busy = join(dir, 'busy');
    await mkdir(busy, { recursive: true });
    await writeFile(join(busy, 'notes.txt'), 'mine');
    await expect(source.call('export:run', { format: 'markdown', out: busy })).rejects.toThrow(/not empty and holds no earlier Cairn export/);
    expect(await readFile(join(busy, 'notes.txt'), 'utf8')).toBe('mine');
  });

  it('stops an export at a damaged workspace file, naming it', async () => {
    const workspace = join(dir, 'damaged');
    const damaged = await open(workspace);
    await mkdir(join(workspace, 'resources', 'notes'), { recursive: true });
    await writeFile(join(workspace, 'resources', 'notes', '.meta.json'), '{"uri": "ctx://resources/notes/", ');
    const error = await damaged.call('export:run', { format: 'json', out: join(dir, 'exports', 'damaged.json') }).catch((e: unknown) => e);
    expect(CairnError.is(error, 'PARSE_FAILED')).toBe(true);
    expect((error as CairnError).message).toContain(join(workspace, 'resources', 'notes', '.meta.json'));
  });

  it('refuses a bad import file, naming the file and the reason', async () => {
    const bad = join(dir, 'bad');
    await mkdir(bad, { recursive: true });
    const cases: Array<[string, string, RegExp, string]> = [
      ['broken.json', '{"format": "cairn-export", "version": 1,', /invalid JSON/, 'PARSE_FAILED'],
      ['conversation.json', await readFile(join(ROOT, 'test/fixtures/chains/en-memory-leak.json'), 'utf8'), /JSON that is not a Cairn export .*cairn sessions import/, 'INVALID_INPUT'],
      ['future.json', JSON.stringify({ format: 'cairn-export', version: 99, exported_at: 'x' }), /export version 99 is not supported/, 'UNSUPPORTED_FORMAT'],
      ['no-title.jsonl', (await readFile(outOf('jsonl'), 'utf8')).replace(/"title":"[^"]*"/, '"title":42'), /line \d+: memory(_change)? record: .*title: /, 'INVALID_INPUT'],
      ['headless.jsonl', (await readFile(outOf('jsonl'), 'utf8')).split('\n').slice(1).join('\n'), /line 1: expected the export header/, 'INVALID_INPUT'],
      ['notes.txt', 'just some notes', /not a Cairn export/, 'INVALID_INPUT'],
    ];
    const target = await open(join(dir, 'bad-target'));
    for (const [name, text, reason, code] of cases) {
      const file = join(bad, name);
      await writeFile(file, text);
      const error = await target.call('import:run', { path: file }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(CairnError.is(error), name).toBe(true);
      expect((error as CairnError).code, name).toBe(code);
      expect((error as CairnError).message, name).toContain(file);
      expect((error as CairnError).message, name).toMatch(reason);
    }
    await expect(target.call('import:run', { path: join(bad, 'missing.json') })).rejects.toThrow(/missing\.json: cannot read it/);
    // Nothing was half imported.
    expect((await target.call('memories:list', {})).memories).toEqual([]);
  });

  it('cairn export and cairn import from the command line', async () => {
    if (!existsSync(CLI)) execFileSync(process.execPath, [join(ROOT, 'scripts/build-main.mjs')], { cwd: ROOT });
    const run = (...args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
    const out = join(dir, 'cli.jsonl');
    const exported = run('export', '--format', 'jsonl', '--out', out, '--workspace', join(dir, 'source'), '--json');
    expect(exported.status, exported.stderr).toBe(0);
    expect(JSON.parse(exported.stdout)).toMatchObject({ format: 'jsonl', out, conversations: 1 });
    const imported = run('import', out, '--workspace', join(dir, 'cli-target'), '--json');
    expect(imported.status, imported.stderr).toBe(0);
    const result = JSON.parse(imported.stdout) as { format: string; added: { memories: number; conversations: number } };
    expect(result.format).toBe('jsonl');
    expect(result.added.conversations).toBe(1);
    expect(result.added.memories).toBeGreaterThan(3);
    // The memory folders were summarized by the command.
    expect(existsSync(join(dir, 'cli-target', 'user/memories/.abstract.md'))).toBe(true);
    const text = run('import', out, '--workspace', join(dir, 'cli-target'));
    expect(text.stdout).toMatch(/^Imported jsonl from .*\nadded {6}0 memories, 0 history lines, 0 conversations, 0 analyses, 0 nodes\n/);
    const bad = run('import', join(dir, 'bad', 'broken.json'), '--workspace', join(dir, 'cli-target'), '--json');
    expect(bad.status).toBe(1);
    expect(JSON.parse(bad.stdout).error).toMatchObject({ code: 'PARSE_FAILED' });
    expect(JSON.parse(bad.stdout).error.message).toContain('broken.json: invalid JSON');
    const badFormat = run('export', '--format', 'yaml', '--out', join(dir, 'x'), '--workspace', join(dir, 'source'));
    expect(badFormat.status).toBe(2);
    expect(badFormat.stderr).toContain('--format must be one of contextfs, json, jsonl, markdown');
  }, 60_000);
});
