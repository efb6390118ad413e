/**
 * Document structure for the extractive summarizer: the heading outline and the prose under
 * each heading, with Markdown syntax, code blocks, tables and HTML taken out. Plain text gets
 * headings by layout (a short line standing alone above a paragraph); code gets its comments
 * and docstrings as prose and its declarations as definitions.
 */
import { joinLines } from './extractive-text.js';

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
}

export type SourceKind = 'markdown' | 'text' | 'code' | 'html';

/** Maps a parser's format name ('markdown', 'md', 'txt', 'python', ...) to how its text is read. */
export function sourceKindOf(format: string | undefined, text: string): SourceKind {
  const f = (format ?? '').toLowerCase();
  if (f === 'markdown' || f === 'md' || f === 'mdx') return 'markdown';
  if (f === 'html' || f === 'htm' || f === 'xhtml') return 'html';
  if (f === 'text' || f === 'txt' || f === 'plain' || f === 'pdf' || f === 'chat' || f === 'conversation' || f === 'log') return hasMarkdownHeadings(text) ? 'markdown' : 'text';
  if (f === 'code' || CODE_FORMATS.has(f)) return 'code';
  return hasMarkdownHeadings(text) ? 'markdown' : 'text';
}

const CODE_FORMATS = new Set([
  'python', 'py', 'javascript', 'js', 'jsx', 'typescript', 'ts', 'tsx', 'go', 'rust', 'rs', 'java', 'c', 'cpp', 'c++', 'h', 'hpp',
  'cs', 'csharp', 'kotlin', 'swift', 'ruby', 'rb', 'php', 'scala', 'shell', 'sh', 'bash', 'lua', 'sql',
]);

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

function parseMarkdown(text: string): DocumentStructure {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const sections: Section[] = [{ level: 0, blocks: [] }];
  let title: string | undefined;
  let paragraph: string[] = [];
  let paragraphIsItem = false;
  let fence: string | null = null;
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
    if (level === 1 && title === undefined) title = clean;
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
    if (TABLE_ROW.test(line) || TABLE_RULE.test(line)) {
      // Tables are data, not sentences.
      flush();
      continue;
    }
    const item = LIST_ITEM.exec(line);
    if (item) {
      flush();
      paragraph.push(line.slice(item[0].length));
      paragraphIsItem = true;
      continue;
    }
    paragraph.push(line.replace(/^\s*(>\s?)+/, ''));
  }
  flush();
  return { title, sections: sections.filter((s, index) => index === 0 || s.heading !== undefined), definitions: [] };
}

function parsePlainText(text: string): DocumentStructure {
  const paragraphs = text.replace(/\r\n?/g, '\n').split(/\n[ \t]*\n+/);
  const sections: Section[] = [{ level: 0, blocks: [] }];
  for (let p = 0; p < paragraphs.length; p += 1) {
    const lines = (paragraphs[p] as string).split('\n').filter((l) => l.trim().length > 0);
    if (lines.length === 0) continue;
    const only = lines.length === 1 ? (lines[0] as string).trim() : undefined;
    const nextParagraph = paragraphs[p + 1]?.trim() ?? '';
    if (only !== undefined && looksLikeHeading(only) && nextParagraph.length > only.length) {
      sections.push({ heading: only.replace(/[:：]$/, ''), level: 2, blocks: [] });
      continue;
    }
    // Lines that start like list items stay separate sentences.
    const current = sections[sections.length - 1] as Section;
    if (lines.every((l) => LIST_ITEM.test(l))) {
      for (const l of lines) current.blocks.push({ text: l.replace(LIST_ITEM, '').trim(), item: true });
    } else {
      current.blocks.push({ text: joinLines(lines), item: false });
    }
  }
  return { sections, definitions: [] };
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
];

const PREPROCESSOR = /^#\s*(include|define|undef|if|ifdef|ifndef|elif|else|endif|pragma|error|import|!)/;

/** Comments and docstrings become prose; declarations become definitions. License headers are skipped. */
function parseCode(text: string): DocumentStructure {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  const definitions: string[] = [];
  const seen = new Set<string>();
  let comment: string[] = [];
  const flush = () => {
    const joined = joinLines(comment);
    comment = [];
    if (joined.length < 3 || /copyright|licen[sc]e|spdx/i.test(joined) || !/\p{L}{2}/u.test(joined)) return;
    // Tags like @param keep their text; the tag itself is noise.
    blocks.push({ text: joined.replace(/(^|\s)@\w+/g, '$1').replace(/\s+/g, ' ').trim(), item: false });
  };
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] as string;
    const trimmed = line.trim();
    for (const pattern of DEFINITIONS) {
      const m = pattern.exec(line);
      // Dunder methods (__init__, __repr__) are plumbing, not what a file is about.
      if (m?.[1] && !seen.has(m[1]) && !/^__\w+__$/.test(m[1])) {
        seen.add(m[1]);
        definitions.push(m[1]);
        break;
      }
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
      comment.push(...body.split('\n').map((l) => l.replace(/^\s*\*+\s?/, '')));
      flush();
      continue;
    }
    const lineComment = /^(?:\/\/+|#+(?!!)|--)\s?(.*)$/.exec(trimmed);
    if (lineComment && !PREPROCESSOR.test(trimmed)) {
      comment.push(lineComment[1] as string);
      continue;
    }
    flush();
  }
  flush();
  return { sections: [{ level: 0, blocks }], definitions };
}

/** Removes Markdown inline syntax and HTML tags, keeping the words. */
export function cleanInline(text: string): string {
  return text
    .replace(/!\[[^\]]*\]\([^)]*\)/g, '')
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]+)\]\[[^\]]*\]/g, '$1')
    .replace(/\[\^[^\]]+\]/g, '')
    .replace(/<(https?:[^>]+)>/g, '$1')
    .replace(/<\/?[a-zA-Z][^>]*>/g, '')
    .replace(/`+([^`]*)`+/g, '$1')
    .replace(/(\*\*|__)(?=\S)(.+?)(?<=\S)\1/g, '$2')
    .replace(/(^|[^\w*])\*(?=\S)([^*]+?)(?<=\S)\*(?!\w)/g, '$1$2')
    .replace(/(^|[^\w])_(?=\S)([^_]+?)(?<=\S)_(?!\w)/g, '$1$2')
    .replace(/~~(.+?)~~/g, '$1')
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
