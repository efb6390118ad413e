/**
 * The words of a folder's summary: the topics its children share (for its L0), and the terms
 * that set its sub-folders apart (its L1's "Covers:" line), from the children's L0s and L1s.
 */
import { CODE_EXTENSIONS, CODE_FILE_NAMES } from '../parse/code.js';
import type { Described, DirectoryChild } from './extractive-directory.js';
import { LABELS, charLength, detectLanguage, isLabelWord, tokenize, type ContentLanguage } from './extractive-text.js';

/** Distinctive terms taken from each sub-folder, and in all, for a folder's "Covers:" line. */
const COVERS_PER_FOLDER = 8;
const MAX_COVERS = 24;

/** A document's name: a folder named so is a document the ingest split into parts. */
export const DOCUMENT_NAME = /\.(?:md|markdown|txt|rst|adoc|asciidoc|html?|xhtml|pdf|tex|org)$/i;

/**
 * A whole document the ingest split into parts: a folder its meta marks as one (also a script or a
 * text without an extension: bash's examples/scripts/shprompt), or one named as a document
 * ("git-add.txt", "bashref.html") when the caller does not say.
 */
export function isSplitDocument(child: DirectoryChild): boolean {
  const name = child.name.replace(/\/$/, '');
  // (A section with sections of its own, 02-options/, is opened under its document as a folder is.)
  return child.isDirectory && ((child.document === true && !PART_NAME.test(name)) || DOCUMENT_NAME.test(name));
}

/** A file name's extension ("hg-to-git.py", "QMake.pm"): the name is a word of a topic, its extension no word at all. */
const FILE_EXTENSION = new RegExp(
  String.raw`(?<=[\w-])\.(?:${[...CODE_EXTENSIONS.map((e) => e.slice(1)), 'md', 'markdown', 'txt', 'rst', 'adoc', 'html?', 'perl'].map((e) => e.replace(/\+/g, '\\+')).join('|')})(?![\w+]|\.\w)`,
  'gi',
);

/** The names a code file's L0 lists ("… Defines: Client, Server" or "Definitions: a, b"). */
export function definedNames(abstract: string): string[] {
  const list = /(?:^|\s)(?:Defines|Definitions):\s*(.*)$/.exec(abstract)?.[1] ?? '';
  return list
    .replace(/…$/, '')
    .split(/,\s*/)
    .map((n) => n.trim())
    .filter((n) => /^[\p{L}_][\w$]*$/u.test(n));
}

/** Parts of a split document: 01-introduction.md, 02-options/. */
export const PART_NAME = /^\d{2,}-/;

/** A split document's lead without the titles of its other parts ("… Then: OPTIONS, ARGUMENTS, …"): its own words. */
export function withoutPartsLine(lead: string): string {
  return (lead.split(/\s+(?:Then:|其余部分：)/, 1)[0] as string).trim();
}

/**
 * What the children share: the words and two-word phrases that the most of them use in their
 * titles and leads (a phrase replaces its words), as they are written. A word only one child
 * uses says nothing about the folder.
 */
export function sharedTopics(content: Described[], language: ContentLanguage): string[] {
  if (content.length === 0) return [];
  const df = new Map<string, number>();
  const surfaces = new Map<string, Map<string, number>>();
  const seen = (key: string, surface: string, set: Set<string>) => {
    if (set.has(key)) return;
    set.add(key);
    df.set(key, (df.get(key) ?? 0) + 1);
    const forms = surfaces.get(key) ?? new Map<string, number>();
    forms.set(surface, (forms.get(surface) ?? 0) + 1);
    surfaces.set(key, forms);
  };
  const joiner = language === 'en' || language === 'ko' ? ' ' : '';
  for (const d of content) {
    const set = new Set<string>();
    // The names a code file defines (createLibProject, die) are its parts, not what the folder is about.
    // (A sub-folder's: what the code files its L1 lists define.)
    const defined = new Set([d.child.abstract, ...(d.child.isDirectory ? (d.child.overview ?? '').split('\n') : [])].flatMap(definedNames).map((n) => n.toLowerCase()));
    // (Nor is an identifier, snake_case, or a build file's name, "Makefile", that many folders hold.)
    const topical = (t: { surface: string }) =>
      !/^\d/.test(t.surface) && !t.surface.includes('_') && !CODE_FILE_NAMES.has(t.surface.toLowerCase()) && !defined.has(t.surface.toLowerCase()) && !isLabelWord(t.surface);
    // A child's key terms (its L1's last line) say what its body is about: "policy", "OLD behavior".
    for (const term of keyTermsOf(d.child, language)) {
      if (defined.has(term.toLowerCase()) || term.includes('_')) continue;
      const tokens = tokenize(term, language).filter(topical);
      if (tokens.length === 1) seen((tokens[0] as (typeof tokens)[number]).key, term, set);
      else if (tokens.length === 2) seen(tokens.map((t) => t.key).join(' '), term, set);
    }
    const text = `${d.title ?? ''} ${d.lead}`.replace(FILE_EXTENSION, '');
    const tokens = tokenize(text, language).filter(topical);
    for (let i = 0; i < tokens.length; i += 1) {
      const token = tokens[i] as (typeof tokens)[number];
      seen(token.key, token.surface, set);
      const next = tokens[i + 1];
      if (next && next.key !== token.key && next.start - token.end === joiner.length) seen(`${token.key} ${next.key}`, `${token.surface}${joiner}${next.surface}`, set);
    }
  }
  const min = Math.max(2, Math.ceil(content.length * 0.2));
  const candidates = [...df.entries()]
    .filter(([, n]) => n >= min || content.length === 1)
    // A phrase says more than either of its words: it goes first unless they reach far more children.
    .map(([key, n]) => ({ key, n, phrase: key.includes(' '), value: key.includes(' ') ? n * 1.5 + 0.01 : n, surface: mostCommon(surfaces.get(key) as Map<string, number>) }))
    .sort((a, b) => b.value - a.value || (a.key < b.key ? -1 : 1));
  const used = new Set<string>();
  const out: string[] = [];
  for (const c of candidates) {
    const parts = c.key.split(' ');
    if (parts.some((p) => used.has(p))) continue;
    // A phrase only counts when it is nearly as shared as its words.
    if (c.phrase && parts.some((p) => (df.get(p) ?? 0) > c.n * 2)) continue;
    parts.forEach((p) => used.add(p));
    out.push(c.surface);
    if (out.length >= 5) break;
  }
  return out;
}

/** The terms of a child's "Key terms:" line, the last line of its L1 (files and folders write one). */
function keyTermsOf(child: DirectoryChild, language: ContentLanguage): string[] {
  return child.keyTerms ?? keyTermsOfOverview(child.overview, language);
}

/** The terms of an L1's "Key terms:" line (its last line; files and folders write one). */
export function keyTermsOfOverview(overview: string | undefined, language?: ContentLanguage): string[] {
  if (!overview) return [];
  const labels = LABELS[language ?? detectLanguage(overview)];
  for (const candidate of new Set([labels, LABELS.en])) {
    const marker = `**${candidate.keyTerms}${candidate.colon.trim()}** `;
    const at = overview.lastIndexOf(marker);
    if (at < 0) continue;
    const line = overview.slice(at + marker.length).split('\n', 1)[0] as string;
    return line.split(candidate.listSeparator).map((t) => t.trim()).filter((t) => t.length > 0);
  }
  return [];
}

function mostCommon(forms: Map<string, number>): string {
  let best = '';
  let count = -1;
  for (const [form, n] of forms) {
    if (n > count || (n === count && form < best)) {
      best = form;
      count = n;
    }
  }
  // A capital that only comes from starting a sentence is not part of the word.
  const lowered = best.charAt(0).toLowerCase() + best.slice(1);
  return lowered !== best && best.slice(1) === best.slice(1).toLowerCase() && forms.has(lowered) ? lowered : best;
}


/**
 * What lies below the folder's sub-folders, in words: for each sub-folder, the terms of its own
 * L1 that are most distinctive against its siblings (TF-IDF, the siblings' L1s or L0s as the
 * documents), merged in turn. A sub-folder's L1 holds its own "Covers:" line, so the terms of a
 * whole subtree reach the top, each level keeping only what sets a branch apart.
 */
export function subtreeCovers(content: Described[], language: ContentLanguage): string[] {
  const folders = content.filter((d) => d.child.isDirectory && d.child.overview?.trim());
  if (folders.length === 0 || content.length < 2) return [];
  const termsOf = (d: Described) => {
    const tf = new Map<string, { n: number; surface: string }>();
    for (const token of tokenize(overviewWords(d.child.overview ?? d.child.abstract), language)) {
      if (/^\d/.test(token.surface) || charLength(token.surface) < 3) continue;
      const seen = tf.get(token.key);
      if (seen) seen.n += 1;
      else tf.set(token.key, { n: 1, surface: token.surface });
    }
    return tf;
  };
  const docs = new Map(content.map((d) => [d, termsOf(d)]));
  const df = new Map<string, number>();
  for (const terms of docs.values()) for (const key of terms.keys()) df.set(key, (df.get(key) ?? 0) + 1);
  const n = content.length;
  const perFolder = folders.map((d) => {
    const terms = docs.get(d) as Map<string, { n: number; surface: string }>;
    // The folder's own name and a term every sibling uses say nothing that sets it apart.
    return [...terms.entries()]
      .filter(([key]) => (df.get(key) ?? 0) < n)
      .map(([key, t]) => ({ key, surface: t.surface, score: (1 + Math.log(t.n)) * Math.log(n / (df.get(key) ?? 1)) }))
      .sort((a, b) => b.score - a.score || (a.key < b.key ? -1 : 1))
      .slice(0, COVERS_PER_FOLDER);
  });
  // A term that sets several sub-folders apart says most about the whole (a wide folder's 200
  // sub-folders would otherwise fill the line with the first ones' terms); then, in turns, every
  // sub-folder gets its first terms in before any gets its last, real sub-folders before split documents.
  const order = folders.map((d, i) => ({ i, document: isSplitDocument(d.child) })).sort((a, b) => Number(a.document) - Number(b.document) || a.i - b.i);
  const seen = new Map<string, { surface: string; count: number; rank: number; turn: number }>();
  order.forEach(({ i }, turn) => {
    (perFolder[i] ?? []).forEach((term, rank) => {
      const known = seen.get(term.key);
      if (known) {
        known.count += 1;
        if (rank < known.rank || (rank === known.rank && turn < known.turn)) Object.assign(known, { rank, turn });
      } else seen.set(term.key, { surface: term.surface, count: 1, rank, turn });
    });
  });
  return [...seen.values()]
    .sort((a, b) => b.count - a.count || a.rank - b.rank || a.turn - b.turn)
    .slice(0, MAX_COVERS)
    .map((t) => t.surface);
}

/** An L1's words without its Markdown and its structural labels ("## Folders", "**Key terms:**"). */
function overviewWords(overview: string): string {
  return overview
    .split('\n')
    .filter((line) => !line.startsWith('#'))
    .join('\n')
    .replace(/\*\*[^*\n]{1,30}?[:：]\*\*/g, ' ')
    .replace(/^- \*\*[^*\n]+\*\*/gm, ' ')
    .replace(/[*_`]/g, ' ');
}
