/** The search commands on an engine composed without a search index: a clear, stable error. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine, type Engine } from '../../main/engine/engine.js';
import { inProcessParseRunner } from '../../main/engine/parse/runner.js';
import { CairnError } from '../../shared/errors.js';

let workspace: string;
let engine: Engine;

beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'cairn-noindex-'));
  engine = await createEngine({ workspace, parser: inProcessParseRunner() });
});
afterAll(async () => {
  await engine.dispose();
  await rm(workspace, { recursive: true, force: true });
});

describe('an engine without a search index', () => {
  it('answers search:query and index:rebuild with INDEX_FAILED', async () => {
    const search = await engine.call('search:query', { query: 'uplink' }).catch((e: unknown) => e);
    expect(CairnError.is(search, 'INDEX_FAILED')).toBe(true);
    expect((search as Error).message).toMatch(/without a search index/);
    const rebuild = await engine.call('index:rebuild', {}).catch((e: unknown) => e);
    expect(CairnError.is(rebuild, 'INDEX_FAILED')).toBe(true);
  });

  it('validates search requests against the contract', async () => {
    const bad = await engine.call('search:query', { query: '', mode: 'fuzzy' as 'fts' }).catch((e: unknown) => e);
    expect(CairnError.is(bad, 'INVALID_INPUT')).toBe(true);
  });
});
