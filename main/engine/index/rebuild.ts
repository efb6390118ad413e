/**
 * Rebuilds the index from ContextFS, the truth: every node of every scope gives the records the
 * ingest and the summarizer would have given it (L2 content for files, L0/L1 wherever a summary
 * exists). Ids are stable per node and level, so the rebuild writes over the live rows in place,
 * and a search meanwhile finds every node, in its old or its new form: nothing is removed before
 * it is written again. Once every node is written, a sweep removes the records of nodes that no
 * longer exist (or no longer make that record). A rebuild killed midway leaves the old index
 * with part of it rewritten, still whole; the next one finishes the job.
 *
 * The rows a rebuild replaces are old versions of the table, removed from disk once no query can
 * be reading them (adapters/store/lancedb/upkeep.ts), so rebuilding again does not grow the index.
 */
import { SCOPES } from '../../../shared/uri.js';
import { CairnError } from '../../../shared/errors.js';
import type { ContextIndex, IndexInput } from '../ports/context-index.js';
import type { ContextFS } from '../tree/context-fs.js';
import type { EngineIndex } from '../ports/engine-index.js';
import { nodeRecords } from './node-records.js';

/** Records upserted per call: bounds memory and the size of one embedding round. */
const BATCH = 256;

/** Re-writes every record of every scope into `index`, then sweeps out the rest. Returns how many records were written. */
export async function rebuildIndex(fs: ContextFS, index: ContextIndex & Pick<EngineIndex, 'recordIds' | 'removeRecords'>, signal?: AbortSignal): Promise<number> {
  const throwIfCancelled = () => {
    if (signal?.aborted) throw new CairnError('CANCELLED', 'Reindex cancelled', { cause: signal.reason });
  };
  const written = new Set<string>();
  let batch: IndexInput[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    await index.upsert(batch);
    for (const record of batch) written.add(record.id);
    batch = [];
  };
  const visit = async (uri: string, kind: 'file' | 'dir'): Promise<void> => {
    throwIfCancelled();
    batch.push(...(await nodeRecords(fs, uri, kind)));
    if (batch.length >= BATCH) await flush();
    if (kind === 'dir') for (const entry of await fs.children(uri)) await visit(entry.uri, entry.kind);
  };
  for (const scope of SCOPES) {
    const root = `ctx://${scope}/`;
    if ((await fs.kindOf(root)) === 'dir') await visit(root, 'dir');
  }
  await flush();
  throwIfCancelled();
  await sweep(fs, index, written);
  return written.size;
}

/**
 * Removes the records the rebuild did not write whose node is gone, or no longer makes them. A
 * record of a node that exists and still makes it was written by someone else meanwhile (an
 * ingest beside the rebuild) and stays.
 */
async function sweep(fs: ContextFS, index: Pick<EngineIndex, 'recordIds' | 'removeRecords'>, written: ReadonlySet<string>): Promise<void> {
  if (!index.recordIds || !index.removeRecords) return;
  const byUri = new Map<string, string[]>();
  for (const { id, uri } of await index.recordIds()) {
    if (!written.has(id)) byUri.set(uri, [...(byUri.get(uri) ?? []), id]);
  }
  const stale: string[] = [];
  for (const [uri, ids] of byUri) {
    const kind = await fs.kindOf(uri);
    const current = new Set(kind ? (await nodeRecords(fs, uri, kind)).map((record) => record.id) : []);
    stale.push(...ids.filter((id) => !current.has(id)));
  }
  if (stale.length > 0) await index.removeRecords(stale);
}
