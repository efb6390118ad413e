/**
 * The index records of one ContextFS node. `shapeNodeRecords` is the one place a node's records
 * are shaped: the ingest (a file's L2, and the L0/L1 its parser wrote), the DAG (the L0/L1 it
 * writes), the memory store (a memory page) and the import of an export all hand the index what
 * it returns, and `nodeRecords` reads a node back from the files for the rebuild and the
 * journal's replay. So a record re-made from disk is the record first written, byte for byte.
 * (Conversations are indexed one record per message; see memory/sessions/workspace-store.ts.)
 */
import { parentUri } from '../../../shared/uri.js';
import { CairnError } from '../../../shared/errors.js';
import type { NodeMeta } from '../../../shared/types/node.js';
import type { IndexInput } from '../ports/context-index.js';
import type { ContextFS } from '../tree/context-fs.js';
import { sha256 } from '../util/hash.js';
import { sessionNodeRecords } from '../memory/sessions/workspace-store.js';

/** What a node's records are made of, each part when the node has it. */
export interface NodeTexts {
  /** L2: a file's content. */
  content?: string;
  /** L0. */
  abstract?: string;
  /** L1. */
  overview?: string;
}

/**
 * The category of every level of a node, as search hits show it: what the node says it is (a
 * memory's category, `directory` once summarized, `session`), else a file's format (`markdown`,
 * `code`, `text`...), and `directory` for a directory.
 */
export function recordCategory(meta: NodeMeta): string {
  return meta.category ?? (meta.kind === 'dir' ? 'directory' : (meta.source_format ?? 'resource'));
}

/**
 * The records of a node from its meta and texts. Every level carries the node's category, time
 * and provenance. A record's content hash covers what its vector is made of (an unchanged hash
 * and text keep the vector): the content for L2 (the meta's hash of it), the summary for L0/L1.
 */
export function shapeNodeRecords(uri: string, meta: NodeMeta, texts: NodeTexts): IndexInput[] {
  const base = {
    uri,
    parent_uri: parentUri(uri),
    context_type: meta.context_type,
    category: recordCategory(meta),
    updated_at: meta.updated_at,
    provenance: meta.provenance ?? (meta.source_path ? { source: meta.source_path } : {}),
  };
  const records: IndexInput[] = [];
  if (texts.content !== undefined) {
    records.push({ ...base, id: `${uri}#2`, level: 2, updated_at: contentUpdatedAt(meta), text: texts.content, tokens: meta.tokens ?? 0, content_hash: meta.content_hash ?? sha256(texts.content) });
  }
  const { abstract, overview } = texts;
  if (abstract === undefined && overview === undefined) return records;
  const content_hash = sha256(`${abstract ?? ''}\n${overview ?? ''}`);
  if (abstract !== undefined) records.push({ ...base, id: `${uri}#0`, level: 0, text: abstract, tokens: 0, content_hash });
  if (overview !== undefined) records.push({ ...base, id: `${uri}#1`, level: 1, text: overview, tokens: 0, content_hash });
  return records;
}

/**
 * The time a node's L2 record carries: when its content was written. A summary written later
 * keeps it (`content_updated_at`), so the DAG hands the index only the new L0/L1 and never the
 * content again, which cost as much LanceDB work as the ingest's own write of every L2.
 */
export function contentUpdatedAt(meta: NodeMeta): string {
  return meta.content_updated_at ?? meta.updated_at;
}

/** The records of one node, read back from the files: L2 for a file, L0/L1 wherever a summary exists. */
export async function nodeRecords(fs: ContextFS, uri: string, kind: 'file' | 'dir'): Promise<IndexInput[]> {
  const meta = await fs.readMeta(uri);
  if (!meta) return [];
  if (meta.context_type === 'session' && kind === 'file') return sessionNodeRecords(fs, uri, meta);
  if (kind === 'dir') {
    const abstract = await readOptional(fs, uri, 0);
    const overview = await readOptional(fs, uri, 1);
    if (abstract === null || overview === null) return [];
    return shapeNodeRecords(uri, meta, { abstract, overview });
  }
  return shapeNodeRecords(uri, meta, { content: await fs.readFileContent(uri), abstract: meta.abstract, overview: meta.overview });
}

async function readOptional(fs: ContextFS, uri: string, level: 0 | 1): Promise<string | null> {
  try {
    return await fs.read(uri, level);
  } catch (error) {
    if (CairnError.is(error, 'NOT_FOUND')) return null;
    throw error;
  }
}
