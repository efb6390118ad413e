import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cp, mkdtemp, readFile, rm, writeFile, readdir, unlink, mkdir, stat, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine, type Engine } from '../../main/engine/engine.js';
import { inProcessParseRunner } from '../../main/engine/parse/runner.js';
import type { EngineEvent } from '../../shared/contracts/api.js';
import { CairnError } from '../../shared/errors.js';

const SAMPLE = join(import.meta.dirname, '../../assets/sample');

let tmp: string;
let workspace: string;
let engine: Engine;

beforeEach(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'cairn-ingest-'));
  workspace = join(tmp, 'ws');
  engine = await createEngine({ workspace, parser: inProcessParseRunner() });
});
afterEach(async () => {
  await engine.dispose();
  await rm(tmp, { recursive: true, force: true });
});

/** Every node file under a scope, relative, sorted: what a person would see in the folder. */
async function listTree(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (rel: string) => {
    for (const entry of await readdir(join(dir, rel), { withFileTypes: true })) {
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) await walk(path);
      else out.push(path);
    }
  };
  await walk('');
  return out.sort();
}

describe('ingest', () => {
  it('turns the sample folder into a browsable tree and explains every skip', async () => {
    const events: EngineEvent[] = [];
    const result = await engine.call('ingest:start', { path: SAMPLE }, { onEvent: (e) => events.push(e) });

    expect(result.root).toBe('ctx://resources/sample/');
    expect(result.skipped).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: 'build.log', reason: 'gitignored' }),
        expect.objectContaining({ path: 'logo.png', reason: 'binary' }),
      ]),
    );
    expect(result.files).toBe(9);
    expect(result.changed).toBeGreaterThanOrEqual(8);

    const top = await engine.call('fs:ls', { uri: 'ctx://resources/sample/' });
    expect(top.entries.map((e) => e.name)).toEqual(['.gitignore', 'docs', 'notes', 'README.md', 'src']);

    // The long architecture document became a directory of sections; they concatenate back to it.
    const arch = await engine.call('fs:stat', { uri: 'ctx://resources/sample/docs/architecture.md' });
    expect(arch.kind).toBe('dir');
    expect(arch.meta?.document).toBe(true);
    const sections = await engine.call('fs:tree', { uri: 'ctx://resources/sample/docs/architecture.md/' });
    const leaves: string[] = [];
    const collect = (node: { uri: string; kind: string; children?: unknown[] }) => {
      if (node.kind === 'file') leaves.push(node.uri);
      for (const child of (node.children ?? []) as (typeof node)[]) collect(child);
    };
    collect(sections.root);
    let joined = '';
    for (const uri of leaves) joined += (await engine.call('fs:read', { uri, level: 2 })).content;
    expect(joined).toBe(await readFile(join(SAMPLE, 'docs/architecture.md'), 'utf8'));
    // The folder's own L2 is the whole document, with or without the trailing slash.
    expect((await engine.call('fs:read', { uri: 'ctx://resources/sample/docs/architecture.md/', level: 2 })).content).toBe(joined);
    expect((await engine.call('fs:read', { uri: 'ctx://resources/sample/docs/architecture.md', level: 2 })).content).toBe(joined);

    // Chinese names and content survive.
    const zh = await engine.call('fs:read', { uri: 'ctx://resources/sample/docs/zh/快速入门.md', level: 2 });
    expect(zh.content).toContain('快速入门');

    // The root records the skips for the UI; progress went through every phase.
    const root = await engine.call('fs:stat', { uri: 'ctx://resources/sample/' });
    expect(root.meta?.skipped?.map((s) => s.path).sort()).toEqual(['build.log', 'logo.png']);
    const phases = new Set(events.filter((e) => e.type === 'ingest/progressed').map((e) => (e as { phase: string }).phase));
    expect([...phases].sort()).toEqual(['build', 'parse', 'scan']);
    expect(events.at(-1)?.type).toBe('ingest/finished');
  });

  it('re-ingests by content hash: nothing changes twice, edits and deletions are followed', async () => {
    const source = join(tmp, 'notes');
    await cp(SAMPLE, source, { recursive: true });
    const first = await engine.call('ingest:start', { path: source });
    const before = await listTree(join(workspace, 'resources'));

    const again = await engine.call('ingest:start', { path: source });
    expect(again.root).toBe(first.root);
    expect(again.changed).toBe(0);
    expect(again.removed).toBe(0);
    expect(await listTree(join(workspace, 'resources'))).toEqual(before);

    await writeFile(join(source, 'notes/2024-05-08-storm-review.md'), '# Storm review\n\nRewritten.\n');
    await unlink(join(source, 'docs/operations.md'));
    await mkdir(join(source, 'docs/new'));
    await writeFile(join(source, 'docs/new/idea.md'), '# Idea\n\nA new note.\n');
    const third = await engine.call('ingest:start', { path: source });
    expect(third.removed).toBe(1);
    expect(third.changed).toBeGreaterThanOrEqual(2);
    expect((await engine.call('fs:read', { uri: `${first.root}notes/2024-05-08-storm-review.md`, level: 2 })).content).toContain('Rewritten.');
    expect(await engine.fs.kindOf(`${first.root}docs/operations.md`)).toBeNull();
    expect(await engine.fs.kindOf(`${first.root}docs/new/idea.md`)).toBe('file');
    // No staging left behind, no duplicated root.
    expect(await engine.fs.kindOf('ctx://temp/')).not.toBe('file');
    expect((await engine.call('fs:ls', { uri: 'ctx://resources/' })).entries.map((e) => e.name)).toEqual(['notes']);
  });

  it('trusts size and mtime for unchanged files, and still sees a same-size edit or a touch', async () => {
    const source = join(tmp, 'notes');
    await mkdir(source);
    await writeFile(join(source, 'a.md'), '# A\n\nalpha alpha\n');
    const first = await engine.call('ingest:start', { path: source });
    const uri = `${first.root}a.md`;
    const meta = (await engine.fs.readMeta(uri))!;
    expect(meta.source_mtime_ms).toBe((await stat(join(source, 'a.md'))).mtimeMs);

    // Same size, new bytes, a later mtime: re-read and re-parsed.
    await writeFile(join(source, 'a.md'), '# A\n\nomega omega\n');
    await utimes(join(source, 'a.md'), new Date(), new Date(Date.now() + 5_000));
    const edited = await engine.call('ingest:start', { path: source });
    expect(edited.changed).toBeGreaterThan(0);
    expect((await engine.call('fs:read', { uri, level: 2 })).content).toContain('omega');

    // Touched only: read once, found unchanged, and its new mtime remembered.
    const later = new Date(Date.now() + 60_000);
    await utimes(join(source, 'a.md'), later, later);
    const touched = await engine.call('ingest:start', { path: source });
    expect(touched.changed).toBe(0);
    expect((await engine.fs.readMeta(uri))!.source_mtime_ms).toBe((await stat(join(source, 'a.md'))).mtimeMs);
  });

  it('names sections from their headings or first words, the same on every re-ingest and in a fresh workspace', async () => {
    const source = join(tmp, 'manuals');
    await mkdir(source);
    const body = (topic: string) => `The ${topic} is checked every spring before the storm season begins. `.repeat(45);
    const headings = ['Configuration', '快速入门', 'FAQ', 'Troubleshooting', 'FAQ'];
    const manual = `# Station manual\n\n${body('station')}\n\n${headings.map((title, i) => `## ${title}\n\n${body(`part ${i}`)}\n\n`).join('')}`;
    const log = ['Battery swap', 'Uplink window', 'Tide gauge drift'].map((lead) => `${lead} notes. ${body(lead.toLowerCase())}`).join('\n\n') + '\n';
    await writeFile(join(source, 'manual.md'), manual);
    await writeFile(join(source, 'field-notes.txt'), log);
    await writeFile(join(source, 'other.md'), '# Other\n\nShort.\n');
    const first = await engine.call('ingest:start', { path: source });
    const names = async (uri: string) => (await engine.call('fs:ls', { uri })).entries.map((e) => e.name);
    const manualNames = await names(`${first.root}manual.md/`);
    expect(manualNames).toEqual(['01-station-manual.md', '02-configuration.md', '03-快速入门.md', '04-faq.md', '05-troubleshooting.md', '06-faq.md']);
    const logNames = await names(`${first.root}field-notes.txt/`);
    expect(logNames).toEqual(['01-battery-swap-notes-the-battery.txt', '02-uplink-window-notes-the-uplink.txt', '03-tide-gauge-drift-notes-the-tide.txt']);
    expect((await engine.call('fs:read', { uri: `${first.root}manual.md/`, level: 2 })).content).toBe(manual);
    expect((await engine.call('fs:read', { uri: `${first.root}field-notes.txt/`, level: 2 })).content).toBe(log);
    const before = await listTree(join(workspace, 'resources'));

    // Touched, and a neighbour edited: nothing is renamed.
    const later = new Date(Date.now() + 60_000);
    await utimes(join(source, 'manual.md'), later, later);
    await writeFile(join(source, 'other.md'), '# Other\n\nLonger now.\n');
    await engine.call('ingest:start', { path: source });
    expect(await listTree(join(workspace, 'resources'))).toEqual(before);

    // Parsed again from scratch, elsewhere: the same names.
    const fresh = await createEngine({ workspace: join(tmp, 'ws2'), parser: inProcessParseRunner() });
    try {
      await fresh.call('ingest:start', { path: source });
      expect(await listTree(join(tmp, 'ws2', 'resources'))).toEqual(before);
    } finally {
      await fresh.dispose();
    }
  });

  it('gives a different folder with the same name its own root', async () => {
    const a = join(tmp, 'a', 'docs');
    const b = join(tmp, 'b', 'docs');
    await mkdir(a, { recursive: true });
    await mkdir(b, { recursive: true });
    await writeFile(join(a, 'x.md'), '# A\n');
    await writeFile(join(b, 'y.md'), '# B\n');
    expect((await engine.call('ingest:start', { path: a })).root).toBe('ctx://resources/docs/');
    expect((await engine.call('ingest:start', { path: b })).root).toBe('ctx://resources/docs-2/');
    expect((await engine.call('ingest:start', { path: a })).root).toBe('ctx://resources/docs/');
  });

  it('updates the root a source fed in place: after a rename, and after the person chose to update it from another copy', async () => {
    const original = join(tmp, 'home', 'git');
    const upload = join(tmp, 'uploads', 'git');
    await mkdir(original, { recursive: true });
    await writeFile(join(original, 'a.md'), '# A\n\nThe first note.\n');
    expect((await engine.call('ingest:start', { path: original })).root).toBe('ctx://resources/git/');
    // The same folder again, by another path (an upload of it): the name clashes with another source.
    await cp(original, upload, { recursive: true });
    await writeFile(join(upload, 'b.md'), '# B\n\nA second note.\n');
    const updated = await engine.call('ingest:start', { path: upload, options: { onClash: 'update' } });
    expect(updated.root).toBe('ctx://resources/git/');
    expect((await engine.call('fs:ls', { uri: 'ctx://resources/' })).entries.map((e) => e.name)).toEqual(['git']);
    expect((await engine.call('fs:ls', { uri: 'ctx://resources/git/' })).entries.map((e) => e.name).sort()).toEqual(['a.md', 'b.md']);
    expect((await engine.fs.readMeta('ctx://resources/git/'))!.sources).toEqual([original, upload]);
    // Both sources now update it without asking; a rename keeps it theirs.
    await engine.call('fs:mv', { from: 'ctx://resources/git/', to: 'ctx://resources/code/' });
    expect((await engine.call('ingest:start', { path: upload })).root).toBe('ctx://resources/code/');
    expect((await engine.call('ingest:start', { path: original })).root).toBe('ctx://resources/code/');
    expect((await engine.call('fs:ls', { uri: 'ctx://resources/' })).entries.map((e) => e.name)).toEqual(['code']);
    // Asked for a copy, another source gets its own root beside it.
    const other = join(tmp, 'elsewhere', 'code');
    await mkdir(other, { recursive: true });
    await writeFile(join(other, 'c.md'), '# C\n');
    expect((await engine.call('ingest:start', { path: other, options: { onClash: 'copy' } })).root).toBe('ctx://resources/code-2/');
  });

  it('ingests a single file into the scope chosen', async () => {
    const result = await engine.call('ingest:start', { path: join(SAMPLE, 'notes/2024-05-08-storm-review.md'), options: { scope: 'user' } });
    expect(result.root).toBe('ctx://user/2024-05-08-storm-review.md');
    const stat = await engine.call('fs:stat', { uri: result.root });
    expect(stat.meta?.context_type).toBe('memory');
    expect(stat.meta?.source_format).toBe('markdown');
  });

  it('keeps going past a broken file and says which file and why', async () => {
    const source = join(tmp, 'mixed');
    await mkdir(source);
    await writeFile(join(source, 'good.md'), '# Fine\n\nAll good.\n');
    await writeFile(join(source, 'damaged.txt'), Buffer.concat([Buffer.from('café '), Buffer.from([0xe9, 0x0a])]));
    await writeFile(join(source, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    await writeFile(join(source, 'broken.pdf'), '%PDF-1.7\nthis is not really a pdf\n');
    const result = await engine.call('ingest:start', { path: source });
    expect(result.files).toBe(2);
    const reasons = Object.fromEntries(result.skipped.map((s) => [s.path, s]));
    expect(reasons['damaged.txt']?.reason).toBe('unsupported-encoding');
    expect(reasons['damaged.txt']?.detail).toContain('damaged.txt');
    // Latin-1 is kept, read as Windows-1252, and the result and the node say so.
    expect(result.warnings).toEqual([{ path: 'latin1.txt', warning: expect.stringMatching(/Windows-1252/) }]);
    const latin1 = await engine.call('fs:stat', { uri: `${result.root}latin1.txt` });
    expect(latin1.meta?.warnings?.join('\n')).toMatch(/Windows-1252/);
    expect(await engine.call('fs:read', { uri: `${result.root}latin1.txt`, level: 2 })).toMatchObject({ content: 'café\n' });
    expect(reasons['broken.pdf']?.reason).toBe('parse-error');
    expect(await engine.fs.kindOf(`${result.root}good.md`)).toBe('file');
  });

  it('refuses a path that does not exist with a clear error', async () => {
    const error = await engine.call('ingest:start', { path: join(tmp, 'nope') }).catch((e: unknown) => e);
    expect(CairnError.is(error, 'NOT_FOUND')).toBe(true);
    expect((error as Error).message).toContain('nope');
  });
});
