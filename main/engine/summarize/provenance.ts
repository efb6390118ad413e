/**
 * Who wrote a summary, and whether the summarizer configured now would write a better one
 * (`cairn summarize --upgrade`, the Explorer's "Upgrade summaries").
 *
 * Strength: the seed's fallback (a count of children by category) < the offline summarizers
 * (extractive, or a code file's skeleton) < an LLM. Between two LLM summaries only the prompt
 * version counts: an older prompt is weaker, another model is not (redoing a tree because the
 * model's name changed would spend a whole tree's tokens for a summary of the same kind).
 *
 * @example
 * const redo = redoPredicate('upgrade', { kind: 'llm', model: 'gpt-4o-mini', prompt_version: 1 });
 * redo(extractiveFileMeta); // true
 * redo(llmMetaOfAnotherModel); // false
 */
import type { NodeMeta, SummarizerProvenance } from '../../../shared/types/node.js';
import { isWithinUri } from '../../../shared/uri.js';

/** What `--upgrade` and `--force` redo: summaries a weaker summarizer wrote, or every summary. */
export type RedoMode = 'upgrade' | 'force';

const RANK: Record<SummarizerProvenance['kind'], number> = { fallback: 0, extractive: 1, 'ast-skeleton': 1, llm: 2 };

/**
 * The prompt version of LLM summaries written before the version was recorded: the prompts did
 * not change when it started to be, so they are version 1.
 */
const UNRECORDED_PROMPT_VERSION = 1;

/**
 * Who wrote this node's summary: as recorded, or read from the older fields (`summary_reason`
 * named the summarizer: "llm:<model>", "extractive", "skeleton"). Null for nodes no summarizer
 * wrote (a memory's own text, a node still owed).
 */
export function provenanceOf(meta: NodeMeta): SummarizerProvenance | null {
  if (meta.summary_status !== 'done' && meta.summary_status !== 'fallback') return null;
  if (meta.summarizer) return meta.summarizer;
  const reason = meta.summary_reason ?? '';
  if (meta.summary_status === 'fallback') return reason.startsWith('extractive') ? { kind: 'extractive' } : { kind: 'fallback' };
  if (reason.startsWith('llm:')) return { kind: 'llm', model: reason.slice(4), prompt_version: UNRECORDED_PROMPT_VERSION };
  if (reason === 'skeleton') return { kind: 'ast-skeleton' };
  if (reason === 'extractive') return { kind: 'extractive' };
  return null;
}

/** Whether `now` writes a better summary than the one `written` wrote. */
export function isWeaker(written: SummarizerProvenance, now: SummarizerProvenance): boolean {
  if (RANK[written.kind] !== RANK[now.kind]) return RANK[written.kind] < RANK[now.kind];
  if (written.kind === 'llm' && now.kind === 'llm') return (written.prompt_version ?? UNRECORDED_PROMPT_VERSION) < (now.prompt_version ?? UNRECORDED_PROMPT_VERSION);
  return false;
}

/** Which summarized nodes a run redoes (a fallback is weaker than any summarizer, so an upgrade retries it). */
export function redoPredicate(mode: RedoMode, now: SummarizerProvenance): (meta: NodeMeta) => boolean {
  return (meta) => {
    const written = provenanceOf(meta);
    if (written === null) return false;
    return mode === 'force' || isWeaker(written, now);
  };
}

/** `picks`, limited to the nodes at or under `within`. */
export function redoWithin(within: string, picks: (meta: NodeMeta) => boolean): (meta: NodeMeta) => boolean {
  return (meta) => isWithinUri(within, meta.uri) && picks(meta);
}
