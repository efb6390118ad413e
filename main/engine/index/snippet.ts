/**
 * Snippets: the window of a record's text that covers the most distinct query terms, at most
 * `maxChars` characters (code points) including the ellipses, on one line.
 *
 * Terms are matched with the same analysis the full-text index uses, so "parsing" in a query
 * finds "parser" in the text, and a Chinese query finds its bigrams.
 *
 * @example
 * makeSnippet(longText, 'storm uplink') // '… the uplink dropped during the storm, so we …'
 */
import { isBoilerplate } from '../summarize/boilerplate.js';
import { scanRuns, searchTerms, visitCjkTerms, visitWordTerms, type RunKind } from '../../lib/text-analysis.js';

export const SNIPPET_MAX_CHARS = 240;

interface Match {
  start: number;
  end: number;
  term: string;
  weight: number;
}

function findMatches(text: string, terms: Set<string>): Match[] {
  const matches: Match[] = [];
  scanRuns(text, (kind: RunKind, start, end) => {
    const run = text.slice(start, end);
    if (kind === 'cjk') {
      visitCjkTerms(run, (term, s, e) => {
        // A bigram says more than a single character.
        if (terms.has(term)) matches.push({ start: start + s, end: start + e, term, weight: e - s > 1 ? 2 : 1 });
      });
      return;
    }
    visitWordTerms(run, (term) => {
      if (terms.has(term)) matches.push({ start, end, term, weight: 2 });
    });
  });
  matches.sort((a, b) => a.start - b.start || a.end - b.end);
  return matches;
}

/** Index of the code unit where the `count`-th code point after `from` starts (or the end). */
function advanceCodePoints(text: string, from: number, count: number): number {
  let i = from;
  for (let n = 0; n < count && i < text.length; n += 1) {
    const code = text.charCodeAt(i);
    i += code >= 0xd800 && code <= 0xdbff ? 2 : 1;
  }
  return i;
}

function codePointLength(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code < 0xdc00 || code > 0xdfff) n += 1;
  }
  return n;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

export function makeSnippet(text: string, query: string, maxChars = SNIPPET_MAX_CHARS): string {
  const flat = oneLine(text);
  if (codePointLength(flat) <= maxChars) return flat;
  const terms = new Set(searchTerms(query));
  const matches = terms.size > 0 ? findMatches(flat, terms) : [];
  // Room for the text itself once both ellipses are in.
  const budget = maxChars - 2;

  let bestStart = 0;
  let bestEnd = 0;
  let bestScore = 0;
  for (let i = 0; i < matches.length; i += 1) {
    const first = matches[i] as Match;
    const seen = new Map<string, number>();
    let end = first.end;
    for (let j = i; j < matches.length; j += 1) {
      const m = matches[j] as Match;
      if (codePointLength(flat.slice(first.start, m.end)) > budget) break;
      seen.set(m.term, Math.max(seen.get(m.term) ?? 0, m.weight));
      end = Math.max(end, m.end);
    }
    let score = 0;
    for (const weight of seen.values()) score += weight;
    if (score > bestScore) {
      bestScore = score;
      bestStart = first.start;
      bestEnd = end;
    }
  }

  let start = 0;
  if (bestScore > 0) {
    // Give the window some context before the first match: a third of what is left, at most 60 characters.
    const spare = budget - codePointLength(flat.slice(bestStart, bestEnd));
    const lead = Math.min(60, Math.floor(spare / 3));
    start = bestStart;
    for (let n = 0; n < lead && start > 0; n += 1) {
      start -= 1;
      const code = flat.charCodeAt(start);
      if (code >= 0xdc00 && code <= 0xdfff && start > 0) start -= 1;
    }
    // Start at a word boundary when one is near, rather than mid-word.
    if (start > 0 && /\w/.test(flat[start - 1] ?? '') && /\w/.test(flat[start] ?? '')) {
      const space = flat.indexOf(' ', start);
      if (space !== -1 && space < bestStart && space - start < 20) start = space + 1;
    }
  }
  let end = advanceCodePoints(flat, start, start === 0 ? budget + 1 : budget);
  if (end < flat.length && /\w/.test(flat[end] ?? '') && /\w/.test(flat[end - 1] ?? '')) {
    // End at a word boundary when one is near.
    const space = flat.lastIndexOf(' ', end);
    if (space > start && end - space < 20 && space >= bestEnd) end = space;
  }
  const body = flat.slice(start, end).trim();
  return `${start > 0 ? '…' : ''}${body}${end < flat.length ? '…' : ''}`;
}

/** The longest heading worth showing as a title. */
const HEADING_MAX_CHARS = 120;

/**
 * The Markdown heading a text opens with (`# Title` or a setext `Title\n===`), as plain text, or
 * null: a section of a split document starts with its heading, so this is the section's title.
 *
 * @example
 * openingHeading('## Rolling back\n\nUse git revert…') // 'Rolling back'
 */
export function openingHeading(text: string): string | null {
  const head = text.slice(0, 1000).replace(/^\uFEFF/, '').trimStart();
  // A "# …" line followed by another "#" line is a script's comment block ("# Copyright 2012 …\n#\n# Licensed …"), not a title.
  const atx = /^#{1,6}[ \t]+(.+?)[ \t#]*(?:\r?\n(?!#(?:[ \t]|\r?\n|$))|$)/.exec(head);
  const setext = atx ? null : /^([^\n]+)\r?\n(?:=+|-+)[ \t]*(?:\r?\n|$)/.exec(head);
  const raw = atx?.[1] ?? setext?.[1];
  if (!raw) return null;
  // Inline Markdown a reader does not see: emphasis, code ticks, link targets.
  const plain = raw
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[*_`]+/g, '')
    .trim();
  // A notice is never what a reader would call the text.
  if (isBoilerplate(plain)) return null;
  return plain === '' ? null : plain.length > HEADING_MAX_CHARS ? `${plain.slice(0, HEADING_MAX_CHARS - 1)}…` : plain;
}
