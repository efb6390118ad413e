/**
 * The headings of a plain text, where the text parser cuts it into sections: underlined (and
 * over- and underlined) titles as AsciiDoc and reStructuredText write them, "== Title" and
 * "## Title" lines, never inside a listing, a front matter block or a script's comments
 * (split.ts composes the sections from them).
 */

// Front matter closes near the top; a document that merely opens with a `---` rule is not all front matter.
const FRONT_MATTER_LIMIT = 64 * 1024;

/** Heading text without inline Markdown: `**Install** [Cairn](x)` -> `Install Cairn`. */
export function plainTitle(markdown: string): string {
  return markdown
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/[*_`~]+/g, '')
    .replace(/\\([\\`*_{}[\]()#+\-.!|])/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

export interface Heading {
  /** Offset of the heading's first line (its overline, if it has one). */
  start: number;
  /** Offset after its underline and the blank lines that follow. */
  end: number;
  depth: number;
  title: string;
}

/** A line of one repeated mark, as AsciiDoc and reStructuredText underline titles (= - ~ ^ +). */
const UNDERLINE = /^ {0,3}([=\-~^+])\1{2,}[ \t]*$/;
const LIST_ITEM = /^\s*(?:[-*+]|\d{1,3}[.)])\s/;
const MAX_HEADING_CHARS = 80;
/** "== Title" (AsciiDoc, with optional closing marks) or "## Title" (ATX, as Markdown), at the left margin. */
const MARKED_HEADING = /^(={1,6}[ \t]|#{1,6} )[ \t]*(\S.*?)(?:[ \t]+[=#]+)?[ \t]*$/;
/** An AsciiDoc block anchor or attribute line: "[[id]]", "[appendix]", "[#id]". */
const BLOCK_ANCHOR = /^\[\[[^\]]+\]\]$|^\[[\w#.,=" -]*\]$/;
const LISTING_FENCE = /^(?:-{4,}|\.{4,}|`{3,}|~{3,})[ \t]*$/;

/**
 * Underlined (and over- and underlined) titles of a plain text: a line that opens a paragraph,
 * is short, is not a list item or a table row, and is underlined with a mark about as long as
 * it (AsciiDoc allows two off, reStructuredText any longer). Levels follow the order in which
 * the marks first appear, as reStructuredText assigns them ("=" then "-" in most documents).
 * Front matter is skipped: its closing `---` is not an underline.
 */
export function underlinedHeadings(text: string): Heading[] {
  const lines: { start: number; end: number; body: string }[] = [];
  const linePattern = /([^\r\n]*)(\r\n|\r|\n|$)/g;
  for (let match = linePattern.exec(text); match !== null && match.index < text.length; match = linePattern.exec(text)) {
    lines.push({ start: match.index, end: match.index + match[0].length, body: match[1]! });
    if (match[0].length === 0) break;
  }
  const skip = frontMatterEnd(text);
  const levels = new Map<string, number>();
  const levelOf = (style: string) => {
    if (!levels.has(style)) levels.set(style, Math.min(6, levels.size + 1));
    return levels.get(style)!;
  };
  const headings: Heading[] = [];
  let opens = true; // whether line k opens a paragraph (start, after a blank line or a heading)
  let anchor: number | undefined; // start of the AsciiDoc anchor or attribute lines above line k
  const hashHeadings = new Set<number>(); // indexes of the "# Title" headings
  let hashComments = false; // whether a "#" line at the margin was not a heading
  for (let k = 0; k < lines.length; k++) {
    const line = lines[k]!;
    if (line.start < skip) continue;
    const body = line.body.trim();
    if (body === '') {
      opens = true;
      anchor = undefined;
      continue;
    }
    // "[[summary]]" or "[appendix]" above "== Summary" belongs to the heading, which still opens its paragraph.
    if (opens && BLOCK_ANCHOR.test(body) && anchorsHeading(lines, k)) {
      anchor ??= line.start;
      continue;
    }
    const from = anchor ?? line.start;
    anchor = undefined;
    const over = UNDERLINE.exec(line.body);
    const next = lines[k + 1];
    const after = lines[k + 2];
    // "=====\nTitle\n=====": the same mark above and below, about as long as the text.
    // (Not "----" around a line, nor a mark much longer or shorter than the text: an AsciiDoc listing of one line, "----\n$ make\n----".)
    if (opens && over && over[1] !== '-' && next && after && after.body.trim() === body && isTitleLine(next.body, body.length) && body.length >= [...next.body.trim()].length && body.length <= [...next.body.trim()].length + 6) {
      k = closeHeading(k + 2, lines, headings, line.start, levelOf(`over${over[1]!}`), next.body.trim());
      opens = true;
      continue;
    }
    const under = next ? UNDERLINE.exec(next.body) : null;
    if (opens && !over && under && isTitleLine(line.body, next!.body.trim().length)) {
      k = closeHeading(k + 1, lines, headings, line.start, levelOf(under[1]!), body);
      opens = true;
      continue;
    }
    // A delimited listing ("----", "....", a ``` fence) opening a paragraph: its lines are code,
    // never headings. (A rule has a blank line after it; one never closed is not a listing.)
    if (opens && LISTING_FENCE.test(line.body) && next && next.body.trim() !== '') {
      const fence = line.body.trim();
      let close = k + 1;
      while (close < lines.length && lines[close]!.body.trim() !== fence) close += 1;
      if (close < lines.length) k = close;
      opens = false;
      continue;
    }
    // "== Section" (AsciiDoc) and "## Section" (Markdown-like): marked by the line itself, at the
    // margin; a "#" line also stands alone (a shell comment above a command is not a heading),
    // in a text whose every "#" line is a heading.
    const marked = opens ? MARKED_HEADING.exec(line.body) : null;
    const mark = marked?.[1]!.trim() ?? '';
    if (marked && isMarkedTitle(marked[2]!) && (mark[0] === '=' || ((!next || next.body.trim() === '') && !/\s--?\w/.test(marked[2]!)))) {
      k = closeHeading(k, lines, headings, from, mark.length, marked[2]!);
      if (mark[0] === '#') hashHeadings.add(headings.length - 1);
      opens = true;
      continue;
    }
    if (line.body.startsWith('#')) hashComments = true;
    opens = false;
  }
  // A text with "#" lines that are not headings ("#!/bin/sh", "#  Chet Ramey", a "#" block) is a
  // script or a config file: its "# Title" lines are comments too.
  return hashComments ? headings.filter((_, index) => !hashHeadings.has(index)) : headings;
}

function isTitleLine(line: string, markLength: number): boolean {
  const title = line.trim();
  const length = [...title].length;
  if (length === 0 || length > MAX_HEADING_CHARS || /^ {0,3}\t| {4}/.test(line.slice(0, 4))) return false;
  // Not a list item, a rule, a table row, an AsciiDoc block attribute ("[NOTE]" above a "====" block) or directive ("ifdef::x[]").
  if (LIST_ITEM.test(line) || UNDERLINE.test(line) || /^\|.*\|$/.test(title) || /^\[.*\]$|::\S*\[[^\]]*\]$/.test(title) || !/[\p{L}\p{N}]/u.test(title)) return false;
  // A mark far shorter than the line is a rule under a paragraph's last line, not an underline.
  return markLength >= length - 2 && markLength >= 3;
}

/** Whether the line after `k` is a marked heading ("[[x]]" above "== X"). */
function anchorsHeading(lines: { body: string }[], k: number): boolean {
  return MARKED_HEADING.test(lines[k + 1]?.body ?? '') || BLOCK_ANCHOR.test(lines[k + 1]?.body.trim() ?? '');
}

/**
 * A marked heading's text: short, with a letter, not a sentence or a statement ("# make
 * install;", "== x == y"). A "#" line with an option is a root prompt ("# dpkg-divert --add x").
 */
function isMarkedTitle(title: string): boolean {
  return [...title].length <= MAX_HEADING_CHARS && /\p{L}/u.test(title) && !/[.;,=]$|^[#=]/.test(title) && !/\s(?:==|=|#)\s/.test(title);
}

/** Records a heading ending at line `last` (with the blank lines after it) and returns the last line it takes. */
function closeHeading(last: number, lines: { start: number; end: number; body: string }[], headings: Heading[], start: number, depth: number, title: string): number {
  let k = last;
  while (k + 1 < lines.length && lines[k + 1]!.body.trim() === '') k += 1;
  // An AsciiDoc anchor ("OPTIONS[[OPTIONS]]") is an address, not part of the title.
  headings.push({ start, end: lines[k]!.end, depth, title: plainTitle(title.replace(/\[\[[^\]]*\]\]/g, '')) });
  return k;
}

/** End offset of a YAML (---) or TOML (+++) front matter block at the very start, or 0. */
export function frontMatterEnd(text: string): number {
  const open = /^(---|\+\+\+)[ \t]*(?:\r\n|\r|\n)/.exec(text);
  if (!open) return 0;
  const fence = open[1] === '---' ? '(?:---|\\.\\.\\.)' : '\\+\\+\\+';
  const close = new RegExp(`(?:^|\\r\\n|\\r|\\n)${fence}[ \\t]*(?:\\r\\n|\\r|\\n|$)`, 'g');
  close.lastIndex = open[0].length - 1;
  const match = close.exec(text.slice(0, FRONT_MATTER_LIMIT));
  return match ? match.index + match[0].length : 0;
}
