/**
 * The text of a context pack (issue 19, item 3): what an agent is handed, so every token should
 * carry context. Each block is opened by a short reference (`[3]`) instead of its ctx:// URI;
 * one legend at the end maps the references to URIs, lines and message ids, naming each URI once.
 * The same node gets the same reference wherever it appears in the pack (a kept block, a part of
 * a chain summary, a chain's line in the legend). References are numbered in reading order.
 */
import type { BlockProvenance, CompressionResult, CompressionStrategy } from '../../../shared/types/compress.js';
import { formatCount } from '../../../shared/format.js';

/** One legend entry: what a reference stands for. */
export interface PackRef {
  ref: string;
  uri?: string;
  message_ids?: string[];
  lines?: [number, number];
  source?: string;
}

export interface RenderedPack {
  markdown: string;
  legend: PackRef[];
}

interface Entry {
  ref: string;
  content: string;
  shortened: boolean;
}

/** The node a block stands for: a message of a conversation, or a node of the tree. */
function nodeKey(blockId: string, provenance: BlockProvenance | undefined): string {
  if (!provenance?.uri) return `block:${blockId}`;
  return provenance.message_ids?.length ? `${provenance.uri}\n${provenance.message_ids.join(',')}` : provenance.uri;
}

export function renderPack(query: string, budget: number, strategy: CompressionStrategy, result: CompressionResult): RenderedPack {
  const legend: PackRef[] = [];
  const refOf = new Map<string, string>();
  const refByBlock = new Map<string, string>();
  const refFor = (blockId: string, provenance: BlockProvenance | undefined): string => {
    const key = nodeKey(blockId, provenance);
    let ref = refOf.get(key);
    if (!ref) {
      ref = `[${refOf.size + 1}]`;
      refOf.set(key, ref);
      legend.push({
        ref,
        ...(provenance?.uri ? { uri: provenance.uri } : {}),
        ...(provenance?.message_ids?.length ? { message_ids: provenance.message_ids } : {}),
        ...(provenance?.lines ? { lines: provenance.lines } : {}),
        ...(provenance?.source ? { source: provenance.source } : {}),
      });
    }
    refByBlock.set(blockId, ref);
    return ref;
  };

  // Kept blocks and chain summaries in the pack's order (the input order: best hits first);
  // references are handed out in that order, so they read [1], [2], ... from the top.
  const ordered: Array<{ index: number; parts: Array<{ id: string; provenance: BlockProvenance | undefined; content: string; shortened: boolean }> }> = [
    ...result.kept.map((b) => ({ index: b.index, parts: [{ id: b.id, provenance: b.provenance, content: b.content, shortened: b.shortened }] })),
    ...result.replaced.map((r) => ({ index: r.index, parts: r.parts.map((p) => ({ id: p.block_id, provenance: p.provenance, content: p.content, shortened: true })) })),
  ].sort((a, b) => a.index - b.index);
  const entries: Entry[] = ordered.flatMap((group) => group.parts.map((p) => ({ ref: refFor(p.id, p.provenance), content: p.content, shortened: p.shortened })));

  const lines = [
    '# Context pack',
    `Query: ${query}`,
    `${formatCount(result.compressed_tokens)} of ${formatCount(result.original_tokens)} tokens gathered, budget ${formatCount(budget)} (${strategy}); sources at the end.`,
    '',
  ];
  if (entries.length === 0) lines.push('Nothing relevant enough was found for this query.', '');
  for (const entry of entries) lines.push(`${entry.ref}${entry.shortened ? ' (excerpt)' : ''} ${entry.content.trim()}`, '');

  // A chain kept in part (its other steps did not fit around a top hit) names those steps by
  // reference: they get legend entries after the packed blocks, so an agent can read them.
  const unpacked = new Set<string>();
  for (const block of result.dropped) {
    if (!block.referenced) continue;
    unpacked.add(refFor(block.id, block.provenance));
  }
  const chainLines = result.chains
    .filter((c) => c.status !== 'dropped')
    .map((c) => {
      const refs = [...new Set(c.block_ids.map((id) => refByBlock.get(id)).filter((r): r is string => r !== undefined))];
      const notPacked = refs.filter((r) => unpacked.has(r));
      return refs.length > 1 ? `${c.id}: ${refs.join(' → ')}${notPacked.length ? ` (not packed: ${notPacked.join(', ')})` : ''}` : '';
    })
    .filter(Boolean);
  if (chainLines.length > 0) lines.push('Chains:', ...chainLines, '');
  if (legend.length > 0) lines.push('Sources:', ...legendLines(legend));
  return { markdown: lines.join('\n').trimEnd() + '\n', legend };
}

/** One line per URI: `uri: [2] message s1:3 · [3] message s1:5`, or `[1] uri, lines 3–10`. */
function legendLines(legend: readonly PackRef[]): string[] {
  const byUri = new Map<string, PackRef[]>();
  for (const item of legend) {
    const key = item.uri ?? item.ref;
    byUri.set(key, [...(byUri.get(key) ?? []), item]);
  }
  return [...byUri.entries()].map(([uri, items]) => {
    const detail = (item: PackRef) =>
      [item.message_ids?.length ? `message${item.message_ids.length > 1 ? 's' : ''} ${item.message_ids.join(', ')}` : '', item.lines ? `lines ${item.lines[0]}–${item.lines[1]}` : '']
        .filter(Boolean)
        .join(', ');
    if (items.length === 1) {
      const item = items[0] as PackRef;
      return [item.ref, [item.uri ?? '(no source)', detail(item)].filter(Boolean).join(', ')].join(' ');
    }
    return `${uri}: ${items.map((item) => [item.ref, detail(item)].filter(Boolean).join(' ')).join(' · ')}`;
  });
}
