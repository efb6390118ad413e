// `npm run bench`: runs every bench/*.bench.mjs (or those named on the command line) and prints
// their tables. Figures worth keeping go to bench/RESULTS.md with the machine and the command.
import { readdirSync } from 'node:fs';
import { availableParallelism, cpus, totalmem } from 'node:os';

const only = process.argv.slice(2);
const files = readdirSync(new URL('.', import.meta.url))
  .filter((name) => name.endsWith('.bench.mjs'))
  .filter((name) => only.length === 0 || only.some((o) => name.startsWith(o)))
  .sort();

console.log(`machine: ${cpus()[0]?.model ?? 'cpu'} × ${availableParallelism()}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${new Date().toISOString()}`);
for (const file of files) {
  const { default: run } = await import(new URL(file, import.meta.url));
  const result = await run();
  console.log(`\n## ${result.name}${result.tree ? ` (${result.tree})` : ''}`);
  if (result.note) console.log(result.note);
  console.table(result.rows);
}
