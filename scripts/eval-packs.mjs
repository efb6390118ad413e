// `npm run eval:packs`: are context packs worth their tokens (issue 19, item 3)? For every
// question of the retrieval dev set (test/fixtures/retrieval), the pack `cairn context` would give
// within the budget (default 1,500 tokens), and whether the passage or message that answers it
// is inside. Real LanceDB index in a temporary folder, local embedder. See bench/lib/pack-eval.ts.
//
// With --recall-dev, the conversational dev set (test/fixtures/recall-dev) instead: each
// conversation imported into a workspace as `cairn sessions import` does, each question's pack as
// `cairn context` builds it, at 500 / 1,500 / 3,000 tokens (or --budgets), per kind and split;
// --floors a,b,c compares pack floors and --reserve a,b,c numbers of top hits given their room
// first (fit them on the tune split).
//
// Usage: node scripts/eval-packs.mjs [--json] [--budget N] [--floors F] [--reserve N] [--fixtures DIR]
//        node scripts/eval-packs.mjs --recall-dev [--json] [--budgets 500,1500,3000] [--floors F,...] [--reserve N,...]
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliArgs, importTs, ROOT } from '../bench/lib/bundle.mjs';

process.env.LANCEDB_LOG ??= 'error';

const args = process.argv.slice(2);
const { flag, option } = cliArgs(args);
const JSON_OUT = flag('--json');
const BUDGET = Number(option('--budget', '1500'));
const RECALL_DEV = flag('--recall-dev');
const FIXTURES = option('--fixtures', join(ROOT, RECALL_DEV ? 'test/fixtures/recall-dev' : 'test/fixtures/retrieval'));
const BUDGETS = option('--budgets', '500,1500,3000').split(',').map(Number);
const FLOORS = option('--floors', '').split(',').filter(Boolean).map(Number);
const RESERVES = option('--reserve', '').split(',').filter(Boolean).map(Number);
if (args.length > 0 || ![BUDGET, ...BUDGETS].every((b) => Number.isInteger(b) && b >= 1) || !FLOORS.every((f) => f >= 0 && f <= 1) || !RESERVES.every((r) => Number.isInteger(r) && r >= 0)) {
  console.error(args.length > 0 ? `Unknown arguments: ${args.join(' ')}` : 'budgets must be whole numbers of tokens, floors between 0 and 1, reserves whole numbers of hits');
  process.exit(2);
}

if (RECALL_DEV) {
  const ev = await importTs('eval-packs-recall', [{ from: './bench/lib/pack-eval.ts', names: ['runConversationPackEval', 'formatConversationPackReport'] }]);
  const tmp = mkdtempSync(join(tmpdir(), 'cairn-eval-packs-'));
  try {
    const started = performance.now();
    const report = await ev.runConversationPackEval({ fixtures: FIXTURES, workDir: tmp, budgets: BUDGETS, ...(FLOORS.length ? { floors: FLOORS } : {}), ...(RESERVES.length ? { reserves: RESERVES } : {}) });
    const machine = `${cpus()[0]?.model ?? 'cpu'} × ${availableParallelism()}, Node ${process.version}`;
    if (JSON_OUT) process.stdout.write(`${JSON.stringify({ machine, ...report })}\n`);
    else {
      console.log(`${Math.round(performance.now() - started)} ms; ${machine}`);
      console.log('all: every evidence message of the question stands whole in the pack text; any: at least one does.\n');
      console.log(ev.formatConversationPackReport(report));
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  process.exit(0);
}

const ev = await importTs('eval-packs', ['./bench/lib/pack-eval.ts', { from: './main/adapters/embed/local.ts', names: ['createLocalEmbedder'] }]);
const tmp = mkdtempSync(join(tmpdir(), 'cairn-eval-packs-'));
try {
  const started = performance.now();
  const report = await ev.runPackEval({ fixtures: FIXTURES, embedder: ev.createLocalEmbedder(), indexDir: join(tmp, 'index'), budget: BUDGET, ...(FLOORS.length === 1 ? { floor: FLOORS[0] } : {}), ...(RESERVES.length === 1 ? { reservedHits: RESERVES[0] } : {}) });
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
