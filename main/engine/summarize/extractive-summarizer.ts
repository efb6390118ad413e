/**
 * The offline NodeSummarizer: the embedded extractive summarizer behind the same interface as
 * the LLM one, so every feature works with no key and no network.
 */
import type { SummarizerProvenance } from '../../../shared/types/node.js';
import { summarizeDirectory } from './extractive-directory.js';
import { keyTermsOfOverview } from './extractive-directory-terms.js';
import { summarizeText } from './extractive.js';
import { categoriesOf } from './fallback.js';
import type { DirectorySummaryInput, FileSummaryInput, NodeSummarizer } from './types.js';

const NO_USAGE = { inputTokens: 0, outputTokens: 0 };

/** Its id (a meta's `summary_reason`) and provenance (`summarizer`), also written by the ingest's offline file summaries. */
export const EXTRACTIVE_ID = 'extractive';
export const EXTRACTIVE_PROVENANCE: SummarizerProvenance = { kind: 'extractive' };

/** A file's extractive L0/L1, unclipped: the one computation behind the DAG's and the ingest's. */
export function extractiveFileSummary(text: string, name: string, format: string): { abstract: string; overview: string } {
  const { abstract, overview } = summarizeText(text, { title: name, format });
  return { abstract, overview };
}

export function extractiveSummarizer(): NodeSummarizer {
  return {
    id: EXTRACTIVE_ID,
    provenance: EXTRACTIVE_PROVENANCE,
    maxChildren: Number.POSITIVE_INFINITY,
    async summarizeFile(input: FileSummaryInput) {
      return { ...extractiveFileSummary(input.text, input.name, input.format), usage: NO_USAGE, llm: false };
    },
    async summarizeDirectory(input: DirectorySummaryInput) {
      const { abstract, overview } = summarizeDirectory(
        // A file's L1 counts for its key terms only (its body's subject); a sub-folder's whole L1 is read.
        input.children.map((c) =>
          c.is_directory
            ? { name: c.name, abstract: c.abstract, category: c.category, isDirectory: true, overview: c.overview, ...(c.document ? { document: true } : {}) }
            : { name: c.name, abstract: c.abstract, category: c.category, isDirectory: false, keyTerms: c.keyTerms ?? keyTermsOfOverview(c.overview) },
        ),
        { dirName: input.name, path: input.uri.replace(/^ctx:\/\//, '').split('/').filter(Boolean) },
      );
      return { abstract, overview, categories: categoriesOf(input.children), usage: NO_USAGE, llm: false };
    },
  };
}
