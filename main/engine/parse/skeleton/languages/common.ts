/**
 * Helpers shared by the language extractors: text normalisation, doc comments, line numbers and
 * constructors for the skeleton entries. Extractors walk declarations only (file level, class
 * bodies, namespaces), never function bodies: that keeps a pass linear in the number of
 * declarations rather than in the size of the tree.
 */
import type { Node } from 'web-tree-sitter';
import type { ClassKind, ClassSkeleton, DocDepth, FunctionKind, FunctionSig, SkeletonParts } from '../skeleton.js';
import { isCodeDirective, isCreditsBlock, isGeneratedStamp } from '../../../summarize/boilerplate.js';

export interface ExtractContext {
  docs: DocDepth;
}

/** A language extractor: the tree's root in, the file's skeleton parts out. */
export type Extractor = (root: Node, ctx: ExtractContext) => SkeletonParts;

// Long enough for any real doc comment; a generated file's 50 KB banner is cut.
const FULL_DOC_MAX = 4000;
const FIRST_SENTENCE_MAX = 240;
/**
 * Where a doc's first sentence ends: a full stop before a capital, a non-letter or the end (not
 * "e.g. the", "v1.2" or "net.Conn"); CJK full stops end it wherever they stand.
 */
const SENTENCE_END = /[.!?](?=\s+(?:[A-Z0-9"'([`*]|$)|$)|[。！？]/;
const ALIAS_MAX = 160;

/** Collapses runs of whitespace (newlines included) to one space. */
export function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** A parameter list as written, on one line: `(\n  a,\n  b,\n)` becomes `(a, b)`. */
export function cleanParams(text: string): string {
  return collapse(text)
    .replace(/([([<]) /g, '$1')
    .replace(/ ([)\]>])/g, '$1')
    .replace(/,\s*([)\]])$/, '$1');
}

/** An aliased type on one line, punctuation tidied like a parameter list. */
export function cleanAlias(text: string): string {
  const one = collapse(text)
    .replace(/([([<{]) /g, '$1')
    .replace(/ ([)\]>}])/g, '$1')
    .replace(/,\s*([)\]>}])/g, '$1');
  return one.length > ALIAS_MAX ? `${one.slice(0, ALIAS_MAX - 1)}…` : one;
}

/** 1-based first line. */
export function lineStart(node: Node): number {
  return node.startPosition.row + 1;
}

/**
 * 1-based last line. Some grammars end a node at column 0 of the next line (a Rust line comment
 * owns its newline); that line holds none of the node.
 */
export function lineEnd(node: Node): number {
  const end = node.endPosition;
  return end.column === 0 && end.row > node.startPosition.row ? end.row : end.row + 1;
}


/** Strips comment markers (`/**`, `*`, `//`, `///`, `//!`, `#`) and returns the text lines. */
export function commentLines(raw: string): string[] {
  let text = raw;
  if (text.startsWith('/*')) text = text.replace(/^\/\*+!?/, '').replace(/\*+\/$/, '');
  return text.split('\n').map((line) =>
    line
      .trim()
      .replace(/^(?:\/\/[/!]?|#+!?)\s?/, '')
      .replace(/^\*(?!\/)\s?/, '')
      .trimEnd(),
  );
}

/** Doc text at the requested depth from cleaned lines; null when nothing but directives is left. */
export function docFromLines(lines: readonly string[], depth: DocDepth): string | null {
  // Tool directives and a generated file's stamp are not documentation.
  const kept = lines.filter((line) => !isCodeDirective(line) && !isGeneratedStamp(line));
  let start = 0;
  while (start < kept.length && kept[start]!.trim() === '') start++;
  if (start === kept.length) return null;
  if (depth === 'first-sentence') {
    // The first paragraph's lines are one text ("Package net provides … including\nTCP/IP, UDP …").
    let end = start;
    while (end < kept.length && kept[end]!.trim() !== '') end++;
    const paragraph = kept.slice(start, end).map((line) => line.trim()).join(' ');
    const stop = SENTENCE_END.exec(paragraph);
    const first = stop ? paragraph.slice(0, stop.index + 1) : paragraph;
    return first.length > FIRST_SENTENCE_MAX ? `${first.slice(0, FIRST_SENTENCE_MAX - 1)}…` : first;
  }
  let end = kept.length;
  while (end > start && kept[end - 1]!.trim() === '') end--;
  const full = kept
    .slice(start, end)
    .join('\n')
    .replace(/\n{3,}/g, '\n\n');
  return full.length > FULL_DOC_MAX ? `${full.slice(0, FULL_DOC_MAX - 1)}…` : full;
}

export function docFromComments(comments: readonly Node[], depth: DocDepth): string | null {
  if (comments.length === 0) return null;
  return docFromLines(
    comments.flatMap((c) => commentLines(c.text)),
    depth,
  );
}

/** Removes the common indentation of lines after the first (what Python's inspect.cleandoc does). */
export function dedent(lines: readonly string[]): string[] {
  let indent = Infinity;
  for (const line of lines.slice(1)) {
    if (line.trim() === '') continue;
    indent = Math.min(indent, line.length - line.trimStart().length);
  }
  if (!Number.isFinite(indent)) indent = 0;
  return lines.map((line, i) => (i === 0 ? line.trim() : line.slice(indent).trimEnd()));
}

export function isLicense(text: string): boolean {
  return /copyright|\blicen[cs]ed?\b|spdx-license|all rights reserved|\(c\)\s*\d{4}/i.test(text);
}

/**
 * The comments directly above `node`: a run of comment siblings with no blank line between them
 * and the node. `skip` passes over siblings that sit between a doc and its item (Rust
 * attributes). A comment that starts on the line of the previous code (a trailing comment) is
 * not part of the run.
 */
export function precedingComments(node: Node, isComment: (n: Node) => boolean, skip?: (n: Node) => boolean): Node[] {
  const run: Node[] = [];
  let boundary = node.startPosition.row;
  let cur = node.previousSibling;
  while (cur) {
    if (skip?.(cur)) {
      boundary = cur.startPosition.row;
      cur = cur.previousSibling;
      continue;
    }
    if (!isComment(cur) || lineEnd(cur) - 1 < boundary - 1) break;
    run.unshift(cur);
    boundary = cur.startPosition.row;
    cur = cur.previousSibling;
  }
  if (run.length > 0 && cur && lineEnd(cur) - 1 === run[0]!.startPosition.row) run.shift();
  return run;
}

/**
 * The file's leading comment: the first run of comments before any code that is neither a
 * licence header nor the doc of the declaration right below it.
 *
 * `attaches(next)` says whether a comment run directly above `next` documents it (a function,
 * a class) rather than the file (an import, a package clause). `inner(next)` lets the scan go
 * on inside an include guard or a similar wrapper.
 */
export function leadingComment(
  children: readonly Node[],
  depth: DocDepth,
  isComment: (n: Node) => boolean,
  attaches: (next: Node) => boolean,
  inner?: (next: Node) => readonly Node[] | null,
): string | null {
  let i = 0;
  while (i < children.length) {
    const first = children[i]!;
    if (!isComment(first)) {
      const nested = inner?.(first);
      return nested ? leadingComment(nested, depth, isComment, attaches, inner) : null;
    }
    const run = [first];
    i++;
    while (i < children.length && isComment(children[i]!) && children[i]!.startPosition.row <= lineEnd(run[run.length - 1]!)) {
      run.push(children[i]!);
      i++;
    }
    const next = children[i];
    const adjacent = next !== undefined && next.startPosition.row <= lineEnd(run[run.length - 1]!);
    if (adjacent && attaches(next)) return null;
    const text = run.map((c) => c.text).join('\n');
    if (isLicense(text) || isGeneratedStamp(text)) continue;
    const doc = docFromComments(run, depth);
    // (A credits block, "Credits: - … written by …", says who, not what the file is for.)
    if (doc !== null && !isCreditsBlock(doc)) return doc;
  }
  return null;
}

export function field(node: Node, name: string): Node | null {
  return node.childForFieldName(name);
}

export function fieldText(node: Node, name: string): string | null {
  return node.childForFieldName(name)?.text ?? null;
}

/** Unnamed keyword children (`async`, `static`, `get`) that are in `wanted`, in source order. */
export function keywordModifiers(node: Node, wanted: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (const child of node.children) {
    if (!child) continue;
    if (!child.isNamed && wanted.has(child.type)) out.push(child.type);
  }
  return out;
}

export function newFunction(
  node: Node,
  name: string,
  kind: FunctionKind,
  params: string,
  extra: Partial<Omit<FunctionSig, 'name' | 'kind' | 'params' | 'line_start' | 'line_end'>> = {},
): FunctionSig {
  return {
    name,
    kind,
    params,
    return_type: extra.return_type ?? null,
    type_params: extra.type_params ?? null,
    modifiers: extra.modifiers ?? [],
    decorators: extra.decorators ?? [],
    doc: extra.doc ?? null,
    line_start: lineStart(node),
    line_end: lineEnd(node),
  };
}

export function newClass(
  node: Node,
  name: string,
  kind: ClassKind,
  extra: Partial<Omit<ClassSkeleton, 'name' | 'kind' | 'line_start' | 'line_end'>> = {},
): ClassSkeleton {
  return {
    name,
    kind,
    type_params: extra.type_params ?? null,
    bases: extra.bases ?? [],
    alias_of: extra.alias_of ?? null,
    decorators: extra.decorators ?? [],
    doc: extra.doc ?? null,
    methods: extra.methods ?? [],
    classes: extra.classes ?? [],
    line_start: lineStart(node),
    line_end: lineEnd(node),
  };
}

/** Keeps the first occurrence of each string. */
export function dedupe(items: Iterable<string>): string[] {
  return [...new Set(items)];
}

/**
 * Named children, with ERROR nodes replaced by their own named children. Tree-sitter wraps
 * whatever it could not fit in an ERROR node, and well-formed declarations often sit inside
 * one: an `extern "C" {` opened under `#ifdef __cplusplus`, an unknown macro before a prototype.
 */
export function declarations(node: Node): Node[] {
  const out: Node[] = [];
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (child.type === 'ERROR') out.push(...declarations(child));
    else out.push(child);
  }
  return out;
}

/** Named children without nulls (the binding types them nullable). */
export function named(node: Node): Node[] {
  return node.namedChildren.filter((c): c is Node => c !== null);
}

export function children(node: Node): Node[] {
  return node.children.filter((c): c is Node => c !== null);
}
