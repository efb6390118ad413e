/**
 * `cairn sessions import|analyze|commit|list` (docs/ARCHITECTURE.md#memory): conversations into the
 * workspace, the dual-track analysis, and committing it to long-term memory. `analyze`, `commit`
 * and `import --commit` take the `--llm-*` flags of `cairn ingest` (llm-flags.ts): with an LLM, it classifies,
 * extracts chains, labels topics and decides dedup, and the run ends with its fallbacks' causes.
 */
import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import type { ProposedCandidate, SessionAnalysisResult, SessionCommitResult, SessionProposal, SessionStats } from '../../../shared/contracts/api.js';
import { CairnError } from '../../../shared/errors.js';
import { formatCauses, formatFallbacks } from '../../../shared/fallback-causes.js';
import type { Extractor, MemoryLlmReport } from '../../../shared/types/memory.js';
import type { Engine } from '../../engine/engine.js';
import { formatCount } from '../../../shared/format.js';
import type { LlmFlags } from '../llm-config.js';
import { addLlmOptions } from '../llm-flags.js';
import { oneLine, printJson, reportError, stderrLogger } from '../output.js';

interface SessionFlags extends LlmFlags {
  workspace?: string;
  json?: boolean;
  commit?: boolean;
  trackA?: boolean;
  trackB?: boolean;
  conversation?: string;
  refresh?: boolean;
  yes?: boolean;
  verbose?: boolean;
}

/** `llm`: the command takes the --llm-* flags (and $OPENAI_* as ingest does); the others run on the rules. */
async function withEngine(flags: SessionFlags, work: (engine: Engine) => Promise<void>, options: { llm?: boolean } = {}): Promise<void> {
  let engine: Engine | undefined;
  try {
    // Loaded on demand, so `cairn --help` does not load the engine, LanceDB or the workers.
    const { openEngine } = await import('../compose.js');
    const llm = options.llm ? (await import('../llm-config.js')).llmFromFlags(flags, process.env, 'one-shot') : undefined;
    engine = await openEngine({ workspace: flags.workspace, logger: stderrLogger(flags.verbose === true), ...(llm ? { llm } : {}) });
    await work(engine);
  } catch (error) {
    reportError(error, flags);
  } finally {
    await engine?.dispose();
  }
}

export function registerSessions(program: Command): void {
  const sessions = program.command('sessions').description('Conversations: import them, analyze them with the dual track, commit them to memory');

  const importer = sessions
    .command('import')
    .description('Import a conversation file (Cairn JSON, JSONL, Markdown chat, ChatGPT or Claude export) into ctx://session/{id}/; with --commit and an LLM (--llm-*), the analysis and dedup use it as `sessions commit --yes` does')
    .argument('<file>', 'the conversation file')
    .option('-w, --workspace <dir>', 'workspace folder')
    .option('--commit', 'also analyze each conversation and commit it to long-term memory when the trigger says so (as `sessions commit --yes`)')
    .option('--json', 'print one JSON document: {"conversations", "commits"}; each commit carries its "llm" report when an LLM was used')
    .option('-v, --verbose', 'log progress to stderr');
  // Importing alone asks no model; the flags matter to --commit, and are checked either way.
  addLlmOptions(importer, 'memory').action((file: string, flags: SessionFlags) =>
      withEngine(flags, async (engine) => {
        const result = await engine.call('sessions:import', { path: resolve(file), commit: flags.commit === true });
        if (flags.json) return printJson(result);
        const lines = result.conversations.map(
          (c) => `${c.unchanged ? 'unchanged' : 'imported '} ${c.uri}  ${c.title ? `"${oneLine(c.title, 50)}" ` : ''}(${c.sessions} session${c.sessions === 1 ? '' : 's'}, ${formatCount(c.messages)} messages, ${c.source_format ?? 'unknown'})`,
        );
        for (const commit of result.commits) lines.push('', ...commitText(commit));
        process.stdout.write(lines.join('\n') + '\n');
      }, { llm: true }),
  );

  const analyze = sessions
    .command('analyze')
    .description('Analyze a conversation: semantic buckets and topics (track A), reasoning chains (track B), fusion and the memory trigger; with an LLM (--llm-*), it classifies, extracts and labels, the rules standing in for each batch it fails')
    .argument('<target>', 'a conversation file, a ctx://session/ URI or an imported conversation id')
    .option('-w, --workspace <dir>', 'workspace folder')
    .option('--no-track-a', 'skip track A (buckets and topic clusters); default: the workspace setting (on unless switched off in Settings)')
    .option('--no-track-b', 'skip track B (chains); default: the workspace setting')
    .option('--conversation <id>', 'which conversation of a file that holds several')
    .option('--refresh', 'ignore a cached analysis')
    .option('--json', 'print one JSON document: {"buckets", "clusters", "chains", "links", "validations", "summary", "trigger", "tracks", "timings_ms", "llm", ...}; each item, cluster and chain names its "extractor"')
    .option('-v, --verbose', 'log progress to stderr');
  addLlmOptions(analyze, 'memory').action((target: string, flags: SessionFlags) =>
      withEngine(flags, async (engine) => {
        // A path that exists is a file to analyze in place; anything else names an imported conversation.
        const isFile = !/^ctx:\/\//i.test(target) && existsSync(target);
        const result = await engine.call('sessions:analyze', {
          ...(isFile ? { path: resolve(target) } : { id: target }),
          ...(flags.conversation ? { conversation: flags.conversation } : {}),
          // Only a flag given overrides the workspace's track settings.
          ...(flags.trackA === false ? { trackA: false } : {}),
          ...(flags.trackB === false ? { trackB: false } : {}),
          refresh: flags.refresh === true,
        });
        if (flags.json) return printJson(result);
        process.stdout.write(analysisText(result).join('\n') + '\n');
      }, { llm: true }),
  );

  const commit = sessions
    .command('commit')
    .description(
      'Review the memories the trigger proposes from an imported conversation and commit the ones you accept (in a terminal: y/n/e(dit)/a(ll remaining)/q for each); --yes commits what the trigger would commit by itself',
    )
    .argument('<id>', 'an imported conversation id or its ctx://session/ URI')
    .option('-w, --workspace <dir>', 'workspace folder')
    .option('-y, --yes', 'accept what the trigger proposes for automatic commit (candidates below its confidence gate and updates of memories you edited are left out)')
    .option('--json', 'print one JSON document and commit nothing: {"conversation_id", "action", "explanation", "candidates", "rejected", "known", "llm"}; with --yes, commit and print {"conversation_id", "action", "explanation", "candidates", "changes", "llm"}')
    .option('-v, --verbose', 'log progress to stderr');
  addLlmOptions(commit, 'memory').action((id: string, flags: SessionFlags) =>
      withEngine(flags, async (engine) => {
        if (flags.yes) {
          const result = await engine.call('sessions:commit', { id });
          if (flags.json) return printJson(result);
          return void process.stdout.write(commitText(result).join('\n') + '\n');
        }
        const proposal = await engine.call('sessions:propose', { id });
        if (flags.json) return printJson(proposal);
        if (!process.stdin.isTTY || !process.stdout.isTTY) {
          process.stdout.write(proposalText(proposal).join('\n') + '\n');
          if (proposal.candidates.length === 0) return;
          const auto = proposal.candidates.filter((c) => c.auto).length;
          throw new CairnError('INVALID_INPUT', `Nothing committed: no terminal to ask. Pass --yes to commit the ${auto} candidate${auto === 1 ? '' : 's'} the trigger proposes for automatic commit, or run it in a terminal to review each`);
        }
        await review(engine, proposal);
      }, { llm: true }),
  );

  sessions
    .command('list')
    .description('List the imported conversations')
    .option('-w, --workspace <dir>', 'workspace folder')
    .option('--json', 'print one JSON document: {"conversations"}')
    .option('-v, --verbose', 'log progress to stderr')
    .action((flags: SessionFlags) =>
      withEngine(flags, async (engine) => {
        const result = await engine.call('sessions:list', {});
        if (flags.json) return printJson(result);
        const lines = result.conversations.map(
          (c) => `${c.id.padEnd(40)} ${String(c.messages).padStart(6)} msgs  ${(c.source_format ?? '').padEnd(9)} ${c.analyzed ? 'analyzed' : '        '}  ${oneLine(c.title ?? '', 50)}`.trimEnd(),
        );
        process.stdout.write(lines.length > 0 ? lines.join('\n') + '\n' : '(no conversations imported yet: cairn sessions import <file>)\n');
      }),
    );

  sessions
    .command('stats')
    .description("The memory processor's monitoring report: timings per stage, the analysis cache's hit rate, each component's health, and the chains waiting in the chain buffer")
    .option('-w, --workspace <dir>', 'workspace folder')
    .option('--json', 'print one JSON document: {"mode", "overall", "stages", "cache", "health", "counters", "buffer", ...}')
    .option('-v, --verbose', 'log progress to stderr')
    .action((flags: SessionFlags) =>
      withEngine(flags, async (engine) => {
        const stats = await engine.call('sessions:stats', {});
        if (flags.json) return printJson(stats);
        process.stdout.write(statsText(stats).join('\n') + '\n');
      }),
    );
}

/** Stage times are often under a millisecond: two decimals. */
const stageMs = (ms: number) => `${ms.toFixed(2)} ms`;

function statsText(s: SessionStats): string[] {
  const stages = Object.entries(s.stages);
  const lookups = s.cache.hits + s.cache.misses;
  const lines = [`Memory processor: ${s.overall}, ${s.mode}${s.degraded ? ' (degraded)' : ''}, tracks run ${s.runner}`, '', `Stages (${stages.length})`];
  if (stages.length === 0) lines.push('  (no analysis yet: cairn sessions analyze <conversation>)');
  for (const [name, t] of stages) lines.push(`  ${name.padEnd(18)} ${String(t.count).padStart(5)}×  mean ${stageMs(t.mean_ms)}, min ${stageMs(t.min_ms)}, max ${stageMs(t.max_ms)}`);
  lines.push('', `Cache: hit rate ${(s.cache.hit_rate * 100).toFixed(1)}% (${s.cache.hits} of ${lookups} lookups), ${s.cache.size}/${s.cache.max_entries} entries in memory, ${s.cache.evictions} evicted, ${s.cache.expirations} expired`);
  lines.push('', 'Health');
  for (const [name, h] of Object.entries(s.health)) lines.push(`  ${name.padEnd(10)} ${h.status.padEnd(9)} ${h.detail}`);
  lines.push('', `Chain buffer: ${s.buffer.chains} chain${s.buffer.chains === 1 ? '' : 's'} waiting in ${s.buffer.conversations.length} conversation${s.buffer.conversations.length === 1 ? '' : 's'}`);
  for (const c of s.buffer.conversations) {
    const types = Object.entries(c.by_type).map(([type, n]) => `${n} ${type}`).join(', ');
    lines.push(`  ${c.conversation_id}: ${c.chains} (${types || 'none'}), until ${c.expires_at}`, ...c.summaries.map((summary) => `    ${oneLine(summary, 100)}`));
  }
  const counters = Object.entries(s.counters);
  if (counters.length > 0) lines.push('', `Counters: ${counters.map(([k, v]) => `${k} ${v}`).join(', ')}`);
  const causes = formatCauses(s.llm_fallback_causes);
  if (causes) lines.push(`LLM fallbacks to the rules: ${causes}`);
  return lines;
}

/** Asks about each candidate on the terminal, then rejects and accepts what the person said. */
async function review(engine: Engine, proposal: SessionProposal): Promise<void> {
  process.stdout.write(proposalText(proposal, { candidates: false }).join('\n') + '\n');
  const accept: Array<{ candidate: string; content?: string }> = [];
  const reject: string[] = [];
  // An update of a pinned memory edited here: the person's text replaces the memory, and the machine's update is set aside.
  const rewrite: Array<{ id: string; content: string }> = [];
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    let all = false;
    for (const [i, c] of proposal.candidates.entries()) {
      process.stdout.write(['', ...candidateText(c, i, proposal.candidates.length)].join('\n') + '\n');
      if (all) {
        accept.push({ candidate: c.id });
        continue;
      }
      let answer = '';
      while (!['y', 'n', 'e', 'a', 'q'].includes(answer)) answer = (await rl.question('Accept? [y]es [n]o [e]dit [a]ll remaining [q]uit: ')).trim().toLowerCase().slice(0, 1);
      if (answer === 'q') break;
      if (answer === 'n') reject.push(c.id);
      else if (answer === 'e') {
        const text = (await rl.question(c.kind === 'update' ? 'Your memory as it should read (one line; empty takes the update as shown): ' : 'Your text (one line; empty keeps the proposed text): ')).trim();
        if (text && c.kind === 'update' && c.before) {
          rewrite.push({ id: c.before.id, content: text });
          reject.push(c.id);
        } else accept.push(text ? { candidate: c.id, content: text } : { candidate: c.id });
      } else {
        accept.push({ candidate: c.id });
        all = answer === 'a';
      }
    }
  } finally {
    rl.close();
  }
  // Rejections first: an accepted memory may make a rejected candidate "known" and so no longer proposed.
  if (reject.length > 0) await engine.call('sessions:reject', { id: proposal.uri, candidates: reject });
  const lines: string[] = [];
  for (const { id, content } of rewrite) {
    await engine.call('memories:edit', { id, patch: { content } });
    lines.push(`edited ${id} with your text`);
  }
  if (accept.length > 0) lines.push(...commitText(await engine.call('sessions:accept', { id: proposal.uri, accept })));
  else if (rewrite.length === 0) lines.push('Nothing committed.');
  if (reject.length > 0) lines.push(`${reject.length} rejected: not proposed again for the same messages`);
  process.stdout.write(lines.join('\n') + '\n');
}

function proposalText(p: SessionProposal, options: { candidates?: boolean } = {}): string[] {
  const left = [p.known > 0 ? `${p.known} already in memory` : '', p.rejected > 0 ? `${p.rejected} rejected before` : ''].filter(Boolean).join(', ');
  const lines = [`${p.conversation_id}: ${p.action} (${p.confidence.toFixed(3)}), ${p.candidates.length} candidate${p.candidates.length === 1 ? '' : 's'} proposed${left ? ` (${left})` : ''}`, ...p.explanation.map((l) => `  ${l}`)];
  if (options.candidates !== false) p.candidates.forEach((c, i) => lines.push('', ...candidateText(c, i, p.candidates.length)));
  if (p.llm) lines.push('', ...llmLines(p.llm));
  return lines;
}

function candidateText(c: ProposedCandidate, i: number, n: number): string[] {
  const what = c.kind === 'add' ? 'new memory' : c.kind === 'merge' ? `merges into ${c.before?.id ?? ''}` : `updates your memory ${c.before?.id ?? ''} (pinned)`;
  const lines = [
    `[${i + 1}/${n}] ${c.candidate.category}: ${oneLine(c.candidate.title, 80)}`,
    `  confidence ${c.candidate.confidence.toFixed(2)}${c.auto ? ', auto' : ''}; ${what}; from messages ${c.candidate.message_ids.join(', ')}${madeBy(c.candidate.extractor)}`,
  ];
  if (c.kind === 'update' && c.before && c.after) lines.push(...lineDiff(c.before.content, c.after.content).map((l) => `  ${l}`));
  else lines.push(...c.candidate.content.split('\n').map((l) => `  | ${l}`));
  return lines;
}

/** The lines only one side has: "- " for the memory as it is, "+ " for it as it would be. */
function lineDiff(before: string, after: string): string[] {
  const a = before.split('\n');
  const b = after.split('\n');
  return [...a.filter((l) => !b.includes(l)).map((l) => `- ${l}`), ...b.filter((l) => !a.includes(l)).map((l) => `+ ${l}`)];
}

function analysisText(a: SessionAnalysisResult): string[] {
  const messages = new Set(Object.values(a.buckets).flatMap((items) => items.flatMap((i) => i.message_ids))).size;
  const lines = [`Conversation ${a.conversation_id}${a.uri ? ` (${a.uri})` : ''}${a.cached ? ' [cached analysis]' : ''}${a.tracks?.degraded ? ' [degraded: tracks ran in this thread]' : ''}`];
  if (a.tracks?.a !== false) {
    const byModel = Object.values(a.buckets).flat().filter((i) => i.extractor?.kind === 'llm').length;
    const total = Object.values(a.buckets).flat().length;
    lines.push('', `Buckets (${messages} messages${a.llm ? `; ${byModel} of ${total} items classified by the LLM` : ''})`);
    for (const [bucket, items] of Object.entries(a.buckets)) lines.push(`  ${bucket.padEnd(18)} ${String(items.length).padStart(4)}`);
    lines.push('', `Topic clusters (${a.clusters.length})`);
    for (const c of a.clusters) {
      lines.push(`  ${c.topic_label}${madeBy(c.extractor)}  · ${c.items.length} items, ${c.dominant_bucket}, priority ${c.priority.toFixed(2)}${c.extraction_candidate ? ', candidate' : ''}${c.related_chains.length ? `, chains ${c.related_chains.join(' ')}` : ''}`);
    }
  } else lines.push('', 'Track A: off');
  if (a.tracks?.b !== false) {
    lines.push('', `Chains (${a.chains.length})`);
    for (const c of a.chains) lines.push(`  ${c.chain_id.padEnd(14)} ${c.chain_type.padEnd(9)} ${c.extraction_confidence.toFixed(2)}  ${c.nodes.map((n) => oneLine(n.text, 36)).join(' → ')}${madeBy(c.extractor)}`);
  } else lines.push('', 'Track B: off');
  const passed = a.validations.filter((v) => v.passed).length;
  lines.push('', `Links: ${a.links.length}; validations: ${passed} of ${a.validations.length} passed; completeness ${a.summary.completeness_score.toFixed(2)}, consistency ${a.summary.consistency_score.toFixed(2)}`);
  lines.push('', `Trigger: ${a.trigger.action} (${a.trigger.confidence.toFixed(3)})`, ...a.trigger.explanation.map((l) => `  ${l}`));
  if (a.timings_ms) lines.push('', `Timings: ${Object.entries(a.timings_ms).map(([k, v]) => `${k} ${v} ms`).join(', ')}`);
  if (a.llm) lines.push('', ...llmLines(a.llm));
  return lines;
}

const STAGE_NAMES: Record<string, string> = { buckets: 'bucket batches', chains: 'chain windows', labels: 'topic labels', dedup: 'dedup decisions' };

/** What the LLM answered per stage, then the fallbacks with their causes, as ingest ends ("2 fallbacks: 1 × HTTP 500 …"). */
function llmLines(r: MemoryLlmReport): string[] {
  const stages = Object.entries(r.stages).map(([stage, s]) => `${s.llm} of ${s.llm + s.fallbacks} ${STAGE_NAMES[stage] ?? stage}`);
  const refused = r.refused_steps > 0 ? `; ${r.refused_steps} chain step${r.refused_steps === 1 ? '' : 's'} refused (not the text of the message cited)` : '';
  return [`LLM ${r.model}: ${stages.join(', ') || 'no calls (cached analysis)'}${refused}`, `  ${formatFallbacks(r.fallbacks, r.fallback_causes)}`];
}

/** " [llm gpt-4o-mini]" for what a model made; nothing for the rules. */
function madeBy(extractor: Extractor | undefined): string {
  return extractor?.kind === 'llm' ? ` [llm${extractor.model ? ` ${extractor.model}` : ''}]` : '';
}

function commitText(c: SessionCommitResult): string[] {
  const counts = new Map<string, number>();
  for (const change of c.changes) counts.set(change.op, (counts.get(change.op) ?? 0) + 1);
  const changed = [...counts].map(([op, n]) => `${n} ${op}`).join(', ') || 'no changes';
  return [
    `${c.conversation_id}: ${c.action} (${c.confidence.toFixed(3)}), ${c.candidates} candidate${c.candidates === 1 ? '' : 's'}: ${changed}`,
    ...c.explanation.map((l) => `  ${l}`),
    ...c.changes.filter((ch) => ch.op !== 'none').map((ch) => `  ${ch.op.padEnd(6)} ${ch.after?.category ?? ch.before?.category ?? ''}: ${oneLine(ch.after?.title ?? ch.before?.title ?? ch.memory_id, 80)}`),
    // A memory the person edited is never changed by a commit itself: its update waits for their review.
    ...c.changes.filter((ch) => ch.proposed).map((ch) => `  held   ${ch.proposed!.category}: ${oneLine(ch.proposed!.title, 60)} (yours, pinned: review the update with cairn sessions commit ${c.conversation_id})`),
    ...(c.llm ? llmLines(c.llm) : []),
  ];
}
