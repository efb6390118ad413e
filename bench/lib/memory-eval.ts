/**
 * The memory evaluation (issue 17, "Quality, measured"): the labelled dev conversations in
 * test/fixtures/memory-dev (debugging sessions, planning discussions and personal conversations in
 * both languages; its README lists them and their split), run through the engine's own offline path (import the file, analyze
 * it with the dual-track processor on the rules, derive the memory candidates the commit would
 * store) and scored against hand-written labels, per split (tune / test, fixed by conversation
 * in each label file).
 *
 * Matching (also written down in bench/RESULTS.md):
 * - a step's span is where its whitespace-normalized text sits in its cited message (also
 *   normalized); a step whose text is not found there is *altered*.
 * - a predicted step matches a labelled step of the same chain type when both cite the same
 *   message and their spans overlap. Step precision: matched predicted steps / predicted
 *   steps; step recall: matched labelled steps / labelled steps.
 * - a predicted chain is correct when at least half of its steps match steps of one labelled
 *   chain of its type; a labelled chain is found when some correct chain matched it.
 * - a bucket assignment is correct when the item's bucket is its message's label.
 * - a memory candidate is correct when a labelled memory of the same category shares one of
 *   its source message ids. Committed memories are the candidates the commit would store
 *   automatically (`autoCommit` true).
 * - a title is *cut* when it ends mid-word (a "…" after part of a word) or has no letters.
 * Reliability: expected calibration error over ten equal-width confidence bins,
 * Σ (n_bin / n) · |precision_bin − mean confidence_bin|.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { classifyText } from '../../main/engine/memory/buckets/rules.js';
import { fitIsotonic, type Calibration, type MemoryKind } from '../../main/engine/memory/fusion/calibration.js';
import { AUTO_COMMIT_CONFIDENCE, proposeMemoryCandidates, type ProposedMemory } from '../../main/engine/memory/processor/candidates.js';
import { DualTrackProcessor } from '../../main/engine/memory/processor/dual-track-processor.js';
import { importConversations } from '../../main/engine/memory/sessions/import.js';
import type { ChainType, Conversation, SessionAnalysis } from '../../shared/types/memory.js';

export type Split = 'tune' | 'test';

export interface LabelledStep {
  message_id: string;
  role: string;
  text: string;
}

export interface MemoryLabels {
  conversation_id: string;
  language: 'en' | 'zh';
  split: Split;
  buckets: Record<string, string>;
  chains: { type: ChainType; steps: LabelledStep[]; note?: string }[];
  memories: { category: string; message_ids: string[]; note?: string }[];
}

export interface DevConversation {
  file: string;
  labels: MemoryLabels;
}

export interface Analyzed {
  conversation: Conversation;
  analysis: SessionAnalysis;
  proposed: ProposedMemory[];
}

/** The labelled conversations of `dir` (test/fixtures/memory-dev), in file-name order. */
export function loadMemoryDevSet(dir: string): DevConversation[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.labels.json'))
    .sort()
    .map((name) => ({ file: join(dir, name.replace(/\.labels\.json$/, '.json')), labels: JSON.parse(readFileSync(join(dir, name), 'utf8')) as MemoryLabels }));
}

/** The engine's offline path: import the file, analyze on the rules, derive the candidates. */
export async function analyzeOffline(file: string): Promise<Analyzed> {
  const [conversation] = await importConversations(file);
  if (!conversation) throw new Error(`${file}: no conversation`);
  const { analysis } = new DualTrackProcessor().processSync(conversation, { refresh: true });
  return { conversation, analysis, proposed: proposeMemoryCandidates(analysis) };
}

export function flat(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Where `text` sits in `message` (both whitespace-normalized), or undefined when it does not. */
export function spanIn(message: string, text: string): [number, number] | undefined {
  const m = flat(message);
  const t = flat(text);
  const at = t ? m.indexOf(t) : -1;
  return at < 0 ? undefined : [at, at + t.length];
}

let segmenter: Intl.Segmenter | undefined;

/** Whether `index` is a word boundary of `text` (ICU word segmentation, so it works for Chinese too). */
function isWordBoundary(text: string, index: number): boolean {
  if (index <= 0 || index >= text.length) return true;
  segmenter ??= new Intl.Segmenter('zh', { granularity: 'word' });
  const segment = segmenter.segment(text).containing(index);
  return segment?.index === index;
}

const TITLE_PREFIX = /^(?:How to|Story|Timeline|Why|Reasoning|Decision|\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2})?)?|[\p{L}]{1,12}): /u;

/**
 * Whether a title is cut: no letters at all ("42)."), or a piece ending in "…" whose end is not
 * a word boundary of the source text it came from ("…after yesterday's deplo…").
 */
export function isCutTitle(title: string, sources: string[]): boolean {
  const body = title.replace(TITLE_PREFIX, '');
  if (!/\p{L}/u.test(body)) return true;
  const texts = sources.map(flat);
  // Every piece that ends in "…" (a summary "a… → b…" has several) must end where a word ends.
  for (const piece of body.split('…').slice(0, -1)) {
    const tail = piece.replace(/^.*→\s*/, '').trim().slice(-12);
    if (tail && !texts.some((text) => endsAtWordBoundary(text, tail))) return true;
  }
  return false;
}

function endsAtWordBoundary(text: string, tail: string): boolean {
  for (let at = text.indexOf(tail); at >= 0; at = text.indexOf(tail, at + 1)) if (isWordBoundary(text, at + tail.length)) return true;
  return false;
}

export interface Reliability {
  n: number;
  correct: number;
  precision: number;
  ece: number;
  bins: { from: number; to: number; n: number; precision: number; confidence: number }[];
}

export function reliability(points: Pick<Point, 'confidence' | 'correct'>[], binCount = 10): Reliability {
  const bins = Array.from({ length: binCount }, (_, b) => ({ from: b / binCount, to: (b + 1) / binCount, n: 0, correct: 0, sum: 0 }));
  for (const p of points) {
    const b = Math.min(binCount - 1, Math.max(0, Math.floor(p.confidence * binCount)));
    const bin = bins[b] as (typeof bins)[number];
    bin.n += 1;
    bin.sum += p.confidence;
    if (p.correct) bin.correct += 1;
  }
  const n = points.length;
  const correct = points.filter((p) => p.correct).length;
  let ece = 0;
  for (const bin of bins) if (bin.n > 0) ece += (bin.n / n) * Math.abs(bin.correct / bin.n - bin.sum / bin.n);
  return {
    n,
    correct,
    precision: n === 0 ? 0 : correct / n,
    ece,
    bins: bins.filter((b) => b.n > 0).map((b) => ({ from: b.from, to: b.to, n: b.n, precision: b.correct / b.n, confidence: b.sum / b.n })),
  };
}

/** A scored prediction: its confidence, the rule score it was calibrated from, and whether it is right. */
export interface Point {
  confidence: number;
  score: number;
  correct: boolean;
}

/** What one conversation gives for each measured type: points and counts. */
export interface Scored {
  chains: Record<string, (Point & { steps: number; matchedSteps: number })[]>;
  chainRecall: Record<string, { labels: number; found: number }>;
  steps: { predicted: number; matched: number; labels: number; found: number; roleAgree: number };
  buckets: (Point & { bucket: string; label: string })[];
  memories: (Point & { category: string; kind: MemoryKind; committed: boolean })[];
  memoryRecall: { labels: number; found: number; foundCommitted: number };
  alteredSteps: { chain: string; message_id: string; text: string }[];
  cutTitles: string[];
}

const CHAIN_TYPES: ChainType[] = ['CAUSAL', 'LOGIC', 'OPERATION', 'NARRATIVE', 'TIME'];

export function scoreConversation(run: Analyzed, labels: MemoryLabels): Scored {
  const messages = new Map(run.conversation.sessions.flatMap((s) => s.messages).map((m) => [m.id, m.text]));
  const span = (id: string, text: string) => spanIn(messages.get(id) ?? '', text);
  const overlaps = (a: [number, number] | undefined, b: [number, number] | undefined) => a !== undefined && b !== undefined && a[0] < b[1] && b[0] < a[1];

  const scored: Scored = {
    chains: Object.fromEntries(CHAIN_TYPES.map((t) => [t, []])),
    chainRecall: Object.fromEntries(CHAIN_TYPES.map((t) => [t, { labels: labels.chains.filter((c) => c.type === t).length, found: 0 }])),
    steps: { predicted: 0, matched: 0, labels: labels.chains.reduce((n, c) => n + c.steps.length, 0), found: 0, roleAgree: 0 },
    buckets: [],
    memories: [],
    memoryRecall: { labels: labels.memories.length, found: 0, foundCommitted: 0 },
    alteredSteps: [],
    cutTitles: [],
  };

  const labelSteps = labels.chains.map((chain) => chain.steps.map((step) => ({ ...step, type: chain.type, span: span(step.message_id, step.text) })));
  const foundLabelSteps = new Set<string>();
  const foundChains = new Set<number>();
  for (const chain of run.analysis.chains) {
    const perLabel = new Map<number, number>();
    let matchedSteps = 0;
    for (const node of chain.nodes) {
      const id = node.message_ids[0] as string;
      const mine = span(id, node.text);
      if (!mine) scored.alteredSteps.push({ chain: chain.chain_id, message_id: id, text: node.text });
      scored.steps.predicted += 1;
      let matched = false;
      labelSteps.forEach((steps, li) => {
        steps.forEach((step, si) => {
          if (step.type !== chain.chain_type || step.message_id !== id || !overlaps(mine, step.span)) return;
          if (!matched) {
            matched = true;
            if (step.role === node.role) scored.steps.roleAgree += 1;
          }
          foundLabelSteps.add(`${li}/${si}`);
          perLabel.set(li, (perLabel.get(li) ?? 0) + 1);
        });
      });
      if (matched) {
        scored.steps.matched += 1;
        matchedSteps += 1;
      }
    }
    const best = [...perLabel.entries()].sort((a, b) => b[1] - a[1])[0];
    const correct = best !== undefined && best[1] * 2 >= chain.nodes.length;
    if (correct) foundChains.add(best[0]);
    const score = typeof chain.metadata.rule_confidence === 'number' ? chain.metadata.rule_confidence : chain.extraction_confidence;
    scored.chains[chain.chain_type]?.push({ confidence: chain.extraction_confidence, score, correct, steps: chain.nodes.length, matchedSteps });
  }
  scored.steps.found = foundLabelSteps.size;
  for (const li of foundChains) {
    const type = labels.chains[li]?.type as ChainType;
    (scored.chainRecall[type] as { found: number }).found += 1;
  }

  for (const item of Object.values(run.analysis.buckets).flat()) {
    const label = labels.buckets[item.message_ids[0] as string];
    if (!label) continue;
    const score = classifyText(item.text, item.role).bucket_scores[item.bucket];
    scored.buckets.push({ confidence: item.bucket_scores?.[item.bucket] ?? 0, score, correct: item.bucket === label, bucket: item.bucket, label });
  }

  const foundMemories = new Set<number>();
  const foundCommitted = new Set<number>();
  for (const { candidate, score, kind, autoCommit: committed } of run.proposed) {
    const hits = labels.memories.flatMap((m, i) => (m.category === candidate.category && m.message_ids.some((id) => candidate.message_ids.includes(id)) ? [i] : []));
    for (const i of hits) {
      foundMemories.add(i);
      if (committed) foundCommitted.add(i);
    }
    scored.memories.push({ confidence: candidate.confidence, score, correct: hits.length > 0, category: candidate.category, kind, committed });
    const sources = candidate.message_ids.map((id) => messages.get(id) ?? '');
    if (isCutTitle(candidate.title, sources)) scored.cutTitles.push(candidate.title);
  }
  scored.memoryRecall.found = foundMemories.size;
  scored.memoryRecall.foundCommitted = foundCommitted.size;
  return scored;
}

export interface SplitReport {
  split: Split;
  conversations: string[];
  chains: Record<string, Reliability & { labels: number; found: number; recall: number; steps: number; stepPrecision: number }>;
  steps: { predicted: number; matched: number; precision: number; labels: number; found: number; recall: number; roleAgreement: number };
  buckets: Reliability & { perBucket: Record<string, { predicted: number; correct: number; labels: number; precision: number; recall: number }> };
  memories: Reliability & { labels: number; found: number; recall: number };
  committed: Reliability & { recall: number };
  perCategory: Record<string, { predicted: number; correct: number }>;
  alteredSteps: Scored['alteredSteps'];
  cutTitles: string[];
}

/** Scores of all conversations of one split, summed. */
export function splitReport(split: Split, conversations: { id: string; scored: Scored }[]): SplitReport {
  const all = conversations.map((c) => c.scored);
  const chains: SplitReport['chains'] = {};
  for (const type of CHAIN_TYPES) {
    const labelsN = all.reduce((n, s) => n + (s.chainRecall[type]?.labels ?? 0), 0);
    const found = all.reduce((n, s) => n + (s.chainRecall[type]?.found ?? 0), 0);
    const typed = all.flatMap((s) => s.chains[type] ?? []);
    const steps = typed.reduce((n, c) => n + c.steps, 0);
    const matched = typed.reduce((n, c) => n + c.matchedSteps, 0);
    chains[type] = { ...reliability(typed), labels: labelsN, found, recall: labelsN === 0 ? 0 : found / labelsN, steps, stepPrecision: steps === 0 ? 0 : matched / steps };
  }
  const steps = all.reduce((t, s) => ({ predicted: t.predicted + s.steps.predicted, matched: t.matched + s.steps.matched, labels: t.labels + s.steps.labels, found: t.found + s.steps.found, roleAgree: t.roleAgree + s.steps.roleAgree }), { predicted: 0, matched: 0, labels: 0, found: 0, roleAgree: 0 });
  const bucketPoints = all.flatMap((s) => s.buckets);
  const perBucket: SplitReport['buckets']['perBucket'] = {};
  for (const b of ['TASK_CONTEXT', 'USER_INTENT', 'DECISION_CONTEXT', 'KNOWLEDGE_GAP', 'EMOTIONAL_TRACE']) {
    const predicted = bucketPoints.filter((p) => p.bucket === b);
    const correct = predicted.filter((p) => p.correct).length;
    const labelsN = bucketPoints.filter((p) => p.label === b).length;
    perBucket[b] = { predicted: predicted.length, correct, labels: labelsN, precision: predicted.length === 0 ? 0 : correct / predicted.length, recall: labelsN === 0 ? 0 : correct / labelsN };
  }
  const memoryPoints = all.flatMap((s) => s.memories);
  const memoryLabels = all.reduce((n, s) => n + s.memoryRecall.labels, 0);
  const memoryFound = all.reduce((n, s) => n + s.memoryRecall.found, 0);
  const committedFound = all.reduce((n, s) => n + s.memoryRecall.foundCommitted, 0);
  const perCategory: SplitReport['perCategory'] = {};
  for (const p of memoryPoints) {
    const row = (perCategory[p.category] ??= { predicted: 0, correct: 0 });
    row.predicted += 1;
    if (p.correct) row.correct += 1;
  }
  return {
    split,
    conversations: conversations.map((c) => c.id),
    chains,
    steps: {
      predicted: steps.predicted,
      matched: steps.matched,
      precision: steps.predicted === 0 ? 0 : steps.matched / steps.predicted,
      labels: steps.labels,
      found: steps.found,
      recall: steps.labels === 0 ? 0 : steps.found / steps.labels,
      roleAgreement: steps.matched === 0 ? 0 : steps.roleAgree / steps.matched,
    },
    buckets: { ...reliability(bucketPoints), perBucket },
    memories: { ...reliability(memoryPoints), labels: memoryLabels, found: memoryFound, recall: memoryLabels === 0 ? 0 : memoryFound / memoryLabels },
    committed: { ...reliability(memoryPoints.filter((p) => p.committed)), recall: memoryLabels === 0 ? 0 : committedFound / memoryLabels },
    perCategory,
    alteredSteps: all.flatMap((s) => s.alteredSteps),
    cutTitles: all.flatMap((s) => s.cutTitles),
  };
}

/** Runs the whole dev set: every conversation through the offline path, scored, per split. */
export async function runMemoryEval(dir: string): Promise<{ tune: SplitReport; test: SplitReport; runs: { id: string; split: Split; run: Analyzed; scored: Scored }[]; calibration: Calibration }> {
  const runs = [];
  for (const { file, labels } of loadMemoryDevSet(dir)) {
    const run = await analyzeOffline(file);
    runs.push({ id: labels.conversation_id, split: labels.split, run, scored: scoreConversation(run, labels) });
  }
  return {
    tune: splitReport('tune', runs.filter((r) => r.split === 'tune')),
    test: splitReport('test', runs.filter((r) => r.split === 'test')),
    runs,
    calibration: fitCalibration(runs.filter((r) => r.split === 'tune').map((r) => r.scored)),
  };
}

const pct = (x: number) => x.toFixed(2);

/** The report as text tables, one block per split. */
export function formatMemoryReport(report: SplitReport): string {
  const lines = [`${report.split} (${report.conversations.join(', ')})`, '', '| type | n | precision | recall | ECE |', '|---|---:|---:|---:|---:|'];
  for (const [type, r] of Object.entries(report.chains)) lines.push(`| chain ${type} | ${r.n} | ${pct(r.precision)} | ${pct(r.recall)} (${r.found}/${r.labels}) | ${pct(r.ece)} |`);
  for (const [type, r] of Object.entries(report.chains)) lines.push(`| · ${type} steps | ${r.steps} | ${pct(r.stepPrecision)} | | |`);
  lines.push(`| chain steps | ${report.steps.predicted} | ${pct(report.steps.precision)} | ${pct(report.steps.recall)} (${report.steps.found}/${report.steps.labels}) | role agreement ${pct(report.steps.roleAgreement)} |`);
  lines.push(`| bucket assignments | ${report.buckets.n} | ${pct(report.buckets.precision)} | | ${pct(report.buckets.ece)} |`);
  for (const [bucket, r] of Object.entries(report.buckets.perBucket)) lines.push(`| · ${bucket} | ${r.predicted} | ${pct(r.precision)} | ${pct(r.recall)} (${r.correct}/${r.labels}) | |`);
  lines.push(`| memory candidates | ${report.memories.n} | ${pct(report.memories.precision)} | ${pct(report.memories.recall)} (${report.memories.found}/${report.memories.labels}) | ${pct(report.memories.ece)} |`);
  lines.push(`| committed memories | ${report.committed.n} | ${pct(report.committed.precision)} | ${pct(report.committed.recall)} | ${pct(report.committed.ece)} |`);
  lines.push('', `altered steps: ${report.alteredSteps.length}; cut titles: ${report.cutTitles.length}`);
  for (const s of report.alteredSteps.slice(0, 5)) lines.push(`  altered: ${s.message_id} "${s.text.slice(0, 80)}"`);
  for (const t of report.cutTitles.slice(0, 5)) lines.push(`  cut: "${t}"`);
  return lines.join('\n');
}

/**
 * The calibration tables fitted on the tune half's rule scores (isotonic, fusion/calibration.ts):
 * one per chain type, one for bucket assignments, one per memory category with at least
 * MIN_FIT_POINTS candidates and one for all memories.
 */
export const MIN_FIT_POINTS = 8;

export function fitCalibration(tune: Scored[]): Calibration {
  const fit = (points: Point[]) => fitIsotonic(points.map((p) => ({ score: p.score, correct: p.correct })));
  const chain: Calibration['chain'] = {};
  for (const type of CHAIN_TYPES) {
    const points = tune.flatMap((s) => s.chains[type] ?? []);
    if (points.length > 0) chain[type] = fit(points);
  }
  const memoryPoints = tune.flatMap((s) => s.memories);
  const memory: Calibration['memory'] = { all: fit(memoryPoints) };
  // A table per category, and per kind (the rule that made the memory) where a category has several.
  for (const category of new Set(memoryPoints.map((p) => p.category))) {
    const points = memoryPoints.filter((p) => p.category === category);
    if (points.length >= MIN_FIT_POINTS) memory[category as keyof Calibration['memory']] = fit(points);
  }
  for (const kind of new Set(memoryPoints.map((p) => p.kind))) {
    const points = memoryPoints.filter((p) => p.kind === kind);
    if (kind.includes('/') && points.length >= MIN_FIT_POINTS) memory[kind as keyof Calibration['memory']] = fit(points);
  }
  return { chain, bucket: fit(tune.flatMap((s) => s.buckets)), memory, commit: fitCommitGates(memoryPoints, memory) };
}

/** Issue 17's goal for the precision of what a commit stores without review. */
export const COMMITTED_PRECISION_GOAL = 0.85;

/**
 * Per-kind auto-commit gates: the memories of measured kinds (a table of their own) at or above
 * AUTO_COMMIT_CONFIDENCE, grouped by kind and calibrated confidence, are taken best first while their pooled precision stays at or
 * above COMMITTED_PRECISION_GOAL; a kind's gate is the lowest confidence taken. Fitted on points
 * calibrated with the tables in place (run --fit until it prints what it was run on).
 */
export function fitCommitGates(points: Scored['memories'], tables: Calibration['memory']): Calibration['commit'] {
  const groups = new Map<string, { kind: MemoryKind; confidence: number; n: number; correct: number }>();
  for (const p of points) {
    // Below the floor nothing commits, whatever its kind.
    if (!tables[p.kind] || p.confidence < AUTO_COMMIT_CONFIDENCE) continue;
    const key = `${p.kind} ${p.confidence}`;
    const group = groups.get(key) ?? { kind: p.kind, confidence: p.confidence, n: 0, correct: 0 };
    group.n += 1;
    if (p.correct) group.correct += 1;
    groups.set(key, group);
  }
  const gates: Calibration['commit'] = {};
  let n = 0;
  let correct = 0;
  for (const group of [...groups.values()].sort((a, b) => b.confidence - a.confidence || b.n - a.n)) {
    if ((correct + group.correct) / (n + group.n) < COMMITTED_PRECISION_GOAL) break;
    n += group.n;
    correct += group.correct;
    gates[group.kind] = Math.min(gates[group.kind] ?? 1, group.confidence);
  }
  return gates;
}

/** The fitted tables as the TypeScript literal that fusion/calibration.ts holds. */
export function formatCalibration(calibration: Calibration): string {
  const table = (t: readonly (readonly [number, number, number])[]) => `[${t.map((s) => `[${s.join(', ')}]`).join(', ')}]`;
  const record = (r: Record<string, readonly (readonly [number, number, number])[] | undefined>) =>
    `{\n${Object.entries(r)
      .map(([k, t]) => `    ${/^\w+$/.test(k) ? k : `'${k}'`}: ${table(t ?? [])},`)
      .join('\n')}\n  }`;
  const gates = `{\n${Object.entries(calibration.commit)
    .map(([k, g]) => `    ${/^\w+$/.test(k) ? k : `'${k}'`}: ${g},`)
    .join('\n')}\n  }`;
  return `export const CALIBRATION: Calibration = {\n  chain: ${record(calibration.chain)},\n  bucket: ${table(calibration.bucket)},\n  memory: ${record(calibration.memory)},\n  commit: ${gates},\n};`;
}
