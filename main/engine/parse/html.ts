/**
 * HTML: the article (Readability over linkedom) converted to Markdown (turndown), then split like
 * any Markdown document. Navigation, sidebars and footers stay out; headings, code blocks with
 * their language, lists and tables (as GFM pipe tables) stay in.
 */
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';
import { decodeText } from './encoding.js';
import { documentFile } from './parsed-document.js';
import type { Parser } from './types.js';

/** The little of the DOM the conversion touches (linkedom on our side, domino inside turndown). */
interface DomNode {
  nodeName: string;
  nodeType: number;
  textContent: string | null;
  parentNode: DomNode | null;
  childNodes: ArrayLike<DomNode>;
  getAttribute?(name: string): string | null;
  querySelector?(selector: string): DomNode | null;
  querySelectorAll?(selector: string): ArrayLike<DomNode>;
  remove?(): void;
  innerHTML?: string;
}

interface DomDocument {
  title?: string;
  body: DomNode | null;
  querySelector(selector: string): DomNode | null;
  querySelectorAll(selector: string): ArrayLike<DomNode>;
}

type ReadabilityDocument = ConstructorParameters<typeof Readability>[0];

export interface HtmlConversion {
  markdown: string;
  title?: string;
  warnings: string[];
}

/**
 * @example
 * const parsed = await htmlParser.parse({ path, relPath: 'library/json.html', bytes, split, codeSummaryMode: 'ast' });
 * parsed.sourceFormat // 'html'; the node content is Markdown
 */
export const htmlParser: Parser = {
  name: 'html',
  format: 'html',
  extensions: ['.html', '.htm', '.xhtml', '.shtml'],
  async parse(input) {
    const { text, warning } = decodeText(input.bytes, input.relPath, { declared: declaredCharset(input.bytes) });
    const { markdown, title, warnings } = htmlToMarkdown(text);
    return documentFile({ text: markdown, input, parserName: 'html', sourceFormat: 'html', format: 'markdown', title, warnings: warning ? [warning, ...warnings] : warnings });
  },
};

/**
 * The charset a page declares in its first 1024 bytes (`<meta charset>`, `<meta http-equiv
 * content="…; charset=…">`, or an XML declaration's encoding), as browsers look for it before
 * parsing; null when it declares none.
 */
export function declaredCharset(bytes: Uint8Array): string | null {
  const head = new TextDecoder('windows-1252').decode(bytes.subarray(0, 1024));
  const meta = /<meta\b[^>]*?charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)/i.exec(head);
  if (meta) return meta[1]!;
  return /<\?xml\b[^>]*?encoding\s*=\s*["']([A-Za-z0-9_.:-]+)/i.exec(head)?.[1] ?? null;
}

// Page furniture taken out before Readability reads the page (it keeps some of it on short pages).
// Not <form>: some sites wrap the whole page in one.
const BOILERPLATE = [
  'script', 'style', 'noscript', 'template', 'iframe', 'nav', 'aside', 'footer', 'button',
  '[role="navigation"]', '[role="complementary"]', '[role="contentinfo"]', '[role="banner"]', '[role="search"]',
  '[aria-hidden="true"]', '.sidebar', '.sphinxsidebar', '.related', '.breadcrumb', '.breadcrumbs', '.navbar', '.toc',
  // A page's own table of contents (docutils' `.. contents::`): the sections follow anyway.
  '.contents.topic',
].join(',');

/**
 * Converts a page to Markdown. The title is the page's single <h1>, else its <title>; the
 * Markdown opens with it as a level-1 heading when the article dropped it.
 *
 * @example
 * htmlToMarkdown('<title>T</title><nav>menu</nav><main><h1>Hello</h1><p>World</p></main>').markdown
 * // '# Hello\n\nWorld\n'
 */
/** Deeper pages skip Readability, and much deeper ones keep only their text (see htmlToMarkdown). */
const MAX_READABILITY_DEPTH = 150;
const MAX_CONVERT_DEPTH = 500;

const BLOCK_ELEMENTS = new Set(['ADDRESS', 'ARTICLE', 'ASIDE', 'BLOCKQUOTE', 'BR', 'DD', 'DIV', 'DL', 'DT', 'FIGURE', 'FOOTER', 'FORM', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'HEADER', 'HR', 'LI', 'MAIN', 'NAV', 'OL', 'P', 'PRE', 'SECTION', 'TABLE', 'TR', 'UL']);

/** The text of `root`, block elements on their own lines, walked without recursion. */
function plainText(root: DomNode | null): string {
  if (!root) return '';
  const out: string[] = [];
  const stack: DomNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.nodeType === 3) out.push(node.textContent ?? '');
    else if (node.nodeType === 1) {
      if (BLOCK_ELEMENTS.has(node.nodeName.toUpperCase())) out.push('\n');
      const children = Array.from(node.childNodes);
      for (let i = children.length - 1; i >= 0; i -= 1) stack.push(children[i]!);
    }
  }
  return out
    .join('')
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter(Boolean)
    .join('\n\n');
}

/** The deepest element nesting under `root`, walked without recursion (a deep page would overflow the stack). */
function maxDepth(root: DomNode | null): number {
  if (!root) return 0;
  let deepest = 0;
  const stack: Array<[DomNode, number]> = [[root, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > deepest) deepest = depth;
    for (const child of Array.from(node.childNodes)) if (child.nodeType === 1) stack.push([child, depth + 1]);
  }
  return deepest;
}

export function htmlToMarkdown(html: string): HtmlConversion {
  const warnings: string[] = [];
  // linkedom's typings lean on the DOM library, which the engine's tsconfig leaves out.
  const { document } = parseHTML(asDocument(html)) as unknown as { document: ReadabilityDocument };
  const page = document as unknown as DomDocument;
  const title = pageTitle(page);
  // Readability drops most boilerplate but keeps it on short pages: take it out first.
  for (const node of Array.from(page.querySelectorAll(BOILERPLATE))) node.remove?.();
  const body = page.body?.innerHTML ?? '';

  // Readability's clean-up passes grow with nesting depth times size (5,000 unclosed <div>s take
  // minutes): on pages that deep, the whole body is converted instead. Real pages stay far below.
  const depth = maxDepth(page.body);
  let content = '';
  if (depth > MAX_READABILITY_DEPTH) {
    warnings.push(`elements nested ${depth} deep: converted the whole page body without article detection`);
  } else {
    // Readability rewrites the document it reads, so the body was kept above for the fallback.
    content = new Readability(document, { keepClasses: true }).parse()?.content ?? '';
    if (content.trim() === '') warnings.push('no article found: converted the whole page body without its navigation');
  }
  if (content.trim() === '') content = body;

  // turndown recurses once per level and overflows the stack on pages nested thousands deep
  // (how deep depends on the thread's stack): past MAX_CONVERT_DEPTH such a page keeps its text only.
  if (depth > MAX_CONVERT_DEPTH) {
    warnings.push(`elements nested ${depth} deep: kept the page's text without its formatting`);
    const text = plainText(page.body);
    return { markdown: text === '' ? '' : `${title ? `# ${title}\n\n` : ''}${text}\n`, ...(title ? { title } : {}), warnings };
  }

  const markdown = withTitle(createTurndown().turndown(content).trim(), content, title);
  return { markdown: markdown === '' ? '' : `${markdown}\n`, ...(title ? { title } : {}), warnings };
}

/** linkedom makes the first element of a bare fragment the root, without a body: give it one. */
function asDocument(html: string): string {
  if (/<(html|body)[\s>]/i.test(html)) return html;
  const title = /<title[\s>][\s\S]*?<\/title>/i.exec(html)?.[0] ?? '';
  return `<!doctype html><html><head>${title}</head><body>${title ? html.replace(title, '') : html}</body></html>`;
}

/**
 * Makes the title the document's level-1 heading: Readability drops an <h1> that repeats the
 * title, or turns it into an <h2>. Headings are read from the HTML, never from the Markdown,
 * where a `# comment` in a code block looks like one.
 */
function withTitle(markdown: string, content: string, title: string | undefined): string {
  if (!title) return markdown;
  const first = /<h([1-6])[^>]*>([\s\S]*?)<\/h\1>/i.exec(content);
  const firstText = first ? cleanText(first[2]!.replace(/<a\b[^>]*class="[^"]*headerlink[^"]*"[^>]*>[\s\S]*?<\/a>/gi, '').replace(/<[^>]+>/g, '')) : '';
  const opening = /^#{1,6} /.exec(markdown);
  if (opening && decodeEntities(firstText) === title) return `# ${markdown.slice(opening[0].length)}`;
  if (/<h1[\s>]/i.test(content)) return markdown;
  return markdown === '' ? `# ${title}` : `# ${title}\n\n${markdown}`;
}

function decodeEntities(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (_all, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", nbsp: ' ' })[name] ?? _all);
}

function pageTitle(document: DomDocument): string | undefined {
  const headings = Array.from(document.querySelectorAll('h1'));
  const h1 = headings.length === 1 ? cleanText(headingText(headings[0]!)) : '';
  if (h1) return h1;
  const title = cleanText(document.querySelector('title')?.textContent ?? '');
  return title || undefined;
}

/** A heading's text without its permalink anchor (the `¶` Sphinx and others append). */
function headingText(heading: DomNode): string {
  let text = '';
  for (const child of Array.from(heading.childNodes)) {
    if (isPermalink(child)) continue;
    text += child.textContent ?? '';
  }
  return text;
}

function cleanText(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function createTurndown(): TurndownService {
  const service = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
    emDelimiter: '_',
    strongDelimiter: '**',
    hr: '---',
  });
  service.remove(['script', 'style', 'noscript', 'template']);
  service.addRule('listItem', { filter: 'li', replacement: (content, node) => listItem(content, node as unknown as DomNode) });
  service.addRule('permalink', { filter: (node) => isPermalink(node as unknown as DomNode), replacement: () => '' });
  // A heading that links back to a table of contents (Sphinx's toc-backref) is a title, not a link.
  service.addRule('headingLink', { filter: (node) => node.nodeName === 'A' && !isPermalink(node as unknown as DomNode) && closestHeading(node as unknown as DomNode) !== null, replacement: (content) => content });
  service.addRule('preformatted', { filter: (node) => (node as unknown as DomNode).nodeName === 'PRE', replacement: (_content, node) => fencedCode(node as unknown as DomNode) });
  service.addRule('tableCaption', { filter: 'caption', replacement: () => '' });
  service.addRule('tableCell', { filter: ['th', 'td'], replacement: (content, node) => tableCell(content, node as unknown as DomNode) });
  service.addRule('tableRow', { filter: 'tr', replacement: (content, node) => tableRow(content, node as unknown as DomNode) });
  service.addRule('tableSection', { filter: ['thead', 'tbody', 'tfoot'], replacement: (content) => content });
  service.addRule('table', { filter: 'table', replacement: (content, node) => table(content, node as unknown as DomNode) });
  return service;
}

function isPermalink(node: DomNode): boolean {
  if (node.nodeName !== 'A') return false;
  const classes = ` ${node.getAttribute?.('class') ?? ''} `;
  if (/ (headerlink|anchor|anchorjs-link|heading-anchor|permalink) /.test(classes)) return true;
  const href = node.getAttribute?.('href') ?? '';
  return href.startsWith('#') && /^\s*[¶#§🔗]\s*$/u.test(node.textContent ?? '');
}

/** `- item` or `3. item`, with continuation lines indented under the text. */
function listItem(content: string, item: DomNode): string {
  const list = item.parentNode;
  let marker = '-';
  if (list?.nodeName === 'OL') {
    const start = Number(list.getAttribute?.('start') ?? '1') || 1;
    const index = Array.from(list.childNodes).filter((child) => child.nodeName === 'LI').indexOf(item);
    marker = `${start + Math.max(0, index)}.`;
  }
  const body = content.replace(/^\n+/, '').replace(/\n+$/, '').replace(/\n/g, `\n${' '.repeat(marker.length + 1)}`);
  return `${marker} ${body}\n`;
}

// ---------------------------------------------------------------------------------------------
// Code blocks

function fencedCode(pre: DomNode): string {
  const code = (pre.textContent ?? '').replace(/^\n/, '').replace(/\s+$/, '');
  const longestRun = Math.max(0, ...Array.from(code.matchAll(/`+/g), (m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longestRun + 1));
  return `\n\n${fence}${codeLanguage(pre)}\n${code}\n${fence}\n\n`;
}

// Highlighter names that mean "no particular language".
const NO_LANGUAGE = new Set(['', 'none', 'text', 'plain', 'plaintext', 'nohighlight', 'default']);
const LANGUAGE_ALIASES: Record<string, string> = { python3: 'python', py3: 'python', py: 'python', js: 'javascript', ts: 'typescript' };

/** The language a <pre> block declares on itself, its <code> or a wrapper: language-x, lang-x, highlight-x, data-lang. */
export function codeLanguage(pre: DomNode): string {
  const candidates: DomNode[] = [];
  const code = Array.from(pre.childNodes).find((child) => child.nodeName === 'CODE');
  if (code) candidates.push(code);
  for (let node: DomNode | null = pre, depth = 0; node && depth < 4; node = node.parentNode, depth++) candidates.push(node);
  for (const node of candidates) {
    const dataLang = node.getAttribute?.('data-lang') ?? node.getAttribute?.('data-language');
    if (dataLang) return normalizeLanguage(dataLang);
    const classes = (node.getAttribute?.('class') ?? '').split(/\s+/).filter(Boolean);
    for (const cls of classes) {
      const match = /^(?:language|lang|highlight|brush)-(.+)$/i.exec(cls);
      const language = match?.[1] ? normalizeLanguage(match[1]) : '';
      if (language) return language;
    }
    // Pandoc: <pre class="sourceCode python">.
    if (classes.includes('sourceCode')) {
      const language = normalizeLanguage(classes.find((cls) => cls !== 'sourceCode') ?? '');
      if (language) return language;
    }
  }
  return '';
}

function normalizeLanguage(name: string): string {
  const lower = name.trim().toLowerCase().replace(/^source-/, '');
  if (NO_LANGUAGE.has(lower) || !/^[a-z0-9_+#.-]+$/.test(lower)) return '';
  return LANGUAGE_ALIASES[lower] ?? lower;
}

// ---------------------------------------------------------------------------------------------
// GFM pipe tables

function tableCell(content: string, cell: DomNode): string {
  const text = content.replace(/\s*\n+\s*/g, ' ').replace(/\|/g, '\\|').trim();
  const span = Math.max(1, Math.min(50, Number(cell.getAttribute?.('colspan') ?? '1') || 1));
  return ` ${text} |${'  |'.repeat(span - 1)}`;
}

function tableRow(content: string, row: DomNode): string {
  const line = `\n|${content}`;
  const table = closest(row, 'TABLE');
  if (!table || table.querySelector?.('tr') !== row) return line;
  let columns = 0;
  for (const cell of Array.from(row.childNodes)) {
    if (cell.nodeName === 'TH' || cell.nodeName === 'TD') columns += Math.max(1, Number(cell.getAttribute?.('colspan') ?? '1') || 1);
  }
  return `${line}\n|${' --- |'.repeat(Math.max(1, columns))}`;
}

function table(content: string, node: DomNode): string {
  const caption = Array.from(node.childNodes).find((child) => child.nodeName === 'CAPTION');
  const captionText = caption ? cleanText(caption.textContent ?? '') : '';
  const rows = content.replace(/\n{2,}/g, '\n').trim();
  return `\n\n${captionText ? `${captionText}\n\n` : ''}${rows}\n\n`;
}

function closestHeading(node: DomNode): DomNode | null {
  for (let current = node.parentNode; current; current = current.parentNode) if (/^H[1-6]$/.test(current.nodeName)) return current;
  return null;
}

function closest(node: DomNode, name: string): DomNode | null {
  for (let current = node.parentNode; current; current = current.parentNode) if (current.nodeName === name) return current;
  return null;
}
