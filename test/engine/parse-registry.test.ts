/**
 * parseFile end to end on real files in a temp folder: parser choice, code files kept whole with
 * the skeleton's summary, timing, and errors that name the file.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFile } from '../../main/engine/parse/registry.js';
import { summarizeCode } from '../../main/engine/parse/skeleton/index.js';
import { countTokens } from '../../main/lib/tokens.js';
import type { ParsedFile } from '../../main/engine/parse/types.js';

const SAMPLE = join(import.meta.dirname, '../../assets/sample');

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cairn-parse-registry-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function parseText(relPath: string, text: string | Uint8Array, maxTokens = 1024): Promise<ParsedFile> {
  const path = join(dir, relPath.replace(/\//g, '_'));
  await writeFile(path, text);
  return parseFile({ path, relPath, bytes: new Uint8Array(await readFile(path)), split: { maxTokens, minTokens: maxTokens / 2 }, codeSummaryMode: 'ast' });
}

describe('parseFile', () => {
  it('keeps a source file whole, however long, and takes language and summary from the skeleton', async () => {
    const source = await readFile(join(SAMPLE, 'src/station.py'), 'utf8');
    const long = `${source}\n${Array.from({ length: 300 }, (_, i) => `def handler_${i}(packet):\n    """Handle packet kind ${i}."""\n    return packet.get(${i})\n`).join('\n')}`;
    const parsed = await parseText('src/station.py', long, 256);
    expect(parsed.parserName).toBe('code');
    expect(parsed.sourceFormat).toBe('code');
    expect(parsed.node).toEqual({
      kind: 'file',
      name: 'station.py',
      content: long,
      meta: { tokens: countTokens(long), lines: [1, long.split('\n').length - (long.endsWith('\n') ? 1 : 0)] },
    });
    expect(parsed.tokens).toBeGreaterThan(256);
    const skeleton = await summarizeCode({ relPath: 'src/station.py', text: long, mode: 'ast' });
    expect(parsed.language).toBe(skeleton.language);
    expect(parsed.summary).toEqual(skeleton.summary);
    expect(parsed.summaryOwed).toBe(skeleton.summaryOwed);
  });

  it('reads an extension-less script with a shebang as code and an extension-less page as HTML', async () => {
    const script = await parseText('bin/deploy', '#!/usr/bin/env bash\nset -euo pipefail\necho "deploying"\n');
    expect(script.parserName).toBe('code');
    expect(script.node.name).toBe('deploy');
    const page = await parseText('saved/page', `<!DOCTYPE html><html><head><title>Saved</title></head><body><h1>Saved page</h1><p>${'Kept text. '.repeat(40)}</p></body></html>`);
    expect(page.parserName).toBe('html');
    expect(page.sourceFormat).toBe('html');
    expect((page.node as { content: string }).content.startsWith('# Saved page\n\nKept text.')).toBe(true);
  });

  it('parses the sample folder documents with the parser their names call for', async () => {
    for (const [relPath, parser] of [
      ['README.md', 'markdown'],
      ['docs/architecture.md', 'markdown'],
      ['docs/zh/快速入门.md', 'markdown'],
      ['src/api.ts', 'code'],
      ['src/uplink.go', 'code'],
      ['build.log', 'text'],
    ] as const) {
      const path = join(SAMPLE, relPath);
      const parsed = await parseFile({ path, relPath, bytes: new Uint8Array(await readFile(path)), split: { maxTokens: 1024, minTokens: 512 }, codeSummaryMode: 'ast' });
      expect(parsed.parserName).toBe(parser);
      expect(parsed.parseMs).toBeGreaterThanOrEqual(0);
      expect(parsed.node.name).toBe(relPath.split('/').at(-1));
    }
  });

  it('measures the parse time', async () => {
    const parsed = await parseText('docs/long.md', `# Long\n\n${'A sentence about tides and masts. '.repeat(3000)}\n`);
    expect(parsed.node.kind).toBe('dir');
    expect(parsed.parseMs).toBeGreaterThan(0);
  });

  it('names the file in encoding errors, and prefixes errors from inside a parser with it', async () => {
    await expect(parseText('notes/damaged.txt', new Uint8Array([...new TextEncoder().encode('café'), 0xe9, 0x0a]))).rejects.toMatchObject({
      code: 'UNSUPPORTED_ENCODING',
      message: expect.stringMatching(/^notes\/damaged\.txt: .*at byte 5\)$/),
    });
    const path = join(dir, 'bad-options.md');
    await writeFile(path, '# x\n');
    await expect(
      parseFile({ path, relPath: 'docs/bad-options.md', bytes: new Uint8Array(await readFile(path)), split: { maxTokens: 0, minTokens: 0 }, codeSummaryMode: 'ast' }),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringMatching(/^docs\/bad-options\.md: /) });
  });
});
