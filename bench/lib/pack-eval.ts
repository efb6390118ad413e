/**
 * The context-pack evaluation (issue 19, item 3): is the passage or message that answers a
 * question inside the pack `cairn context` would give for it? The dev set, records and LanceDB
 * index are the retrieval evaluation's (retrieval-eval.ts); each question's pack is built as the
 * `context:pack` handler builds it (hybrid hits, top 40, all levels, the hybrid relevance floor,
 * the chains the rule tracks find in the conversations), then the pack's kept blocks and chain
 * summaries are checked for the question's evidence.
 *
 * A question counts as answered when every evidence id it names is in the pack (a multi-hop
 * question needs all of its passages), in whole or shortened (its leading sentences). The pack is
 * its whole text (headings, provenance, legend): when that runs over the budget, the eval asks
 * again with the largest budget whose text fits, so packs of any version are compared at the same size.
 */
import { buildRecords, evidenceIds, loadDevSet, type Question } from './retrieval-eval.js';
import { openLanceStore } from '../../main/adapters/store/lancedb/index.js';
import { createSearchIndex, type SearchHit } from '../../main/engine/index/search-index.js';
import { rankHits, WEAK_BELOW, type RankInput } from '../../main/engine/index/rank.js';
import type { EmbeddingModel } from '../../main/engine/ports/embedding-model.js';
import { buildContextPack, relevantHits, type MessageRef, type PackSources } from '../../main/engine/compress/context-pack.js';
import { extractChainsWithRules } from '../../main/engine/memory/chains/track-b.js';
import { answerKindsOf } from '../../main/engine/compress/answer-kinds.js';
import type { ExtractedChain } from '../../shared/types/memory.js';
import type { CompressionResult } from '../../shared/types/compress.js';

export interface PackEvalOptions {
  fixtures: string;
  embedder: EmbeddingModel;
  indexDir: string;
  budget: number;
  /** Search hits gathered before compressing (the handler's default). */
  topK?: number;
  /** The pack's relevance floor; PACK_FLOOR when absent. */
  floor?: number;
  /** Top hits given their room first; RESERVED_HITS when absent. */
  reservedHits?: number;
}

export interface PackGroup {
  questions: number;
  /** Share of questions whose every evidence id is in the pack. */
  answered: number;
  /** Share whose evidence is among the search hits at all (what a pack could hold). */
  inHits: number;
  /** Mean tokens of the pack's text (Markdown with refs and legend). */
  meanTokens: number;
  /** Blocks cut inside a sentence (ending in "…"), per pack. */
  cutPerPack: number;
}

export interface PackEvalReport {
  budget: number;
  overall: PackGroup;
  groups: Record<string, PackGroup>;
  /** Question ids whose answer the search found but the pack left out. */
  lostInPack: string[];
}

interface Row {
  q: Question;
  answered: boolean;
  inHits: boolean;
  tokens: number;
  cut: number;
}

function group(rows: Row[]): PackGroup {
  const n = rows.length || 1;
  return {
    questions: rows.length,
    answered: rows.filter((r) => r.answered).length / n,
    inHits: rows.filter((r) => r.inHits).length / n,
    meanTokens: rows.reduce((sum, r) => sum + r.tokens, 0) / n,
    cutPerPack: rows.reduce((sum, r) => sum + r.cut, 0) / n,
  };
}

export async function runPackEval(options: PackEvalOptions): Promise<PackEvalReport> {
  const { countTokens } = await import('../../main/lib/tokens.js');
  const set = loadDevSet(options.fixtures);
  const known = evidenceIds(set);
  for (const q of set.questions) for (const id of q.evidence) if (!known.has(id)) throw new Error(`${q.id} names unknown evidence ${id}`);
  const { records, evidenceOf } = buildRecords(set);
  const neighbours = new Map<string, { before: MessageRef[]; after: MessageRef[] }>();
  const messageRecords = records.filter((r) => r.level === 2 && r.context_type === 'session' && r.provenance.message_ids?.length === 1);
  messageRecords.forEach((r, i) => {
    const ref = (other: (typeof messageRecords)[number] | undefined): MessageRef[] =>
      other && other.parent_uri === r.parent_uri ? [{ uri: other.uri, message_id: other.provenance.message_ids?.[0] as string }] : [];
    neighbours.set(r.uri, { before: ref(messageRecords[i - 1]), after: ref(messageRecords[i + 1]) });
  });
  const texts = new Map(records.map((r) => [`${r.uri}#${r.level}`, r.text]));
  const chainsByConversation = new Map<string, ExtractedChain[]>();
  for (const { conversation } of set.conversations) chainsByConversation.set(conversation.id, extractChainsWithRules(conversation, { now: () => new Date('2024-10-01T00:00:00Z') }));

  const sources: PackSources = {
    read: async (uri, level) => {
      const text = texts.get(`${uri}#${level}`);
      if (text === undefined) throw new Error(`no record ${uri}#${level}`);
      return text;
    },
    // A message record holds exactly its message, as the engine's readMessages gives it.
    readMessages: async (uri) => texts.get(`${uri}#2`) ?? null,
    // Each message of the dev set is its own node: its neighbours are the nodes of the messages next to it.
    neighboursOf: async (uri) => neighbours.get(uri) ?? { before: [], after: [] },
    chainsFor: async (refs) => {
      const out: ExtractedChain[] = [];
      const seen = new Set<string>();
      for (const ref of refs) {
        const conversation = /^ctx:\/\/session\/([^/]+)\//.exec(ref.uri)?.[1];
        for (const chain of chainsByConversation.get(conversation ?? '') ?? []) {
          if (seen.has(chain.chain_id) || !chain.source_message_ids.some((id) => ref.message_ids.includes(id))) continue;
          seen.add(chain.chain_id);
          out.push(chain);
        }
      }
      return out;
    },
  };
  // Chain steps that join a pack carry only message ids: map them back to evidence ids.
  const messageEvidence = new Map<string, string>();
  for (const { conversation } of set.conversations) for (const s of conversation.sessions) for (const m of s.messages) messageEvidence.set(m.id, `${conversation.id}/${m.id}`);

  const store = await openLanceStore({ uri: options.indexDir, dimensions: options.embedder.dimensions, idleOptimizeMs: 0 });
  const rows: Row[] = [];
  try {
    const index = createSearchIndex({ embedder: options.embedder, store });
    await index.upsert(records);
    await index.optimize();
    for (const q of set.questions) {
      const hits = await index.search({ text: q.question, k: options.topK ?? 40, mode: 'hybrid' });
      const packHits = relevantHits(rankHits(hits.map(asRankInput), { weakBelow: WEAK_BELOW.hybrid }), options.floor);
      const build = (budget: number) =>
        buildContextPack(packHits, sources, { query: q.question, budget, ...(options.reservedHits !== undefined ? { reservedHits: options.reservedHits } : {}) });
      // The pack is the text an agent is given: it must fit the budget, headings and legend
      // included. A pack whose text runs over is rebuilt with the largest budget whose text fits.
      let pack = await build(options.budget);
      if (countTokens(pack.markdown) > options.budget) {
        let lo = 1;
        let hi = options.budget - 1;
        let best = await build(1);
        while (lo <= hi) {
          const mid = (lo + hi) >> 1;
          const candidate = await build(mid);
          if (countTokens(candidate.markdown) <= options.budget) {
            best = candidate;
            lo = mid + 1;
          } else hi = mid - 1;
        }
        pack = best;
      }
      const conversationOf = (uri: string | undefined) => /^ctx:\/\/session\/([^/]+)\//.exec(uri ?? '')?.[1];
      const inPack = new Set<string>();
      const note = (provenance: { uri?: string; message_ids?: string[] } | undefined) => {
        const byUri = provenance?.uri ? evidenceOf.get(provenance.uri) : undefined;
        if (byUri) inPack.add(byUri);
        for (const id of provenance?.message_ids ?? []) {
          const conversation = conversationOf(provenance?.uri);
          const evidence = conversation ? `${conversation}/${id}` : messageEvidence.get(id);
          if (evidence) inPack.add(evidence);
        }
      };
      for (const block of pack.result.kept) note(block.provenance);
      for (const summary of pack.result.replaced) for (const part of summary.parts) note(part.provenance);
      const found = new Set(hits.flatMap((h) => [evidenceOf.get(h.uri)].filter((x): x is string => x !== undefined)));
      rows.push({ q, answered: q.evidence.every((id) => inPack.has(id)), inHits: q.evidence.every((id) => found.has(id)), tokens: countTokens(pack.markdown), cut: cutBlocks(pack.result) });
    }
  } finally {
    await store.close();
  }
  const groups: Record<string, PackGroup> = {};
  for (const key of ['en', 'zh', 'doc', 'conv']) groups[key] = group(rows.filter((r) => r.q.lang === key || r.q.source === key));
  // Tune on questions with an odd number (en-doc-01), report on even ones, as the recall-dev set splits.
  for (const split of ['tune', 'test']) groups[split] = group(rows.filter((r) => (Number(/(\d+)$/.exec(r.q.id)?.[1]) % 2 === 1 ? 'tune' : 'test') === split));
  groups['decision/outcome questions'] = group(rows.filter((r) => answerKindsOf(r.q.question).includes('outcome')));
  groups['why questions'] = group(rows.filter((r) => answerKindsOf(r.q.question).includes('cause')));
  for (const type of [...new Set(rows.map((r) => r.q.type))].sort()) groups[`type:${type}`] = group(rows.filter((r) => r.q.type === type));
  return { budget: options.budget, overall: group(rows), groups, lostInPack: rows.filter((r) => r.inHits && !r.answered).map((r) => r.q.id) };
}

function cutBlocks(result: CompressionResult): number {
  const pieces = [...result.kept.filter((b) => b.shortened), ...result.replaced.flatMap((r) => r.parts.filter((p) => p.shortened))];
  return pieces.filter((p) => p.content.trimEnd().endsWith('…')).length;
}

/**
 * A section of a dev-set document sits in its document's folder, as a split document's sections
 * do in a workspace (rank.ts merges them under the document); anything else is its own document.
 */
function asRankInput(hit: SearchHit): RankInput {
  const section = hit.level === 2 && hit.context_type === 'resource' && hit.parent_uri;
  return { hit, document: { uri: section ? (hit.parent_uri as string) : hit.uri, title: hit.heading ?? hit.uri } };
}

const pct = (x: number) => (x * 100).toFixed(1);

export function formatPackReport(report: PackEvalReport): string {
  const lines = [`| group | n | answer in pack | answer in hits | mean pack tokens | blocks cut mid-sentence per pack |`, '|---|---|---|---|---|---|'];
  const row = (name: string, g: PackGroup) =>
    lines.push(`| ${name} | ${g.questions} | ${pct(g.answered)} | ${pct(g.inHits)} | ${Math.round(g.meanTokens)} | ${g.cutPerPack.toFixed(2)} |`);
  row('all', report.overall);
  for (const [name, g] of Object.entries(report.groups)) row(name, g);
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// The conversational dev set (test/fixtures/recall-dev): long multi-session conversations.

export interface RecallQuestion {
  id: string;
  kind: string;
  question: string;
  evidence: string[];
}

export interface ConversationPackOptions {
  fixtures: string;
  /** A scratch folder: one workspace per conversation is made under it. */
  workDir: string;
  budgets: number[];
  /** Pack floors to compare (a tuning run); the pack's own floor when absent. */
  floors?: number[];
  /** Numbers of reserved top hits to compare (a tuning run); RESERVED_HITS when absent. */
  reserves?: number[];
}

export interface ConversationPackGroup {
  questions: number;
  /** Share of questions whose every evidence message is in the pack, whole. */
  all: number;
  /** Share with at least one evidence message in the pack, whole. */
  any: number;
  /** Share whose every evidence message is among the search's 40 hits (what the floor and the budget choose from). */
  inHits: number;
  meanTokens: number;
}

export interface ConversationPackReport {
  /**
   * `floor` (with `/r<reserved hits>` when several are compared) → `budget` → group name (`all`,
   * `tune`, `test`, `tune:single-hop`, ...) → figures.
   */
  byFloor: Record<string, Record<string, Record<string, ConversationPackGroup>>>;
}

/** Whitespace collapsed, so a message wrapped or indented in the pack still matches. */
const flat = (text: string) => text.replace(/\s+/g, ' ').trim();

/**
 * Whether a message is in a pack, strictly: its whole text, every sentence of it, stands in the
 * pack's text (whitespace collapsed). A message shortened to its leading sentences, or a summary
 * that paraphrases it, does not count.
 */
export function messageInPack(messageText: string, packText: string): boolean {
  const text = flat(messageText);
  return text.length > 0 && flat(packText).includes(text);
}

/**
 * Each conversation is imported into a fresh workspace as `cairn sessions import` does (no
 * commit: that is what the plain command does), then each question's pack is built as `cairn
 * context "question" -b N` builds it: one hybrid search (top 40), then `packRanked`, the
 * `context:pack` handler's own code, once per budget and floor.
 */
export async function runConversationPackEval(options: ConversationPackOptions): Promise<ConversationPackReport> {
  const { readdirSync, readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { createEngine } = await import('../../main/engine/engine.js');
  const { inProcessParseRunner } = await import('../../main/engine/parse/runner.js');
  const { lazySearchIndex } = await import('../../main/host/open-index.js');
  const { ContextFS } = await import('../../main/engine/tree/context-fs.js');
  const { packRanked } = await import('../../main/engine/compress/handlers.js');
  const { PACK_FLOOR, RESERVED_HITS } = await import('../../main/engine/compress/context-pack.js');
  const floors = options.floors ?? [PACK_FLOOR];
  const reserves = options.reserves ?? [RESERVED_HITS];
  const settings = floors.flatMap((floor) => reserves.map((reservedHits) => ({ floor, reservedHits, key: reserves.length > 1 ? `${floor}/r${reservedHits}` : String(floor) })));
  const rows: Array<{ split: string; kind: string; question: string; setting: string; budget: number; all: boolean; any: boolean; inHits: boolean; tokens: number }> = [];
  const files = readdirSync(options.fixtures).filter((f) => /^rc\d+.*\.json$/.test(f) && !f.endsWith('.questions.json')).sort();
  for (const file of files) {
    const id = file.replace(/\.json$/, '');
    const conversation = JSON.parse(readFileSync(join(options.fixtures, file), 'utf8')) as { sessions: Array<{ messages: Array<{ id: string; text: string }> }> };
    const text = new Map(conversation.sessions.flatMap((s) => s.messages.map((m) => [m.id, m.text] as const)));
    const { questions } = JSON.parse(readFileSync(join(options.fixtures, `${id}.questions.json`), 'utf8')) as { questions: RecallQuestion[] };
    const split = Number(/^rc(\d+)/.exec(id)?.[1]) % 2 === 1 ? 'tune' : 'test';
    const workspace = join(options.workDir, id);
    const engine = await createEngine({ workspace, parser: inProcessParseRunner(), index: lazySearchIndex(workspace, { idleOptimizeMs: 0 }) });
    try {
      await engine.call('sessions:import', { path: join(options.fixtures, file) });
      const fs = await ContextFS.open(workspace);
      for (const q of questions) {
        for (const e of q.evidence) if (!text.has(e)) throw new Error(`${q.id} names unknown evidence ${e}`);
        const { ranked } = await engine.call('search:query', { query: q.question, mode: 'hybrid', topK: 40 });
        const found = new Set(ranked.flatMap((r) => r.hits.flatMap((h) => h.provenance.message_ids)));
        const inHits = q.evidence.every((e) => found.has(e));
        for (const { floor, reservedHits, key } of settings) {
          for (const budget of options.budgets) {
            const pack = await packRanked(fs, ranked, { query: q.question, budget }, { floor, reservedHits });
            const hits = q.evidence.map((e) => messageInPack(text.get(e) as string, pack.markdown));
            rows.push({ split, kind: q.kind, question: q.question, setting: key, budget, all: hits.every(Boolean), any: hits.some(Boolean), inHits, tokens: pack.tokens });
          }
        }
      }
    } finally {
      await engine.dispose();
    }
  }
  const summarize = (rs: typeof rows): ConversationPackGroup => {
    const n = rs.length || 1;
    return { questions: rs.length, all: rs.filter((r) => r.all).length / n, any: rs.filter((r) => r.any).length / n, inHits: rs.filter((r) => r.inHits).length / n, meanTokens: rs.reduce((s, r) => s + r.tokens, 0) / n };
  };
  const byFloor: ConversationPackReport['byFloor'] = {};
  for (const { key } of settings) {
    const perBudget: Record<string, Record<string, ConversationPackGroup>> = {};
    for (const budget of options.budgets) {
      const rs = rows.filter((r) => r.setting === key && r.budget === budget);
      const groups: Record<string, ConversationPackGroup> = { all: summarize(rs) };
      for (const split of ['tune', 'test']) {
        groups[split] = summarize(rs.filter((r) => r.split === split));
        for (const kind of [...new Set(rs.map((r) => r.kind))].sort()) groups[`${split}:${kind}`] = summarize(rs.filter((r) => r.split === split && r.kind === kind));
        // The questions the pack ranks answers up for (answer-kinds.ts), whatever their kind.
        for (const asks of ['outcome', 'cause'] as const) groups[`${split}:asks-${asks}`] = summarize(rs.filter((r) => r.split === split && answerKindsOf(r.question).includes(asks)));
      }
      perBudget[String(budget)] = groups;
    }
    byFloor[key] = perBudget;
  }
  return { byFloor };
}

export function formatConversationPackReport(report: ConversationPackReport): string {
  const lines: string[] = [];
  for (const [floor, perBudget] of Object.entries(report.byFloor)) {
    const budgets = Object.keys(perBudget);
    lines.push(`floor ${floor}: evidence in pack, all / any (%), and mean pack tokens; in hits: every evidence message among the 40 search hits`, '');
    lines.push(`| group | n | in hits | ${budgets.map((b) => `${b}: all / any / tokens`).join(' | ')} |`, `|---|---|---|${budgets.map(() => '---|').join('')}`);
    for (const name of Object.keys(perBudget[budgets[0] as string] ?? {})) {
      const cells = budgets.map((b) => {
        const g = (perBudget[b] as Record<string, ConversationPackGroup>)[name] as ConversationPackGroup;
        return `${pct(g.all)} / ${pct(g.any)} / ${Math.round(g.meanTokens)}`;
      });
      const first = (perBudget[budgets[0] as string] as Record<string, ConversationPackGroup>)[name] as ConversationPackGroup;
      lines.push(`| ${name} | ${first.questions} | ${pct(first.inHits)} | ${cells.join(' | ')} |`);
    }
    lines.push('');
  }
  return lines.join('\n');
}
