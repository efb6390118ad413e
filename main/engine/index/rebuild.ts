/**
 * Rebuilds the index from ContextFS, the truth: every node of every scope gives the records the
 * ingest and the summarizer would have given it (L2 content for files, L0/L1 wherever a summary
 * exists). Ids are stable per node and level, so a rebuild over a live index replaces rows
 * instead of adding them; each scope is cleared first so that rows of nodes that no longer
 * exist go too.
 */
import { SCOPES } from '../../../shared/uri.js';
import { CairnError } from '../../../shared/errors.js';
import type { ContextIndex, IndexInput } from '../ports/context-index.js';
import type { ContextFS } from '../tree/context-fs.js';
import { nodeRecords } from './node-records.js';

/** Records upserted per call: bounds memory and the size of one embedding round. */
const BATCH = 256;

/** Re-writes every record of every scope into `index`. Returns how many records were written. */
export async function rebuildIndex(fs: ContextFS, index: ContextIndex, signal?: AbortSignal): Promise<number> {
  let written = 0;
  for (const scope of SCOPES) {
    const root = `ctx://${scope}/`;
    if ((await fs.kindOf(root)) !== 'dir') continue;
    await index.removeUnder(root);
    let batch: IndexInput[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      await index.upsert(batch);
      written += batch.length;
      batch = [];
    };
    const visit = async (uri: string, kind: 'file' | 'dir'): Promise<void> => {
      if (signal?.aborted) throw new CairnError('CANCELLED', 'Reindex cancelled', { cause: signal.reason });
      batch.push(...(await nodeRecords(fs, uri, kind)));
      if (batch.length >= BATCH) await flush();
      if (kind === 'dir') for (const entry of await fs.ls(uri)) await visit(entry.uri, entry.kind);
    };
    await visit(root, 'dir');
    await flush();
  }
  return written;
}
