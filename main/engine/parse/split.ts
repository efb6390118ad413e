/**
 * Lossless splitting of a document into a tree of sections (docs/SPEC.md#splitting; the spec's "智能分割").
 *
 * A document of at most `maxTokens` stays one file. A larger one becomes a directory of its
 * sections, cut at its shallowest headings; sections under `minTokens` merge with neighbours;
 * a section still over `maxTokens` becomes a sub-directory cut at its own sub-headings or, with
 * none, packed from its paragraphs, then sentences, then lines, then token windows. Every cut
 * falls between two characters of the original string, so the leaves, read depth-first, give back
 * the input byte for byte (CRLF, trailing spaces and text before the first heading included).
 *
 * Token counts: every block is counted once and decisions use sums of block counts (a
 * concatenation counts within a token or two of the sum), so the work stays linear; each node's
 * meta records the real count of its own text, and no leaf's real count exceeds `maxTokens`.
 */
import { getDefaults, Lexer, type Token } from 'marked';
import { CairnError } from '../../../shared/errors.js';
import { countTokens } from '../../lib/tokens.js';
import type { ParsedMeta, ParsedNode } from './types.js';
import { frontMatterEnd, plainTitle, underlinedHeadings, type Heading } from './text-headings.js';

export { plainTitle };

export interface SplitDocumentOptions {
  /** Name of the resulting node: the file's own name (`guide.md`). */
  name: string;
  maxTokens: number;
  minTokens: number;
  /** Markdown splits at headings; text only at blank lines, sentences and windows. */
  format: 'markdown' | 'text';
  /**
   * Extension of the section files, with its dot (`.rst`): the source's own, so a section opens
   * like its document. Default `.md` for Markdown, `.txt` for text.
   */
  extension?: string;
  /**
   * How a paragraph too big for one leaf is cut: at sentence ends (prose, the default) or at
   * line ends (logs, CSV, subtitles: one record per line).
   */
  paragraphCuts?: 'sentences' | 'lines';
}

type BlockKind = 'heading' | 'code' | 'table' | 'list' | 'prose';

/** A top-level block of the document, as offsets into the original string. */
interface Block {
  start: number;
  end: number;
  kind: BlockKind;
  /** Heading level 1-6; 0 for other blocks. */
  depth: number;
  title?: string;
  tokens: number;
}

/** A piece of text no cut goes through, with its real token count. */
interface Atom {
  start: number;
  end: number;
  tokens: number;
  title?: string;
}

/** Blocks [from, to) of one section; `opensWithCut` when it starts at a heading of the cut depth. */
interface Section {
  from: number;
  to: number;
  opensWithCut: boolean;
}

interface Group extends Section {
  count: number;
}

type Piece =
  | { kind: 'leaf'; start: number; end: number; tokens: number; title?: string }
  | { kind: 'dir'; start: number; end: number; title?: string; children: Piece[] };

const NO_HEADING = 7;

/**
 * Splits `text` into one file node or a directory of sections.
 *
 * @example
 * const node = splitDocument(markdown, { name: 'guide.md', maxTokens: 1024, minTokens: 512, format: 'markdown' });
 * // small: { kind: 'file', name: 'guide.md', content: markdown, meta: { tokens, lines: [1, 40], title: 'Guide' } }
 * // large: { kind: 'dir', name: 'guide.md', children: [{ name: '01-introduction.md' }, { name: '02-usage', kind: 'dir' }, ...] }
 */
export function splitDocument(text: string, opts: SplitDocumentOptions): ParsedNode {
  if (!Number.isInteger(opts.maxTokens) || opts.maxTokens < 1 || opts.minTokens < 0) {
    throw new CairnError('INVALID_INPUT', `${opts.name}: split options need maxTokens >= 1 and minTokens >= 0 (got ${opts.maxTokens} and ${opts.minTokens})`);
  }
  const lines = new LineIndex(text);
  const total = countTokens(text);
  const blocks = opts.format === 'markdown' ? markdownBlocks(text) : textBlocks(text);
  const title = blocks.find((b) => b.kind === 'heading')?.title;
  if (total <= opts.maxTokens) {
    return { kind: 'file', name: opts.name, content: text, meta: meta(total, lines.range(0, text.length), title) };
  }
  for (const block of blocks) block.tokens = blocks.length === 1 ? total : countTokens(text.slice(block.start, block.end));
  const splitter = new Splitter(text, blocks, opts.maxTokens, opts.minTokens, opts.paragraphCuts ?? 'sentences');
  const children = splitter.splitRange(0, blocks.length, false);
  const namer = new NodeBuilder(text, lines, opts.extension ?? (opts.format === 'markdown' ? '.md' : '.txt'));
  return { kind: 'dir', name: opts.name, children: namer.children(children), meta: meta(total, lines.range(0, text.length), title) };
}

function meta(tokens: number, lines: [number, number], title: string | undefined): ParsedMeta {
  return title ? { tokens, lines, title } : { tokens, lines };
}

class Splitter {
  private readonly prefix: number[];

  constructor(
    private readonly text: string,
    private readonly blocks: Block[],
    private readonly max: number,
    private readonly min: number,
    private readonly paragraphCuts: 'sentences' | 'lines',
  ) {
    this.prefix = [0];
    let sum = 0;
    for (const block of blocks) this.prefix.push((sum += block.tokens));
  }

  private sum(from: number, to: number): number {
    return this.prefix[to]! - this.prefix[from]!;
  }

  private block(index: number): Block {
    return this.blocks[index]!;
  }

  /**
   * Splits blocks [from, to). With `own`, block `from` is the heading that opens this range
   * and the cuts go at the shallowest heading after it.
   */
  splitRange(from: number, to: number, own: boolean): Piece[] {
    const first = own ? from + 1 : from;
    let depth = NO_HEADING;
    for (let k = first; k < to; k++) {
      const block = this.block(k);
      if (block.kind === 'heading' && block.depth < depth) depth = block.depth;
    }
    if (depth === NO_HEADING) return this.pack(from, to);

    // Sections open at each heading of that depth; the text before the first is the introduction.
    const sections: Section[] = [];
    for (let k = first; k < to; k++) {
      const block = this.block(k);
      if (block.kind !== 'heading' || block.depth !== depth) continue;
      if (sections.length === 0 && k > from) sections.push({ from, to: k, opensWithCut: false });
      const previous = sections.at(-1);
      if (previous) previous.to = k;
      sections.push({ from: k, to, opensWithCut: true });
    }

    const pieces: Piece[] = [];
    for (const group of this.mergeSmall(sections)) {
      const { from: a, to: b } = group;
      if (group.count > 1 || this.sum(a, b) <= this.max) {
        pieces.push(...this.leafOrPack(a, b));
      } else if (group.opensWithCut) {
        // One section too big: a directory cut at its own sub-headings.
        pieces.push({ kind: 'dir', start: this.block(a).start, end: this.block(b - 1).end, title: this.block(a).title, children: this.splitRange(a, b, true) });
      } else {
        // The introduction too big: its parts sit beside the sections (it holds no heading of this depth).
        pieces.push(...this.splitRange(a, b, own));
      }
    }
    // A range that is one big section adds no level of its own.
    if (pieces.length === 1 && pieces[0]!.kind === 'dir') return pieces[0]!.children;
    return pieces;
  }

  /** Groups consecutive sections while one side is under `min` and the group stays within `max`. */
  private mergeSmall(sections: Section[]): Group[] {
    const groups: Group[] = [];
    let current: Group | undefined;
    let currentTokens = 0;
    for (const section of sections) {
      const tokens = this.sum(section.from, section.to);
      if (current && (currentTokens < this.min || tokens < this.min) && currentTokens + tokens <= this.max) {
        current.to = section.to;
        current.count += 1;
        currentTokens += tokens;
        continue;
      }
      current = { ...section, count: 1 };
      currentTokens = tokens;
      groups.push(current);
    }
    return groups;
  }

  private leafOrPack(from: number, to: number): Piece[] {
    const start = this.block(from).start;
    const end = this.block(to - 1).end;
    const tokens = to - from === 1 ? this.block(from).tokens : countTokens(this.text.slice(start, end));
    if (tokens <= this.max) return [{ kind: 'leaf', start, end, tokens, title: this.firstTitle(from, to) }];
    return this.pack(from, to);
  }

  private firstTitle(from: number, to: number): string | undefined {
    for (let k = from; k < to; k++) {
      const block = this.block(k);
      if (block.kind === 'heading') return block.title;
    }
    return undefined;
  }

  /** Packs blocks [from, to) into leaves of at most `max` tokens, breaking blocks that are too big. */
  private pack(from: number, to: number): Piece[] {
    const atoms: Atom[] = [];
    for (let k = from; k < to; k++) {
      const block = this.block(k);
      if (block.tokens <= this.max) atoms.push({ start: block.start, end: block.end, tokens: block.tokens, title: block.title });
      else if (block.kind === 'code' || block.kind === 'table' || this.paragraphCuts === 'lines') this.breakLines(block.start, block.end, block.tokens, atoms);
      else this.breakSentences(block.start, block.end, block.tokens, atoms);
    }
    // Aim every leaf at an even share, so the last one is not a scrap of a few tokens.
    const rest: number[] = new Array<number>(atoms.length + 1).fill(0);
    for (let k = atoms.length - 1; k >= 0; k--) rest[k] = rest[k + 1]! + atoms[k]!.tokens;
    const target = rest[0]! / Math.max(1, Math.ceil(rest[0]! / this.max));
    const pieces: Piece[] = [];
    let i = 0;
    while (i < atoms.length) {
      let sum = atoms[i]!.tokens;
      let j = i + 1;
      if (sum + rest[j]! <= this.max) j = atoms.length;
      while (j < atoms.length) {
        const next = sum + atoms[j]!.tokens;
        if (next > this.max || (next > target && next - target > target - sum)) break;
        sum = next;
        j += 1;
      }
      this.emitLeaves(atoms, i, j, pieces);
      i = j;
    }
    return pieces;
  }

  /** One leaf for atoms [i, j), halved until its real count fits (sums can undercount slightly). */
  private emitLeaves(atoms: Atom[], i: number, j: number, out: Piece[]): void {
    const first = atoms[i]!;
    const last = atoms[j - 1]!;
    const tokens = j - i === 1 ? first.tokens : countTokens(this.text.slice(first.start, last.end));
    if (tokens <= this.max || j - i === 1) {
      const title = atoms.slice(i, j).find((atom) => atom.title !== undefined)?.title;
      out.push({ kind: 'leaf', start: first.start, end: last.end, tokens, title });
      return;
    }
    const mid = (i + j) >> 1;
    this.emitLeaves(atoms, i, mid, out);
    this.emitLeaves(atoms, mid, j, out);
  }

  private breakSentences(start: number, end: number, tokens: number, out: Atom[]): void {
    this.breakAt(sentenceCuts(this.text, start, end), start, end, tokens, out, (s, e, t) => this.breakLines(s, e, t, out));
  }

  private breakLines(start: number, end: number, tokens: number, out: Atom[]): void {
    this.breakAt(lineCuts(this.text, start, end), start, end, tokens, out, (s, e, t) => this.windows(s, e, t, out));
  }

  /** Pieces between `cuts`; pieces still over max go to `tooBig`. `tokens` is the count of [start, end). */
  private breakAt(cuts: number[], start: number, end: number, tokens: number, out: Atom[], tooBig: (s: number, e: number, tokens: number) => void): void {
    if (cuts.length === 0) {
      tooBig(start, end, tokens);
      return;
    }
    let at = start;
    for (const cut of [...cuts, end]) {
      if (cut <= at) continue;
      const piece = this.text.slice(at, cut);
      const count = countTokens(piece);
      const previous = out.at(-1);
      // Blank lines stay with the text before them rather than becoming a piece of their own.
      const joined = previous?.end === at && at > start && piece.trim() === '' ? countTokens(this.text.slice(previous.start, cut)) : Infinity;
      if (previous && joined <= this.max) {
        previous.end = cut;
        previous.tokens = joined;
      } else if (count <= this.max) out.push({ start: at, end: cut, tokens: count });
      else tooBig(at, cut, count);
      at = cut;
    }
  }

  /** Last resort: windows of at most `max` tokens, cut at a space where one is near. */
  private windows(start: number, end: number, tokens: number, out: Atom[]): void {
    let length = this.windowLength(end - start, tokens);
    let at = start;
    while (at < end) {
      let cut = at + length >= end ? end : softCut(this.text, at, at + length);
      let count = countTokens(this.text.slice(at, cut));
      while (count > this.max) {
        const shorter = softCut(this.text, at, at + this.windowLength(cut - at, count));
        if (shorter >= cut) break; // a single character over max (only with a tiny max): keep it whole
        cut = shorter;
        count = countTokens(this.text.slice(at, cut));
      }
      out.push({ start: at, end: cut, tokens: count });
      // Follow the local density, so the next window starts near the right size.
      length = this.windowLength(cut - at, count);
      at = cut;
    }
  }

  /** Characters that should hold about 90% of `max` tokens, given `chars` held `tokens`. */
  private windowLength(chars: number, tokens: number): number {
    return Math.max(1, Math.floor((chars * this.max * 0.9) / Math.max(tokens, 1)));
  }
}

/** A cut near `target` (> at): after the last whitespace in the final quarter, never inside a surrogate pair or CRLF. */
function softCut(text: string, at: number, target: number): number {
  let cut = target;
  const floor = at + Math.floor((target - at) * 0.75);
  for (let k = target; k > floor; k--) {
    if (/\s/.test(text[k - 1]!) && !/\s/.test(text[k] ?? '')) {
      cut = k;
      break;
    }
  }
  if (isLowSurrogate(text.charCodeAt(cut)) && cut - 1 > at) cut -= 1;
  else if (isLowSurrogate(text.charCodeAt(cut))) cut += 1;
  if (text[cut - 1] === '\r' && text[cut] === '\n') cut += cut - 1 > at ? -1 : 1;
  return cut;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

// A sentence ends at Chinese 。！？ (closing quotes and spaces stay with it) or at Latin .!? followed by whitespace.
const SENTENCE_END = /[。！？]+[”’」』）》"')\]]*\s*|[.!?]+[”’"')\]]*\s+/gu;
const LINE_END = /\r\n|\r|\n/g;

function sentenceCuts(text: string, start: number, end: number): number[] {
  return cutsAfter(SENTENCE_END, text, start, end);
}

function lineCuts(text: string, start: number, end: number): number[] {
  return cutsAfter(LINE_END, text, start, end);
}

/** Offsets inside (start, end) right after each match; the regex runs on the slice so the work stays local. */
function cutsAfter(pattern: RegExp, text: string, start: number, end: number): number[] {
  const cuts: number[] = [];
  const slice = text.slice(start, end);
  pattern.lastIndex = 0;
  for (let match = pattern.exec(slice); match !== null; match = pattern.exec(slice)) {
    let cut = start + match.index + match[0].length;
    if (text[cut - 1] === '\r' && text[cut] === '\n') cut += 1;
    if (cut > start && cut < end) cuts.push(cut);
  }
  return cuts;
}

// ---------------------------------------------------------------------------------------------
// Blocks

/** Top-level Markdown blocks (front matter, headings, code, tables, lists, paragraphs) over the original string. */
export function markdownBlocks(text: string): Block[] {
  const blocks: Block[] = [];
  const frontMatter = frontMatterEnd(text);
  if (frontMatter > 0) blocks.push({ start: 0, end: frontMatter, kind: 'prose', depth: 0, tokens: 0 });
  const body = text.slice(frontMatter);
  // marked reads CRLF and CR as LF; `toOriginal` maps its offsets back onto the original string.
  const normalized = body.replace(/\r\n?/g, '\n');
  const toOriginal = offsetMapper(body);
  let cursor = 0;
  // Fresh options: marked.use() elsewhere in the process must not change how documents split.
  for (const token of new Lexer(getDefaults()).blockTokens(normalized)) {
    // marked's raws tile its input; if that ever stops holding, keep the rest as one block.
    if (!normalized.startsWith(token.raw, cursor) || token.raw.length === 0) break;
    const start = frontMatter + toOriginal(cursor);
    cursor += token.raw.length;
    const end = frontMatter + toOriginal(cursor);
    const previous = blocks.at(-1);
    if (token.type === 'space' && previous) {
      previous.end = end;
      continue;
    }
    blocks.push(blockOf(token, start, end));
  }
  if (cursor < normalized.length) {
    blocks.push({ start: frontMatter + toOriginal(cursor), end: text.length, kind: 'prose', depth: 0, tokens: 0 });
  }
  return blocks;
}

function blockOf(token: Token, start: number, end: number): Block {
  switch (token.type) {
    case 'heading':
      return { start, end, kind: 'heading', depth: token.depth as number, title: plainTitle(token.text as string), tokens: 0 };
    case 'code':
      return { start, end, kind: 'code', depth: 0, tokens: 0 };
    case 'table':
      return { start, end, kind: 'table', depth: 0, tokens: 0 };
    case 'list':
      return { start, end, kind: 'list', depth: 0, tokens: 0 };
    default:
      return { start, end, kind: 'prose', depth: 0, tokens: 0 };
  }
}

/**
 * Paragraphs (runs of non-blank lines with the blank lines that follow them) and underlined
 * headings: a plain text's "Release Notes\n=============" is its title and its sections open at
 * such lines, as in Markdown, AsciiDoc and reStructuredText.
 */
export function textBlocks(text: string): Block[] {
  const headings = underlinedHeadings(text);
  const cuts = new Set<number>();
  const blankRun = /(?:\r\n|\r|\n)(?:[ \t]*(?:\r\n|\r|\n))+/g;
  for (let match = blankRun.exec(text); match !== null; match = blankRun.exec(text)) cuts.add(match.index + match[0].length);
  const byStart = new Map<number, Heading>();
  for (const heading of headings) {
    byStart.set(heading.start, heading);
    cuts.add(heading.start);
    cuts.add(heading.end);
  }
  const blocks: Block[] = [];
  let start = 0;
  for (const end of [...cuts].filter((cut) => cut > 0 && cut < text.length).sort((a, b) => a - b)) {
    blocks.push(blockAt(start, end, byStart));
    start = end;
  }
  if (start < text.length || blocks.length === 0) blocks.push(blockAt(start, text.length, byStart));
  return blocks;
}

function blockAt(start: number, end: number, headings: Map<number, Heading>): Block {
  const heading = headings.get(start);
  return heading ? { start, end, kind: 'heading', depth: heading.depth, title: heading.title, tokens: 0 } : { start, end, kind: 'prose', depth: 0, tokens: 0 };
}

/** Maps offsets in `source` with CRLF and CR read as LF back to offsets in `source`; queries must not decrease. */
function offsetMapper(source: string): (offset: number) => number {
  if (!source.includes('\r')) return (offset) => offset;
  // Normalized positions of the LF that each CRLF became; every later offset shifts by one.
  const collapsed: number[] = [];
  const crlf = /\r\n/g;
  for (let match = crlf.exec(source); match !== null; match = crlf.exec(source)) collapsed.push(match.index - collapsed.length);
  let passed = 0;
  return (offset) => {
    while (passed < collapsed.length && collapsed[passed]! < offset) passed += 1;
    return offset + passed;
  };
}


// ---------------------------------------------------------------------------------------------
// Nodes

/**
 * Node names that sort in document order and say what each section is: `01-introduction.md`,
 * `02-usage/`, `03-faq.md`. The number keeps the order (and makes names unique within their
 * folder, even for repeated headings); the slug comes from the section's heading, else from its
 * first words (`text`), else is `part`. Names depend only on the text, so re-ingesting the same
 * document gives the same names.
 */
export function sectionName(index: number, count: number, title: string | undefined, extension: string | null, text = ''): string {
  const width = Math.max(2, String(count).length);
  const slug = slugify(title ?? '') || leadSlug(text) || 'part';
  return `${String(index + 1).padStart(width, '0')}-${slug}${extension ?? ''}`;
}

// Slug budgets in columns: a Chinese, Japanese or Korean character counts two, as a terminal shows it.
const MAX_SLUG_COLUMNS = 60;
const MAX_LEAD_COLUMNS = 32;
const MAX_LEAD_WORDS = 6;
// Far under the 255-byte name limit of common file systems, with room for the number and extension.
const MAX_SLUG_BYTES = 180;
// Enough of a section's start to find its first words.
const LEAD_CHARS = 400;

/**
 * A heading as a file name: lower case; Latin letters folded to ASCII (`Café Straße` ->
 * `cafe-strasse`, so names are easy to type and have one Unicode form); letters of other
 * scripts kept as they are (`快速入门`: there is no faithful transliteration without a
 * dictionary, and a reader searches by the characters); every other run becomes `-`; cut at
 * a word end within 60 columns.
 */
export function slugify(title: string, maxColumns = MAX_SLUG_COLUMNS, maxWords = Infinity): string {
  const words = foldLatin(title.normalize('NFKD').toLowerCase()).normalize('NFC').split(/[^\p{L}\p{N}\p{M}]+/u).filter((word) => /[\p{L}\p{N}]/u.test(word));
  const kept: string[] = [];
  let columns = 0;
  let bytes = 0;
  for (const word of words.slice(0, maxWords)) {
    const separator = kept.length > 0 ? 1 : 0;
    const wordColumns = columnsOf(word);
    if (columns + separator + wordColumns <= maxColumns && bytes + separator + Buffer.byteLength(word) <= MAX_SLUG_BYTES) {
      kept.push(word);
      columns += separator + wordColumns;
      bytes += separator + Buffer.byteLength(word);
      continue;
    }
    // A first word that is too long on its own (a Chinese phrase has no spaces) is cut inside.
    if (kept.length === 0) kept.push(cutToBudget(word, maxColumns));
    break;
  }
  return kept.join('-');
}

/** The first words of a section without a heading, as a slug (Markdown links and emphasis read as text). */
function leadSlug(text: string): string {
  return slugify(plainTitle(text.slice(0, LEAD_CHARS)), MAX_LEAD_COLUMNS, MAX_LEAD_WORDS);
}

// Latin letters NFKD does not take apart.
const LATIN_LETTERS: Record<string, string> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', đ: 'd', ð: 'd', þ: 'th', ł: 'l', ı: 'i', ħ: 'h', ŋ: 'ng', ŧ: 't', ĸ: 'k' };

/** Drops the accents of Latin letters (in NFKD text) and spells the few special ones in ASCII; other scripts' marks stay. */
function foldLatin(decomposed: string): string {
  return decomposed.replace(/(\p{Script=Latin})\p{M}+/gu, '$1').replace(/[ßæœøđðþłıħŋŧĸ]/g, (letter) => LATIN_LETTERS[letter] ?? letter);
}

const WIDE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

function columnsOf(word: string): number {
  let columns = 0;
  for (const char of word) columns += WIDE.test(char) ? 2 : 1;
  return columns;
}

function cutToBudget(word: string, maxColumns: number): string {
  let out = '';
  let columns = 0;
  for (const char of word) {
    const next = columns + (WIDE.test(char) ? 2 : 1);
    if (next > maxColumns || Buffer.byteLength(out + char) > MAX_SLUG_BYTES) break;
    out += char;
    columns = next;
  }
  return out;
}

class NodeBuilder {
  constructor(
    private readonly text: string,
    private readonly lines: LineIndex,
    private readonly extension: string,
  ) {}

  children(pieces: Piece[]): ParsedNode[] {
    return pieces.map((piece, index) =>
      this.node(piece, sectionName(index, pieces.length, piece.title, piece.kind === 'dir' ? null : this.extension, this.text.slice(piece.start, Math.min(piece.end, piece.start + LEAD_CHARS)))),
    );
  }

  private node(piece: Piece, name: string): ParsedNode {
    const lines = this.lines.range(piece.start, piece.end);
    if (piece.kind === 'leaf') {
      return { kind: 'file', name, content: this.text.slice(piece.start, piece.end), meta: meta(piece.tokens, lines, piece.title) };
    }
    const tokens = countTokens(this.text.slice(piece.start, piece.end));
    return { kind: 'dir', name, children: this.children(piece.children), meta: meta(tokens, lines, piece.title) };
  }
}

/** 1-based line numbers of offsets; a line ends at CRLF, CR or LF. */
export class LineIndex {
  private readonly starts: number[] = [0];

  constructor(text: string) {
    LINE_END.lastIndex = 0;
    for (let match = LINE_END.exec(text); match !== null; match = LINE_END.exec(text)) this.starts.push(match.index + match[0].length);
  }

  lineOf(offset: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }

  /** Lines [first, last] that the text [start, end) touches. */
  range(start: number, end: number): [number, number] {
    return [this.lineOf(start), this.lineOf(Math.max(start, end - 1))];
  }
}
