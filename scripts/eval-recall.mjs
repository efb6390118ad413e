// `npm run eval:recall`: conversational recall@10 (issue 19, item 2) on the multi-session dev set
// in test/fixtures/recall-dev. Each conversation is imported into a fresh workspace as
// `cairn sessions import --commit` does, each question asked of the engine's search:query (what
// `cairn search` and MCP's search call), and recall@10 counted as the held-out judge counts it:
// the message ids the ranked hits cite, in rank order, first 10 distinct. Per kind, tune and test
// halves apart, with plain BM25 over the messages as a reference. See bench/lib/recall-eval.ts.
//
// Usage: node scripts/eval-recall.mjs [--fixtures DIR]... [--json] [--top-k N] [--half tune|test|dev] [--misses]
//   --fixtures may be given more than once (the dev set is written in several folders).
import { availableParallelism, cpus } from 'node:os';
import { resolve } from 'node:path';
import { cliArgs, importTs, ROOT } from '../bench/lib/bundle.mjs';

process.env.LANCEDB_LOG ??= 'error';

const args = process.argv.slice(2);
const { flag, option } = cliArgs(args);
const JSON_OUT = flag('--json');
const MISSES = flag('--misses');
const TOP_K = Number(option('--top-k', '10'));
/** Only this half (tune, test, dev): measure a change on the tune half without running the test half. */
const HALF = option('--half', undefined);
const folders = [];
for (let dir = option('--fixtures', undefined); dir !== undefined; dir = option('--fixtures', undefined)) folders.push(resolve(dir));
if (folders.length === 0) folders.push(resolve(ROOT, 'test/fixtures/recall-dev'));
if (args.length > 0) {
  console.error(`Unknown arguments: ${args.join(' ')}`);
  process.exit(2);
}

const ev = await importTs('eval-recall', ['./bench/lib/recall-eval.ts']);
const set = folders.flatMap((dir) => ev.loadRecallSet(dir)).filter((c) => HALF === undefined || c.half === HALF);
if (set.length === 0) {
  console.error(`No conversations with questions in ${folders.join(', ')}`);
  process.exit(1);
}
const started = performance.now();
const run = await ev.runRecallEval(set, {
  topK: TOP_K,
  onConversation: (id, ms) => JSON_OUT || console.error(`${id}: ${Math.round(ms)} ms`),
});
const summary = ev.summarize(run.results);
const machine = `${cpus()[0]?.model ?? 'cpu'} × ${availableParallelism()}, Node ${process.version}`;
const totals = {
  conversations: set.length,
  questions: run.results.length,
  wallMs: Math.round(performance.now() - started),
  importMs: Math.round(run.importMs),
  searchMsMean: run.searches ? Number((run.searchMs / run.searches).toFixed(1)) : 0,
};
if (JSON_OUT) {
  process.stdout.write(`${JSON.stringify({ machine, ...totals, summary, results: run.results })}\n`);
} else {
  console.log(`${totals.conversations} conversations, ${totals.questions} questions; import ${totals.importMs} ms, ${totals.searchMsMean} ms a search; ${machine}`);
  console.log('recall@10: share of a question\'s evidence among the first 10 distinct message ids the ranked hits cite, mean per kind (%).\n');
  console.log(ev.formatSummary(summary));
  if (MISSES) {
    for (const r of run.results.filter((x) => x.half !== 'test' && x.systems.cairn.recall < 1)) {
      console.log(`\n${r.conversation} ${r.id} [${r.kind}] ${r.question}\n  evidence ${r.evidence.join(' ')}\n  cited    ${r.systems.cairn.cited.join(' ')}`);
    }
  }
}
