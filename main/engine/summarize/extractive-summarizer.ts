/**
 * The offline NodeSummarizer: the embedded extractive summarizer behind the same interface as
 * the LLM one, so every feature works with no key and no network.
 */
import { summarizeDirectory } from './extractive-directory.js';
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
        input.children.map((c) => ({ name: c.name, abstract: c.abstract, category: c.category, isDirectory: c.is_directory, overview: c.overview })),
        { dirName: input.name },
      );
      return { abstract, overview, categories: categoriesOf(input.children), usage: NO_USAGE, llm: false };
    },
  };
}
