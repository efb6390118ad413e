// Ingest throughput on a real tree at 1 and 2 parse workers: files/s, MB/s, peak RSS.
// Tree: $CAIRN_BENCH_TREE, else the Python standard library, else TypeScript's own sources.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measure } from './lib/measure.mjs';

const candidates = [process.env.CAIRN_BENCH_TREE, '/usr/lib/python3.11', 'node_modules/typescript'].filter(Boolean);
const tree = candidates.find((path) => existsSync(path));

export default async function run() {
  const rows = [];
  for (const workers of [1, 2]) {
    const workspace = mkdtempSync(join(tmpdir(), 'cairn-bench-ingest-'));
    try {
      const run = await measure(process.execPath, ['dist-main/cli.js', 'ingest', tree, '--workspace', workspace, '--workers', String(workers), '--no-summarize', '--no-progress', '--json']);
      if (run.code !== 0) throw new Error(`ingest failed: ${run.stderr}`);
      const result = JSON.parse(run.stdout);
      rows.push({
        workers,
        files: result.files,
        nodes: result.nodes,
        skipped: result.skipped.length,
        mb: +(result.bytes / 1048576).toFixed(1),
        seconds: +(run.ms / 1000).toFixed(2),
        filesPerSecond: Math.round(result.files / (run.ms / 1000)),
        mbPerSecond: +(result.bytes / 1048576 / (run.ms / 1000)).toFixed(2),
        peakRssMb: run.peakRssMb,
      });
    } finally {
      rmSync(workspace, { recursive: true, force: true });
    }
  }
  return { name: 'ingest', tree, rows, note: 'whole CLI process (node start-up included), --no-summarize: scan, parse, build only' };
}
