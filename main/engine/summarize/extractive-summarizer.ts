/**
 * The offline NodeSummarizer: the embedded extractive summarizer behind the same interface as
 * the LLM one, so every feature works with no key and no network.
 */
import { keyTermsOfOverview, summarizeDirectory } from './extractive-directory.js';
import { summarizeText } from './extractive.js';
import { categoriesOf } from './fallback.js';
import type { DirectorySummaryInput, FileSummaryInput, NodeSummarizer } from './types.js';

const NO_USAGE = { inputTokens: 0, outputTokens: 0 };

export function extractiveSummarizer(): NodeSummarizer {
  return {
    id: 'extractive',
    provenance: { kind: 'extractive' },
    maxChildren: Number.POSITIVE_INFINITY,
    async summarizeFile(input: FileSummaryInput) {
      const { abstract, overview } = summarizeText(input.text, { title: input.name, format: input.format });
      return { abstract, overview, usage: NO_USAGE, llm: false };
    },
    async summarizeDirectory(input: DirectorySummaryInput) {
      const { abstract, overview } = summarizeDirectory(
        // A file's L1 counts for its key terms only (its body's subject); a sub-folder's whole L1 is read.
        input.children.map((c) =>
          c.is_directory
            ? { name: c.name, abstract: c.abstract, category: c.category, isDirectory: true, overview: c.overview }
            : { name: c.name, abstract: c.abstract, category: c.category, isDirectory: false, keyTerms: keyTermsOfOverview(c.overview) },
        ),
        { dirName: input.name },
      );
      return { abstract, overview, categories: categoriesOf(input.children), usage: NO_USAGE, llm: false };
    },
  };
}
