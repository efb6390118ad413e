/**
 * The search index: what the ingest and the DAG summarizer hand records to (ContextIndex), and
 * what `cairn search` asks. It embeds records in batches, stores them through the VectorStore
 * port and answers four kinds of search:
 *
 * - `fts`: BM25 over the analysed text. Score: BM25 divided by the best BM25 of the query.
 * - `vector`: cosine similarity to the query's embedding (only vectors of the current model:
 *   a vector from another model is not comparable). Score: the cosine, clamped to [0, 1].
 * - `hybrid` (default): both lists fused by weighted reciprocal rank fusion,
 *   `Σ weight / (k + rank)`, divided by its maximum, so a record first in both lists scores 1.
 *   With a remote (semantic) embedder both lists weigh alike and k = 60, the usual constant; with
 *   the local embedder, whose vectors are mostly lexical, the vector list weighs half and k = 20:
 *   full text decides the top, vectors add what it misses (bench/RESULTS.md, "Retrieval quality").
 *   Among conversation messages, conversation-recall.ts takes over (its own vector weight, the
 *   full-text list searched without the speakers a question names, session records routing to
 *   their messages, neighbouring messages lifted, times for when-questions, and a question asking
 *   two things searched part by part, the lists fused by rank).
 * - `hierarchical`: starts from L0/L1 directory hits and drills into their children, best
 *   first, to a bounded depth. A record's own relevance is a convex combination of its cosine
 *   and its BM25 (each divided by the query's best), and a child scores
 *   `alpha · own + (1 − alpha) · parent`, so a leaf that says little by itself is still found
 *   through a directory that matches. Direct hits keep their own score when it is higher.
 *   No reranker is needed; one can be plugged in for every mode.
 *
 * Every mode returns at most one hit per URI (its best level), `k` hits at most, none under
 * `minScore`, each with a snippet and provenance.
 *
 * @example
 * const index = createSearchIndex({ embedder: createLocalEmbedder(), store: await openLanceStore({ uri, dimensions: 512 }) });
 * await index.upsert(records);
 * const hits = await index.search({ text: 'why did the uplink drop?', k: 5, mode: 'hierarchical', filter: { scope: 'resources' } });
 */
import { CairnError, errorMessage } from '../../../shared/errors.js';
import type { ContextType } from '../../../shared/types/node.js';
import type { ContextIndex, IndexInput } from '../ports/context-index.js';
import type { EmbeddingModel } from '../ports/embedding-model.js';
import { silentLogger, type Logger } from '../ports/logger.js';
import type { RecordLevel, ScoredRecord, StoredRecord, VectorFilter, VectorRecord, VectorStore } from '../ports/vector-store.js';
import { highlightRanges, searchTerms, type TextRange } from '../../lib/text-analysis.js';
import { coverage, coverageFactor, TERM_COUNT_CAP, termWeights } from './coverage.js';
import { makeSnippet, openingHeading } from './snippet.js';
import { compareNatural } from '../../../shared/natural-sort.js';
import { CONVERSATION_RECALL, conversationRecall, isConversational, isSessionRecord, namedSpeakers, questionParts, withoutNames } from './conversation-recall.js';

export const SEARCH_MODES = ['hybrid', 'fts', 'vector', 'hierarchical'] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];

/** The k of reciprocal rank fusion: the usual constant, which damps the weight of the very first ranks. */
export const RRF_K = 60;

export interface HybridOptions {
  /** RRF's k. Default 60, or 20 with the local embedder. */
  k?: number;
  /** Weight of the vector list against the full-text list's 1. Default 1, or 0.5 with the local embedder. */
  vectorWeight?: number;
}

export interface SearchQuery {
  text: string;
  /** Hits to return. Default 10. */
  k?: number;
  /** Leave out hits scoring below this (scores are in [0, 1]; see the modes above). */
  minScore?: number;
  filter?: VectorFilter;
  /** Default 'hybrid'. */
  mode?: SearchMode;
  signal?: AbortSignal;
}

export interface HitProvenance {
  source: string | null;
  lines: [number, number] | null;
  message_ids: string[];
  pages?: [number, number];
}

export interface SearchHit {
  id: string;
  uri: string;
  parent_uri: string | null;
  level: RecordLevel;
  score: number;
  snippet: string;
  /** The ranges of `snippet` that match the query (see highlightRanges). */
  highlights: TextRange[];
  /** For content (L2): the heading that opens the text, where it opens with one. */
  heading: string | null;
  /** The record's content hash: identical content, wherever it sits, has the same one. */
  content_hash: string;
  /**
   * How much of the query the record covers, weighted by term rarity, as a factor in (0, 1]
   * (coverage.ts): the hit's relevance, for the weak-match floor, is `score × coverage`.
   */
  coverage: number;
  context_type: ContextType;
  category: string;
  provenance: HitProvenance;
  /**
   * For a conversation message that is among the hits as the neighbour of another hit (the
   * message before or after it, lifted by it; conversation-recall.ts): that hit's message id, at
   * the same URI. It is that hit's context, not a match of its own.
   */
  neighbour_of?: string;
}

export interface RerankCandidate {
  id: string;
  uri: string;
  level: RecordLevel;
  text: string;
  /** The score before reranking. */
  score: number;
}

/** Scores candidates for a query, in [0, 1], one per candidate and in the same order. */
export type Reranker = (query: string, candidates: RerankCandidate[], options: { signal?: AbortSignal }) => Promise<number[]>;

export interface HierarchicalOptions {
  /** Weight of a child's own relevance against its parent's score. Default 0.5. */
  alpha?: number;
  /** Weight of the cosine against BM25 in a record's own relevance. Default 0.5. */
  vectorWeight?: number;
  /** Directory hits to start from. Default 8. */
  maxSeeds?: number;
  /** Levels of directories to descend below a seed. Default 4. */
  maxDepth?: number;
  /** Directories to open at most per search. Default 32. */
  maxExpansions?: number;
  /** Children read per directory at most. Default 1000. */
  maxChildren?: number;
  /** Directories opened together in one round (one store query). Default 4. */
  expansionsPerRound?: number;
  /** Stop once the top k has not changed for this many rounds in a row. Default 2. */
  convergenceRounds?: number;
}

export interface SearchIndexOptions {
  embedder: EmbeddingModel;
  store: VectorStore;
  logger?: Logger;
  reranker?: Reranker;
  /** Candidates the reranker sees. Default max(3k, 30). */
  rerankTopN?: number;
  hierarchical?: HierarchicalOptions;
  hybrid?: HybridOptions;
  /**
   * Keep the stored vector of a record whose text and model have not changed, instead of
   * embedding it again (spares a remote endpoint on re-ingests and reindexes). Default true.
   */
  reuseUnchangedVectors?: boolean;
}

export interface ReembedOptions {
  /** Records read and embedded per round. Default 256. */
  batchSize?: number;
  signal?: AbortSignal;
  onProgress?: (done: number) => void;
}

export interface SearchIndex extends ContextIndex {
  /** The embedding model id written with every vector. */
  readonly modelId: string;
  search(query: SearchQuery): Promise<SearchHit[]>;
  /** Re-embeds every record whose vector was made by another model. Returns how many. */
  reembedAll(options?: ReembedOptions): Promise<{ reembedded: number }>;
  /** Brings the store's indexes up to date; call at the end of a bulk write (see VectorStore.optimize). */
  optimize(): Promise<void>;
  /** The id and URI of every record (a rebuild's sweep for records whose node is gone). */
  recordIds(): Promise<{ id: string; uri: string }[]>;
  /** Removes the records with these ids. */
  removeRecords(ids: string[]): Promise<void>;
}

interface Candidate {
  record: StoredRecord;
  score: number;
  /** How much of the query it covers, as a factor (coverage.ts); 1 when not weighed. */
  coverage?: number;
  /** The message id of the hit this message is the neighbour of (conversation-recall.ts). */
  neighbourOf?: string;
}

/**
 * Weighted reciprocal rank fusion of ranked id lists, normalised to [0, 1] by its maximum (first
 * in every list). An id missing from a list gets nothing from it. `weights` default to 1 each.
 */
export function reciprocalRankFusion(lists: readonly (readonly string[])[], k = RRF_K, weights: readonly number[] = []): Map<string, number> {
  const fused = new Map<string, number>();
  if (lists.length === 0) return fused;
  const weightOf = (i: number) => weights[i] ?? 1;
  const max = lists.reduce((sum, _, i) => sum + weightOf(i), 0) / (k + 1);
  lists.forEach((list, i) => {
    const weight = weightOf(i);
    list.forEach((id, index) => fused.set(id, (fused.get(id) ?? 0) + weight / (k + index + 1) / max));
  });
  return fused;
}

export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i += 1) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/**
 * Whether a record gets a vector of its own, where the store can hold records without one. A
 * resource file's L0 and L1 do not: they are drawn from its L2, whose vector reads the same words
 * (one hit per node, its best level), and on Debian's git docs their vectors were 57 % of the
 * rows' and a quarter of the index (bench/RESULTS.md, issue 20, session 12). They are still found
 * by full text. Directories (no L2 of their own), sessions and memories keep a vector on every level.
 */
export function hasOwnVector(record: Pick<VectorRecord, 'uri' | 'level' | 'context_type'>): boolean {
  return record.level === 2 || record.context_type !== 'resource' || record.uri.endsWith('/');
}

function isDirectoryRecord(record: StoredRecord): boolean {
  return record.uri.endsWith('/') && record.level !== 2;
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new CairnError('CANCELLED', 'Search cancelled', { cause: signal.reason });
}

function toHit(candidate: Candidate, query: string): SearchHit {
  const { record } = candidate;
  const p = record.provenance;
  const provenance: HitProvenance = {
    source: p.source ?? null,
    lines: p.lines ?? null,
    message_ids: p.message_ids ?? [],
  };
  if (p.pages) provenance.pages = p.pages;
  const snippet = makeSnippet(record.text, query);
  return {
    id: record.id,
    uri: record.uri,
    parent_uri: record.parent_uri,
    level: record.level,
    score: candidate.score,
    snippet,
    highlights: highlightRanges(snippet, query),
    heading: record.level === 2 ? openingHeading(record.text) : null,
    content_hash: record.content_hash,
    coverage: candidate.coverage ?? 1,
    context_type: record.context_type,
    category: record.category,
    provenance,
    ...(candidate.neighbourOf ? { neighbour_of: candidate.neighbourOf } : {}),
  };
}

/**
 * Best first, one candidate per URI (its best-scoring level); ties go to the lower level, then
 * the id. Records of messages are their own hits: a session file holds many messages, and a
 * question is answered by messages, so each keeps its place in the ranking.
 */
function rankCandidates(candidates: Iterable<Candidate>, levels: readonly RecordLevel[] | undefined): Candidate[] {
  const byUri = new Map<string, Candidate>();
  for (const candidate of candidates) {
    if (levels && !levels.includes(candidate.record.level)) continue;
    const key = candidate.record.provenance.message_ids?.length ? candidate.record.id : candidate.record.uri;
    const current = byUri.get(key);
    if (!current || candidate.score > current.score || (candidate.score === current.score && candidate.record.level < current.record.level)) {
      byUri.set(key, candidate);
    }
  }
  // Ties go in natural order of the node (section 2 before section 10), as the tree lists them.
  return [...byUri.values()].sort((a, b) => b.score - a.score || a.record.level - b.record.level || compareNatural(a.record.id, b.record.id));
}

/** Candidates each retriever contributes before fusion: plenty more than k, so fusion has something to fuse. */
function poolSize(k: number): number {
  return Math.min(1000, Math.max(50, k * 5));
}

/**
 * Creates the search index over an embedder and a store.
 *
 * @example
 * const index = createSearchIndex({ embedder, store, logger });
 * await index.removeUnder('ctx://resources/old-docs/');
 * if ((await store.embedModels()).some((m) => m !== index.modelId)) await index.reembedAll();
 */
export function createSearchIndex(options: SearchIndexOptions): SearchIndex {
  const { embedder, store } = options;
  const logger = options.logger ?? silentLogger;
  const modelId = embedder.modelId;
  const reuseVectors = options.reuseUnchangedVectors ?? true;
  const localEmbedder = embedder.provider === 'cairn-local';
  const fusion = {
    k: options.hybrid?.k ?? (localEmbedder ? 20 : RRF_K),
    vectorWeight: options.hybrid?.vectorWeight ?? (localEmbedder ? 0.5 : 1),
  };
  const h = {
    alpha: options.hierarchical?.alpha ?? 0.5,
    vectorWeight: options.hierarchical?.vectorWeight ?? 0.5,
    maxSeeds: options.hierarchical?.maxSeeds ?? 8,
    maxDepth: options.hierarchical?.maxDepth ?? 4,
    maxExpansions: options.hierarchical?.maxExpansions ?? 32,
    maxChildren: options.hierarchical?.maxChildren ?? 1000,
    expansionsPerRound: Math.max(1, options.hierarchical?.expansionsPerRound ?? 4),
    convergenceRounds: options.hierarchical?.convergenceRounds ?? 2,
  };

  async function embedTexts(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    const batch = Math.max(1, embedder.maxBatchSize);
    for (let start = 0; start < texts.length; start += batch) {
      const slice = texts.slice(start, start + batch);
      let vectors: Float32Array[];
      try {
        ({ vectors } = await embedder.embed({ texts: slice, signal }));
      } catch (error) {
        if (CairnError.is(error)) throw error;
        throw new CairnError('EMBED_FAILED', `Embedding with ${modelId} failed: ${errorMessage(error)}`, { cause: error, details: { model: modelId } });
      }
      if (vectors.length !== slice.length) {
        throw new CairnError('EMBED_FAILED', `${modelId} returned ${vectors.length} vectors for ${slice.length} texts`, { details: { model: modelId } });
      }
      for (const vector of vectors) {
        if (vector.length !== store.dimensions) {
          throw new CairnError('EMBED_FAILED', `${modelId} makes ${vector.length}-dimensional vectors but the index holds ${store.dimensions}; reindex after changing dimensions`, {
            details: { model: modelId, got: vector.length, expected: store.dimensions },
          });
        }
      }
      out.push(...vectors);
    }
    return out;
  }

  async function embedQuery(text: string, signal?: AbortSignal): Promise<Float32Array> {
    const [vector] = await embedTexts([text], signal);
    return vector as Float32Array;
  }

  async function upsert(records: IndexInput[]): Promise<void> {
    if (records.length === 0) return;
    const byId = new Map<string, IndexInput>();
    for (const record of records) byId.set(record.id, record);
    const inputs = [...byId.values()];
    const embeds = (record: Pick<VectorRecord, 'uri' | 'level' | 'context_type'>) => !store.vectorsOptional || hasOwnVector(record);
    const reusable = new Map<string, Float32Array>();
    if (reuseVectors) {
      for (const stored of await store.get(inputs.filter(embeds).map((r) => r.id))) {
        const input = byId.get(stored.id);
        if (stored.vector && stored.embed_model === modelId && input && input.text === stored.text && input.content_hash === stored.content_hash) {
          reusable.set(stored.id, stored.vector);
        }
      }
    }
    const toEmbed = inputs.filter((record) => embeds(record) && !reusable.has(record.id));
    const vectors = await embedTexts(toEmbed.map((record) => (record.embed_context ? `${record.text}\n${record.embed_context}` : record.text)));
    const fresh = new Map(toEmbed.map((record, i) => [record.id, vectors[i] as Float32Array]));
    const rows: VectorRecord[] = inputs.map(({ embed_context: _context, ...input }) => ({
      ...input,
      vector: reusable.get(input.id) ?? fresh.get(input.id) ?? null,
      embed_model: modelId,
    }));
    await store.upsert(rows);
    logger.debug('Indexed records', { records: rows.length, embedded: toEmbed.length, reused: reusable.size });
  }

  /**
   * Nearest records among vectors of the current model. Asking the store to filter by model
   * makes LanceDB prefilter, which costs more than the search itself on an unindexed column; as
   * a table almost always holds one model, search first and filter only when another model shows up.
   */
  async function nearest(vector: Float32Array, k: number, filter: VectorFilter | undefined): Promise<ScoredRecord[]> {
    const hits = await store.vectorSearch({ vector, k, filter });
    if (hits.every((hit) => hit.record.embed_model === modelId)) return hits;
    return store.vectorSearch({ vector, k, filter: { ...filter, embedModel: modelId } });
  }

  async function lexicalAndVector(text: string, vector: Float32Array, k: number, filter: VectorFilter | undefined, withVectors: boolean) {
    return Promise.all([store.textSearch({ query: text, k, filter, withVectors }), nearest(vector, k, filter)]);
  }

  async function hybrid(text: string, k: number, filter: VectorFilter | undefined, signal?: AbortSignal): Promise<Candidate[]> {
    const whole = await hybridOne(text, k, filter, signal);
    // A question asking two things among conversations: each part is searched too and the lists
    // fused by rank, so each part gets its share of the first hits (conversation-recall.ts).
    const parts = whole.conversational ? questionParts(text, whole.speakers) : [];
    if (parts.length === 0) return whole.candidates;
    const lists = [whole.candidates, ...(await Promise.all(parts.map((part) => hybridOne(part, k, filter, signal)))).map((one) => one.candidates)];
    const ranked = lists.map((list) => [...list].sort((a, b) => b.score - a.score).map((c) => c.record.id));
    const fused = reciprocalRankFusion(ranked, fusion.k, ranked.map(() => 1));
    const records = new Map<string, StoredRecord>();
    for (const list of lists) for (const c of list) records.set(c.record.id, c.record);
    // A lifted neighbour is context as the first list holding it says (the whole question's first).
    const neighbourOf = new Map<string, string | undefined>();
    for (const list of lists) for (const c of list) if (!neighbourOf.has(c.record.id)) neighbourOf.set(c.record.id, c.neighbourOf);
    // The fused order, with the whole question's scores by place: a score floor (context packs)
    // sees the same spread of scores as for a one-part question (fused scores are flatter).
    const order = [...records.values()].sort((a, b) => (fused.get(b.id) ?? 0) - (fused.get(a.id) ?? 0));
    const scores = whole.candidates.map((c) => c.score).sort((a, b) => b - a);
    const last = scores.length - 1;
    const lastFused = fused.get(order[last]?.id ?? '') ?? 0;
    return order.map((record, i) => ({
      record,
      score: i <= last ? (scores[i] as number) : lastFused > 0 ? ((scores[last] ?? 0) * (fused.get(record.id) ?? 0)) / lastFused : 0,
      ...(neighbourOf.get(record.id) ? { neighbourOf: neighbourOf.get(record.id) } : {}),
    }));
  }

  async function hybridOne(text: string, k: number, filter: VectorFilter | undefined, signal?: AbortSignal): Promise<{ candidates: Candidate[]; conversational: boolean; speakers: string[] }> {
    const vector = await embedQuery(text, signal);
    throwIfAborted(signal);
    const [found, semantic] = await lexicalAndVector(text, vector, poolSize(k), filter, false);
    let lexical = found;
    // A search among messages fuses with weights of its own (fitted on the conversational dev set).
    const conversational = isConversational(lexical.map((hit) => hit.record));
    // A question naming a speaker is matched on its other words: the name would match every short
    // message of theirs (conversation-recall.ts, "Speakers"). The vector list keeps the name.
    const speakers = conversational ? namedSpeakers(text, [...lexical, ...semantic].map((hit) => hit.record)) : [];
    const rest = withoutNames(text, speakers);
    if (speakers.length > 0 && rest !== '') {
      const others = await store.textSearch({ query: rest, k: poolSize(k), filter });
      if (others.length > 0) lexical = others;
    }
    const vectorWeight = conversational && localEmbedder && options.hybrid?.vectorWeight === undefined ? CONVERSATION_RECALL.localVectorWeight : fusion.vectorWeight;
    const fused = reciprocalRankFusion([lexical.map((hit) => hit.record.id), semantic.map((hit) => hit.record.id)], fusion.k, [1, vectorWeight]);
    const records = new Map<string, StoredRecord>();
    for (const hit of [...lexical, ...semantic]) records.set(hit.record.id, hit.record);
    const candidates = [...records.values()].map((record) => ({ record, score: fused.get(record.id) ?? 0 }));
    // Among documents, a session's record routes nothing: its long text is near many queries by
    // vector alone, and its messages would rise above the documents that answer (a runbook's
    // "station stopped reporting" under a chat message matching "on-call" by "called").
    if (!conversational) return { candidates: candidates.filter((c) => !isSessionRecord(c.record)), conversational, speakers };
    return { candidates: await conversationRecall(text, candidates, (ids) => store.get(ids), speakers), conversational, speakers };
  }

  async function hierarchical(text: string, k: number, filter: VectorFilter | undefined, signal?: AbortSignal): Promise<Candidate[]> {
    const vector = await embedQuery(text, signal);
    throwIfAborted(signal);
    // The levels asked for apply to the hits, not to the walk: the walk needs directory records.
    const broad: VectorFilter = { ...filter };
    delete broad.levels;
    const directories: VectorFilter = { ...broad, levels: [0, 1] };
    const seedPool = Math.max(20, h.maxSeeds * 4);
    const [[lexical, semantic], [lexicalDirs, semanticDirs]] = await Promise.all([
      lexicalAndVector(text, vector, poolSize(k), broad, true),
      lexicalAndVector(text, vector, seedPool, directories, true),
    ]);

    const bm25 = new Map<string, number>();
    const cosines = new Map<string, number>();
    for (const hit of [...lexical, ...lexicalDirs]) bm25.set(hit.record.id, Math.max(bm25.get(hit.record.id) ?? 0, hit.score));
    for (const hit of [...semantic, ...semanticDirs]) cosines.set(hit.record.id, hit.score);
    const bestBm25 = Math.max(0, ...bm25.values());
    const bestCosine = Math.max(0, ...cosines.values());
    // When one signal has nothing for this query, the other carries the whole score.
    const vectorWeight = bestBm25 === 0 ? 1 : bestCosine === 0 ? 0 : h.vectorWeight;

    const own = (record: StoredRecord): number => {
      let cos = cosines.get(record.id);
      if (cos === undefined) cos = record.vector && record.embed_model === modelId ? Math.max(0, cosine(vector, record.vector)) : 0;
      const semanticPart = bestCosine > 0 ? Math.min(1, cos / bestCosine) : 0;
      const lexicalPart = bestBm25 > 0 ? (bm25.get(record.id) ?? 0) / bestBm25 : 0;
      return vectorWeight * semanticPart + (1 - vectorWeight) * lexicalPart;
    };

    const candidates = new Map<string, Candidate>();
    const offer = (record: StoredRecord, score: number) => {
      const current = candidates.get(record.id);
      if (!current || score > current.score) candidates.set(record.id, { record, score });
    };
    for (const hit of [...lexical, ...semantic, ...lexicalDirs, ...semanticDirs]) offer(hit.record, own(hit.record));

    // Best-first walk from the best directory hits.
    const queue = new Map<string, { score: number; depth: number }>();
    for (const candidate of rankCandidates([...candidates.values()].filter((c) => isDirectoryRecord(c.record)), undefined).slice(0, h.maxSeeds)) {
      queue.set(candidate.record.uri, { score: candidate.score, depth: 0 });
    }
    const opened = new Set<string>();
    let stableRounds = 0;
    let lastTop = '';
    while (queue.size > 0 && opened.size < h.maxExpansions) {
      throwIfAborted(signal);
      // Open the best few directories per round, in one query: fewer round trips, same order of discovery.
      const round = [...queue.entries()]
        .sort((a, b) => b[1].score - a[1].score)
        .slice(0, Math.min(h.expansionsPerRound, h.maxExpansions - opened.size));
      for (const [uri] of round) {
        queue.delete(uri);
        opened.add(uri);
      }
      const parents = new Map(round);
      // The children with their cosine, computed by the store over just these directories'
      // rows (an exact scan: no approximate index, and no vectors copied out to compare here).
      const children = await store.vectorSearch({
        vector,
        k: h.maxChildren * round.length,
        filter: { ...broad, parentUris: [...parents.keys()] },
        exact: true,
      });
      for (const { record: child, score: childCosine } of children) {
        const parent = parents.get(child.parent_uri ?? '');
        if (!parent) continue;
        if (!cosines.has(child.id)) cosines.set(child.id, child.embed_model === modelId ? childCosine : 0);
        const score = h.alpha * own(child) + (1 - h.alpha) * parent.score;
        offer(child, score);
        if (isDirectoryRecord(child) && parent.depth + 1 <= h.maxDepth && !opened.has(child.uri)) {
          const queued = queue.get(child.uri);
          if (!queued || queued.score < score) queue.set(child.uri, { score, depth: parent.depth + 1 });
        }
      }
      // Converged when the hits have stopped changing: further directories score lower still.
      const top = rankCandidates(candidates.values(), filter?.levels)
        .slice(0, k)
        .map((c) => c.record.id)
        .join('\n');
      stableRounds = top === lastTop ? stableRounds + 1 : 0;
      lastTop = top;
      if (stableRounds >= h.convergenceRounds) break;
    }
    logger.debug('Hierarchical search walked the tree', { opened: opened.size, candidates: candidates.size });
    return [...candidates.values()];
  }

  async function search(query: SearchQuery): Promise<SearchHit[]> {
    const started = Date.now();
    const mode = query.mode ?? 'hybrid';
    const k = query.k ?? 10;
    if (!SEARCH_MODES.includes(mode)) throw new CairnError('INVALID_INPUT', `Unknown search mode ${JSON.stringify(mode)}; use ${SEARCH_MODES.join(', ')}`, { details: { mode } });
    if (!Number.isInteger(k) || k < 1 || k > 1000) throw new CairnError('INVALID_INPUT', `top_k must be an integer from 1 to 1000, got ${k}`, { details: { k } });
    if (query.minScore !== undefined && !(query.minScore >= 0 && query.minScore <= 1)) {
      throw new CairnError('INVALID_INPUT', `min_score must be in [0, 1], got ${query.minScore}`, { details: { minScore: query.minScore } });
    }
    const text = query.text.trim();
    if (text === '') return [];
    throwIfAborted(query.signal);

    let candidates: Candidate[];
    if (mode === 'fts') {
      const hits = await store.textSearch({ query: text, k: poolSize(k), filter: query.filter });
      const best = hits[0]?.score ?? 0;
      candidates = hits.map((hit: ScoredRecord) => ({ record: hit.record, score: best > 0 ? hit.score / best : 0 }));
    } else if (mode === 'vector') {
      const vector = await embedQuery(text, query.signal);
      candidates = (await nearest(vector, poolSize(k), query.filter)).map((hit) => ({ record: hit.record, score: hit.score }));
    } else if (mode === 'hybrid') {
      candidates = await hybrid(text, k, query.filter, query.signal);
    } else {
      candidates = await hierarchical(text, k, query.filter, query.signal);
    }

    // A session's own record routes hybrid search to its messages (conversation-recall.ts); it is never a hit.
    let ranked = rankCandidates(mode === 'hybrid' ? candidates : candidates.filter((c) => !isSessionRecord(c.record)), query.filter?.levels);
    if (options.reranker && ranked.length > 0) ranked = await rerank(text, ranked, k, query.signal);
    const minScore = query.minScore ?? 0;
    let top = withLifters(ranked.filter((c) => c.score >= minScore).slice(0, k));
    // A reranker judges relevance itself; vector search finds by meaning, which term weights say nothing about.
    if (!options.reranker && mode !== 'vector') top = await weighByCoverage(text, top);
    const hits = top.map((c) => toHit(c, text));
    logger.debug('Search', { mode, k, hits: hits.length, ms: Date.now() - started });
    return hits;
  }

  /**
   * A lifted neighbour is its lifter's context only next to its lifter: one whose lifter is not
   * among the hits (a when-question's time lift can put it above) stands alone, judged by itself.
   */
  function withLifters(top: Candidate[]): Candidate[] {
    const messages = new Set(top.map((c) => `${c.record.uri}\n${c.record.provenance.message_ids?.[0] ?? ''}`));
    return top.map((c) => {
      if (!c.neighbourOf || messages.has(`${c.record.uri}\n${c.neighbourOf}`)) return c;
      const { neighbourOf: _, ...alone } = c;
      return alone;
    });
  }

  /**
   * How much of the query each of the first candidates covers, weighted by term rarity
   * (coverage.ts): one common word is a weak match. It decides weak matches only, not the order:
   * ranking by it lowered recall on the dev sets (hybrid R@5 81.5 → 79.2, hierarchical 84.4 →
   * 76.3; full text gained on documents but lost on Chinese and conversations; bench/RESULTS.md,
   * "Relevance floor"). A store without term statistics leaves every hit at 1.
   */
  async function weighByCoverage(text: string, ranked: Candidate[]): Promise<Candidate[]> {
    if (!store.termDocumentCounts) return ranked;
    const terms = [...new Set(searchTerms(text))];
    if (terms.length === 0 || ranked.length === 0) return ranked;
    const weights = termWeights(terms, await store.termDocumentCounts(terms, TERM_COUNT_CAP));
    return ranked.map((c) => ({ ...c, coverage: coverageFactor(coverage(c.record.text, weights)) }));
  }

  async function rerank(text: string, ranked: Candidate[], k: number, signal?: AbortSignal): Promise<Candidate[]> {
    const reranker = options.reranker as Reranker;
    const top = ranked.slice(0, options.rerankTopN ?? Math.max(3 * k, 30));
    let scores: number[];
    try {
      scores = await reranker(
        text,
        top.map((c) => ({ id: c.record.id, uri: c.record.uri, level: c.record.level, text: c.record.text, score: c.score })),
        { signal },
      );
    } catch (error) {
      if (CairnError.is(error)) throw error;
      throw new CairnError('INTERNAL', `The reranker failed: ${errorMessage(error)}`, { cause: error });
    }
    if (scores.length !== top.length) throw new CairnError('INTERNAL', `The reranker returned ${scores.length} scores for ${top.length} candidates`);
    // Only what the reranker saw can be ranked against each other: the rest is left out.
    return top
      .map((c, i) => ({ record: c.record, score: Math.min(1, Math.max(0, Number(scores[i]) || 0)) }))
      .sort((a, b) => b.score - a.score);
  }

  async function reembedAll(reembed: ReembedOptions = {}): Promise<{ reembedded: number }> {
    const batchSize = reembed.batchSize ?? 256;
    let reembedded = 0;
    let previous = new Set<string>();
    for (;;) {
      if (reembed.signal?.aborted) throw new CairnError('CANCELLED', 'Re-embedding cancelled', { cause: reembed.signal.reason, details: { reembedded } });
      const stale = await store.find({ filter: { notEmbedModel: modelId }, limit: batchSize });
      if (stale.length === 0) break;
      // The same rows twice in a row means our writes are not landing: stop rather than spin.
      if (stale.every((record) => previous.has(record.id))) {
        throw new CairnError('INDEX_FAILED', `Re-embedding made no progress on ${stale.length} records`, { details: { ids: stale.slice(0, 5).map((r) => r.id) } });
      }
      previous = new Set(stale.map((record) => record.id));
      const embeds = (record: StoredRecord) => !store.vectorsOptional || hasOwnVector(record);
      const vectors = await embedTexts(
        stale.filter(embeds).map((record) => record.text),
        reembed.signal,
      );
      let next = 0;
      await store.upsert(stale.map((record) => ({ ...record, vector: embeds(record) ? (vectors[next++] as Float32Array) : null, embed_model: modelId })));
      reembedded += stale.length;
      reembed.onProgress?.(reembedded);
    }
    if (reembedded > 0) {
      await store.optimize();
      logger.info('Re-embedded records for a new embedding model', { model: modelId, records: reembedded });
    }
    return { reembedded };
  }

  return {
    modelId,
    upsert,
    async removeUnder(uri) {
      await store.deleteByUriPrefix(uri);
    },
    search,
    reembedAll,
    optimize: () => store.optimize(),
    recordIds: () => store.listIds(),
    async removeRecords(ids) {
      await store.deleteIds(ids);
    },
  };
}
