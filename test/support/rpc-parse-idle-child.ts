/**
 * A child process that parses one file with a pool and never disposes it: it must still exit on
 * its own, because idle parse workers do not keep a process alive.
 *
 * Usage: node rpc-parse-idle-child.mjs <worker url>
 */
import { createParsePool } from '../../main/workers/parse-pool.js';

const pool = createParsePool({ workerUrl: new URL(process.argv[2]!), size: 2 });
const parsed = await pool.parse({
  path: '/src/idle.txt',
  relPath: 'idle.txt',
  bytes: new TextEncoder().encode('idle'),
  split: { maxTokens: 1024, minTokens: 512 },
  codeSummaryMode: 'ast',
});
process.stdout.write(`parsed ${parsed.node.kind === 'file' ? parsed.node.content : ''}\n`);
