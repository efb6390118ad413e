/**
 * The engine worker behind `cairn serve` and the app indexes too: ingest and summarize through
 * the real bundled worker, then search through the same RPC, its answer checked against the contract.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { EngineHost } from '../../main/host/engine-host.js';

const ROOT = join(import.meta.dirname, '../..');
const WORKER = join(ROOT, 'dist-main/engine.worker.js');
const SAMPLE = join(ROOT, 'assets/sample');
let workspace: string;
let host: EngineHost;

beforeAll(async () => {
  if (!existsSync(WORKER)) execFileSync(process.execPath, [join(ROOT, 'scripts/build-main.mjs')], { cwd: ROOT });
  workspace = await mkdtemp(join(tmpdir(), 'cairn-search-worker-'));
  host = await EngineHost.start({ workerUrl: pathToFileURL(WORKER), workerData: { workspace, parseWorkers: 1 } });
}, 60_000);
afterAll(async () => {
  await host?.dispose();
  await rm(workspace, { recursive: true, force: true });
});

describe('the engine worker', () => {
  it('indexes what it ingests and summarizes, and answers search:query', async () => {
    // The worker summarizes in the background after the ingest; its L0/L1 rows are in once the run finishes.
    const summarized = new Promise<void>((resolve) => {
      const off = host.onEvent((event) => {
        if (event.type === 'dag/finished' && event.root === 'ctx://resources/sample/') {
          off();
          resolve();
        }
      });
    });
    const ingest = await host.call('ingest:start', { path: SAMPLE });
    expect(ingest.root).toBe('ctx://resources/sample/');
    await summarized;
    const { hits } = await host.call('search:query', { query: '电池电压', topK: 3 });
    expect(hits[0]?.uri).toBe('ctx://resources/sample/docs/zh/快速入门.md');
    const dirs = await host.call('search:query', { query: 'storm review', level: 0, uriPrefix: 'ctx://resources/sample/notes/' });
    expect(dirs.hits.length).toBeGreaterThan(0);
    expect(dirs.hits.every((h) => h.level === 0 && h.uri.startsWith('ctx://resources/sample/notes/'))).toBe(true);
    const rebuilt = await host.call('index:rebuild', {});
    expect(rebuilt.records).toBeGreaterThan(20);
  }, 120_000);
});
