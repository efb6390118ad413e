/**
 * What summarizing a tree with an LLM would cost, before any call is made: it walks the tree the
 * way the DAG will (directories whose summary is current are reused, files that have an abstract
 * are not summarized again, directories above `maxChildren` go in batches plus a merge) and
 * counts the tokens of the very prompts the LLM summarizer would send.
 *
 * Two things are unknown before the run and are estimated: the length of each answer
 * (ESTIMATED_OUTPUT_TOKENS, a typical abstract plus overview) and the abstracts the parents will
 * read (ESTIMATED_ABSTRACT_TOKENS each, for children not yet summarized).
 *
 * With `redo` it estimates an upgrade (or `--force`) the way the DAG runs one: it descends into
 * every directory, counts the nodes `redo` picks and the directories above them.
 */
import { isDirectoryUri, uriName } from '../../../shared/uri.js';
import type { NodeMeta } from '../../../shared/types/node.js';
import { countTokens } from '../../lib/tokens.js';
import type { ContextFS } from '../tree/context-fs.js';
import { directorySummaryMessages, fileSummaryMessages } from './llm-summarizer.js';
import { isCurrent } from './dag.js';
import { DEFAULT_MAX_INPUT_CHARS } from './types.js';
import type { ChatMessage } from '../ports/language-model.js';

/** A typical answer: an abstract of about 200 characters and an overview of about 1,200. */
export const ESTIMATED_OUTPUT_TOKENS = 400;
/** A typical abstract, as a parent reads it. */
export const ESTIMATED_ABSTRACT_TOKENS = 60;
/** Chat framing per message (role markers), as OpenAI counts it. */
const TOKENS_PER_MESSAGE = 4;

export interface SummaryEstimate {
  root: string;
  /** Files that would get an LLM summary. */
  files: number;
  /** Directories that would get one (each is one call, or batches plus a merge). */
  directories: number;
  /** Directories whose summary is current and would be reused. */
  reused_directories: number;
  calls: number;
  input_tokens: number;
  output_tokens: number;
}

export interface EstimateOptions {
  /** Children per directory call before batching (the DAG's max_children). */
  maxChildren?: number;
  /** Characters of a file the summarizer reads (the DAG's maxInputChars). */
  maxInputChars?: number;
  /** The DAG's `redo`: summaries to write again although they are current. */
  redo?: (meta: NodeMeta) => boolean;
}

function promptTokens(messages: ChatMessage[]): number {
  return messages.reduce((sum, m) => sum + TOKENS_PER_MESSAGE + countTokens(m.content), 0);
}

export async function estimateSummaries(fs: ContextFS, rootUri: string, options: EstimateOptions = {}): Promise<SummaryEstimate> {
  const maxChildren = options.maxChildren ?? 50;
  const maxInputChars = options.maxInputChars ?? DEFAULT_MAX_INPUT_CHARS;
  const redo = options.redo;
  const { uri: root, kind } = await fs.canonicalUri(rootUri);
  const estimate: SummaryEstimate = { root, files: 0, directories: 0, reused_directories: 0, calls: 0, input_tokens: 0, output_tokens: 0 };

  const call = (inputTokens: number) => {
    estimate.calls += 1;
    estimate.input_tokens += inputTokens;
    estimate.output_tokens += ESTIMATED_OUTPUT_TOKENS;
  };

  /** Counts a file's call when it has no abstract yet; returns the abstract its parent will read (null: a new one). */
  const file = async (uri: string): Promise<string | null> => {
    const meta = await fs.readMeta(uri).catch(() => null);
    if (meta?.abstract && !redo?.(meta)) return meta.abstract;
    estimate.files += 1;
    call(await fileCallTokens(fs, uri, meta, maxInputChars));
    return null;
  };

  /** A current directory's summary, counted as reused; null when it has none. */
  const reuse = async (uri: string): Promise<string | null> => {
    const abstract = await fs.read(uri, 0).catch(() => null);
    if (abstract !== null) estimate.reused_directories += 1;
    return abstract;
  };

  /** Counts a directory's calls (and those below it); returns its abstract when it is reused (null: a new one). */
  const directory = async (uri: string): Promise<string | null> => {
    const meta = await fs.readMeta(uri).catch(() => null);
    if (!redo && isCurrent(meta)) {
      const abstract = await reuse(uri);
      if (abstract !== null) return abstract;
    }
    const entries = await fs.ls(uri).catch(() => []);
    const children: Array<{ name: string; abstract: string | null; is_directory: boolean }> = [];
    for (const entry of entries) {
      const abstract = entry.kind === 'dir' ? await directory(entry.uri) : await file(entry.uri);
      children.push({ name: uriName(entry.uri), abstract, is_directory: entry.kind === 'dir' });
    }
    if (children.length === 0) return null; // The DAG gives an empty directory no summary.
    if (redo && meta && isCurrent(meta) && !redo(meta) && children.every((c) => c.abstract !== null)) {
      const abstract = await reuse(uri);
      if (abstract !== null) return abstract;
    }
    estimate.directories += 1;
    const listTokens = (list: typeof children, name: string) => {
      const known = list.map((c) => ({ uri: '', name: c.name, abstract: c.abstract ?? '', category: 'document', is_directory: c.is_directory, has_abstract: true }));
      const unknown = list.filter((c) => c.abstract === null).length;
      return promptTokens(directorySummaryMessages({ name, uri, children: known })) + unknown * ESTIMATED_ABSTRACT_TOKENS;
    };
    if (children.length > maxChildren) {
      const parts: typeof children = [];
      for (let i = 0; i < children.length; i += maxChildren) {
        call(listTokens(children.slice(i, i + maxChildren), `${uriName(uri)} (part ${parts.length + 1})`));
        parts.push({ name: `part ${parts.length + 1}`, abstract: null, is_directory: true });
      }
      call(listTokens(parts, uriName(uri)));
    } else {
      call(listTokens(children, uriName(uri)));
    }
    return null;
  };

  if (kind === 'file' || !isDirectoryUri(root)) await file(root);
  else await directory(root);
  return estimate;
}

/** Tokens of a file's summary prompt, from the meta's token count when the text would be read whole. */
async function fileCallTokens(fs: ContextFS, uri: string, meta: NodeMeta | null, maxInputChars: number): Promise<number> {
  const frame = promptTokens(
    fileSummaryMessages({ format: meta?.source_format ?? 'text', language: meta?.language, name: uriName(uri), uri, text: '', skeleton: meta?.skeleton_text }),
  );
  const bytes = meta?.bytes;
  if (meta?.tokens !== undefined && bytes !== undefined && bytes <= maxInputChars) return frame + meta.tokens;
  const text = await fs.readFileContent(uri).catch(() => '');
  return frame + countTokens(text.length > maxInputChars ? text.slice(0, maxInputChars) : text);
}
