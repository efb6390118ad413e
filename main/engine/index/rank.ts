/**
 * Search results as a person reads them: the index's hits (one per node and level, best first)
 * become one list ordered by relevance with one entry per document. This is the one place the
 * list is shaped; the app, `cairn search` and MCP's search tool only show it.
 *
 * - A split document is a directory whose children are its sections (meta `document: true`): the
 *   hits of its sections and of its own L0/L1 merge under it, best first ("3 more sections").
 * - The title is the document's (its first heading, else its file name) and each hit keeps its
 *   section's heading; a section's file name (`02-part.txt`) is never a title.
 * - Identical content (the same content hash at the same level) is one hit; the other places
 *   are listed as `also_at`, and a document all of whose hits are copies folds into the first.
 * - Results whose relevance (score × coverage of the query, search-index.ts) is below the mode's
 *   floor (`WEAK_BELOW`) are flagged `weak` and listed after the others.
 * - A conversation message stays its own entry: a question is answered by messages. A message
 *   that is a hit only as another's neighbour (`neighbour_of`, conversation-recall.ts) goes under
 *   that message as its context, after its own hits: it is never a result of its own, and a
 *   reader (and the recall count) meets it right after the message that brought it in.
 *
 * `rankHits` is pure (tested on hand-made hits); `documentsOf` reads the metas it needs.
 */
import { basename } from 'node:path';
import type { RankedHit, RankedResult, SearchHit as ContractHit, SearchMode } from '../../../shared/contracts/api.js';
import { parentUri, parseCtxUri, uriName } from '../../../shared/uri.js';
import type { NodeMeta } from '../../../shared/types/node.js';
import type { ContextFS } from '../tree/context-fs.js';
import type { SearchHit } from './search-index.js';

/**
 * The relevance floor of each mode: a result below it is a weak match. Scores are relative in
 * every mode but `vector` (see search-index.ts), so each mode has its own floor: the highest that
 * keeps 95% of the hits answering a question (in the first 10) on the retrieval dev set, local
 * embedder (`node scripts/score-floor.mjs`; figures in bench/RESULTS.md, "Relevance floor"). In
 * hybrid search it flags 97% of the hits of a search over documents in the other language.
 */
export const WEAK_BELOW: Record<SearchMode, number> = {
  hybrid: 0.74,
  fts: 0.43,
  vector: 0.13,
  hierarchical: 0.52,
};

/** What a hit belongs to: a split document's directory, or the node itself. */
export interface HitDocument {
  uri: string;
  title: string;
}

export interface RankInput {
  hit: SearchHit;
  document: HitDocument;
}

export interface RankOptions {
  /** Results scoring below this are `weak`. */
  weakBelow: number;
}

/** The contract's view of an index hit (ids, parents and hashes stay in the engine). */
export function toContractHit(hit: SearchHit): ContractHit {
  return {
    uri: hit.uri,
    level: hit.level,
    score: hit.score,
    snippet: hit.snippet,
    highlights: hit.highlights,
    context_type: hit.context_type,
    category: hit.category,
    provenance: { source: hit.provenance.source, lines: hit.provenance.lines, message_ids: hit.provenance.message_ids },
    ...(hit.neighbour_of ? { neighbour_of: hit.neighbour_of } : {}),
  };
}

const isMessage = (hit: SearchHit) => hit.provenance.message_ids.length > 0;
/**
 * The entry a hit goes under: its document, or for a message the message itself. A memory's
 * levels name the same messages at the same URI, so they are one entry (they were three: the
 * memory, then "mem_….md" twice).
 */
const entryKey = (input: RankInput) => (isMessage(input.hit) ? `${input.hit.uri}\n${input.hit.provenance.message_ids.join('\n')}` : input.document.uri);
/** The entry of the message a neighbour is the context of (same URI), or null for any other hit. */
const lifterKey = (hit: SearchHit) => (hit.neighbour_of ? `${hit.uri}\n${hit.neighbour_of}` : null);
const contentKey = (hit: SearchHit) => (hit.content_hash ? `${hit.level}\n${hit.content_hash}` : null);

function scopeOf(uri: string): string {
  try {
    return parseCtxUri(uri).scope;
  } catch {
    return 'other';
  }
}

/**
 * Merges hits (best first, as the index ranks them) into results: one per document, best first,
 * copies collapsed, weak ones flagged. Every input hit is either in a result or in an `also_at`.
 */
export function rankHits(inputs: readonly RankInput[], options: RankOptions): RankedResult[] {
  const ordered = [...inputs].sort((a, b) => b.hit.score - a.hit.score);
  // Where each entry first appears: a set of copies keeps the copy of the entry that ranks first,
  // so a copied document folds into one entry rather than being split between two.
  const entryRank = new Map<string, number>();
  ordered.forEach((input, i) => {
    const key = entryKey(input);
    if (!entryRank.has(key)) entryRank.set(key, i);
  });
  const rankOf = (input: RankInput) => entryRank.get(entryKey(input)) ?? 0;

  const keeper = new Map<string, RankInput>();
  for (const input of ordered) {
    const key = contentKey(input.hit);
    if (key === null) continue;
    const current = keeper.get(key);
    if (!current || rankOf(input) < rankOf(current)) keeper.set(key, input);
  }

  // The hits kept, each with the places of its copies.
  const copiesOf = new Map<RankInput, Set<string>>();
  const winnerOf = (input: RankInput) => {
    const key = contentKey(input.hit);
    return key === null ? input : (keeper.get(key) as RankInput);
  };
  for (const input of ordered) if (winnerOf(input) === input) copiesOf.set(input, new Set());
  for (const input of ordered) {
    const winner = winnerOf(input);
    if (winner !== input && winner.hit.uri !== input.hit.uri) copiesOf.get(winner)?.add(input.hit.uri);
  }

  interface Entry {
    document: HitDocument;
    message: boolean;
    /** The best hit's coverage factor (search-index.ts). */
    coverage: number;
    hits: RankedHit[];
    alsoAt: Set<string>;
  }
  const entries = new Map<string, Entry>();
  // A neighbour goes under its lifter, after the lifter's own hits; one whose lifter is not
  // listed stands alone (and is no one's context).
  const keys = new Set([...copiesOf.keys()].map(entryKey));
  const lifterOf = (input: RankInput) => {
    const key = lifterKey(input.hit);
    return key !== null && key !== entryKey(input) && keys.has(key) ? key : null;
  };
  const own = [...copiesOf].filter(([input]) => lifterOf(input) === null);
  const context = [...copiesOf].filter(([input]) => lifterOf(input) !== null);
  for (const [input, copies] of [...own, ...context]) {
    const key = lifterOf(input) ?? entryKey(input);
    let entry = entries.get(key);
    if (!entry) {
      entry = { document: input.document, message: isMessage(input.hit), coverage: input.hit.coverage, hits: [], alsoAt: new Set() };
      entries.set(key, entry);
    }
    const hit = toContractHit(input.hit);
    if (lifterOf(input) === null) delete hit.neighbour_of;
    entry.hits.push({ ...hit, heading: input.hit.heading, also_at: [...copies].sort() });
    for (const uri of copies) entry.alsoAt.add(uri);
  }
  // An entry's copies, named by their documents: the document a copied hit sits in.
  const documentOfUri = new Map(inputs.map((input) => [input.hit.uri, input.document.uri]));

  const results = [...entries.values()].map((entry): RankedResult => {
    const best = entry.hits[0] as RankedHit;
    const uri = entry.message ? best.uri : entry.document.uri;
    const alsoAt = new Set([...entry.alsoAt].map((hitUri) => (entry.message ? hitUri : (documentOfUri.get(hitUri) ?? hitUri))));
    alsoAt.delete(uri);
    return {
      uri,
      title: entry.document.title,
      score: best.score,
      scope: scopeOf(uri),
      // Relevance is the score weighed by how much of the query the hit covers: a hit carried by
      // one common word of the question is weak however well that word ranked it.
      weak: best.score * entry.coverage < options.weakBelow,
      hits: entry.hits,
      also_at: [...alsoAt].sort(),
    };
  });
  // Weak results go last, each part in score order: a high-scoring hit made weak by its coverage
  // would otherwise sit among the strong ones, and a reader (and the Search view) takes the weak
  // ones to be the list's tail.
  return [...results.filter((r) => !r.weak), ...results.filter((r) => r.weak)];
}

type MetaReader = Pick<ContextFS, 'readMetaOf'>;

/** The title a node shows: the heading it was written with, else its source file's name, else its own. */
function titleOf(uri: string, meta: NodeMeta | null, heading: string | null): string {
  const title = meta?.title ?? heading;
  if (title) return title;
  if (meta?.source_path && meta.document) return basename(meta.source_path);
  return uriName(uri) || uri;
}

/**
 * A memory is titled by its title; a conversation's message by its conversation (the session
 * file's name, `s1.md`, said nothing). Either way the hit's heading, then the node's name, else.
 */
async function messageTitle(metaOf: (uri: string) => Promise<NodeMeta | null>, hit: SearchHit): Promise<string> {
  const meta = await metaOf(hit.uri);
  const memory = (meta as { memory?: { title?: unknown } } | null)?.memory?.title;
  if (typeof memory === 'string' && memory) return memory;
  if (hit.heading) return hit.heading;
  const parent = meta?.context_type === 'session' ? parentUri(hit.uri) : null;
  if (parent) {
    const conversation = (await metaOf(parent))?.title;
    if (conversation) return conversation;
  }
  return titleOf(hit.uri, meta, null);
}

/**
 * The document of each hit: the outermost directory of the split document it sits in (each
 * directory of a split document has `document: true` in its meta), else the node itself. Reads
 * each meta once per call; a meta that cannot be read makes the node its own document.
 */
export async function documentsOf(fs: MetaReader, hits: readonly SearchHit[]): Promise<RankInput[]> {
  const metas = new Map<string, Promise<NodeMeta | null>>();
  const metaOf = (uri: string) => {
    let meta = metas.get(uri);
    if (!meta) {
      meta = fs.readMetaOf(uri, uri.endsWith('/') ? 'dir' : 'file').catch(() => null);
      metas.set(uri, meta);
    }
    return meta;
  };
  return Promise.all(
    hits.map(async (hit): Promise<RankInput> => {
      let documentUri: string | null = null;
      let at = hit.uri.endsWith('/') ? hit.uri : hit.parent_uri;
      while (at && (await metaOf(at))?.document) {
        documentUri = at;
        at = parentUri(at);
      }
      if (documentUri) {
        const document = { uri: documentUri, title: titleOf(documentUri, await metaOf(documentUri), null) };
        // A section's abstract or overview is headed by its section's heading too.
        const heading = hit.heading ?? (hit.uri === documentUri ? null : ((await metaOf(hit.uri))?.title ?? null));
        return { hit: heading === hit.heading ? hit : { ...hit, heading }, document };
      }
      if (isMessage(hit)) return { hit, document: { uri: hit.uri, title: await messageTitle(metaOf, hit) } };
      return { hit, document: { uri: hit.uri, title: titleOf(hit.uri, await metaOf(hit.uri), hit.heading) } };
    }),
  );
}
