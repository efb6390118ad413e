/**
 * Context packs (issue 7): "what matters for this question in N tokens". Search hits, memories
 * and the chains their messages belong to become ContextBlocks; the compressor fits them to the
 * budget without cutting a chain; the result is Markdown (or JSON) an agent can paste, every
 * block naming where it came from.
 *
 * Worth their tokens (issue 19, item 3): the budget holds the whole text (blocks, references,
 * legend); blocks are opened by short references and one legend names the sources
 * (pack-render.ts); a block is cut only between sentences; only hits above the pack's
 * relevance floor become blocks (`relevantHits`), with the messages next to a message hit
 * (`addNeighbours`); for a "what did we decide / what was the fix" question, blocks
 * that state a decision or an outcome are CRITICAL, packed first, and for a "why" question the
 * blocks that state a cause (answer-kinds.ts).
 *
 * Blocks: one per node (the best-scoring level of it wins, and L2 content is preferred to an
 * abstract of the same node when both hit). Priority follows rank and kind: memories and the
 * top hits are HIGH, the rest MEDIUM, weak hits LOW. A chain contributes its member messages as
 * blocks sharing the chain's id, so chain_integrity keeps or summarizes them together.
 */
import type { ContextBlock, ContextPriority, CompressionResult, CompressionStrategy } from '../../../shared/types/compress.js';
import type { ExtractedChain } from '../../../shared/types/memory.js';
import type { RankedResult } from '../../../shared/contracts/api.js';
import { countTokens } from '../../lib/tokens.js';
import { compressBlocks } from './compress.js';
import { reserveIndices } from './reserve.js';
import { sentenceEnds } from './shorten.js';
import { renderPack, type PackRef } from './pack-render.js';
import { ANSWER_ROLES, answerKindsOf, statesAnswer, type AnswerKind } from './answer-kinds.js';
import { compareNatural } from '../../../shared/natural-sort.js';

/** What the pack needs of a search hit (the contract's SearchHit has these). */
export interface PackHit {
  uri: string;
  level: 0 | 1 | 2;
  score: number;
  context_type: string;
  provenance: { source?: string | null; lines?: [number, number] | null; message_ids?: string[] };
  /** Its title as the search list gives it (document · section heading, or the conversation), when known. */
  title?: string;
  /** ISO time the node last changed, when known (for freshness). */
  updated_at?: string;
}

export interface PackSources {
  /** The node's text at that level (its full L2 content, its L0 or L1). */
  read(uri: string, level: 0 | 1 | 2): Promise<string>;
  /**
   * The text of these messages of a session node, as they are indexed (`[day] Speaker: text`),
   * or null when they cannot be found. Without it a message hit brings its whole session file.
   */
  readMessages?(uri: string, message_ids: string[]): Promise<string | null>;
  /**
   * The messages next to these messages of a session node, in the same session (the node each
   * is read from, and its id): the one right before the first and the one right after the last.
   * The answer to a question is often the reply to the message that matches it ("How did the
   * race go?" / "1 hour 52!").
   */
  neighboursOf?(uri: string, message_ids: string[]): Promise<{ before: MessageRef[]; after: MessageRef[] }>;
  /** Chains holding any of these messages of these nodes, with each step's text (from the sessions' analyses). */
  chainsFor?(refs: Array<{ uri: string; message_ids: string[] }>): Promise<ExtractedChain[]>;
}

/** A message of a session node. */
export interface MessageRef {
  uri: string;
  message_id: string;
}

export interface PackOptions {
  query: string;
  budget: number;
  strategy?: CompressionStrategy;
  now?: Date;
  /** How many top-ranked hits get their room first (RESERVED_HITS when absent; the pack evaluation compares others). */
  reservedHits?: number;
}

export interface ContextPack {
  query: string;
  /** The budget asked for: `markdown` stays within it. */
  budget: number;
  blocks: ContextBlock[];
  /** The compression of `blocks`; its own budget is what the text left for them. */
  result: CompressionResult;
  /** Block ids kept before the strategy ran, in groups (one top hit each, in rank order). */
  reserve: string[][];
  markdown: string;
  /** What each reference of `markdown` stands for, in reference order. */
  legend: PackRef[];
  /** Tokens of `markdown`. */
  tokens: number;
}

/** Hits ranked this high are HIGH priority. */
const TOP_HITS = 3;
/**
 * Hits ranked this high get their room before anything else, in rank order (reserve.ts), so a
 * lower hit whose chain scores high can no longer crowd them out; what is left goes to the
 * messages next to them, their chains and the rest. The search gives the pack 40 hits: all of
 * them above the floor are reserved. Fitted on the tune halves of both dev sets (`npm run
 * eval:packs -- --reserve`; bench/RESULTS.md, "Context packs worth their tokens", session 8).
 */
export const RESERVED_HITS = 40;
/** Hits scoring below this share of the best score are LOW priority. */
const WEAK_SHARE = 0.35;
/** Freshness halves every this many days. */
const FRESHNESS_HALF_LIFE_DAYS = 30;

const SOURCE_OF: Record<string, string> = { memory: 'long_term_memory', session: 'short_term_memory', resource: 'resource', skill: 'skill' };

/**
 * The pack's relevance floor: a ranked result whose best hit scores below it (hybrid scores are
 * relative to the best) brings no block. 0.5 answers the most questions inside 1,500 tokens on
 * the tune halves of both dev sets (`npm run eval:packs -- --floors`; bench/RESULTS.md, "Context
 * packs worth their tokens", session 8). It waited for the top hits' reserved room: before it, the
 * chains the lower hits brought in could fill a small pack with one chain's summary.
 */
export const PACK_FLOOR = 0.5;

/**
 * The hits worth a block: those of the search's ranked results scoring at or above the pack's
 * floor. A document is judged by its best section, as the search list shows it, so a relevant
 * document brings its other matching sections; copies of the same content (`also_at`) come once.
 * A message's neighbour listed as its context (`neighbour_of`) is judged by its own score, as when
 * it was a result of its own: the pack brings a hit's neighbours itself (`neighboursOf`).
 */
export function relevantHits(ranked: readonly RankedResult[], floor: number = PACK_FLOOR): PackHit[] {
  return ranked
    .filter((result) => result.score >= floor)
    .flatMap((result) =>
      result.hits
        .filter((hit) => !hit.neighbour_of || hit.score >= floor)
        .map((hit) => ({
        uri: hit.uri,
        level: hit.level,
        score: hit.score,
        context_type: hit.context_type,
        title: hit.heading && hit.heading !== result.title ? `${result.title} · ${hit.heading}` : result.title,
        provenance: {
          ...(hit.provenance.source ? { source: hit.provenance.source } : {}),
          ...(hit.provenance.lines ? { lines: hit.provenance.lines } : {}),
          message_ids: hit.provenance.message_ids,
        },
      })),
    );
}

export async function buildContextPack(hits: readonly PackHit[], sources: PackSources, options: PackOptions): Promise<ContextPack> {
  const now = options.now ?? new Date();
  const best = bestLevelPerNode(hits);
  const top = best.reduce((max, h) => Math.max(max, h.score), 0) || 1;
  const blocks: ContextBlock[] = [];
  const seen = new Set<string>();

  for (const [rank, hit] of best.entries()) {
    const messageIds = hit.provenance.message_ids ?? [];
    // A message hit is the message, not its whole session file: one block per message, so the
    // chains of each message attach to it and the budget goes to what matched.
    const asMessages = hit.level === 2 && messageIds.length > 0 && sources.readMessages !== undefined;
    const id = asMessages ? messageBlockId(hit.uri, messageIds) : `${hit.uri}#${blockLevel(hit)}`;
    if (seen.has(id)) continue;
    seen.add(id);
    const read = asMessages
      ? await (sources.readMessages as NonNullable<PackSources['readMessages']>)(hit.uri, messageIds).catch(() => null)
      : await sources.read(hit.uri, blockLevel(hit)).catch(() => null);
    const content = read === null ? null : withoutCutSentence(read);
    if (!content?.trim()) continue;
    blocks.push({
      id,
      source: SOURCE_OF[hit.context_type] ?? hit.context_type,
      priority: priorityOf(hit, rank, top),
      content,
      token_count: countTokens(content),
      chain_links: [],
      chain_types: [],
      relevance_score: clamp01(hit.score / top),
      freshness_score: freshness(hit.updated_at, now),
      provenance: {
        uri: hit.uri,
        ...(hit.provenance.source ? { source: hit.provenance.source } : {}),
        ...(hit.provenance.lines ? { lines: hit.provenance.lines } : {}),
        ...(hit.provenance.message_ids?.length ? { message_ids: hit.provenance.message_ids } : {}),
        ...(hit.title ? { title: hit.title } : {}),
      },
    });
  }

  // The hits in rank order, before chain steps join the list.
  const hitIds = blocks.map((b) => b.id);
  const kinds = answerKindsOf(options.query);
  const answers = await attachChains(blocks, sources, kinds);
  // After the chains: a neighbour joins no chain, so a chain's unit (kept whole or summarized
  // together) is what the hits make it, and a message a chain step holds does not come twice.
  const ordered = await addNeighbours(chainStepsAfterTheirHits(blocks), sources, seen);
  // Each hit alone: reserving the messages next to it too crowded out the chains that answer
  // multi-hop questions (bench/RESULTS.md, session 8); they join after, in the strategy's order.
  let groups = hitIds.slice(0, options.reservedHits ?? RESERVED_HITS).map((id) => [id]);
  if (kinds.length > 0) {
    // CRITICAL: ahead of every other block, however much more of the question's wording the
    // discussion around the decision or the cause repeats (it usually does).
    for (const block of ordered) if (answers.has(block.id) || kinds.some((kind) => statesAnswer(kind, block.content, (block.provenance?.message_ids?.length ?? 0) > 0))) block.priority = 'CRITICAL';
    const critical = new Set(ordered.filter((b) => b.priority === 'CRITICAL').map((b) => b.id));
    groups = [...groups.filter((g) => critical.has(g[0] as string)), ...groups.filter((g) => !critical.has(g[0] as string))];
  }
  return fitText(ordered, groups, options);
}

/** A message next to a hit is worth less than the hit: this share of its relevance, one priority lower. */
const NEIGHBOUR_SHARE = 0.5;
const LOWER: Record<ContextPriority, ContextPriority> = { CRITICAL: 'HIGH', HIGH: 'MEDIUM', MEDIUM: 'LOW', LOW: 'LOW' };

/**
 * The messages right before and after each message hit join as blocks of their own, next to
 * their hit in reading order, ranked below it: what the budget has left after the hits goes to
 * the replies and questions around them. A neighbour that is a hit itself stays where its rank put it.
 */
async function addNeighbours(blocks: ContextBlock[], sources: PackSources, seen: Set<string>): Promise<ContextBlock[]> {
  const { neighboursOf, readMessages } = sources;
  if (!neighboursOf || !readMessages) return blocks;
  const out: ContextBlock[] = [];
  const after: ContextBlock[] = [];
  const held = new Set(blocks.flatMap((b) => (b.provenance?.message_ids ?? []).map((m) => `${conversationOf(b.provenance?.uri)}\n${m}`)));
  const neighbour = async (hit: ContextBlock, { uri, message_id: messageId }: MessageRef): Promise<ContextBlock | null> => {
    const id = messageBlockId(uri, [messageId]);
    if (seen.has(id) || held.has(`${conversationOf(uri)}\n${messageId}`)) return null;
    const text = await readMessages(uri, [messageId]).catch(() => null);
    if (!text?.trim()) return null;
    seen.add(id);
    return {
      id,
      source: hit.source,
      priority: LOWER[hit.priority],
      content: text,
      token_count: countTokens(text),
      chain_links: [],
      chain_types: [],
      relevance_score: hit.relevance_score * NEIGHBOUR_SHARE,
      freshness_score: hit.freshness_score,
      // The message next to a hit is in the same conversation, so it has the hit's title.
      provenance: { uri, message_ids: [messageId], ...(hit.provenance?.title ? { title: hit.provenance.title } : {}) },
    };
  };
  for (const block of blocks) {
    const uri = block.provenance?.uri;
    const ids = block.provenance?.message_ids;
    if (!uri || !ids?.length || !block.id.includes('#m:') || block.id.startsWith(CHAIN_STEP)) {
      out.push(block);
      continue;
    }
    const near = await neighboursOf(uri, ids).catch(() => ({ before: [], after: [] }));
    for (const ref of near.before) {
      const b = await neighbour(block, ref);
      if (b) out.push(b);
    }
    out.push(block);
    after.length = 0;
    for (const ref of near.after) {
      const b = await neighbour(block, ref);
      if (b) after.push(b);
    }
    out.push(...after);
  }
  return out;
}

/**
 * The budget is the pack's text, not only its blocks: references, the legend and the heading
 * take tokens too. The blocks get the largest budget whose rendered text fits, found by halving
 * (about 11 compressions of a pack's few dozen blocks for 1,500 tokens, a millisecond or so
 * each). A budget smaller than the heading alone gives the heading. The search starts at the
 * first reserved block's size when the pack of that block alone fits, so the top hit is in
 * every pack it fits alone (the text's size is not monotonic in the blocks' budget).
 */
function fitText(blocks: ContextBlock[], groups: readonly string[][], options: PackOptions): ContextPack {
  const strategy = options.strategy ?? 'chain_integrity';
  const reserve = reserveIndices(blocks, groups);
  const build = (budget: number) => {
    const result = compressBlocks(blocks, { strategy, budget, cutSentences: false, reserve, query: options.query });
    const rendered = renderPack(options.query, options.budget, strategy, result);
    return { result, ...rendered, tokens: countTokens(rendered.markdown) };
  };
  let pack = build(options.budget);
  if (pack.tokens > options.budget) {
    const topHit = blocks[reserve[0]?.[0] ?? -1]?.token_count ?? 0;
    const least = topHit > 0 && topHit < options.budget ? build(topHit) : null;
    let lo = 1;
    let hi = options.budget - 1;
    pack = build(0);
    if (least && least.tokens <= options.budget) {
      pack = least;
      lo = topHit + 1;
    }
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const candidate = build(mid);
      if (candidate.tokens <= options.budget) {
        pack = candidate;
        lo = mid + 1;
      } else hi = mid - 1;
    }
  }
  return { query: options.query, budget: options.budget, blocks, result: pack.result, reserve: groups.map((g) => [...g]), markdown: pack.markdown, legend: pack.legend, tokens: pack.tokens };
}

/**
 * The chain steps that joined from the analyses stand right after the first hit of their chain,
 * in the chain's order, so the text reads problem → cause → fix where the hit is.
 */
function chainStepsAfterTheirHits(blocks: readonly ContextBlock[]): ContextBlock[] {
  const steps = blocks.filter((b) => b.id.startsWith(CHAIN_STEP));
  if (steps.length === 0) return [...blocks];
  const placed = new Set<ContextBlock>();
  const out: ContextBlock[] = [];
  for (const block of blocks) {
    if (block.id.startsWith(CHAIN_STEP)) continue;
    out.push(block);
    for (const step of steps) {
      if (placed.has(step) || !step.chain_links.some((id) => block.chain_links.includes(id))) continue;
      placed.add(step);
      out.push(step);
    }
  }
  return [...out, ...steps.filter((s) => !placed.has(s))];
}

const CHAIN_STEP = 'chain:';

function messageBlockId(uri: string, messageIds: readonly string[]): string {
  return `${uri}#m:${messageIds.join(',')}`;
}

/**
 * A summary may end a line in a sentence its summarizer cut ("… runs on the replica rather
 * than…"): a pack holds whole sentences only, so each such fragment goes, and a line that is only
 * a fragment goes with it.
 */
export function withoutCutSentence(text: string): string {
  if (!text.includes('…')) return text;
  const lines: string[] = [];
  for (const line of text.split('\n')) {
    const trimmed = line.trimEnd();
    if (!trimmed.endsWith('…')) {
      lines.push(line);
      continue;
    }
    const ends = sentenceEnds(trimmed);
    if (ends.length > 1) lines.push(trimmed.slice(0, ends[ends.length - 2]).trimEnd());
  }
  return lines.join('\n').trim();
}

/**
 * The level a hit's block is read at. A file (a document, a memory) is read as its content: its
 * abstract and overview only repeat it in fewer words, and the pack shortens content
 * sentence-wise when it must. A directory has only its summaries; a session file hit without
 * message ids keeps its level (its content is the whole transcript).
 */
function blockLevel(hit: PackHit): 0 | 1 | 2 {
  return hit.uri.endsWith('/') || hit.context_type === 'session' ? hit.level : 2;
}

/**
 * One hit per node: its best level, with L2 preferred to a summary of the same node at an equal
 * score. The messages of a session node are nodes of their own here (each is its own hit).
 */
function bestLevelPerNode(hits: readonly PackHit[]): PackHit[] {
  const byUri = new Map<string, PackHit>();
  for (const hit of hits) {
    const key = hit.level === 2 && hit.provenance.message_ids?.length ? messageBlockId(hit.uri, hit.provenance.message_ids) : hit.uri;
    const current = byUri.get(key);
    if (!current || hit.score > current.score || (hit.score === current.score && hit.level > current.level)) byUri.set(key, hit);
  }
  return [...byUri.values()].sort((a, b) => b.score - a.score || compareNatural(a.uri, b.uri));
}

function priorityOf(hit: PackHit, rank: number, top: number): ContextPriority {
  if (hit.context_type === 'memory' || rank < TOP_HITS) return 'HIGH';
  return hit.score / top < WEAK_SHARE ? 'LOW' : 'MEDIUM';
}

function freshness(updatedAt: string | undefined, now: Date): number {
  if (!updatedAt) return 0;
  const days = (now.getTime() - Date.parse(updatedAt)) / 86_400_000;
  if (!Number.isFinite(days)) return 0;
  return clamp01(0.5 ** (Math.max(0, days) / FRESHNESS_HALF_LIFE_DAYS));
}

/**
 * Message blocks that belong to a chain get the chain's id and type; the chain's other messages
 * join the pack as blocks of their own (named by their conversation folder and message ids), so
 * the compressor sees the chain whole. Returns the ids of blocks that are the chain step that
 * answers one of these kinds of question (its outcome, or its cause).
 */
async function attachChains(blocks: ContextBlock[], sources: PackSources, kinds: readonly AnswerKind[]): Promise<Set<string>> {
  const answers = new Set<string>();
  if (!sources.chainsFor) return answers;
  const refs = blocks.flatMap((b) => (b.provenance?.uri && b.provenance.message_ids?.length ? [{ uri: b.provenance.uri, message_ids: b.provenance.message_ids }] : []));
  if (refs.length === 0) return answers;
  const chains = await sources.chainsFor(refs);
  const byMessage = new Map<string, ContextBlock>();
  for (const block of blocks) for (const id of block.provenance?.message_ids ?? []) byMessage.set(id, block);
  for (const chain of chains) {
    const type = chain.chain_type.toLowerCase() as ContextBlock['chain_types'][number];
    const anchor = chain.source_message_ids.map((id) => byMessage.get(id)).find((b) => b !== undefined);
    const conversation = conversationOf(anchor?.provenance?.uri);
    for (const node of chain.nodes) {
      let block = node.message_ids.map((id) => byMessage.get(id)).find((b) => b !== undefined);
      if (!block) {
        block = {
          id: `${CHAIN_STEP}${chain.chain_id}:${node.id}`,
          source: 'short_term_memory',
          priority: 'MEDIUM',
          content: node.text,
          token_count: countTokens(node.text),
          chain_links: [],
          chain_types: [],
          relevance_score: 0,
          freshness_score: 0,
          provenance: {
            ...(conversation ? { uri: conversation } : {}),
            message_ids: node.message_ids,
            ...(anchor?.provenance?.title ? { title: anchor.provenance.title } : {}),
          },
        };
        blocks.push(block);
        for (const id of node.message_ids) byMessage.set(id, block);
      }
      if (!block.chain_links.includes(chain.chain_id)) block.chain_links.push(chain.chain_id);
      if (!block.chain_types.includes(type)) block.chain_types.push(type);
      if (kinds.some((kind) => ANSWER_ROLES[kind].has(node.role))) answers.add(block.id);
    }
  }
  return answers;
}

/** The conversation folder of a session node, `ctx://session/{id}/`. */
function conversationOf(uri: string | undefined): string | null {
  return /^ctx:\/\/session\/[^/]+\//.exec(uri ?? '')?.[0] ?? null;
}

function clamp01(value: number): number {
  return Math.min(1, Math.max(0, value));
}
