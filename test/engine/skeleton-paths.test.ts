import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skeletonsForPaths } from '../../main/engine/parse/skeleton/index.js';

const FIXTURES = join(import.meta.dirname, '../fixtures/code');
let tmp: string;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'cairn-skeleton-'));
  await writeFile(join(tmp, 'notes.md'), '# Notes\n');
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('skeletonsForPaths (cairn skeleton --json)', () => {
  it('gives every fixture in the JSON shape of `cairn skeleton --json`', async () => {
    const names = (await readdir(FIXTURES)).sort();
    const { files } = await skeletonsForPaths(names.map((name) => ({ path: join(FIXTURES, name), relPath: `code/${name}` })));
    expect(files.map((f) => f.file)).toEqual(names.map((n) => `code/${n}`));
    // The JSON document survives a round trip unchanged: plain data only.
    expect(JSON.parse(JSON.stringify({ files }))).toEqual({ files });
    for (const file of files) {
      expect(Object.keys(file)).toEqual(expect.arrayContaining(['file', 'language', 'module_doc', 'imports', 'classes', 'functions', 'text']));
      for (const cls of file.classes) {
        expect(Object.keys(cls)).toEqual(expect.arrayContaining(['name', 'bases', 'methods']));
        for (const method of cls.methods) expect(Object.keys(method)).toEqual(expect.arrayContaining(['name', 'params', 'return_type', 'line_start', 'line_end']));
      }
      for (const fn of file.functions) expect(Object.keys(fn)).toEqual(expect.arrayContaining(['name', 'params', 'return_type', 'line_start', 'line_end']));
      expect(file.text.startsWith(`# ${file.file} [`)).toBe(true);
    }
    const station = files.find((f) => f.file === 'code/station.py')!;
    expect(station).toMatchObject({ language: 'python', lines: 125, parse_errors: 0, fallback: null, fallback_reason: null });
    expect(station.functions.map((f) => [f.name, f.params, f.return_type, f.line_start, f.line_end])).toEqual([
      ['hourly', '(readings: list[Reading])', 'dict[datetime, float]', 104, 109],
      ['validate', '(reading: Reading, low: float = -80.0, high: float = 60.0)', 'Reading', 112, 115],
      ['celsius_of', '(f)', null, 118, 118],
      ['fast_mean', '(values)', null, 123, 125],
    ]);
    expect(files.find((f) => f.file === 'code/ring.c')).toMatchObject({ language: 'c', lines: 44, fallback: 'too-short', fallback_reason: 'file under 100 lines (44)' });
  });

  it('keeps whole docs outside ast mode and says what ingest would do', async () => {
    const { files } = await skeletonsForPaths([{ path: join(FIXTURES, 'station.py'), relPath: 'station.py' }], { mode: 'llm' });
    expect(files[0]).toMatchObject({ fallback: 'mode-llm', fallback_reason: 'mode llm' });
    expect(files[0]!.module_doc).toContain('\n\nReadings arrive as CSV lines');
  });

  it('reports unsupported and unreadable files instead of throwing', async () => {
    const { files } = await skeletonsForPaths([
      { path: join(tmp, 'notes.md'), relPath: 'notes.md' },
      { path: join(tmp, 'missing.py'), relPath: 'missing.py' },
    ]);
    expect(files[0]).toMatchObject({ file: 'notes.md', language: null, classes: [], functions: [], text: '', fallback: 'unsupported-language', fallback_reason: 'unsupported language (.md)' });
    expect(files[1]).toMatchObject({ file: 'missing.py', language: 'python', text: '', fallback: 'unreadable' });
    expect(files[1]!.fallback_reason).toMatch(/^unreadable: ENOENT/);
  });
});
