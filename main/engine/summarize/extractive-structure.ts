/**
 * Document structure for the extractive summarizer: the heading outline and the prose under
 * each heading, with Markdown syntax, code blocks, tables and HTML taken out. Plain text gets
 * headings by layout (a short line standing alone above a paragraph); code gets its comments
 * and docstrings as prose and its declarations as definitions.
 */
import { isBoilerplate, isCodeDirective, isGeneratedStamp, isWorkNote } from './boilerplate.js';
import { joinLines, withoutUsageLead } from './extractive-text.js';

export interface Block {
  /** Prose with inline syntax removed. */
  text: string;
  /** A list item is a sentence of its own even without final punctuation. */
  item: boolean;
}

export interface Section {
  /** The heading text; undefined for the part before the first heading. */
  heading?: string;
  /** 1-6 for headings, 0 for the part before the first heading. */
  level: number;
  blocks: Block[];
}

export interface DocumentStructure {
  /** The first level-1 heading, or a front-matter title. */
  title?: string;
  sections: Section[];
  /** Names a code file declares (functions, classes, types). */
  definitions: string[];
  /** A code file's opening comment or module docstring (after any licence): what the file is for. */
  header?: string;
  /** The top entries of a contents list the text dropped as navigation ("1 Introduction", ...). */
  contents?: string[];
}

export type SourceKind = 'markdown' | 'text' | 'code' | 'html';

/** Maps a parser's format name ('markdown', 'md', 'txt', 'python', ...) to how its text is read. */
export function sourceKindOf(format: string | undefined, text: string): SourceKind {
  const f = (format ?? '').toLowerCase();
  if (f === 'markdown' || f === 'md' || f === 'mdx') return 'markdown';
  if (f === 'html' || f === 'htm' || f === 'xhtml') return 'html';
  // Plain text counts as Markdown only with headings at the margin: an indented "# command" is a shell prompt.
  if (f === 'text' || f === 'txt' || f === 'plain' || f === 'pdf' || f === 'chat' || f === 'conversation' || f === 'log') {
    if (f !== 'chat' && f !== 'conversation' && looksLikeCode(text)) return 'code';
    return /^#{1,6}[ \t]+\S/m.test(text.slice(0, 200_000)) ? 'markdown' : 'text';
  }
  if (f === 'code' || CODE_FORMATS.has(f)) return 'code';
  return hasMarkdownHeadings(text) ? 'markdown' : 'text';
}

const CODE_FORMATS = new Set([
  'python', 'py', 'javascript', 'js', 'jsx', 'typescript', 'ts', 'tsx', 'go', 'rust', 'rs', 'java', 'c', 'cpp', 'c++', 'h', 'hpp',
  'cs', 'csharp', 'kotlin', 'swift', 'ruby', 'rb', 'php', 'scala', 'shell', 'sh', 'bash', 'lua', 'sql',
]);

const CODE_LINE = /[{};]\s*$|^\s*(?:local|if|fi|then|else|elif|done|do|esac|case|for|while|function|def|return|export|echo|set|shift|unset)\b|^\s*[\w.]+=\S|^\s*\w+\s*\(\)\s*\{?$/;

/** A script without an extension (a shebang, or mostly lines of code outside its comments). */
function looksLikeCode(text: string): boolean {
  const head = text.slice(0, 20_000);
  if (head.startsWith('#!')) return true;
  const lines = head.split('\n').filter((l) => l.trim().length > 0 && !/^\s*#/.test(l));
  if (lines.length < 4) return false;
  return lines.filter((l) => CODE_LINE.test(l)).length >= lines.length * 0.3;
}

function hasMarkdownHeadings(text: string): boolean {
  return /^ {0,3}#{1,6}[ \t]+\S/m.test(text.slice(0, 200_000));
}

export function parseStructure(text: string, kind: SourceKind): DocumentStructure {
  switch (kind) {
    case 'markdown':
      return parseMarkdown(text);
    case 'html':
      return parseMarkdown(htmlToMarkdown(text));
    case 'code':
      return parseCode(text);
    case 'text':
      return parsePlainText(text);
  }
}

const ATX = /^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const LIST_ITEM = /^\s*(?:[-*+]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?/;
const TABLE_ROW = /^\s*\|.*\|\s*$/;
const TABLE_RULE = /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/;
const RULE = /^ {0,3}([-*_])(\s*\1){2,}\s*$/;
const TOC_ENTRY = /^\s*(?:[-*+]|\d{1,3}[.)])\s+\[[^\]]*\]\(#[^)]*\)\s*$/;
export const CONTENTS = /^\s*(?:\*\*|__)?(?:table of contents|contents|on this page|in this article|目录|本页内容)(?:\*\*|__)?:?\s*$/i;

function parseMarkdown(text: string): DocumentStructure {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const sections: Section[] = [{ level: 0, blocks: [] }];
  let title: string | undefined;
  let paragraph: string[] = [];
  let paragraphIsItem = false;
  let fence: string | null = null;
  let inContents = false;
  const contents: { indent: number; entry: string }[] = [];
  let i = 0;

  // Front matter: keep its title, drop the rest.
  if (lines[0]?.trim() === '---') {
    const end = lines.indexOf('---', 1);
    if (end > 0) {
      for (const line of lines.slice(1, end)) {
        const m = /^title:\s*["']?(.+?)["']?\s*$/.exec(line);
        if (m?.[1]) title = m[1];
      }
      i = end + 1;
    }
  }

  const current = () => sections[sections.length - 1] as Section;
  const flush = () => {
    const joined = cleanInline(joinLines(paragraph));
    if (joined.length > 0) current().blocks.push({ text: joined, item: paragraphIsItem });
    paragraph = [];
    paragraphIsItem = false;
  };
  const startSection = (heading: string, level: number) => {
    flush();
    const clean = cleanInline(heading);
    if (clean.length === 0) return;
    // The title: the first level-1 heading, or any heading that opens the document before its prose.
    if (title === undefined && (level === 1 || (sections.length === 1 && current().blocks.length === 0))) title = clean;
    sections.push({ heading: clean, level, blocks: [] });
  };

  for (; i < lines.length; i += 1) {
    const line = lines[i] as string;
    if (fence !== null) {
      if (line.trim().startsWith(fence)) fence = null;
      continue;
    }
    const fenceMatch = FENCE.exec(line);
    if (fenceMatch) {
      flush();
      fence = (fenceMatch[1] as string).slice(0, 3);
      continue;
    }
    if (/^\s*<!--/.test(line)) {
      // Skip an HTML comment, however many lines it spans.
      while (i < lines.length && !(lines[i] as string).includes('-->')) i += 1;
      continue;
    }
    const atx = ATX.exec(line);
    if (atx) {
      startSection(atx[2] as string, (atx[1] as string).length);
      continue;
    }
    const next = lines[i + 1];
    // Setext headings: a paragraph line underlined with === or ---.
    if (next !== undefined && paragraph.length === 0 && line.trim().length > 0 && !LIST_ITEM.test(line) && /^ {0,3}(=+|-+)\s*$/.test(next)) {
      startSection(line.trim(), next.trim().startsWith('=') ? 1 : 2);
      i += 1;
      continue;
    }
    if (line.trim().length === 0 || RULE.test(line)) {
      flush();
      continue;
    }
    if (TABLE_ROW.test(line) || TABLE_RULE.test(line) || /^ {0,3}\[[^\]]+\]:\s+\S/.test(line)) {
      // Tables are data, not sentences; link reference definitions are addresses.
      flush();
      continue;
    }
    const item = LIST_ITEM.exec(line);
    // A table of contents (a list of links into the page, or a list under "Contents") is navigation.
    if (item && (TOC_ENTRY.test(line) || (inContents && paragraph.length === 0))) {
      flush();
      const indent = (/^\s*/.exec(line)?.[0] ?? '').length;
      const entry = cleanInline(line.slice(item[0].length));
      if (entry) contents.push({ indent, entry });
      continue;
    }
    if (paragraph.length === 0 && CONTENTS.test(line)) {
      inContents = true;
      continue;
    }
    if (!item && line.trim().length > 0 && !/^\s/.test(line)) inContents = false;
    if (item) {
      flush();
      paragraph.push(line.slice(item[0].length));
      paragraphIsItem = true;
      continue;
    }
    paragraph.push(line.replace(/^\s*(>\s?)+/, ''));
  }
  flush();
  const top = Math.min(...contents.map((c) => c.indent));
  const entries = contents.filter((c) => c.indent === top).map((c) => c.entry);
  return { title, sections: sections.filter((s, index) => index === 0 || s.heading !== undefined), definitions: [], ...(entries.length > 0 ? { contents: entries } : {}) };
}

/** A line of one repeated mark: a setext/AsciiDoc/reStructuredText underline, or a rule. */
const UNDERLINE = /^ {0,3}([=\-~^*+#"'`:._])\1{2,}\s*$/;
/** AsciiDoc preprocessor lines: "ifdef::attr[]", "endif::[]", "include::file.txt[]". */
const ASCIIDOC_DIRECTIVE = /^(?:ifn?def|ifeval|endif|include)::[^\s[]*\[[^\]]*\]$/;
/** AsciiDoc section titles: "= Title", "== Section". */
const ASCIIDOC_TITLE = /^(={1,6})[ \t]+(\S.*?)[ \t]*=*\s*$/;
/** reStructuredText directives and comments (".. note::", ".. _label:"), and link reference definitions. */
const DIRECTIVE = /^\s*(?:\.\.\s|\[[^\]]+\]:\s+\S)/;

/** Mail and patch header fields ("From: ...", "Date: ..."): who and when, not what. */
export const HEADER_FIELD = /^\s*(?:date|created|from|to|cc|bcc|subject|message-id|in-reply-to|references|content-type|mime-version|x-[\w-]+|author|maintainer|last-modified):\s/i;
/** Header fields whose value is the document's own summary. */
const SUMMARY_FIELD = /^\s*(?:abstract|summary|description):\s*(.*)$/i;

interface RawParagraph {
  lines: string[];
  item: boolean;
  /** Set when the paragraph is a heading marked as one (underlined, or "== Title"). */
  level?: number;
}

/**
 * Plain text, AsciiDoc and reStructuredText: headings are lines underlined with a repeated mark
 * (levels in the order the marks first appear, as reStructuredText assigns them) or "== Title"
 * lines, else a short line standing alone above a longer paragraph. The first top-level
 * heading is the title. List items keep their wrapped continuation lines.
 */
function parsePlainText(text: string): DocumentStructure {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const table = tabTable(lines);
  if (table) return table;
  const marks = new Map<string, number>();
  const levelOf = (mark: string) => {
    if (!marks.has(mark)) marks.set(mark, Math.min(6, marks.size + 1));
    return marks.get(mark) as number;
  };
  const paragraphs: RawParagraph[] = [];
  let current: RawParagraph | null = null;
  const flush = () => {
    if (current && current.lines.length > 0) paragraphs.push(current);
    current = null;
  };
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] as string;
    const trimmed = line.trim();
    // A lone "+" is AsciiDoc's list continuation: it ends the block above as a blank line would
    // (an indented listing before it stays a literal block, not the start of a sentence).
    if (trimmed.length === 0 || trimmed === '+') {
      flush();
      continue;
    }
    // AsciiDoc comments ("// Please don't remove this comment…", a "////" block) and
    // preprocessor lines ("ifndef::git-format-patch[]") are for the tool, not the reader.
    if (trimmed === '////') {
      flush();
      let end = i + 1;
      while (end < lines.length && (lines[end] as string).trim() !== '////') end += 1;
      i = end;
      continue;
    }
    if (/^\/\/(?!\/)/.test(line) || ASCIIDOC_DIRECTIVE.test(trimmed)) {
      flush();
      continue;
    }
    // An AsciiDoc listing or literal block ("----" or "...." lines around it) is code or data.
    const next0 = lines[i + 1];
    // (A mark, a line, the same mark is an overlined title, unless the mark is far longer than the line: a one-line listing.)
    if (current === null && /^(?:-{4,}|\.{4,})$/.test(trimmed) && next0 !== undefined && next0.trim().length > 0 && (lines[i + 2]?.trim() !== trimmed || trimmed.length > next0.trim().length + 6)) {
      let end = i + 1;
      while (end < lines.length && (lines[end] as string).trim() !== trimmed) end += 1;
      i = end;
      continue;
    }
    const under = UNDERLINE.exec(line);
    if (under) {
      const next = lines[i + 1];
      const after = lines[i + 2];
      // An overlined and underlined title: the mark, the text, the same mark.
      if ((current === null || current.lines.length === 0) && next !== undefined && next.trim().length > 0 && after !== undefined && after.trim() === trimmed) {
        flush();
        paragraphs.push({ lines: [next.trim()], item: false, level: levelOf(`over${under[1] as string}`) });
        i += 2;
        continue;
      }
      const prev = current?.lines.length === 1 ? (current.lines[0] as string).trim() : undefined;
      // Underlines match their title's length (AsciiDoc allows two off, reStructuredText any longer).
      if (prev !== undefined && !current?.item && [...prev].length <= 80 && [...trimmed].length >= [...prev].length - 3) {
        current = null;
        paragraphs.push({ lines: [prev], item: false, level: levelOf(under[1] as string) });
        continue;
      }
      // A rule between paragraphs.
      flush();
      continue;
    }
    const adoc = current === null ? ASCIIDOC_TITLE.exec(line) : null;
    if (adoc) {
      paragraphs.push({ lines: [adoc[2] as string], item: false, level: (adoc[1] as string).length });
      continue;
    }
    if (DIRECTIVE.test(line)) {
      flush();
      continue;
    }
    const summaryField = SUMMARY_FIELD.exec(line);
    if (summaryField) {
      flush();
      current = { lines: [summaryField[1] as string], item: false };
      continue;
    }
    if (HEADER_FIELD.test(line)) {
      flush();
      // Its continuation lines (indented) belong to it.
      while (i + 1 < lines.length && /^[ \t]+\S/.test(lines[i + 1] as string)) i += 1;
      continue;
    }
    if (LIST_ITEM.test(line)) {
      flush();
      current = { lines: [line.replace(LIST_ITEM, '')], item: true };
      continue;
    }
    if (!current) current = { lines: [], item: false };
    current.lines.push(line);
  }
  flush();

  const sections: Section[] = [{ level: 0, blocks: [] }];
  let title: string | undefined;
  // An indented paragraph (a tab, or four spaces, on every line) is a literal block: a listing,
  // a table, a sample session. Kept only in a text that has nothing else.
  const literal = (paragraph: RawParagraph) => paragraph.level === undefined && !paragraph.item && paragraph.lines.every((l) => /^(?:\t| {4,})/.test(l));
  const onlyLiteral = paragraphs.every((paragraph) => paragraph.level !== undefined || literal(paragraph));
  // A text that is one listing under a caption ("\tInactive Branches\n\t----\n\trefs/heads/master: ...") is titled by its caption.
  const caption = onlyLiteral ? (paragraphs[0]?.lines[0] ?? '').trim() : '';
  const captioned = caption.length > 0 && looksLikeHeading(caption);
  if (captioned) title = cleanInline(caption);
  for (let p = 0; p < paragraphs.length; p += 1) {
    const paragraph = paragraphs[p] as RawParagraph;
    if ((!onlyLiteral || captioned) && literal(paragraph)) continue;
    const only = paragraph.lines.length === 1 ? cleanInline(paragraph.lines[0] as string) : undefined;
    if (paragraph.level !== undefined && only) {
      if (paragraph.level === 1 && title === undefined) title = only;
      sections.push({ heading: only, level: paragraph.level, blocks: [] });
      continue;
    }
    const nextParagraph = paragraphs[p + 1];
    const nextLength = nextParagraph ? nextParagraph.lines.join(' ').trim().length : 0;
    if (only !== undefined && !paragraph.item && marks.size === 0 && looksLikeHeading(only) && nextLength > only.length && nextParagraph?.level === undefined) {
      sections.push({ heading: only.replace(/[:：]$/, ''), level: 2, blocks: [] });
      continue;
    }
    const joined = cleanInline(joinLines(paragraph.lines));
    if (joined.length > 0) (sections[sections.length - 1] as Section).blocks.push({ text: joined, item: paragraph.item });
  }
  return { title, sections, definitions: [] };
}

/** Rows of a tab-separated table that stand for it in its L0, as a contents list's top entries do. */
const TABLE_ENTRIES = 6;

/**
 * A text that is a tab-separated table under a header row (bash's examples/INDEX.txt: "Path
 * Description X-Ref", then "./complete  Shell completion code" rows): each row is an entry, never
 * a paragraph of prose, so its L0 names its first rows ("./obashdb (Deprecated sample …), ./complete
 * (Shell completion code)") instead of running the header into the first row as a sentence.
 */
function tabTable(lines: string[]): DocumentStructure | undefined {
  const rows = lines.filter((l) => l.trim().length > 0);
  const header = (rows[0] ?? '').split('\t').map((c) => c.trim()).filter(Boolean);
  // A header row: two cells at least, each a short label, not a sentence.
  if (header.length < 2 || header.some((c) => c.length > 30 || /[.!?。！？,;]/.test(c))) return undefined;
  const body = rows.slice(1).map((row) => row.split('\t').map((c) => cleanInline(c.trim())).filter(Boolean));
  if (body.length < 3 || body.filter((cells) => cells.length >= 2).length < body.length * 0.8) return undefined;
  const entry = (cells: string[]) => (cells.length >= 2 ? `${cells[0]} (${(cells[1] as string).replace(/[.。]$/, '')})` : (cells[0] as string));
  return {
    // "./misc/cshtobash — Convert csh aliases to bash (X-Ref: csh, xalias).": a row read as a sentence of its own.
    sections: [{ level: 0, blocks: body.map((cells) => ({ text: rowSentence(cells, header), item: true })) }],
    definitions: [],
    contents: body.slice(0, TABLE_ENTRIES).map(entry),
  };
}

function rowSentence(cells: string[], header: string[]): string {
  const [first, second, ...rest] = cells;
  const more = rest.length > 0 ? ` (${header[2] ? `${header[2]}: ` : ''}${rest.join(', ')})` : '';
  const text = `${first}${second ? ` — ${second.replace(/[.。]$/, '')}` : ''}${more}`;
  return /[.!?。！？]$/.test(text) ? text : `${text}.`;
}

/** A short line without sentence punctuation, e.g. "Introduction", "2. Design", "第一章 概述". */
function looksLikeHeading(line: string): boolean {
  if ([...line].length > 60 || /[.!?。！？,，;；]$/.test(line)) return false;
  return /\p{L}/u.test(line) && !/^[-*+]\s/.test(line);
}

const DEFINITIONS: RegExp[] = [
  /^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?function\*?\s+([A-Za-z_$][\w$]*)/,
  /^\s*(?:export\s+)?(?:default\s+)?(?:abstract\s+)?class\s+([A-Za-z_$][\w$]*)/,
  /^\s*(?:export\s+)?(?:declare\s+)?(?:interface|type|enum)\s+([A-Za-z_$][\w$]*)/,
  /^\s*(?:export\s+)?const\s+([A-Za-z_$][\w$]*)\s*=\s*(?:async\s*)?(?:\([^)]*\)|[A-Za-z_$][\w$]*)\s*=>/,
  /^\s*(?:async\s+)?def\s+([A-Za-z_]\w*)/,
  /^func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)/,
  /^type\s+([A-Za-z_]\w*)\s+(?:struct|interface)/,
  /^\s*(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?(?:unsafe\s+)?fn\s+([A-Za-z_]\w*)/,
  /^\s*(?:pub(?:\([^)]*\))?\s+)?(?:struct|enum|trait)\s+([A-Za-z_]\w*)/,
  /^\s*(?:public|private|protected|internal)?\s*(?:static\s+)?(?:final\s+)?(?:abstract\s+)?(?:class|interface|record)\s+([A-Za-z_]\w*)/,
  // Perl's `sub generate {` and a shell function, `usage () {` or `function die {`.
  /^\s*sub\s+([A-Za-z_]\w*)/,
  /^([A-Za-z_][\w]*)\s*\(\)\s*\{?\s*$/,
];

/** Keywords of one language a pattern for another may take for a name (a Go parameter `fn func(…)` read as Rust). */
const NOT_NAMES = new Set(['func', 'function', 'fn', 'def', 'class', 'type', 'struct', 'interface']);

/** The name a line of code defines, if it defines one. */
function definedName(line: string): string | undefined {
  for (const pattern of DEFINITIONS) {
    const name = pattern.exec(line)?.[1];
    if (name !== undefined) return NOT_NAMES.has(name) ? undefined : name;
  }
  return undefined;
}

/** Lines that may come before a file's header comment: a shebang, imports, a package line, a pragma. */
const OPENING_LINE = /^(?:#!|#\s*(?:include|pragma|!)|import\b|from\s+\S+\s+import\b|package\b|use\b|using\b|require\b|['"]use strict['"]|#\s*-\*-|@file\b)/;

const PREPROCESSOR = /^#\s*(include|define|undef|if|ifdef|ifndef|elif|else|endif|pragma|error|import|!)/;

/** Comments and docstrings become prose; declarations become definitions. License headers are skipped. */
function parseCode(text: string): DocumentStructure {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  const definitions: string[] = [];
  const seen = new Set<string>();
  let comment: string[] = [];
  let header: string | undefined;
  /** Whether a line of code (other than imports, a shebang, a package line) came before. */
  let sawCode = false;
  let importBlock = false;
  const severalDefinitions = lines.filter((line) => definedName(line) !== undefined).length > 1;
  /** `next`: the line after the comment, when the comment ends right above it. */
  const flush = (next?: string) => {
    // A comment's paragraphs (split at its empty lines) stand alone: a licence paragraph goes, the purpose above it stays.
    const paragraphs: string[][] = [[]];
    for (const line of comment) {
      if (line.trim().length === 0) paragraphs.push([]);
      else (paragraphs[paragraphs.length - 1] as string[]).push(line);
    }
    comment = [];
    // A comment right above a definition that names it is that definition's doc ("If the ifindex
    // is zero, interfaceTable returns…" over `func interfaceTable`), not the file's header; in a
    // file that defines one thing, that thing's doc says what the file is for.
    const defined = next === undefined || !severalDefinitions ? undefined : definedName(next);
    const ownDoc = defined !== undefined && paragraphs.some((p) => p.some((line) => line.split(/[^\w$]+/).includes(defined)));
    // A developer's note ("NOTE(rsc): …", "TODO: …") is a note to its end, whatever its later paragraphs say.
    let note = false;
    for (const paragraph of paragraphs) {
      const joined = joinLines(paragraph);
      // A generated file's stamp ("mkerrors.sh -m64 / Code generated by the command above; DO NOT EDIT.") goes whole, like a licence.
      if (joined.length < 3 || /copyright|licen[sc]e|spdx|warranty/i.test(joined) || isGeneratedStamp(joined) || !/\p{L}{2}/u.test(joined)) continue;
      // Tags like @param keep their text; the tag itself is noise.
      // " --- " and " -- " between words are dashes ("arrayops.bash --- hide some of the syntax").
      const prose = joined.replace(/(^|\s)@\w+/g, '$1').replace(/\s+/g, ' ').replace(/ -{2,3} /g, ' — ').trim();
      // A header states what the file is for: not a usage line ("Usage: run x.sh <v1> <v2>"), nor a
      // command indented under one ("#     make coverage-test").
      const lead = withoutUsageLead(prose);
      const indented = paragraph.every((line) => /^(?:\t| {4})/.test(line));
      // (Left out of the prose too: a note is about the code's state, not what it does.)
      note ||= isWorkNote(lead);
      if (note) continue;
      if (header === undefined && !sawCode && !ownDoc && definitions.length === 0 && !indented && /\p{L}{3,}\s+\p{L}{2,}/u.test(lead) && !isBoilerplate(lead)) header = lead;
      blocks.push({ text: prose, item: false });
    }
  };
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] as string;
    const trimmed = line.trim();
    // A comment ends where code starts: flushed before this line's definition is counted, so a
    // header comment right above the first function still counts as the file's header.
    if (comment.length > 0 && !(/^(?:\/\/+|#+(?!!)|--)/.test(trimmed) && !PREPROCESSOR.test(trimmed))) flush(line);
    const name = definedName(line);
    // Dunder methods (__init__, __repr__) are plumbing, not what a file is about.
    if (name !== undefined && !seen.has(name) && !/^__\w+__$/.test(name)) {
      seen.add(name);
      definitions.push(name);
    }
    const doc = /^(?:[rbuRBU]{0,2})("""|''')(.*)$/.exec(trimmed);
    if (doc) {
      flush();
      const quote = doc[1] as string;
      let body = doc[2] as string;
      // A docstring may close on its own line or run over several.
      while (!body.includes(quote) && i + 1 < lines.length) {
        i += 1;
        body += `\n${lines[i] as string}`;
      }
      comment.push(...body.slice(0, body.includes(quote) ? body.indexOf(quote) : undefined).split('\n'));
      flush();
      continue;
    }
    if (trimmed.startsWith('/*')) {
      flush();
      let body = trimmed.slice(2);
      while (!body.includes('*/') && i + 1 < lines.length) {
        i += 1;
        body += `\n${lines[i] as string}`;
      }
      body = body.slice(0, body.includes('*/') ? body.indexOf('*/') : undefined);
      // A directive line (a mode line, a build constraint) ends a paragraph: the prose after it stands alone.
      // (A cgo preamble's `#include` and `#cgo` lines are C for the compiler, like a directive; its `//` comments are comments.)
      comment.push(...body.split('\n').map((l) => l.replace(/^\s*(?:\*+|\/\/)\s?/, '')).map((l) => (isCodeDirective(l) || PREPROCESSOR.test(l.trim()) ? '' : l)));
      flush();
      continue;
    }
    const lineComment = /^(?:\/\/+|#+(?!!)|--)\s?(.*)$/.exec(trimmed);
    if (lineComment && !PREPROCESSOR.test(trimmed)) {
      const body = lineComment[1] as string;
      if (isCodeDirective(body)) comment.push('');
      else if (!HEADER_FIELD.test(body)) comment.push(body);
      continue;
    }
    flush();
    // The lines of a Go or Python import block ("import (" … ")") are imports too.
    if (importBlock) {
      if (/^\)/.test(trimmed)) importBlock = false;
      continue;
    }
    if (/^(?:import|from\s+\S+\s+import)\s*\($/.test(trimmed)) importBlock = true;
    if (trimmed.length > 0 && !OPENING_LINE.test(trimmed)) sawCode = true;
  }
  flush();
  return { sections: [{ level: 0, blocks }], definitions, ...(header ? { header } : {}) };
}

/** Removes Markdown inline syntax and HTML tags, keeping the words. */
/**
 * The "(destination "title")" of a Markdown link: an <address>, or one with balanced or escaped
 * parentheses (turndown writes `cmake\(1\)`), and an optional title.
 */
const LINK_TARGET = String.raw`\((?:<[^>]*>|(?:\\.|[^\s()\\]|\((?:\\.|[^()\\])*\))*)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)`;
const IMAGE = new RegExp(String.raw`!\[[^\]]*\]` + LINK_TARGET, 'g');
const LINK = new RegExp(String.raw`\[([^\]]*)\]` + LINK_TARGET, 'g');

export function cleanInline(text: string): string {
  return text
    // Images go (badges are images inside links: the link is left empty, and goes too).
    .replace(IMAGE, '')
    .replace(LINK, '$1')
    // AsciiDoc: linkgit:git-add[1] → git-add(1), link:url[text] and url[text] → text.
    .replace(/\blinkgit:([\w.-]+)\[(\d)\]/g, '$1($2)')
    .replace(/\b(?:link:|https?:\/\/)[^\s[\]]*\[([^\]]+)\]/g, '$1')
    // reStructuredText roles and links: :ref:`text <target>` → text, `text <url>`_ → text.
    .replace(/:[a-z]+(?::[a-z]+)?:`([^`<]*?)\s*(?:<[^>`]*>)?`/g, '$1')
    .replace(/`([^`<]+?)\s*<[^>`]+>`_{1,2}/g, '$1')
    .replace(/\\([\\`*_{}[\]()#+\-.!<>|~])/g, '$1')
    .replace(/\[([^\]]+)\]\[[^\]]*\]/g, '$1')
    .replace(/\[\^[^\]]+\]/g, '')
    .replace(/<(https?:[^>]+)>/g, '$1')
    .replace(/<\/?[a-zA-Z][^>]*>/g, '')
    .replace(/`+([^`]*)`+/g, '$1')
    // Twice: turndown nests strong text ("**Download **file.tar.gz**.**").
    .replace(/(\*\*|__)(?=\S)(.+?)(?<=\S)\1/g, '$2')
    .replace(/(\*\*|__)(?=\S)(.+?)(?<=\S)\1/g, '$2')
    .replace(/(^|[^\w*])\*(?=\S)([^*]+?)(?<=\S)\*(?!\w)/g, '$1$2')
    .replace(/(^|[^\w])_(?=\S)([^_]+?)(?<=\S)_(?!\w)/g, '$1$2')
    .replace(/~~(.+?)~~/g, '$1')
    .replace(/&(nbsp|amp|lt|gt|quot|apos|mdash|ndash|hellip);/g, (_m, name: string) => ENTITIES[name] ?? ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', mdash: '—', ndash: '–', hellip: '…' };

/** Headings, paragraphs and list items of an HTML page as Markdown; scripts, styles and tags dropped. */
export function htmlToMarkdown(html: string): string {
  return html
    .replace(/<(script|style|noscript|template|svg)\b[\s\S]*?<\/\1>/gi, '')
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<h([1-6])\b[^>]*>([\s\S]*?)<\/h\1>/gi, (_m, level: string, inner: string) => `\n\n${'#'.repeat(Number(level))} ${inner.replace(/\s+/g, ' ').trim()}\n\n`)
    .replace(/<li\b[^>]*>/gi, '\n- ')
    .replace(/<\/(p|div|section|article|ul|ol|table|tr|blockquote|pre|header|footer|main)>/gi, '\n\n')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, name: string) => {
      if (name.startsWith('#x') || name.startsWith('#X')) return String.fromCodePoint(parseInt(name.slice(2), 16));
      if (name.startsWith('#')) return String.fromCodePoint(Number(name.slice(1)));
      return ENTITIES[name.toLowerCase()] ?? m;
    });
}
