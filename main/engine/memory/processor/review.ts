/**
 * Review before commit (issue 17, item 4): the trigger proposes, the person decides. A proposal
 * is each candidate of an analysis with what committing it would do (a dry run of the store's
 * own decision): add a memory, merge into one, or, for a pinned memory, an update the person
 * may accept. Candidates the person rejected are remembered in `.cairn/memory-rejections.json`,
 * keyed by category and source messages, so the same messages do not propose them again (even
 * after the conversation is imported again with more messages).
 *
 * @example
 * const rejections = await Rejections.open(join(workspace, '.cairn'));
 * rejections.has(candidate); // false
 * await rejections.add([candidate], clock);
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ProposedCandidate } from '../../../../shared/contracts/api.js';
import { CairnError, errorMessage } from '../../../../shared/errors.js';
import { because } from '../../../../shared/memory-change-cause.js';
import type { MemoryChange } from '../../../../shared/types/memory.js';
import type { Clock } from '../../ports/clock.js';
import { writeFileAtomic } from '../../util/atomic-write.js';
import { sha256 } from '../../util/hash.js';
import type { MemoryCandidate } from '../long-term/types.js';
import type { ProposedMemory } from './candidates.js';

export const REJECTIONS_FILE = 'memory-rejections.json';

interface Rejection {
  category: string;
  message_ids: string[];
  conversation_id: string;
  /** What was rejected, for a person reading the file. */
  title: string;
  at: string;
}

/** What identifies a rejected candidate: its category and its source messages, in any order. */
export function rejectionKey(candidate: Pick<MemoryCandidate, 'category' | 'message_ids'>): string {
  return `${candidate.category}\n${[...new Set(candidate.message_ids)].sort().join('\n')}`;
}

/** A candidate's id: the same candidate of the same analysis always gets the same one. */
export function candidateId(candidate: MemoryCandidate): string {
  return `cand_${sha256(`${rejectionKey(candidate)}\n${candidate.title}\n${candidate.content}`).slice(0, 16)}`;
}

export class Rejections {
  private constructor(
    private readonly path: string,
    private readonly entries: Map<string, Rejection>,
  ) {}

  static async open(stateDir: string): Promise<Rejections> {
    const path = join(stateDir, REJECTIONS_FILE);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new Rejections(path, new Map());
      throw error;
    }
    let list: Rejection[];
    try {
      list = (JSON.parse(text) as { rejected: Rejection[] }).rejected;
      if (!Array.isArray(list)) throw new Error('no "rejected" list');
    } catch (error) {
      throw new CairnError('PARSE_FAILED', `${path} is not a list of rejected memory candidates (${errorMessage(error)}): fix or delete it`);
    }
    return new Rejections(path, new Map(list.map((r) => [rejectionKey({ category: r.category as MemoryCandidate['category'], message_ids: r.message_ids }), r])));
  }

  has(candidate: Pick<MemoryCandidate, 'category' | 'message_ids'>): boolean {
    return this.entries.has(rejectionKey(candidate));
  }

  async add(candidates: MemoryCandidate[], clock: Clock): Promise<void> {
    const at = clock.now().toISOString();
    for (const c of candidates) {
      this.entries.set(rejectionKey(c), { category: c.category, message_ids: [...c.message_ids].sort(), conversation_id: c.conversation_id, title: c.title, at });
    }
    await writeFileAtomic(this.path, JSON.stringify({ rejected: [...this.entries.values()] }, null, 2) + '\n', { durable: true });
  }
}

/**
 * Proposals from the candidates and the store's dry-run changes for them (one each, in order).
 * A candidate memory already holds is left out (counted as `known`); one whose target is pinned
 * is an 'update' the trigger never commits by itself.
 */
export function toProposals(proposed: ProposedMemory[], planned: MemoryChange[]): { candidates: ProposedCandidate[]; known: number } {
  const candidates: ProposedCandidate[] = [];
  const ids = new Set<string>();
  // Memories the dry run added for earlier candidates: they exist only if those are accepted too.
  const addedBy = new Map<string, string>();
  let known = 0;
  proposed.forEach((p, i) => {
    const change = planned[i];
    if (!change) throw new CairnError('INTERNAL', `The memory store answered ${planned.length} changes for ${proposed.length} candidates`);
    let id = candidateId(p.candidate);
    for (let n = 2; ids.has(id); n += 1) id = `${candidateId(p.candidate)}_${n}`;
    const withEarlier = change.before ? addedBy.get(change.before.id) : undefined;
    const kind = change.proposed ? 'update' : change.op === 'add' || withEarlier ? 'add' : change.op === 'update' ? 'merge' : null;
    if (kind === null) {
      known += 1;
      return;
    }
    ids.add(id);
    if (change.op === 'add') addedBy.set(change.memory_id, id);
    const after = change.proposed ?? (kind === 'merge' ? change.after : undefined);
    candidates.push({
      id,
      kind,
      candidate: p.candidate,
      auto: p.autoCommit && kind !== 'update',
      ...(kind !== 'add' && change.before ? { before: change.before } : {}),
      ...(after ? { after } : {}),
      // Why, in English and as a structure (the Sessions view says it in the page's language).
      ...(withEarlier && change.before ? because({ code: 'with_candidate', memory: { id: withEarlier, title: change.before.title } }) : { reason: change.reason, ...(change.cause ? { cause: change.cause } : {}) }),
    });
  });
  return { candidates, known };
}
