/**
 * TF-IDF over the items of one conversation. English terms are the index's (text-analysis.ts:
 * stemmed words without stop words), so "a term" means the same in search and in topics. Chinese
 * and other CJK runs are cut into words (segmentCjkWords: ICU's word segmenter, with its splits
 * of unknown compounds repaired), so keywords and labels are words ("连接池", "古城"), not
 * character pairs. Stop words (我们, 然后, 的…) and single characters are left out, unless a CJK
 * run is one character long. Numbers shorter than three digits are left out too.
 *
 * tf = 1 + ln(count), idf = ln((1 + N) / (1 + df)) + 1, vectors are L2-normalized.
 * Keywords are shown in the surface form seen most often (the stem "deploy" shows as "deploy",
 * "pars" as "parser").
 */
import { isCjkStopWord, scanRuns, segmentCjkWords, visitWordTerms } from '../../../lib/text-analysis.js';
import type { SparseVector } from './vectors.js';

export interface TfIdf {
  /** One L2-normalized vector per document; empty when the document has no terms. */
  vectors: SparseVector[];
  /** Term id → term (English stem or CJK word). */
  terms: string[];
  /** Term id → the form to show a person. */
  display: string[];
  /** Term id → whether it may be shown as a keyword. */
  keywordOk: boolean[];
}

/** The terms of one text (repeated terms repeat), with the surface form of each. */
export function termsOf(text: string, visit: (term: string, surface: string) => void): void {
  scanRuns(text, (kind, start, end) => {
    const run = text.slice(start, end);
    if (kind === 'cjk') {
      if (Array.from(run).length === 1) {
        visit(run, run);
        return;
      }
      for (const word of segmentCjkWords(run)) {
        if (Array.from(word).length >= 2 && !isCjkStopWord(word)) visit(word, word);
      }
      return;
    }
    visitWordTerms(run, (term, normalized) => {
      if (/^\d{1,2}$/.test(term)) return;
      visit(term, normalized);
    });
  });
}

export function buildTfIdf(texts: string[]): TfIdf {
  const ids = new Map<string, number>();
  const terms: string[] = [];
  const surfaces: Map<string, number>[] = [];
  const df: number[] = [];
  const counts: Map<number, number>[] = texts.map((text) => {
    const local = new Map<number, number>();
    termsOf(text, (term, surface) => {
      let id = ids.get(term);
      if (id === undefined) {
        id = terms.length;
        ids.set(term, id);
        terms.push(term);
        surfaces.push(new Map());
        df.push(0);
      }
      const seen = surfaces[id] as Map<string, number>;
      seen.set(surface, (seen.get(surface) ?? 0) + 1);
      local.set(id, (local.get(id) ?? 0) + 1);
    });
    for (const id of local.keys()) df[id] = (df[id] as number) + 1;
    return local;
  });
  const n = texts.length;
  const idf = df.map((d) => Math.log((1 + n) / (1 + d)) + 1);
  const vectors = counts.map((local) => {
    const entries = [...local.entries()].sort((a, b) => a[0] - b[0]);
    const index = new Int32Array(entries.length);
    const weight = new Float64Array(entries.length);
    let norm = 0;
    entries.forEach(([id, count], k) => {
      const w = (1 + Math.log(count)) * (idf[id] as number);
      index[k] = id;
      weight[k] = w;
      norm += w * w;
    });
    norm = Math.sqrt(norm);
    if (norm > 0) for (let k = 0; k < weight.length; k += 1) weight[k] = (weight[k] as number) / norm;
    return { index, weight };
  });
  const display = surfaces.map((seen, id) => {
    let best = terms[id] as string;
    let bestCount = -1;
    for (const [surface, count] of seen) if (count > bestCount || (count === bestCount && surface < best)) [best, bestCount] = [surface, count];
    return best;
  });
  const keywordOk = terms.map((term) => !isCjkStopWord(term));
  return { vectors, terms, display, keywordOk };
}

/** The `k` terms of largest weight in `vector` that may be keywords, in display form. */
export function topKeywords(tfidf: TfIdf, vector: SparseVector, k: number): string[] {
  const order = [...vector.index.keys()].filter((i) => tfidf.keywordOk[vector.index[i] as number]);
  order.sort((a, b) => (vector.weight[b] as number) - (vector.weight[a] as number) || (vector.index[a] as number) - (vector.index[b] as number));
  const out: string[] = [];
  for (const i of order) {
    const word = tfidf.display[vector.index[i] as number] as string;
    if (!out.includes(word)) out.push(word);
    if (out.length === k) break;
  }
  return out;
}
