/**
 * The conversational recall evaluation (issue 19, item 2): multi-session conversations between
 * two named speakers, each with hand-written questions and the messages that answer them,
 * ingested and searched exactly as the product does it, and recall@10 counted the way the
 * held-out judge counts it.
 *
 * - Ingest: each conversation goes into its own fresh workspace (a real ContextFS and a real
 *   LanceDB index in a temporary folder, local embedder) through the engine's `sessions:import`
 *   with `commit: true`, as `cairn sessions import --commit` does: the message records, and the
 *   long-term memories the commit stores, are what the index holds.
 * - Search: the engine's `search:query` (what `cairn search` and MCP's `search` call), hybrid,
 *   no scope, top 10 results, as an agent would ask.
 * - Counting: walk the ranked results in order and each result's hits in order; every hit adds
 *   the message ids of its provenance; keep the first 10 distinct ids. A question's recall is the
 *   share of its evidence among them; a kind's recall is the mean over its questions. A hit that
 *   cites 30 messages spends the whole budget.
 * - Reference: plain BM25 over the message records (the same `search:query`, mode fts, scope
 *   session), counted the same way.
 *
 * Dev set layout (test/fixtures/recall-dev): `{id}.json` (Cairn conversation JSON) and
 * `{id}.questions.json` (`{conversation, questions: [{id, kind, question, answer, evidence}]}`).
 * Conversations whose number ends odd are the tune half, even the test half. The older retrieval
 * dev set (test/fixtures/retrieval: conversations/ and questions.json, evidence `{conv}/{msg}`)
 * is read too, as one "dev" half, its question `type` standing for the kind.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine, type Engine } from '../../main/engine/engine.js';
import { inProcessParseRunner } from '../../main/engine/parse/runner.js';
import { lazySearchIndex } from '../../main/host/open-index.js';
import type { SearchMode, SearchResponse } from '../../shared/contracts/api.js';
import type { Conversation } from '../../shared/types/memory.js';

export type Half = 'tune' | 'test' | 'dev';

export interface RecallQuestion {
  id: string;
  kind: string;
  question: string;
  answer?: string;
  /** Message ids of this question's conversation (`s3:5`). */
  evidence: string[];
}

export interface RecallConversation {
  conversation: Conversation;
  half: Half;
  questions: RecallQuestion[];
}

/** tune for an odd trailing number of the id's first part (`rc03-...`), test for an even one. */
export function halfOf(id: string): Half {
  const match = /^[a-z]*(\d+)/i.exec(id);
  if (!match) return 'dev';
  return Number(match[1]) % 2 === 1 ? 'tune' : 'test';
}

/** Reads a dev set folder in either layout (see the header). */
export function loadRecallSet(dir: string): RecallConversation[] {
  if (existsSync(join(dir, 'questions.json')) && existsSync(join(dir, 'conversations'))) return loadRetrievalLayout(dir);
  const out: RecallConversation[] = [];
  for (const file of readdirSync(dir).sort()) {
    if (!file.endsWith('.questions.json')) continue;
    const labels = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { conversation: string; questions: RecallQuestion[] };
    const conversationFile = join(dir, file.replace(/\.questions\.json$/, '.json'));
    if (!existsSync(conversationFile)) continue;
    const conversation = JSON.parse(readFileSync(conversationFile, 'utf8')) as Conversation;
    out.push({ conversation, half: halfOf(conversation.id), questions: labels.questions });
  }
  return out;
}

function loadRetrievalLayout(dir: string): RecallConversation[] {
  const all = JSON.parse(readFileSync(join(dir, 'questions.json'), 'utf8')).questions as { id: string; source: string; type: string; question: string; evidence: string[] }[];
  return readdirSync(join(dir, 'conversations'))
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      const conversation = JSON.parse(readFileSync(join(dir, 'conversations', f), 'utf8')) as Conversation;
      const prefix = `${conversation.id}/`;
      const questions = all
        .filter((q) => q.source === 'conv' && q.evidence.every((e) => e.startsWith(prefix)))
        .map((q) => ({ id: q.id, kind: q.type, question: q.question, evidence: q.evidence.map((e) => e.slice(prefix.length)) }));
      return { conversation, half: 'dev' as const, questions };
    });
}

/** Every evidence id must be a message of its conversation: a typo would silently count as a miss. */
export function checkEvidence(set: RecallConversation[]): void {
  const problems: string[] = [];
  for (const { conversation, questions } of set) {
    const ids = new Set(conversation.sessions.flatMap((s) => s.messages.map((m) => m.id)));
    for (const q of questions) for (const id of q.evidence) if (!ids.has(id)) problems.push(`${conversation.id} ${q.id}: ${id}`);
  }
  if (problems.length > 0) throw new Error(`Questions name messages that are not in their conversation: ${problems.join('; ')}`);
}

/** The first `budget` distinct message ids the response cites, in rank order (the judge's count). */
export function citedMessageIds(response: Pick<SearchResponse, 'ranked'>, budget = 10): string[] {
  const ids: string[] = [];
  for (const result of response.ranked) {
    for (const hit of result.hits) {
      for (const id of hit.provenance.message_ids) {
        if (ids.length >= budget) return ids;
        if (!ids.includes(id)) ids.push(id);
      }
    }
  }
  return ids;
}

/** The share of `evidence` among `cited`. */
export function recallOf(evidence: readonly string[], cited: readonly string[]): number {
  if (evidence.length === 0) return 0;
  return evidence.filter((id) => cited.includes(id)).length / evidence.length;
}

export interface QuestionResult {
  conversation: string;
  half: Half;
  id: string;
  kind: string;
  question: string;
  evidence: string[];
  /** Per system: the cited ids and the recall. */
  systems: Record<string, { cited: string[]; recall: number }>;
}

export interface System {
  name: string;
  mode: SearchMode;
  scope?: 'session';
}

/** The product's search (hybrid, everything an agent sees) and the plain BM25 reference. */
export const SYSTEMS: System[] = [
  { name: 'cairn', mode: 'hybrid' },
  { name: 'bm25', mode: 'fts', scope: 'session' },
];

async function withWorkspace<T>(run: (engine: Engine, dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'cairn-eval-recall-'));
  const engine = await createEngine({ workspace: dir, parser: inProcessParseRunner(), index: lazySearchIndex(dir, { idleOptimizeMs: 0 }) });
  try {
    return await run(engine, dir);
  } finally {
    await engine.dispose();
    await rm(dir, { recursive: true, force: true });
  }
}

export interface RunOptions {
  /** Results asked of search:query. Default 10. */
  topK?: number;
  /** Ids kept per question. Default 10. */
  budget?: number;
  systems?: System[];
  onConversation?: (id: string, ms: number) => void;
}

/** Imports each conversation into its own workspace, asks its questions, and scores every system. */
export async function runRecallEval(set: RecallConversation[], options: RunOptions = {}): Promise<{ results: QuestionResult[]; importMs: number; searchMs: number; searches: number }> {
  checkEvidence(set);
  const systems = options.systems ?? SYSTEMS;
  const results: QuestionResult[] = [];
  let importMs = 0;
  let searchMs = 0;
  let searches = 0;
  for (const item of set) {
    const started = performance.now();
    await withWorkspace(async (engine, dir) => {
      const file = join(dir, `${item.conversation.id}.import.json`);
      await writeFile(file, JSON.stringify(item.conversation));
      const importStarted = performance.now();
      await engine.call('sessions:import', { path: file, commit: true });
      importMs += performance.now() - importStarted;
      for (const q of item.questions) {
        const row: QuestionResult = { conversation: item.conversation.id, half: item.half, id: q.id, kind: q.kind, question: q.question, evidence: q.evidence, systems: {} };
        for (const system of systems) {
          const t = performance.now();
          const response = await engine.call('search:query', { query: q.question, mode: system.mode, topK: options.topK ?? 10, ...(system.scope ? { scope: system.scope } : {}) });
          searchMs += performance.now() - t;
          searches += 1;
          const cited = citedMessageIds(response, options.budget ?? 10);
          row.systems[system.name] = { cited, recall: recallOf(q.evidence, cited) };
        }
        results.push(row);
      }
    });
    options.onConversation?.(item.conversation.id, performance.now() - started);
  }
  return { results, importMs, searchMs, searches };
}

export interface Summary {
  /** `${half}` → `${kind}` (and `all`) → system → { n, recall }. */
  [half: string]: Record<string, Record<string, { n: number; recall: number }>>;
}

/** Mean recall per half, kind and system (`all` for every kind). */
export function summarize(results: QuestionResult[]): Summary {
  const out: Summary = {};
  const halves = [...new Set(results.map((r) => r.half))];
  for (const half of halves) {
    const rows = results.filter((r) => r.half === half);
    const kinds = ['all', ...[...new Set(rows.map((r) => r.kind))].sort()];
    out[half] = {};
    for (const kind of kinds) {
      const group = rows.filter((r) => kind === 'all' || r.kind === kind);
      const systems = Object.keys(group[0]?.systems ?? {});
      out[half][kind] = Object.fromEntries(systems.map((s) => [s, { n: group.length, recall: group.reduce((sum, r) => sum + (r.systems[s]?.recall ?? 0), 0) / group.length }]));
    }
  }
  return out;
}

const pct = (x: number) => (x * 100).toFixed(1);

/** One Markdown table per half: a row per kind, a column per system. */
export function formatSummary(summary: Summary): string {
  const blocks: string[] = [];
  for (const [half, kinds] of Object.entries(summary)) {
    const systems = Object.keys(kinds.all ?? {});
    const lines = [`${half}:`, `| kind | n | ${systems.join(' | ')} |`, `|---|---|${systems.map(() => '---|').join('')}`];
    for (const [kind, bySystem] of Object.entries(kinds)) {
      const n = Object.values(bySystem)[0]?.n ?? 0;
      lines.push(`| ${kind} | ${n} | ${systems.map((s) => pct(bySystem[s]?.recall ?? 0)).join(' | ')} |`);
    }
    blocks.push(lines.join('\n'));
  }
  return blocks.join('\n\n');
}
