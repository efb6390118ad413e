/**
 * A NodeSummarizer backed by a chat model: one `completeJson` call per file or directory.
 * Prompts ask for the language of the content, an abstract short enough for an L0 line, and a
 * structured Markdown overview for L1.
 */
import type { ChatMessage, LanguageModel } from '../ports/language-model.js';
import {
  DirectorySummarySchema,
  FileSummarySchema,
  MAX_ABSTRACT_CHARS,
  type DirectorySummaryInput,
  type FileSummaryInput,
  type NodeSummarizer,
} from './types.js';

/**
 * The version of the prompts below, recorded in every meta an LLM summary writes. Raise it when
 * a change to the prompts makes better summaries: `cairn summarize --upgrade` then redoes the
 * summaries older prompts wrote (a different model alone is not a reason to).
 */
export const SUMMARY_PROMPT_VERSION = 1;

const SYSTEM = [
  'You write summaries for a layered context tree that AI agents read before they open files.',
  'Always answer in the language the content is written in (Chinese content gets a Chinese summary).',
  `"abstract": one or two sentences, at most ${MAX_ABSTRACT_CHARS - 56} characters, saying what this is and what it is for; no preamble like "This file".`,
  '"overview": structured Markdown (at most about 3000 characters): a short heading, then bullet points on the main topics, key facts, names and decisions, so a reader can decide whether to open it.',
  'Answer with JSON only.',
].join('\n');

/** The chat messages of a file summary (also what the estimate counts). */
export function fileSummaryMessages(input: Pick<FileSummaryInput, 'format' | 'language' | 'name' | 'uri' | 'skeleton' | 'text'>): ChatMessage[] {
  return [
    { role: 'system', content: SYSTEM },
    {
      role: 'user',
      content: [
        `Summarize the ${input.format}${input.language ? ` (${input.language})` : ''} node "${input.name}" (${input.uri}).`,
        input.skeleton ? `Its code skeleton:\n${input.skeleton}\n` : '',
        'Content:',
        '<<<',
        input.text,
        '>>>',
        'Return {"abstract": string, "overview": string}.',
      ]
        .filter(Boolean)
        .join('\n'),
    },
  ];
}

/** The chat messages of a directory summary (also what the estimate counts). */
export function directorySummaryMessages(input: Pick<DirectorySummaryInput, 'name' | 'uri' | 'children'>): ChatMessage[] {
  const listing = input.children
    .map((child) => `- ${child.is_directory ? `${child.name}/` : child.name} [${child.category}]: ${child.abstract.replace(/\s+/g, ' ')}`)
    .join('\n');
  return [
    { role: 'system', content: SYSTEM },
    {
      role: 'user',
      content: [
        `Summarize the directory "${input.name}" (${input.uri}) from its ${input.children.length} children and their abstracts:`,
        listing,
        'Return {"abstract": string, "overview": string, "categories": string[]} where categories are the few kinds of content it holds.',
      ].join('\n'),
    },
  ];
}

export function llmSummarizer(model: LanguageModel): NodeSummarizer {
  return {
    id: `llm:${model.modelId}`,
    provenance: { kind: 'llm', model: model.modelId, prompt_version: SUMMARY_PROMPT_VERSION },

    async summarizeFile(input: FileSummaryInput) {
      const messages = fileSummaryMessages(input);
      const { value, usage } = await model.completeJson({ messages, schema: FileSummarySchema, schemaName: 'file_summary', signal: input.signal, temperature: 0.2 });
      return { abstract: value.abstract, overview: value.overview, usage, llm: true };
    },

    async summarizeDirectory(input: DirectorySummaryInput) {
      const messages = directorySummaryMessages(input);
      const { value, usage } = await model.completeJson({ messages, schema: DirectorySummarySchema, schemaName: 'directory_summary', signal: input.signal, temperature: 0.2 });
      return { abstract: value.abstract, overview: value.overview, categories: value.categories, usage, llm: true };
    },
  };
}
