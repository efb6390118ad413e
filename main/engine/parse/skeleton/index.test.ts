import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { countLines, MIN_SKELETON_LINES, summarizeCode } from './index.js';

const FIXTURES = join(import.meta.dirname, '../../../../test/fixtures/code');
const station = () => readFile(join(FIXTURES, 'station.py'), 'utf8');

describe('summarizeCode', () => {
  it('ast: a file of 100+ lines gets its skeleton as summary, no LLM owed', async () => {
    const text = await station();
    expect(countLines(text)).toBeGreaterThanOrEqual(MIN_SKELETON_LINES);
    const result = await summarizeCode({ relPath: 'src/station.py', text, mode: 'ast' });
    expect(result.summaryOwed).toBeUndefined();
    expect(result.language).toBe('python');
    expect(result.summary).toEqual({
      method: 'skeleton',
      abstract:
        'Python module: 4 classes, 4 functions, 12 methods — Weather station readings: parsing, validation and aggregation. Defines: Reading, Window, Station, hourly, validate, celsius_of, fast_mean',
      overview: expect.stringMatching(/^```text\n# src\/station\.py \[Python\]\nWeather station readings: parsing, validation and aggregation\.\nimports: /),
    });
    expect(result.summary!.overview).toContain('  + @overload mean(self, sensor: str) -> float\n');
    expect(result.summary!.overview).toContain('  + @classmethod parse(cls, line: str, *, strict: bool = True) -> "Reading"  # Parses one CSV line.\nclass Window(Generic[T])');
  });

  it('ast: a short file is owed an LLM summary', async () => {
    const result = await summarizeCode({ relPath: 'a.go', text: 'package a\n\nfunc F() {}\n', mode: 'ast' });
    expect(result).toEqual({ language: 'go', fallback: 'too-short', summaryOwed: 'file under 100 lines (3)' });
  });

  it('llm: always owed, nothing extracted', async () => {
    expect(await summarizeCode({ relPath: 'src/station.py', text: await station(), mode: 'llm' })).toEqual({ language: 'python', fallback: 'mode-llm', summaryOwed: 'mode llm' });
  });

  it('ast_llm: the skeleton, with docs in full, goes to the LLM as context', async () => {
    const result = await summarizeCode({ relPath: 'src/station.py', text: await station(), mode: 'ast_llm' });
    expect(result).toMatchObject({ language: 'python', fallback: 'mode-ast-llm', summaryOwed: 'mode ast_llm' });
    expect(result.summary).toBeUndefined();
    expect(result.skeletonText).toContain('Parses one CSV line.\n    #\n    # Raises ReadingError when a field is missing and `strict` is set.');
  });

  it('ast_llm makes a skeleton for a short file too', async () => {
    const result = await summarizeCode({ relPath: 'a.go', text: 'package a\n\n// F does f.\nfunc F() {}\n', mode: 'ast_llm' });
    expect(result.skeletonText).toBe('# a.go [Go]\ndef F()  # F does f.');
  });

  it('an unsupported language is owed, with its extension', async () => {
    expect(await summarizeCode({ relPath: 'lib/x.rb', text: 'def x; end\n'.repeat(200), mode: 'ast' })).toEqual({ fallback: 'unsupported-language', summaryOwed: 'unsupported language (.rb)' });
    expect(await summarizeCode({ relPath: 'Makefile', text: 'all:\n', mode: 'ast' })).toEqual({ fallback: 'unsupported-language', summaryOwed: 'unsupported language' });
  });

  it('a file that is mostly syntax errors is owed, with the reason', async () => {
    const text = Array.from({ length: 150 }, (_, i) => `)))) ]]] ${i} ;;; }}}`).join('\n');
    const result = await summarizeCode({ relPath: 'noise.c', text, mode: 'ast' });
    expect(result.fallback).toBe('parse-error');
    expect(result.summaryOwed).toMatch(/^parse error: \d+ syntax errors cover \d+% of the file$/);
  });

  it('a file with no class or function is owed (empty skeleton)', async () => {
    const text = Array.from({ length: 120 }, (_, i) => `export const VALUE_${i} = ${i};`).join('\n');
    expect(await summarizeCode({ relPath: 'consts.ts', text, mode: 'ast' })).toEqual({ language: 'typescript', fallback: 'empty-skeleton', summaryOwed: 'empty skeleton: no class or function found' });
  });

  it('caps the overview of a huge file and says what was cut', async () => {
    const text = Array.from({ length: 3000 }, (_, i) => `def function_number_${i}(alpha, beta, gamma):\n    return alpha`).join('\n');
    const { summary } = await summarizeCode({ relPath: 'big.py', text, mode: 'ast' });
    expect(summary!.overview.length).toBeLessThanOrEqual(4000);
    expect(summary!.overview).toMatch(/\n… cut to 3984 characters: \d+ functions not shown\n```\n$/);
    expect(summary!.abstract.length).toBeLessThanOrEqual(256);
  });
});

describe('countLines', () => {
  it('counts like an editor', () => {
    expect([countLines(''), countLines('a'), countLines('a\n'), countLines('a\nb'), countLines('a\n\n')]).toEqual([0, 1, 1, 2, 2]);
  });
});
