// `node scripts/score-floor.mjs`: the score distributions behind the search's relevance floor
// (WEAK_BELOW in main/engine/index/rank.ts), on the retrieval dev set with the local embedder:
// hits that answer their question, other hits, and hits of searches over the other language's
// documents (where nothing answers). See bench/lib/score-floor.ts; figures in bench/RESULTS.md.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importTs, ROOT } from '../bench/lib/bundle.mjs';

process.env.LANCEDB_LOG ??= 'error';

const lib = await importTs('score-floor', ['./bench/lib/score-floor.ts', { from: './main/adapters/embed/local.ts', names: ['createLocalEmbedder'] }]);
const tmp = mkdtempSync(join(tmpdir(), 'cairn-score-floor-'));
try {
  const modes = await lib.scoreDistributions({ fixtures: join(ROOT, 'test/fixtures/retrieval'), embedder: lib.createLocalEmbedder(), indexDir: join(tmp, 'index') });
  console.log(lib.formatFloors(modes));
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
