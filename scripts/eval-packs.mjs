// `npm run eval:packs`: are context packs worth their tokens (issue 19, item 3)? For every
// question of the retrieval dev set (test/fixtures/retrieval), the pack `cairn context` would give
// within the budget (default 1,500 tokens), and whether the passage or message that answers it
// is inside. Real LanceDB index in a temporary folder, local embedder. See bench/lib/pack-eval.ts.
//
// Usage: node scripts/eval-packs.mjs [--json] [--budget N] [--fixtures DIR]
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliArgs, importTs, ROOT } from '../bench/lib/bundle.mjs';

process.env.LANCEDB_LOG ??= 'error';

const args = process.argv.slice(2);
const { flag, option } = cliArgs(args);
const JSON_OUT = flag('--json');
const BUDGET = Number(option('--budget', '1500'));
const FIXTURES = option('--fixtures', join(ROOT, 'test/fixtures/retrieval'));
if (args.length > 0 || !Number.isInteger(BUDGET) || BUDGET < 1) {
  console.error(args.length > 0 ? `Unknown arguments: ${args.join(' ')}` : '--budget must be a whole number of tokens');
  process.exit(2);
}

const ev = await importTs('eval-packs', ['./bench/lib/pack-eval.ts', { from: './main/adapters/embed/local.ts', names: ['createLocalEmbedder'] }]);
const tmp = mkdtempSync(join(tmpdir(), 'cairn-eval-packs-'));
try {
  const started = performance.now();
  const report = await ev.runPackEval({ fixtures: FIXTURES, embedder: ev.createLocalEmbedder(), indexDir: join(tmp, 'index'), budget: BUDGET });
  const machine = `${cpus()[0]?.model ?? 'cpu'} × ${availableParallelism()}, Node ${process.version}`;
  if (JSON_OUT) process.stdout.write(`${JSON.stringify({ machine, ...report })}\n`);
  else {
    console.log(`budget ${BUDGET} tokens; ${report.overall.questions} questions; ${Math.round(performance.now() - started)} ms; ${machine}`);
    console.log('answer in pack: share of questions whose every answering passage/message is in the pack; answer in hits: in the 40 search hits the pack is built from.\n');
    console.log(ev.formatPackReport(report));
    console.log(`\nfound by search, left out of the pack: ${report.lostInPack.join(', ') || 'none'}`);
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
