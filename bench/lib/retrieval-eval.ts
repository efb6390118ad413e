/**
 * The retrieval evaluation (issue 5, "Quality"): a labelled dev set of documents and
 * conversations, indexed the way the engine indexes them, and recall@k / MRR for each search
 * mode, overall and split by language and by source (documents or conversations).
 *
 * Records:
 * - a document is a directory node (`ctx://resources/eval/{lang}/{name}/`) whose L0/L1 are the
 *   embedded extractive summarizer's abstract and overview of the whole document, and whose
 *   children are its sections as L2 leaves (Markdown: one per `## ` heading, plus the text before
 *   the first one; text: one per paragraph). Section leaves are smaller than the engine's
 *   default split (which merges sections under 512 tokens) so that the labels can name the
 *   passage that answers, not a whole file.
 * - a conversation is a directory with one directory per session (L0/L1 from the extractive
 *   summarizer over its transcript) and one L2 record per message, with
 *   `provenance.message_ids = [id]`: the shape docs/ARCHITECTURE.md#the-cli gives session hits.
 *
 * Evidence ids: `{lang}/{document name}#{section}` for passages, `{conversation id}/{message id}`
 * for messages. A question may name several (multi-hop); recall@k is the share of them found in
 * the first k passage hits, averaged over questions, and MRR uses the rank of the first one found.
 * Searches ask for L2 records only (`levels: [2]`): the evaluation is about finding the passage
 * or the message, and every mode sees the same filter.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { formatMessageRecord, messageEmbedContext } from '../../main/engine/index/message-record.js';
import { openLanceStore } from '../../main/adapters/store/lancedb/index.js';
import { createSearchIndex, type SearchIndex, type SearchMode } from '../../main/engine/index/search-index.js';
import type { IndexInput } from '../../main/engine/ports/context-index.js';
import type { EmbeddingModel } from '../../main/engine/ports/embedding-model.js';
import { summarizeDirectory, type DirectoryChild } from '../../main/engine/summarize/extractive-directory.js';
import { summarizeText } from '../../main/engine/summarize/extractive.js';
import type { Conversation, Message } from '../../shared/types/memory.js';

export type Lang = 'en' | 'zh';
export type Source = 'doc' | 'conv';

export interface Question {
  id: string;
  lang: Lang;
  source: Source;
  /** What the question tests: paraphrase, exact (identifiers, rare terms), temporal, multi-hop, factoid. */
  type: string;
  question: string;
  /** Passage or message ids that answer it (see the header). */
  evidence: string[];
}

export interface Passage {
  /** `{lang}/{document}#{section}`. */
  id: string;
  lang: Lang;
  uri: string;
  text: string;
}

export interface DevSet {
  passages: Passage[];
  conversations: { lang: Lang; conversation: Conversation; file: string }[];
  questions: Question[];
}

/** Lower-cased letters and digits of any script, other runs become one `-`. */
export function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
}

/** Sections of a document: `[sectionId, text]`, lossless (their concatenation is the document). */
export function splitSections(text: string, format: 'markdown' | 'text'): [string, string][] {
  const out: [string, string][] = [];
  if (format === 'markdown') {
    const parts = text.split(/^(?=## )/m);
    for (const part of parts) {
      const heading = /^## (.+)$/m.exec(part);
      out.push([heading && part.startsWith('## ') ? slug(heading[1] as string) : 'intro', part]);
    }
  } else {
    const parts = text.split(/(?<=\n\n)(?=\S)/);
    parts.forEach((part, i) => out.push([`p${i + 1}`, part]));
  }
  return out;
}

const LANGS: Lang[] = ['en', 'zh'];

/** Reads the dev set from its folder (test/fixtures/retrieval). */
export function loadDevSet(dir: string): DevSet {
  const passages: Passage[] = [];
  for (const lang of LANGS) {
    for (const file of readdirSync(join(dir, 'docs', lang)).sort()) {
      const name = basename(file, extname(file));
      const text = readFileSync(join(dir, 'docs', lang, file), 'utf8');
      for (const [section, body] of splitSections(text, file.endsWith('.md') ? 'markdown' : 'text')) {
        passages.push({ id: `${lang}/${name}#${section}`, lang, uri: `ctx://resources/eval/${lang}/${name}/${section}.md`, text: body });
      }
    }
  }
  const conversations = readdirSync(join(dir, 'conversations'))
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => {
      const conversation = JSON.parse(readFileSync(join(dir, 'conversations', file), 'utf8')) as Conversation;
      const sample = conversation.sessions.flatMap((s) => s.messages.map((m) => m.text)).join('');
      const lang: Lang = /[\u4e00-\u9fff]/.test(sample) ? 'zh' : 'en';
      return { lang, conversation, file };
    });
  const questions = JSON.parse(readFileSync(join(dir, 'questions.json'), 'utf8')).questions as Question[];
  return { passages, conversations, questions };
}

/** Every evidence id the dev set can name, to check the labels. */
export function evidenceIds(set: DevSet): Set<string> {
  const ids = new Set(set.passages.map((p) => p.id));
  for (const { conversation } of set.conversations) for (const s of conversation.sessions) for (const m of s.messages) ids.add(`${conversation.id}/${m.id}`);
  return ids;
}

function parentOf(uri: string): string {
  const bare = uri.endsWith('/') ? uri.slice(0, -1) : uri;
  return bare.slice(0, bare.lastIndexOf('/') + 1);
}

function record(uri: string, level: 0 | 1 | 2, text: string, extra: Partial<IndexInput> = {}): IndexInput {
  return {
    id: `${uri}#${level}`,
    uri,
    parent_uri: parentOf(uri),
    level,
    context_type: 'resource',
    category: uri.endsWith('/') ? 'directory' : 'document',
    text,
    tokens: 0,
    content_hash: '',
    updated_at: '2024-10-01T00:00:00.000Z',
    provenance: {},
    ...extra,
  };
}

function directoryRecords(uri: string, abstract: string, overview: string, extra: Partial<IndexInput> = {}): IndexInput[] {
  return [record(uri, 0, abstract, extra), record(uri, 1, overview, extra)];
}

export interface BuildOptions {
  /** How a message becomes the text of its record. Default: the engine's formatMessageRecord. */
  messageText?: (message: Message, context: { conversation: Conversation; sessionIndex: number }) => string;
  /** Embed each message with its neighbours, as the engine does (messageEmbedContext). Default true. */
  messageContext?: boolean;
}

/** The index records of the dev set, and which evidence id each L2 record stands for. */
export function buildRecords(set: DevSet, options: BuildOptions = {}): { records: IndexInput[]; evidenceOf: Map<string, string> } {
  const messageText = options.messageText ?? ((m: Message, c: { conversation: Conversation; sessionIndex: number }) => formatMessageRecord(m, c.conversation.sessions[c.sessionIndex]?.started_at));
  const records: IndexInput[] = [];
  const evidenceOf = new Map<string, string>();
  const byDocument = new Map<string, Passage[]>();
  for (const p of set.passages) {
    const dir = parentOf(p.uri);
    byDocument.set(dir, [...(byDocument.get(dir) ?? []), p]);
  }
  for (const lang of LANGS) {
    const docs = [...byDocument.entries()].filter(([dir]) => dir.startsWith(`ctx://resources/eval/${lang}/`));
    const children: DirectoryChild[] = [];
    for (const [dir, passages] of docs) {
      const name = dir.slice(0, -1).split('/').pop() as string;
      const summary = summarizeText(passages.map((p) => p.text).join(''), { title: name, format: 'markdown' });
      records.push(...directoryRecords(dir, summary.abstract, summary.overview, { provenance: { source: `docs/${lang}/${name}` } }));
      children.push({ name, abstract: summary.abstract, category: 'resource', isDirectory: true });
      for (const p of passages) {
        records.push(record(p.uri, 2, p.text, { provenance: { source: `docs/${lang}/${name}` } }));
        evidenceOf.set(p.uri, p.id);
      }
    }
    const top = summarizeDirectory(children, { dirName: lang });
    records.push(...directoryRecords(`ctx://resources/eval/${lang}/`, top.abstract, top.overview));
  }
  for (const { conversation, file } of set.conversations) {
    const root = `ctx://session/${conversation.id}/`;
    const children: DirectoryChild[] = [];
    conversation.sessions.forEach((session, sessionIndex) => {
      const dir = `${root}${session.id}/`;
      const transcript = session.messages.map((m) => `${m.speaker ?? m.role}: ${m.text}`).join('\n');
      const summary = summarizeText(transcript, { title: `${conversation.title ?? conversation.id} (${session.started_at ?? session.id})`, format: 'text' });
      const extra: Partial<IndexInput> = { context_type: 'session', category: 'conversation', provenance: { source: file } };
      records.push(...directoryRecords(dir, summary.abstract, summary.overview, extra));
      children.push({ name: session.id, abstract: summary.abstract, category: 'conversation', isDirectory: true });
      session.messages.forEach((message, i) => {
        const uri = `${dir}msg-${String(i + 1).padStart(3, '0')}`;
        const context = options.messageContext === false ? '' : messageEmbedContext(session.messages, i);
        records.push(
          record(uri, 2, messageText(message, { conversation, sessionIndex }), {
            ...(context ? { embed_context: context } : {}),
            context_type: 'session',
            category: 'message',
            updated_at: message.timestamp ?? session.started_at ?? '',
            provenance: { source: file, message_ids: [message.id] },
          }),
        );
        evidenceOf.set(uri, `${conversation.id}/${message.id}`);
      });
    });
    const top = summarizeDirectory(children, { dirName: conversation.title ?? conversation.id });
    records.push(...directoryRecords(root, top.abstract, top.overview, { context_type: 'session', category: 'conversation', provenance: { source: file } }));
  }
  return { records, evidenceOf };
}

export interface Metrics {
  questions: number;
  recall1: number;
  recall5: number;
  recall10: number;
  mrr: number;
}

export interface ModeReport {
  mode: SearchMode;
  overall: Metrics;
  groups: Record<string, Metrics>;
  /** Per question: the rank (1-based) of each evidence id found in the top 10, null when missed. */
  ranks: Record<string, (number | null)[]>;
}

export interface EvalReport {
  records: number;
  questions: number;
  modes: ModeReport[];
}

function metricsOf(rows: { ranks: (number | null)[] }[]): Metrics {
  const n = rows.length;
  const recall = (k: number) => (n === 0 ? 0 : rows.reduce((sum, r) => sum + r.ranks.filter((x) => x !== null && x <= k).length / r.ranks.length, 0) / n);
  const mrr = n === 0 ? 0 : rows.reduce((sum, r) => sum + 1 / Math.min(...r.ranks.map((x) => x ?? Infinity)), 0) / n;
  return { questions: n, recall1: recall(1), recall5: recall(5), recall10: recall(10), mrr };
}

export const EVAL_MODES: SearchMode[] = ['fts', 'vector', 'hybrid', 'hierarchical'];

/** Runs every question in every mode against an index holding `buildRecords(set)`. */
export async function evaluate(index: SearchIndex, questions: Question[], evidenceOf: Map<string, string>, modes: SearchMode[] = EVAL_MODES): Promise<EvalReport> {
  const reports: ModeReport[] = [];
  for (const mode of modes) {
    const rows: { q: Question; ranks: (number | null)[] }[] = [];
    for (const q of questions) {
      const hits = await index.search({ text: q.question, k: 10, mode, filter: { levels: [2] } });
      const found = hits.map((h) => evidenceOf.get(h.uri));
      rows.push({ q, ranks: q.evidence.map((id) => (found.indexOf(id) === -1 ? null : found.indexOf(id) + 1)) });
    }
    const groups: Record<string, Metrics> = {};
    const groupKeys = ['en', 'zh', 'doc', 'conv'];
    for (const key of groupKeys) groups[key] = metricsOf(rows.filter((r) => r.q.lang === key || r.q.source === key));
    for (const type of [...new Set(questions.map((q) => q.type))].sort()) groups[`type:${type}`] = metricsOf(rows.filter((r) => r.q.type === type));
    reports.push({ mode, overall: metricsOf(rows), groups, ranks: Object.fromEntries(rows.map((r) => [r.q.id, r.ranks])) });
  }
  return { records: evidenceOf.size, questions: questions.length, modes: reports };
}

const pct = (x: number) => (x * 100).toFixed(1).padStart(5);

/** The report as a Markdown table: one row per mode and group. */
export function formatReport(report: EvalReport): string {
  const lines = ['| group | mode | n | R@1 | R@5 | R@10 | MRR |', '|---|---|---|---|---|---|---|'];
  const groups = ['all', ...Object.keys(report.modes[0]?.groups ?? {})];
  for (const group of groups) {
    for (const m of report.modes) {
      const x = group === 'all' ? m.overall : (m.groups[group] as Metrics);
      lines.push(`| ${group} | ${m.mode} | ${x.questions} | ${pct(x.recall1)} | ${pct(x.recall5)} | ${pct(x.recall10)} | ${x.mrr.toFixed(3)} |`);
    }
  }
  return lines.join('\n');
}

export interface RunOptions extends BuildOptions {
  /** The dev set folder (test/fixtures/retrieval). */
  fixtures: string;
  embedder: EmbeddingModel;
  /** An empty folder for the LanceDB index. */
  indexDir: string;
  modes?: SearchMode[];
  /** Keep only the questions this returns true for. */
  only?: (question: Question) => boolean;
}

/** Builds a real LanceDB index of the dev set with `embedder` and evaluates every mode. */
export async function runDevSetEval(options: RunOptions): Promise<EvalReport & { model: string; indexMs: number; searchMs: number }> {
  const set = loadDevSet(options.fixtures);
  const known = evidenceIds(set);
  const unknown = set.questions.flatMap((q) => q.evidence.filter((id) => !known.has(id)).map((id) => `${q.id}: ${id}`));
  if (unknown.length > 0) throw new Error(`Questions name evidence that is not in the dev set: ${unknown.join('; ')}`);
  const { records, evidenceOf } = buildRecords(set, options);
  const store = await openLanceStore({ uri: options.indexDir, dimensions: options.embedder.dimensions, idleOptimizeMs: 0 });
  try {
    const index = createSearchIndex({ embedder: options.embedder, store });
    let started = performance.now();
    await index.upsert(records);
    await index.optimize();
    const indexMs = performance.now() - started;
    started = performance.now();
    const questions = options.only ? set.questions.filter(options.only) : set.questions;
    const report = await evaluate(index, questions, evidenceOf, options.modes);
    return { ...report, records: records.length, model: options.embedder.modelId, indexMs, searchMs: performance.now() - started };
  } finally {
    await store.close();
  }
}
