/**
 * The embedded extractive summarizer: no model, no network, the same output for the same input.
 * It is the offline default, so every feature of Cairn works without a key.
 *
 * Files: sentences are ranked by the weight of their terms (term frequency in the document
 * times an inverse sentence frequency, so words that are everywhere count little), with
 * bonuses for leading the document or a section and for sharing words with their heading and
 * the title, and a redundancy penalty against sentences already chosen. The abstract is the
 * best sentences that fit in 256 characters; the overview mirrors the document's heading
 * outline with the best sentences under each heading and ends with a key-terms line. Everything
 * stays in the language of the content: Chinese text gives Chinese sentences and Chinese labels.
 *
 * Directories: what the folder holds (its sub-folders and files, each with the start of its
 * abstract) and its dominant topics, from the key terms across the children's abstracts.
 *
 * @example
 * const { abstract, overview } = summarizeText(markdown, { title: 'operations.md', format: 'markdown' });
 * const dir = summarizeDirectory(
 *   [{ name: 'operations.md', abstract: 'How to run the uplink station.', category: 'resource', isDirectory: false }],
 *   { dirName: 'docs' },
 * );
 */
import { isBoilerplate, isDebianCopyright, isFieldLine, isLegalOrHistoryName, isWorkNote } from './boilerplate.js';
import { CONTENTS, parseStructure, sourceKindOf, type DocumentStructure } from './extractive-structure.js';
import {
  LABELS,
  charLength,
  detectLanguage,
  joinList,
  splitSentences,
  tokenize,
  truncate,
  withoutUsageLead,
  type ContentLanguage,
  type Token,
} from './extractive-text.js';

export const MAX_ABSTRACT_CHARS = 256;
export const MAX_OVERVIEW_CHARS = 4000;

export interface SummarizeTextOptions {
  /** Shown as the overview's title when the document has no level-1 heading of its own. */
  title?: string;
  /** The parser's format: 'markdown', 'text', 'html', 'code' or a language name ('python', ...). */
  format?: string;
  /** Overrides the detected language of the content. */
  language?: ContentLanguage;
  maxAbstractChars?: number;
  maxOverviewChars?: number;
}

export interface ExtractiveSummary {
  abstract: string;
  overview: string;
  /** The document's key terms, best first, as written in it. */
  keyTerms: string[];
  language: ContentLanguage;
}

interface Sentence {
  /** Position in the document (order of appearance). */
  index: number;
  section: number;
  text: string;
  /** Its terms in order, as written (for key terms and phrases). */
  tokens: Token[];
  /** The same terms' comparison keys. */
  keys: string[];
  /** Each key once. */
  unique: string[];
  score: number;
}

const MAX_KEY_TERMS = 10;
/** Longest sentence shown whole in an overview bullet. */
const MAX_BULLET_CHARS = 300;
const MAX_BULLETS_PER_SECTION = 4;
/** Candidates the redundancy-aware selection looks at: plenty for 4000 characters, and bounded for a 1 MB document. */
const MAX_CANDIDATES = 400;
/**
 * Sentences tokenized and scored. Past this, every section's first sentence plus an even
 * sample of the rest are: the statistics and the choice barely change, and the time stays
 * bounded for documents of any size.
 */
const MAX_SCORED_SENTENCES = 4000;

export function summarizeText(text: string, options: SummarizeTextOptions = {}): ExtractiveSummary {
  const maxAbstract = options.maxAbstractChars ?? MAX_ABSTRACT_CHARS;
  const maxOverview = options.maxOverviewChars ?? MAX_OVERVIEW_CHARS;
  const kind = sourceKindOf(options.format, text);
  const doc = parseStructure(text, kind);
  const language = options.language ?? detectLanguage(proseSample(doc) || text);
  const labels = LABELS[language];

  const sentences = collectSentences(doc, language);
  const weights = termWeights(sentences, doc, options.title, language);
  scoreSentences(sentences, weights, doc, language);
  const ranked = rankWithRedundancy(sentences);
  const keyTerms = pickKeyTerms(sentences, weights, language);

  const title = doc.title ?? options.title;
  const abstract = isLegalOrHistoryName(options.title ?? '') || isDebianCopyright(text)
    ? legalAbstract(text, options.title ?? '', language, maxAbstract)
    : kind === 'code'
      ? (codeLead(doc, language, maxAbstract) ?? leadAbstract(doc, language, maxAbstract) ?? buildAbstract(ranked.filter((s) => !isWorkNote(s.text)), { title, doc, language, max: maxAbstract }))
      : (leadAbstract(doc, language, maxAbstract) ?? buildAbstract(ranked, { title, doc, language, max: maxAbstract }));
  const overview = buildOverview(ranked, doc, { title, keyTerms, language, max: maxOverview, syntheticTitle: doc.title === undefined });
  return { abstract, overview, keyTerms, language };

  function buildAbstract(order: Sentence[], ctx: { title?: string; doc: DocumentStructure; language: ContentLanguage; max: number }): string {
    const chosen: Sentence[] = [];
    let used = 0;
    // Documents open by saying what they are ("This guide explains..."): an informative first
    // sentence before the first sub-heading leads the abstract, then the best of the rest.
    const leadSections = new Set([0, firstH1(ctx.doc)]);
    const lead = sentences[0];
    const informative = lead !== undefined && leadSections.has(lead.section) && lead.unique.length >= 4 && !/[?？]$/.test(lead.text);
    const candidates = (informative ? [lead, ...order.filter((s) => s !== lead)] : order).filter((s) => looksLikeProse(s.text));
    for (const sentence of candidates) {
      const length = charLength(sentence.text) + (chosen.length > 0 ? labels.sentenceJoiner.length : 0);
      if (used + length > ctx.max) continue;
      chosen.push(sentence);
      used += length;
      if (ctx.max - used < 40) break;
    }
    if (chosen.length === 0 && candidates[0]) return truncate(candidates[0].text, ctx.max);
    if (chosen.length > 0) return chosen.sort((a, b) => a.index - b.index).map((s) => s.text).join(labels.sentenceJoiner);
    // No prose at all: say what the document is made of (its headings, or what a code file defines).
    if (ctx.doc.definitions.length > 0) return truncate(`${labels.definitions}${labels.colon}${ctx.doc.definitions.join(labels.listSeparator)}`, ctx.max);
    const headings = ctx.doc.sections.flatMap((s) => (s.heading && s.heading !== ctx.doc.title ? [s.heading] : []));
    if (headings.length > 0) return truncate(`${ctx.title ? `${ctx.title}${labels.colon}` : ''}${headings.join(labels.listSeparator)}`, ctx.max);
    return truncate(ctx.title ?? '', ctx.max);
  }
}

/**
 * A short code file's L0 (a long one's is its skeleton's): its header comment (what the file is
 * for), else the names it defines; undefined when it has neither, and its comments speak for it
 * (never a developer's note). A comment inside the code (a field's, "TODO: implement this")
 * describes that code, not the file.
 */
function codeLead(doc: DocumentStructure, language: ContentLanguage, max: number): string | undefined {
  const labels = LABELS[language];
  if (doc.header) return truncate(leadSentences(doc.header, max), max);
  if (doc.definitions.length > 0) return truncate(`${labels.definitions}${labels.colon}${doc.definitions.join(labels.listSeparator)}`, max);
  return undefined;
}

/** Between a document's title and its lead sentence in an abstract. */
export const LEAD_SEPARATOR: Record<ContentLanguage, string> = { en: ' — ', zh: '——', ja: '——', ko: ' — ' };
/** Most list items a lead is looked for past: a document that opens with a list has no prose lead. */
const MAX_ITEMS_BEFORE_LEAD = 3;
const MAX_BLOCKS_BEFORE_LEAD = 12;

/**
 * The abstract as a reader wants it: the document's title and the sentence that states its
 * purpose (the first paragraph of prose, or a code file's header comment), with boilerplate
 * (notices, navigation) passed over. Undefined when the document has neither a title nor such a
 * sentence; the ranked sentences speak for it then.
 */
function leadAbstract(doc: DocumentStructure, language: ContentLanguage, max: number): string | undefined {
  const title = doc.title && !isBoilerplate(doc.title) && !CONTENTS.test(doc.title) ? cleanTitle(doc.title) : undefined;
  const lead = doc.header ?? leadParagraph(doc, language);
  // A page that is only a contents list says what it holds by its top entries ("1 Introduction, 2 Definitions, ...").
  if (lead === undefined && doc.contents && (!title || doc.sections.every((s) => s.blocks.length === 0))) {
    const labels = LABELS[language];
    return truncate(title ? `${title}${labels.colon}${doc.contents.join(labels.listSeparator)}` : doc.contents.join(labels.listSeparator), max);
  }
  const separator = LEAD_SEPARATOR[language];
  if (lead !== undefined) {
    // A title that only repeats the lead's start (a memory's title is its first words, cut) adds nothing.
    if (title && repeatsLead(title, lead)) return truncate(leadSentences(lead, max), max);
    const room = max - (title ? charLength(title) + separator.length : 0);
    const sentence = leadSentences(lead, Math.max(80, room));
    if (!title || room < 80) return truncate(title && charLength(sentence) < max - 20 ? `${title}${separator}${sentence}` : sentence, max);
    return `${title}${separator}${sentence}`;
  }
  if (!title) return undefined;
  // A title alone, with the headings under it: "Git v1.5.2.1 Release Notes: Fixes since v1.5.2".
  const labels = LABELS[language];
  const headings = doc.sections.flatMap((s) => (s.heading && s.heading !== title && s.level <= 3 && !isBoilerplate(s.heading) ? [s.heading] : []));
  return truncate(headings.length > 0 ? `${title}${labels.colon}${headings.slice(0, 6).join(labels.listSeparator)}` : title, max);
}

/**
 * A title without its site's suffix ("add_executable — CMake 3.25.1 Documentation" →
 * "add_executable"), and without the dash that separates a title from its lead in an abstract.
 */
export function cleanTitle(title: string): string {
  const parts = title.split(/\s+[—|·–]\s+/);
  const last = parts[parts.length - 1] ?? '';
  const kept = parts.length > 1 && /\b(documentation|docs|manual|reference|handbook|wiki)\b|\d+\.\d+/i.test(last) ? parts.slice(0, -1) : parts;
  return kept.join(' - ').trim();
}

/** A title cut from the start of the lead ("Deploying to staging tomorrow…"), as memories are titled. */
function repeatsLead(title: string, lead: string): boolean {
  if (!/(?:…|\.\.\.)$/.test(title)) return false;
  const plain = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
  const head = plain(title.replace(/(?:…|\.\.\.)$/, ''));
  return head.length > 0 && plain(lead).startsWith(head.slice(0, Math.max(1, head.length - 2)));
}

/** The first paragraph of prose, unless the document opens with a list (then it has none). */
function leadParagraph(doc: DocumentStructure, language: ContentLanguage): string | undefined {
  let items = 0;
  let blocks = 0;
  for (const section of doc.sections) {
    for (const block of section.blocks) {
      blocks += 1;
      if (blocks > MAX_BLOCKS_BEFORE_LEAD || items > MAX_ITEMS_BEFORE_LEAD) return undefined;
      if (block.item) {
        items += 1;
        continue;
      }
      if (isBoilerplate(block.text) || isWorkNote(block.text) || isFieldLine(block.text) || !looksLikeProse(block.text)) continue;
      // A usage line with <placeholder> arguments is not prose: the lead is what follows it.
      const text = withoutUsageLead(block.text);
      const first = splitSentences(text)[0] ?? '';
      const minTerms = language === 'en' ? 4 : 2;
      if (tokenize(first, language).length < minTerms || /[?？]$/.test(first)) continue;
      return text;
    }
  }
  return undefined;
}

/** Prose, not code or data that reached a paragraph ("@@ expression E; @@", "x = f(y);"). */
function looksLikeProse(text: string): boolean {
  const symbols = text.match(/[;{}=@$<>|\\^~`]/g)?.length ?? 0;
  return symbols <= Math.max(1, charLength(text) / 40);
}

/** The first sentence of a paragraph, and the next while the first is short and both fit. */
function leadSentences(paragraph: string, max: number): string {
  const sentences = splitSentences(paragraph);
  let out = sentences[0] ?? '';
  for (const next of sentences.slice(1)) {
    if (charLength(out) >= 90 || charLength(out) + 1 + charLength(next) > max) break;
    out = `${out}${/[\p{Script=Han}]$/u.test(out) ? '' : ' '}${next}`;
  }
  return truncate(out, max);
}

const LICENCE_NAMES: [RegExp, string][] = [
  [/\bGPL-?3|GNU General Public License,? version 3|GPL(?:-2)?\+|\bGPL-2\b|GNU General Public License,? version 2/i, 'GPL'],
  [/\bLGPL/i, 'LGPL'],
  [/\bApache(?:-2\.0| License)/i, 'Apache-2.0'],
  [/\bMIT\b|Permission is hereby granted, free of charge/i, 'MIT'],
  [/\bBSD-?[234]-clause|\bBSD\b/i, 'BSD'],
  [/\bMPL|Mozilla Public License/i, 'MPL'],
  [/\bpublic domain\b/i, 'public domain'],
  [/\bISC\b/i, 'ISC'],
  [/\bCC-BY|Creative Commons/i, 'Creative Commons'],
];

/** A licence, copyright or changelog file says what it is, not its first notice. */
function legalAbstract(text: string, name: string, language: ContentLanguage, max: number): string {
  const history = /^(changelog|changes|history|news)/i.test(name);
  const head = text.slice(0, 200_000);
  const upstream = /^Upstream-Name:\s*(\S.*)$/m.exec(head)?.[1]?.trim();
  const licences = history ? [] : LICENCE_NAMES.filter(([pattern]) => pattern.test(head)).map(([, label]) => label);
  const list = joinList(licences, language);
  if (language === 'zh') return truncate(history ? '变更记录。' : `版权与许可条款${upstream ? `（${upstream}）` : ''}${list ? `：${list}` : ''}。`, max);
  if (history) return 'A changelog: the history of changes.';
  return truncate(`Copyright and licence terms${upstream ? ` of ${upstream}` : ''}${list ? `: ${list}` : ''}.`, max);
}

/** An e-mail address with the name written before it (up to three capitalized words), or a URL. */
const ADDRESS = /(?:(?:\p{Lu}[\p{L}.'-]*\s+){1,3})?<?[\w.+-]+@[\w-]+(?:\.[\w-]+)+>?|\bhttps?:\/\/\S+|\bwww\.[\w-]+\.\S+/gu;

function collectSentences(doc: DocumentStructure, language: ContentLanguage): Sentence[] {
  const raw: { section: number; text: string; first: boolean }[] = [];
  // Notices and navigation are not content; a document that is nothing else keeps them.
  const content = doc.sections.some((s) => s.blocks.some((b) => !isBoilerplate(b.text)));
  doc.sections.forEach((section, sectionIndex) => {
    let first = true;
    for (const block of section.blocks) {
      if (content && isBoilerplate(block.text)) continue;
      for (const text of block.item ? [block.text] : splitSentences(block.text)) {
        raw.push({ section: sectionIndex, text, first });
        first = false;
      }
    }
  });
  const stride = raw.length > MAX_SCORED_SENTENCES ? raw.length / MAX_SCORED_SENTENCES : 1;
  const out: Sentence[] = [];
  let nextSample = 0;
  for (let i = 0; i < raw.length; i += 1) {
    const r = raw[i] as { section: number; text: string; first: boolean };
    const sampled = i >= nextSample;
    if (sampled) nextSample += stride;
    if (!sampled && !r.first) continue;
    // An address is no word of the text: "Chet Ramey <chet@po.cwru.edu>" or a URL's host and
    // path ("clark", "net", "pub") would be a file's key terms and its folder's subject.
    const addresses = [...r.text.matchAll(ADDRESS)].map((m) => [m.index, m.index + m[0].length] as const);
    const tokens = tokenize(r.text, language).filter((t) => !addresses.some(([from, to]) => t.start >= from && t.end <= to));
    if (tokens.length === 0) continue;
    const keys = tokens.map((t) => t.key);
    out.push({ index: out.length, section: r.section, text: r.text, tokens, keys, unique: [...new Set(keys)], score: 0 });
  }
  return out;
}

/** Enough of the prose to tell its language, without joining a whole large document. */
function proseSample(doc: DocumentStructure): string {
  const parts: string[] = [];
  let size = 0;
  for (const section of doc.sections) {
    for (const text of [section.heading ?? '', ...section.blocks.map((b) => b.text)]) {
      parts.push(text);
      size += text.length;
      if (size > 20_000) return parts.join('\n');
    }
  }
  return parts.join('\n');
}

interface TermStats {
  weight: Map<string, number>;
  /** In how many sentences each term occurs. */
  df: Map<string, number>;
  tf: Map<string, number>;
  headingKeys: Set<string>;
  titleKeys: Set<string>;
}

function termWeights(sentences: Sentence[], doc: DocumentStructure, title: string | undefined, language: ContentLanguage): TermStats {
  const tf = new Map<string, number>();
  const df = new Map<string, number>();
  for (const sentence of sentences) {
    for (const key of sentence.keys) tf.set(key, (tf.get(key) ?? 0) + 1);
    for (const key of sentence.unique) df.set(key, (df.get(key) ?? 0) + 1);
  }
  const headingKeys = new Set(doc.sections.flatMap((s) => (s.heading ? tokenize(s.heading, language).map((t) => t.key) : [])));
  const titleKeys = new Set([...(doc.title ? tokenize(doc.title, language) : []), ...(title ? tokenize(title.replace(/\.[a-z0-9]+$/i, ''), language) : [])].map((t) => t.key));
  const n = Math.max(1, sentences.length);
  const weight = new Map<string, number>();
  for (const [key, count] of tf) {
    let w = (1 + Math.log(count)) * Math.log(1 + n / (df.get(key) ?? 1));
    if (titleKeys.has(key)) w *= 1.6;
    else if (headingKeys.has(key)) w *= 1.3;
    weight.set(key, w);
  }
  return { weight, df, tf, headingKeys, titleKeys };
}

function scoreSentences(sentences: Sentence[], stats: TermStats, doc: DocumentStructure, language: ContentLanguage): void {
  const seenSection = new Set<number>();
  const sectionHeadingKeys = doc.sections.map((s) => new Set(s.heading ? tokenize(s.heading, language).map((t) => t.key) : []));
  for (const sentence of sentences) {
    const unique = sentence.unique;
    let sum = 0;
    for (const key of unique) sum += stats.weight.get(key) ?? 0;
    let score = sum / Math.sqrt(Math.max(unique.length, 6));
    // Documents and sections tend to say what they are about first.
    if (sentence.index === 0) score *= 1.35;
    else if (!seenSection.has(sentence.section)) score *= 1.15;
    seenSection.add(sentence.section);
    const headingTerms = sectionHeadingKeys[sentence.section];
    if (headingTerms && headingTerms.size > 0) {
      const overlap = unique.filter((k) => headingTerms.has(k)).length;
      score *= 1 + Math.min(0.3, overlap * 0.1);
    }
    // Fragments ("See below.") and run-ons (a whole list in one line) make poor summaries.
    const length = charLength(sentence.text);
    if (unique.length < 3 || length < 12) score *= 0.5;
    if (length > 400) score *= 0.7;
    if (/[?？]$/.test(sentence.text)) score *= 0.85;
    sentence.score = score;
  }
}

/**
 * Orders sentences by score with a redundancy penalty: each pick lowers the value of the
 * sentences that share its terms (cosine over term sets), so the abstract and the overview
 * do not say the same thing twice. Ties go to the earlier sentence, so the order is stable.
 */
function rankWithRedundancy(sentences: Sentence[]): Sentence[] {
  const byScore = [...sentences].sort((a, b) => b.score - a.score || a.index - b.index);
  const candidates = byScore.slice(0, MAX_CANDIDATES);
  const sets = new Map(candidates.map((s) => [s.index, new Set(s.unique)]));
  const penalty = new Map<number, number>();
  const picked: Sentence[] = [];
  const left = new Set(candidates.map((s) => s.index));
  const byIndex = new Map(candidates.map((s) => [s.index, s]));
  while (left.size > 0) {
    let best: Sentence | undefined;
    let bestValue = -Infinity;
    for (const index of left) {
      const s = byIndex.get(index) as Sentence;
      const value = s.score * (1 - (penalty.get(index) ?? 0));
      if (value > bestValue || (value === bestValue && best !== undefined && s.index < best.index)) {
        best = s;
        bestValue = value;
      }
    }
    if (!best) break;
    left.delete(best.index);
    picked.push(best);
    // Only the next picks need fresh penalties; the tail past the overview's needs keeps its order.
    if (picked.length > 80) {
      const rest = [...left].map((i) => byIndex.get(i) as Sentence).sort((a, b) => b.score - a.score || a.index - b.index);
      picked.push(...rest);
      break;
    }
    const chosen = sets.get(best.index) as Set<string>;
    for (const index of left) {
      const other = sets.get(index) as Set<string>;
      let shared = 0;
      for (const key of other) if (chosen.has(key)) shared += 1;
      const similarity = shared / Math.sqrt(Math.max(1, chosen.size * other.size));
      if (similarity > (penalty.get(index) ?? 0)) penalty.set(index, Math.min(0.95, similarity));
    }
  }
  return picked.concat(byScore.slice(MAX_CANDIDATES));
}

/** Key terms: the heaviest words and two-word phrases (a phrase replaces its words). */
function pickKeyTerms(sentences: Sentence[], stats: TermStats, language: ContentLanguage): string[] {
  const surfaceCounts = new Map<string, Map<string, number>>();
  const phraseCounts = new Map<string, number>();
  const phraseSurfaces = new Map<string, Map<string, number>>();
  const joiner = language === 'en' || language === 'ko' ? ' ' : '';
  for (const sentence of sentences) {
    const tokens = sentence.tokens;
    for (let i = 0; i < tokens.length; i += 1) {
      const token = tokens[i] as Token;
      const forms = surfaceCounts.get(token.key) ?? new Map<string, number>();
      forms.set(token.surface, (forms.get(token.surface) ?? 0) + 1);
      surfaceCounts.set(token.key, forms);
      const next = tokens[i + 1];
      // Adjacent content words with only a space (or, in CJK text, nothing) between them.
      if (next && next.key !== token.key && next.start - token.end === joiner.length && (joiner === '' || sentence.text[token.end] === ' ')) {
        const key = `${token.key} ${next.key}`;
        phraseCounts.set(key, (phraseCounts.get(key) ?? 0) + 1);
        const pforms = phraseSurfaces.get(key) ?? new Map<string, number>();
        const surface = `${token.surface}${joiner}${next.surface}`;
        pforms.set(surface, (pforms.get(surface) ?? 0) + 1);
        phraseSurfaces.set(key, pforms);
      }
    }
  }
  const candidates: { key: string; parts: string[]; value: number; surface: string }[] = [];
  for (const [key, w] of stats.weight) {
    const tf = stats.tf.get(key) ?? 0;
    if (tf < 2 && sentences.length > 3) continue;
    candidates.push({ key, parts: [key], value: w * Math.sqrt(tf), surface: mostCommon(surfaceCounts.get(key)) ?? key });
  }
  for (const [key, count] of phraseCounts) {
    if (count < 2) continue;
    const parts = key.split(' ');
    const share = count / Math.min(...parts.map((p) => stats.tf.get(p) ?? count));
    // A phrase counts when its words mostly appear together ("circuit breaker"), not by chance.
    if (share < 0.5) continue;
    const value = parts.reduce((sum, p) => sum + (stats.weight.get(p) ?? 0), 0) * Math.sqrt(count) * 0.75;
    candidates.push({ key, parts, value, surface: mostCommon(phraseSurfaces.get(key)) ?? key });
  }
  candidates.sort((a, b) => b.value - a.value || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const used = new Set<string>();
  const out: string[] = [];
  for (const candidate of candidates) {
    if (out.length >= MAX_KEY_TERMS) break;
    if (candidate.parts.some((p) => used.has(p))) continue;
    if (/^\d/.test(candidate.surface)) continue;
    for (const p of candidate.parts) used.add(p);
    out.push(candidate.surface);
  }
  return out;
}

/**
 * How a term is usually written. A capital that only comes from starting a sentence does not
 * count: "Stations" and "stations" show as "stations", while "LanceDB" keeps its capitals.
 */
function mostCommon(forms: Map<string, number> | undefined): string | undefined {
  if (!forms) return undefined;
  let best: string | undefined;
  let count = -1;
  for (const [form, n] of forms) {
    if (n > count || (n === count && best !== undefined && form < best)) {
      best = form;
      count = n;
    }
  }
  if (best !== undefined) {
    const lowered = best.charAt(0).toLowerCase() + best.slice(1);
    if (lowered !== best && best.slice(1) === best.slice(1).toLowerCase() && forms.has(lowered)) return lowered;
  }
  return best;
}

interface OverviewContext {
  title?: string;
  keyTerms: string[];
  language: ContentLanguage;
  max: number;
  /** The title came from the options, not the document: the document's own headings move down a level. */
  syntheticTitle: boolean;
}

/**
 * The overview: the title, the lead (the best sentences before the first heading), then the
 * heading outline with the best sentences under each heading, then the key terms. Sentences
 * are added best first while they fit, at least one per section before any section gets a
 * second, and shown in document order.
 */
function buildOverview(ranked: Sentence[], doc: DocumentStructure, ctx: OverviewContext): string {
  const labels = LABELS[ctx.language];
  const headLines: string[] = [];
  if (ctx.title) headLines.push(`# ${ctx.title}`);
  const keyLine = ctx.keyTerms.length > 0 ? `**${labels.keyTerms}${labels.colon.trim()}** ${ctx.keyTerms.join(labels.listSeparator)}` : '';
  const definitionLine =
    doc.definitions.length > 0 ? `**${labels.definitions}${labels.colon.trim()}** ${doc.definitions.slice(0, 40).map((d) => `\`${d}\``).join(labels.listSeparator)}` : '';

  // The outline: every heading, except the title itself, at its level (one down under a synthetic title).
  const shift = ctx.syntheticTitle && doc.sections.some((s) => s.level === 1) ? 1 : 0;
  const outline = doc.sections.map((section, index) => ({
    index,
    line: section.heading !== undefined && !(section.level === 1 && section.heading === doc.title && index === firstH1(doc)) ? `${'#'.repeat(Math.min(6, section.level + shift))} ${section.heading}` : undefined,
    level: section.level + shift,
  }));
  const fixed = [...headLines, definitionLine, keyLine].filter(Boolean).join('\n\n').length + 4;
  // A summary of a short document should be shorter than the document: at most about 40% of
  // its prose (but never less than 1200 characters, which a reader skims in seconds).
  // A CJK character says about what three Latin letters do, so its floor is lower.
  const proseChars = ranked.reduce((sum, s) => sum + charLength(s.text) + 1, 0);
  const floor = ctx.language === 'en' ? 1200 : 500;
  let budget = Math.min(ctx.max, Math.max(floor, Math.round(proseChars * 0.4)) + fixed) - fixed;

  // When the outline alone is too long, keep the upper levels first.
  let maxLevel = 6;
  const outlineCost = (limit: number) => outline.reduce((sum, o) => sum + (o.line && o.level <= limit ? o.line.length + 2 : 0), 0);
  while (maxLevel > 1 && outlineCost(maxLevel) > budget * 0.6) maxLevel -= 1;
  const kept = new Set<number>();
  let outlineUsed = 0;
  for (const o of outline) {
    if (!o.line || o.level > maxLevel) continue;
    if (outlineUsed + o.line.length + 2 > budget * 0.6) break;
    kept.add(o.index);
    outlineUsed += o.line.length + 2;
  }
  budget -= outlineUsed;

  // A sentence whose section heading was dropped belongs to the nearest kept section above it.
  const homes: number[] = [];
  for (let s = 0; s < doc.sections.length; s += 1) homes.push(kept.has(s) || s === 0 ? s : (homes[s - 1] ?? 0));
  const home = (section: number) => homes[section] ?? 0;
  const chosen = new Map<number, Sentence[]>();
  const cost = (sentence: Sentence, section: number) => charLength(truncate(sentence.text, MAX_BULLET_CHARS)) + (section === 0 ? 1 : 3);
  const tryAdd = (sentence: Sentence, perSection: number) => {
    const section = home(sentence.section);
    const list = chosen.get(section) ?? [];
    if (list.length >= perSection) return;
    const c = cost(sentence, section);
    if (c > budget) return;
    list.push(sentence);
    chosen.set(section, list);
    budget -= c;
  };
  const firstPass = new Set<number>();
  for (const sentence of ranked) {
    const section = home(sentence.section);
    if (firstPass.has(section)) continue;
    firstPass.add(section);
    tryAdd(sentence, 1);
  }
  for (const sentence of ranked) {
    if (budget < 30) break;
    if ((chosen.get(home(sentence.section)) ?? []).includes(sentence)) continue;
    tryAdd(sentence, MAX_BULLETS_PER_SECTION);
  }

  const parts: string[] = [...headLines];
  if (definitionLine) parts.push(definitionLine);
  for (const o of outline) {
    const sentences = (chosen.get(o.index) ?? []).sort((a, b) => a.index - b.index);
    if (o.index === 0) {
      if (sentences.length > 0) parts.push(sentences.map((s) => truncate(s.text, MAX_BULLET_CHARS)).join(labels.sentenceJoiner));
      continue;
    }
    if (!kept.has(o.index)) continue;
    parts.push([o.line, ...sentences.map((s) => `- ${truncate(s.text, MAX_BULLET_CHARS)}`)].join('\n'));
  }
  if (keyLine) parts.push(keyLine);
  return fit(`${parts.join('\n\n')}\n`, ctx.max);
}

function firstH1(doc: DocumentStructure): number {
  return doc.sections.findIndex((s) => s.level === 1);
}

/** A last guard on the limit: cut at the last line break that fits. */
export function fit(text: string, max: number): string {
  if (charLength(text) <= max) return text;
  const chars = [...text].slice(0, max);
  const cut = chars.join('');
  const newline = cut.lastIndexOf('\n');
  return newline > 0 ? `${cut.slice(0, newline)}\n` : truncate(text, max);
}
