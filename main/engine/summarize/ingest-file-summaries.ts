/**
 * Offline file summaries made where the file is parsed (a parse worker), not by the DAG run
 * afterwards: with no LLM configured the run's summarizer is the extractive one, whose L0/L1 of
 * a file depends on its text, name and format only. Made here, the file's meta is written once
 * (with its summary), its L0/L1 reach the index with its L2, and the work runs on the parse
 * workers' cores while the main thread moves trees. The DAG then finds the file done and only
 * summarizes directories. The result is what the DAG would have written: the same text cut
 * (DEFAULT_MAX_INPUT_CHARS), the same name (the node's), format and clipping.
 */
import type { ParsedFile, ParsedNode } from '../parse/types.js';
import { extractiveFileSummary } from './extractive-summarizer.js';
import { DEFAULT_MAX_INPUT_CHARS, MAX_ABSTRACT_CHARS, MAX_OVERVIEW_CHARS, clipSummary } from './types.js';

/**
 * Gives every file node of `parsed` that has no summary its extractive L0/L1 (`node.summary`).
 * `name` is the top node's name in the tree (its URI's last segment); sections are named by the
 * parser. A file the summarizer fails on is left owed: the DAG tries it again, as before.
 */
export function addIngestFileSummaries(parsed: ParsedFile, name: string): ParsedFile {
  // A code file's skeleton is its summary already (the DAG would not redo it either).
  if (parsed.summary) return parsed;
  return { ...parsed, node: summarized(parsed.node, name, parsed.sourceFormat) };
}

function summarized(node: ParsedNode, name: string, format: string): ParsedNode {
  if (node.kind === 'dir') return { ...node, children: node.children.map((child) => summarized(child, child.name, format)) };
  const text = node.content.length > DEFAULT_MAX_INPUT_CHARS ? node.content.slice(0, DEFAULT_MAX_INPUT_CHARS) : node.content;
  try {
    const { abstract, overview } = extractiveFileSummary(text, name, format);
    return { ...node, summary: { abstract: clipSummary(abstract, MAX_ABSTRACT_CHARS), overview: clipSummary(overview, MAX_OVERVIEW_CHARS) } };
  } catch {
    return node;
  }
}
