/**
 * Writes a parsed file (a whole file, or a directory of sections) into ContextFS with its meta.
 * The tree is written under `ctx://temp/{job}/` and moved into place later, so each node's meta
 * already names the URI it will have once moved.
 */
import type { ContextType, NodeMeta, SummaryStatus } from '../../../shared/types/node.js';
import { childUri } from '../../../shared/uri.js';
import type { ContextFS } from '../tree/context-fs.js';
import type { ParsedFile, ParsedNode } from '../parse/types.js';
import { sha256 } from '../util/hash.js';
import { EXTRACTIVE_ID, EXTRACTIVE_PROVENANCE } from '../summarize/extractive-summarizer.js';

export interface WriteParsedInput {
  fs: ContextFS;
  /** Where the tree is written now (under ctx://temp/). */
  stagingUri: string;
  /** Where the tree will live once moved (the node's `uri` in its meta). */
  finalUri: string;
  parsed: ParsedFile;
  sourcePath: string;
  sourceHash: string;
  bytes: number;
  /** The source file's mtime as scanned (see NodeMeta.source_mtime_ms). */
  mtimeMs?: number;
  contextType: ContextType;
  now: string;
}

/** Writes the tree and returns how many nodes it holds. */
export async function writeParsedTree(input: WriteParsedInput): Promise<number> {
  const { parsed } = input;
  const common = {
    context_type: input.contextType,
    source_path: input.sourcePath,
    parser: parsed.parserName,
    source_format: parsed.sourceFormat,
    ...(parsed.language ? { language: parsed.language } : {}),
    created_at: input.now,
    updated_at: input.now,
  };
  const summary = summaryFields(parsed);
  const nodeCount = countNodes(parsed.node);
  const top = {
    source_hash: input.sourceHash,
    ...(input.mtimeMs !== undefined ? { source_mtime_ms: input.mtimeMs } : {}),
    node_count: nodeCount,
    bytes: input.bytes,
    ...(parsed.warnings.length > 0 ? { warnings: parsed.warnings } : {}),
    ...(parsed.skeletonText ? { skeleton_text: parsed.skeletonText } : {}),
  };

  const write = async (node: ParsedNode, staging: string, final: string, isTop: boolean): Promise<void> => {
    const base = {
      ...common,
      tokens: node.meta.tokens,
      ...(node.meta.title ? { title: node.meta.title } : {}),
      provenance: {
        source: input.sourcePath,
        ...(node.meta.lines ? { lines: node.meta.lines } : {}),
        ...(node.meta.pages ? { pages: node.meta.pages } : {}),
      },
    };
    if (node.kind === 'file') {
      const meta: NodeMeta = {
        ...base,
        uri: final,
        kind: 'file',
        content_hash: sha256(node.content),
        ...(isTop ? top : { bytes: Buffer.byteLength(node.content) }),
        ...(node.summary && !parsed.summary ? offlineSummaryFields(node.summary) : summary),
      };
      await input.fs.writeFile(staging, node.content, meta);
      return;
    }
    const meta: NodeMeta = {
      ...base,
      uri: final,
      kind: 'dir',
      document: true,
      content_hash: isTop ? input.sourceHash : undefined,
      ...(isTop ? top : {}),
      summary_status: 'owed',
      summary_reason: 'document sections await the summarizer',
    };
    await input.fs.mkdir(staging);
    await input.fs.writeMeta(staging, meta);
    for (const child of node.children) {
      const isDir = child.kind === 'dir';
      await write(child, childUri(staging, child.name, isDir), childUri(final, child.name, isDir), false);
    }
  };

  const isDir = parsed.node.kind === 'dir';
  await write(parsed.node, asKind(input.stagingUri, isDir), asKind(input.finalUri, isDir), true);
  return nodeCount;
}

function summaryFields(parsed: ParsedFile): Pick<NodeMeta, 'abstract' | 'overview' | 'summarizer'> & { summary_status: SummaryStatus; summary_reason: string } {
  if (parsed.summary) {
    // The only summary a parser writes is a code file's skeleton (ast mode).
    return { abstract: parsed.summary.abstract, overview: parsed.summary.overview, summary_status: 'done', summary_reason: parsed.summary.method, summarizer: { kind: 'ast-skeleton' } };
  }
  return { summary_status: 'owed', summary_reason: parsed.summaryOwed ?? 'awaits the summarizer' };
}

/** A file's L0/L1 made at parse time by the extractive summarizer: what the DAG would have written. */
function offlineSummaryFields(texts: { abstract: string; overview: string }): Pick<NodeMeta, 'abstract' | 'overview' | 'summarizer' | 'summary_status' | 'summary_reason'> {
  return { abstract: texts.abstract, overview: texts.overview, summary_status: 'done', summary_reason: EXTRACTIVE_ID, summarizer: EXTRACTIVE_PROVENANCE };
}

export function countNodes(node: ParsedNode): number {
  return node.kind === 'file' ? 1 : 1 + node.children.reduce((sum, child) => sum + countNodes(child), 0);
}

export function asKind(uri: string, isDir: boolean): string {
  const bare = uri.endsWith('/') ? uri.slice(0, -1) : uri;
  return isDir ? `${bare}/` : bare;
}
