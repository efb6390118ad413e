import { build } from 'esbuild';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { summarizeCode, type CodeSummaryResult } from '../../main/engine/parse/skeleton/index.js';

const ROOT = join(import.meta.dirname, '../..');
const FIXTURES = join(ROOT, 'test/fixtures/code');

// Node 20 cannot run TypeScript in a worker: the entry is bundled to plain ESM first. It lives
// under node_modules so that its bare imports (web-tree-sitter, the grammars) resolve as in the app.
let dir: string;
let entry: string;

beforeAll(async () => {
  await mkdir(join(ROOT, 'node_modules/.cache'), { recursive: true });
  dir = await mkdtemp(join(ROOT, 'node_modules/.cache/skeleton-worker-'));
  entry = join(dir, 'worker.mjs');
  await build({
    stdin: {
      contents: [
        "import { parentPort, workerData } from 'node:worker_threads';",
        "import { summarizeCode } from './main/engine/parse/skeleton/index.ts';",
        'const results = [];',
        'for (const input of workerData) results.push(await summarizeCode(input));',
        'parentPort.postMessage(results);',
      ].join('\n'),
      resolveDir: ROOT,
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    outfile: entry,
    logLevel: 'silent',
  });
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function runWorker(inputs: unknown[]): Promise<CodeSummaryResult[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(entry, { workerData: inputs });
    worker.once('message', (results: CodeSummaryResult[]) => {
      resolve(results);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

describe('skeleton extraction in worker threads', () => {
  it('gives in two parallel workers exactly what it gives in process', async () => {
    const inputs = await Promise.all(
      ['station.py', 'api.mts', 'uplink.go', 'Graph.java', 'graph.hpp', 'ring.rs'].map(async (name) => ({
        relPath: name,
        text: await readFile(join(FIXTURES, name), 'utf8'),
        mode: 'ast_llm' as const,
      })),
    );
    const [first, second] = await Promise.all([runWorker(inputs.slice(0, 3)), runWorker(inputs.slice(3))]);
    const inProcess = await Promise.all(inputs.map((input) => summarizeCode(input)));
    expect([...first!, ...second!]).toEqual(inProcess);
    expect(first!.map((r) => r.language)).toEqual(['python', 'typescript', 'go']);
    expect(second![2]!.skeletonText).toMatch(/^# ring\.rs \[Rust\]\nA fixed-capacity ring buffer for sensor samples\./);
  });
});
