/** ingest:sample names the sample folder Cairn ships; from the sources it is the repository's assets/sample. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HandlerContext } from '../command-handlers.js';
import { sampleHandlers } from './sample.js';

const ctx: HandlerContext = { signal: new AbortController().signal, emit: () => {} };

describe('ingest:sample', () => {
  it("answers the sample folder's path, a folder an ingest can read", async () => {
    const { path } = await sampleHandlers()['ingest:sample']({}, ctx);
    expect(path).toBe(join(import.meta.dirname, '../../../assets/sample'));
    expect(existsSync(join(path, 'README.md'))).toBe(true);
    expect(existsSync(join(path, 'docs', 'architecture.md'))).toBe(true);
  });
});
