/**
 * The index records of one ContextFS node, read back from the files: what the ingest (L2, and a
 * file's own L0/L1) and the DAG (a directory's L0/L1) hand the index. Rebuilds and crash
 * recovery use it, so a record re-made from disk is the record first written.
 */
import { parentUri } from '../../../shared/uri.js';
import { CairnError } from '../../../shared/errors.js';
import type { IndexInput } from '../ports/context-index.js';
import type { ContextFS } from '../tree/context-fs.js';
import { sha256 } from '../util/hash.js';
import { sessionNodeRecords } from '../memory/sessions/workspace-store.js';

/** The records of one node, shaped exactly as tree-builder (L2, file L0/L1) and the DAG (directory L0/L1) write them. */
export async function nodeRecords(fs: ContextFS, uri: string, kind: 'file' | 'dir'): Promise<IndexInput[]> {
  const meta = await fs.readMeta(uri);
  if (!meta) return [];
  // Conversations are indexed one record per message (see memory/sessions/workspace-store.ts).
  if (meta.context_type === 'session' && kind === 'file') return sessionNodeRecords(fs, uri, meta);
  const provenance = meta.provenance ?? (meta.source_path ? { source: meta.source_path } : {});
  const base = { uri, parent_uri: parentUri(uri), context_type: meta.context_type, updated_at: meta.updated_at, provenance };
  if (kind === 'dir') {
    const abstract = await readOptional(fs, uri, 0);
    const overview = await readOptional(fs, uri, 1);
    if (abstract === null || overview === null) return [];
    const common = { ...base, category: meta.category ?? 'directory', content_hash: sha256(abstract + '\n' + overview) };
    return [
      { ...common, id: `${uri}#0`, level: 0, text: abstract, tokens: 0 },
      { ...common, id: `${uri}#1`, level: 1, text: overview, tokens: 0 },
    ];
  }
  const text = await fs.readFileContent(uri);
  const common = { ...base, category: meta.category ?? meta.source_format ?? 'resource', content_hash: meta.content_hash ?? sha256(text) };
  const records: IndexInput[] = [{ ...common, id: `${uri}#2`, level: 2, text, tokens: meta.tokens ?? 0 }];
  if (meta.abstract) records.push({ ...common, id: `${uri}#0`, level: 0, text: meta.abstract, tokens: 0 });
  if (meta.overview) records.push({ ...common, id: `${uri}#1`, level: 1, text: meta.overview, tokens: 0 });
  return records;
}

async function readOptional(fs: ContextFS, uri: string, level: 0 | 1): Promise<string | null> {
  try {
    return await fs.read(uri, level);
  } catch (error) {
    if (CairnError.is(error, 'NOT_FOUND')) return null;
    throw error;
  }
}

