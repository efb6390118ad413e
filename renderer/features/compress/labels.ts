/**
 * What the compression view calls a block and a chain: a block by its title (the document and
 * section heading, or the conversation, as the search list titles it; the pack carries it in the
 * block's provenance) and which messages it holds, a chain by its type and its first step. The
 * ids (`ctx://…#m:m6`, `causal-3f…`) stay for a tooltip.
 */
import type { ChainReport, ContextBlock } from '../../../shared/types/compress';
import { uriName } from '../../../shared/uri';

export interface BlockLabel {
  title: string;
  /** The messages it holds (a conversation's blocks), else empty. */
  messages: string[];
}

export function blockLabel(block: ContextBlock): BlockLabel {
  const uri = block.provenance?.uri ?? block.id.replace(/#.*$/, '');
  const title = block.provenance?.title || uriName(uri) || block.id;
  return { title, messages: block.provenance?.message_ids ?? [] };
}

export interface ChainLabel {
  /** Lower case, as blocks carry it; null when its blocks share no one type. */
  type: ContextBlock['chain_types'][number] | null;
  /** Its first step's text, cut to a line. */
  first: string;
}

const FIRST_STEP_CHARS = 90;

/**
 * A chain's type is the one its blocks all carry (a block in two chains carries both types), and
 * its first step the first of its blocks, in the order the compressor reports them.
 */
export function chainLabel(chain: ChainReport, blocks: readonly ContextBlock[]): ChainLabel {
  const byId = new Map(blocks.map((b) => [b.id, b]));
  const steps = chain.block_ids.map((id) => byId.get(id)).filter((b): b is ContextBlock => b !== undefined);
  const [first, ...rest] = steps;
  const type = first?.chain_types.find((t) => rest.every((b) => b.chain_types.includes(t))) ?? null;
  return { type, first: oneLine(first?.content ?? '', FIRST_STEP_CHARS) };
}

/** The text on one line, cut at a word near `max` characters with an ellipsis. */
function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line.length <= max) return line;
  const cut = line.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
