/**
 * The names Home, the Live DAG and the CLI give to what a tree holds, from the DAG's node counts:
 *
 * - files: the files of the source that were ingested; a long document split into sections is one
 *   file (it is a directory node of the tree, `document` in its meta);
 * - sections: the parts split documents became (file nodes under a document);
 * - directories: the folders of the source, the ingested root included.
 *
 * @example
 * treeCounts({ dirs_total: 86, dirs_done: 86, files_total: 655, files_done: 655, documents_total: 85, documents_done: 85, sections_total: 255, sections_done: 255, llm_calls: 0 });
 * // { directories: { done: 1, total: 1 }, files: { done: 485, total: 485 }, sections: { done: 255, total: 255 } }
 */
import type { DagCounts } from './contracts/api.js';

export interface Tally {
  done: number;
  total: number;
}

export interface TreeCounts {
  directories: Tally;
  files: Tally;
  sections: Tally;
}

export function treeCounts(counts: DagCounts): TreeCounts {
  const documents = { done: counts.documents_done ?? 0, total: counts.documents_total ?? 0 };
  const sections = { done: counts.sections_done ?? 0, total: counts.sections_total ?? 0 };
  return {
    directories: { done: counts.dirs_done - documents.done, total: counts.dirs_total - documents.total },
    files: { done: counts.files_done - sections.done + documents.done, total: counts.files_total - sections.total + documents.total },
    sections,
  };
}
