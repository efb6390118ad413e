// `npm run eval:retrieval`: retrieval quality on the labelled dev set in test/fixtures/retrieval
// (documents and conversations in English and Chinese, hand-written questions with the passages
// or messages that answer them). Builds a real LanceDB index in a temporary folder, then reports
// recall@1/5/10 and MRR for fts, vector, hybrid and hierarchical search, overall and split by
// language, by source (doc, conv) and by question type. See bench/lib/retrieval-eval.ts.
//
// Usage: node scripts/eval-retrieval.mjs [--json] [--fixtures DIR] [--no-lexicon] [--no-message-context]
//          [--embed-base-url URL --embed-model NAME [--embed-dimensions N]]
//          [--embedder use-lite [--use-lite-from DIR]]
// `--embedder use-lite`: the USE lite sentence encoder (bench/lib/use-lite-embedder.ts), loaded
// from DIR's node_modules (default the repository's; it is not a dependency, see bench/RESULTS.md).
// The endpoint key comes from OPENAI_API_KEY (any text for local servers such as Ollama).
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliArgs, importTs, ROOT } from '../bench/lib/bundle.mjs';

process.env.LANCEDB_LOG ??= 'error';

const args = process.argv.slice(2);
const { flag, option } = cliArgs(args);
const JSON_OUT = flag('--json');
/** The local embedder without its WordNet features (version 1), for comparison. */
const NO_LEXICON = flag('--no-lexicon');
/** Embed messages alone, without their neighbours (see messageEmbedContext), for comparison. */
const NO_MESSAGE_CONTEXT = flag('--no-message-context');
const FIXTURES = option('--fixtures', join(ROOT, 'test/fixtures/retrieval'));
const BASE_URL = option('--embed-base-url', process.env.OPENAI_BASE_URL);
const MODEL = option('--embed-model', process.env.CAIRN_EMBED_MODEL);
const DIMENSIONS = option('--embed-dimensions', undefined);
const EMBEDDER = option('--embedder', 'lexicon');
const USE_LITE_FROM = option('--use-lite-from', ROOT);
if (EMBEDDER !== 'lexicon' && EMBEDDER !== 'use-lite') {
  console.error(`--embedder is lexicon or use-lite, got ${EMBEDDER}`);
  process.exit(2);
}
if (args.length > 0) {
  console.error(`Unknown arguments: ${args.join(' ')}`);
  process.exit(2);
}

const ev = await importTs('eval-retrieval', [
  './bench/lib/retrieval-eval.ts',
  { from: './main/adapters/embed/local.ts', names: ['createLocalEmbedder'] },
  { from: './main/adapters/embed/openai.ts', names: ['createOpenAIEmbedder'] },
  { from: './bench/lib/use-lite-embedder.ts', names: ['createUseLiteEmbedder'] },
]);
let embedder;
if (BASE_URL || MODEL) {
  if (!BASE_URL || !MODEL) {
    console.error('--embed-base-url and --embed-model go together');
    process.exit(2);
  }
  embedder = ev.createOpenAIEmbedder({
    baseURL: BASE_URL,
    apiKey: process.env.OPENAI_API_KEY ?? 'none',
    model: MODEL,
    ...(DIMENSIONS ? { dimensions: Number(DIMENSIONS), requestDimensions: true } : {}),
  });
  if (!DIMENSIONS) await embedder.discoverDimensions();
} else if (EMBEDDER === 'use-lite') {
  embedder = ev.createUseLiteEmbedder({ packagesDir: USE_LITE_FROM });
  await embedder.warmUp();
} else {
  embedder = ev.createLocalEmbedder({ lexicon: !NO_LEXICON });
}

const tmp = mkdtempSync(join(tmpdir(), 'cairn-eval-retrieval-'));
try {
  const report = await ev.runDevSetEval({ fixtures: FIXTURES, embedder, indexDir: join(tmp, 'index'), messageContext: !NO_MESSAGE_CONTEXT });
  const machine = `${cpus()[0]?.model ?? 'cpu'} × ${availableParallelism()}, Node ${process.version}`;
  if (JSON_OUT) {
    process.stdout.write(`${JSON.stringify({ machine, ...report })}\n`);
  } else {
    console.log(`model ${report.model}; ${report.records} records, ${report.questions} questions; index ${Math.round(report.indexMs)} ms, searches ${Math.round(report.searchMs)} ms; ${machine}`);
    console.log('R@k: share of the evidence found in the first k hits (L2 records only), averaged over questions; MRR: 1 / rank of the first evidence found.\n');
    console.log(ev.formatReport(report));
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
