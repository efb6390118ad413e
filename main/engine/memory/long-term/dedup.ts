/**
 * The rule-based dedup decision: what committing a candidate does to the memories of its
 * category. It never loses a fact: a candidate is dropped ('none') only when it adds no word
 * and no word pair to a memory; a merge keeps every sentence of both; a contradiction replaces
 * only the contradicted sentences, and the store records the memory as it was ("before").
 *
 * Thresholds (why these values):
 * - DUPLICATE_COVERAGE = 1: 'none' only when every term and adjacent term pair of the candidate
 *   is already in the memory. Any lower value would let a new detail ("in the morning") vanish.
 * - MERGE_SIMILARITY = 0.5 on `0.7 · cosine + 0.3 · keyword Jaccard` (cosine alone when either
 *   side has no keywords): the processor's keywords name the topic, the cosine the wording. Two
 *   statements of one topic ("Ana uses VS Code", "Ana uses VS Code with the Vim keymap") score
 *   about 0.7; memories that share only a name ("Ana uses VS Code", "Ana drinks green tea") about 0.1. Merging keeps both statements,
 *   so a merge too many costs tidiness, never a fact.
 * - CONTRADICTION_TOPIC = 0.6 (similarity.ts): two sentences contradict when a negation of what
 *   the other states, an antonym, different dates or numbers (VALUE_TOPIC = 0.8) or (for
 *   preference and profile) a change cue ("now", "instead", 改用) separates sentences that are
 *   otherwise about the same thing. A contradiction is reported with both sources.
 */
import type { ChangeCause } from '../../../../shared/memory-change-cause.js';
import type { LongTermMemory } from '../../../../shared/types/memory.js';
import { cosine, coverage, keywordOverlap, sentenceContradiction, sentenceKey, splitSentences, termVector, type Contradiction } from './similarity.js';
import type { MemoryCandidate } from './types.js';

export const DUPLICATE_COVERAGE = 1;
export const MERGE_SIMILARITY = 0.5;
const COSINE_WEIGHT = 0.7;

/** What committing a candidate does, and why (shared/memory-change-cause.ts: the store says it in English as the change's reason). */
export type Decision =
  | { op: 'add'; cause: ChangeCause }
  | { op: 'none'; target: LongTermMemory; score: number; cause: ChangeCause }
  | { op: 'update'; target: LongTermMemory; score: number; patch: MemoryPatch; cause: ChangeCause };

/** What an update changes; message ids, keywords, chains and clusters are always unioned by the store. */
export interface MemoryPatch {
  title: string;
  content: string;
  keywords: string[];
}

export function memoryText(m: { title: string; content: string }): string {
  return `${m.title}\n${m.content}`;
}

/** How alike a candidate and a memory are: 0.7 · cosine + 0.3 · keyword Jaccard. */
export function similarity(candidate: MemoryCandidate, memory: LongTermMemory): number {
  const cos = cosine(termVector(memoryText(candidate)), termVector(memoryText(memory)));
  if (candidate.keywords.length === 0 || memory.keywords.length === 0) return cos;
  return COSINE_WEIGHT * cos + (1 - COSINE_WEIGHT) * keywordOverlap(candidate.keywords, memory.keywords);
}

/** The contradictions between a memory's sentences (title included) and a candidate's. */
export function contradictions(memory: LongTermMemory, candidate: MemoryCandidate): Contradiction[] {
  const older = [memory.title, ...splitSentences(memory.content)];
  const newer = [candidate.title, ...splitSentences(candidate.content)];
  const found: Contradiction[] = [];
  for (const o of older) {
    for (const n of newer) {
      const c = sentenceContradiction(o, n, memory.category);
      if (c) {
        found.push(c);
        break;
      }
    }
  }
  return found;
}

/** Decides add, none or update for one candidate against the memories of its category. */
export function decide(candidate: MemoryCandidate, memories: LongTermMemory[]): Decision {
  const scored = memories
    .filter((m) => m.category === candidate.category)
    .map((m) => ({ memory: m, score: similarity(candidate, m), found: contradictions(m, candidate) }))
    .sort((a, b) => b.score - a.score || a.memory.id.localeCompare(b.memory.id));

  // A contradiction wins over everything: "does not like X" restates "likes X" word for word.
  const contradicted = scored.find((s) => s.found.length > 0);
  if (contradicted) return replace(contradicted.memory, candidate, contradicted.score, contradicted.found);

  for (const { memory, score } of scored) {
    const covered = coverage(memoryText(candidate), memoryText(memory) + '\n' + memory.keywords.join(' '));
    if (covered >= DUPLICATE_COVERAGE) {
      return { op: 'none', target: memory, score, cause: { code: 'identical', memory: named(memory), score } };
    }
  }

  const best = scored[0];
  if (best && best.score >= MERGE_SIMILARITY) {
    return { op: 'update', target: best.memory, score: best.score, patch: merge(best.memory, candidate), cause: { code: 'merged', memory: named(best.memory), score: best.score } };
  }
  return { op: 'add', cause: best ? { code: 'new', memory: named(best.memory), score: best.score } : { code: 'new' } };
}

/** Both memories' statements: the memory's sentences, then the candidate's sentences it does not already have. */
export function merge(memory: LongTermMemory, candidate: MemoryCandidate): MemoryPatch {
  const known = new Set([memory.title, ...splitSentences(memory.content)].map(sentenceKey));
  const added = splitSentences(candidate.content).filter((s) => !known.has(sentenceKey(s)));
  // The candidate's title is a statement too; keep it when it says something the memory does not.
  if (!known.has(sentenceKey(candidate.title)) && coverage(candidate.title, memoryText(memory) + '\n' + added.join('\n')) < 1) added.unshift(candidate.title);
  return {
    title: memory.title,
    content: added.length > 0 ? `${memory.content.trimEnd()}\n\n${added.join(' ')}` : memory.content,
    keywords: union(memory.keywords, candidate.keywords),
  };
}

function replace(memory: LongTermMemory, candidate: MemoryCandidate, score: number, found: Contradiction[]): Decision {
  const contradictedKeys = new Set(found.map((c) => sentenceKey(c.older)));
  const kept = splitSentences(memory.content).filter((s) => !contradictedKeys.has(sentenceKey(s)));
  const known = new Set(kept.map(sentenceKey));
  const added = splitSentences(candidate.content).filter((s) => !known.has(sentenceKey(s)));
  const content = [kept.join(' '), added.join(' ')].filter((p) => p.length > 0).join('\n\n');
  const titleContradicted = contradictedKeys.has(sentenceKey(memory.title));
  const how = found.map((c) => `${c.kind}: ${c.detail}, "${c.older}" vs "${c.newer}"`).join('; ');
  return {
    op: 'update',
    target: memory,
    score,
    patch: {
      title: titleContradicted ? candidate.title : memory.title,
      content: content || candidate.content,
      // The contradicted memory's keywords may name the old value ("dark"); the candidate's name the new one.
      keywords: union(candidate.keywords, memory.keywords.filter((k) => !found.some((c) => mentions(c.older, k) && !mentions(c.newer, k)))),
    },
    cause: { code: 'contradiction', memory: named(memory), detail: `${how}; sources: ${source(memory)} vs ${source(candidate)}` },
  };
}

/** Where a statement came from, for a person checking a contradiction: its messages and conversation. */
function source(m: { message_ids: string[]; conversation_id?: string }): string {
  return `messages ${m.message_ids.join(', ')}${m.conversation_id ? ` of ${m.conversation_id}` : ''}`;
}

function mentions(sentence: string, keyword: string): boolean {
  return ` ${sentenceKey(sentence)} `.includes(` ${sentenceKey(keyword)} `);
}

export function union(a: readonly string[], b: readonly string[]): string[] {
  return [...new Set([...a, ...b])];
}

/** The other memory as a change's cause names it: its id, and its title for a person. */
export function named(memory: LongTermMemory): { id: string; title: string } {
  return { id: memory.id, title: memory.title };
}
