/**
 * `cairn memories list|show|edit|forget|search|history` (docs/ARCHITECTURE.md#long-term-memory):
 * long-term memories under ctx://user/memories/, as the engine's memories:* commands see them.
 * Edits and forgets are recorded in the history (a forgotten memory can be read back there) and the
 * category folders are summarized again before the command returns.
 */
import type { Command } from 'commander';
import { CairnError } from '../../../shared/errors.js';
import { MemoryCategory, type LongTermMemory, type MemoryChange } from '../../../shared/types/memory.js';
import type { Engine } from '../../engine/engine.js';
import { oneLine, printJson, reportError, stderrLogger } from '../output.js';

interface MemoryFlags {
  workspace?: string;
  json?: boolean;
  verbose?: boolean;
  category?: string;
  limit?: string;
  title?: string;
  content?: string;
  keywords?: string;
  reason?: string;
  topK?: string;
}

const MEMORIES_ROOT = 'ctx://user/memories/';

function invalid(message: string): never {
  throw new CairnError('INVALID_INPUT', message);
}

function category(value: string | undefined): MemoryCategory | undefined {
  if (value === undefined) return undefined;
  if (!MemoryCategory.safeParse(value).success) invalid(`--category must be one of ${MemoryCategory.options.join(', ')}, not ${JSON.stringify(value)}`);
  return value as MemoryCategory;
}

function positive(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) invalid(`${flag} must be a positive integer`);
  return n;
}

async function withEngine(flags: MemoryFlags, work: (engine: Engine) => Promise<void>): Promise<void> {
  let engine;
  try {
    const { openEngine } = await import('../compose.js');
    engine = await openEngine({ workspace: flags.workspace, workers: 0, logger: stderrLogger(Boolean(flags.verbose)) });
    await work(engine);
  } catch (error) {
    reportError(error, flags);
  } finally {
    await engine?.dispose();
  }
}

/** Gives the changed category folders their new L0/L1 now, so `cairn ls` shows them right away. */
async function summarize(engine: Engine): Promise<void> {
  await engine.call('summarize:run', { uri: MEMORIES_ROOT });
}

function withCommon(command: Command): Command {
  return command.option('-w, --workspace <dir>', 'workspace folder').option('--json', 'print one JSON document').option('-v, --verbose', 'log more on stderr');
}

function line(m: LongTermMemory): string {
  return `${m.id}  ${m.category.padEnd(10)}  ${m.updated_at.slice(0, 10)}  ${oneLine(m.title, 70)}`;
}

function describe(m: LongTermMemory): string {
  const rows: [string, string | undefined][] = [
    ['id', m.id],
    ['category', m.category],
    ['title', m.title],
    ['keywords', m.keywords.join(', ') || undefined],
    ['messages', m.message_ids.join(', ')],
    ['conversation', m.conversation_id],
    ['confidence', m.confidence.toFixed(2)],
    ['created', m.created_at],
    ['updated', m.updated_at],
    ['uri', `${MEMORIES_ROOT}${m.category}/${m.id}.md`],
  ];
  const head = rows.filter(([, v]) => v !== undefined).map(([k, v]) => `${k.padEnd(12)} ${v}`);
  return `${head.join('\n')}\n\n${m.content.trim()}\n`;
}

function changeLine(c: MemoryChange): string {
  return `${c.at}  ${c.op.padEnd(6)}  ${c.memory_id}  ${oneLine(c.reason, 90)}`;
}

export function registerMemories(program: Command): void {
  const memories = program.command('memories').description('Long-term memories: list, show, edit, forget, search, history');

  withCommon(memories.command('list').description('List memories, most recently changed first'))
    .option('-c, --category <category>', `only this category: ${MemoryCategory.options.join('|')}`)
    .option('-n, --limit <n>', 'at most this many', '100')
    .action((flags: MemoryFlags) =>
      withEngine(flags, async (engine) => {
        const result = await engine.call('memories:list', { ...(flags.category ? { category: category(flags.category) } : {}), limit: positive(flags.limit, '--limit') ?? 100 });
        if (flags.json) return printJson(result);
        process.stdout.write(result.memories.length ? result.memories.map(line).join('\n') + '\n' : '(no memories)\n');
      }),
    );

  withCommon(memories.command('show').description('Show one memory with its provenance').argument('<id>', 'memory id (mem_…)')).action((id: string, flags: MemoryFlags) =>
    withEngine(flags, async (engine) => {
      const result = await engine.call('memories:get', { id });
      if (flags.json) return printJson(result);
      process.stdout.write(describe(result.memory));
    }),
  );

  withCommon(memories.command('edit').description('Change a memory; the earlier version stays in its history').argument('<id>', 'memory id'))
    .option('--title <text>', 'new title')
    .option('--content <text>', 'new content')
    .option('--category <category>', `move to this category: ${MemoryCategory.options.join('|')}`)
    .option('--keywords <list>', 'new keywords, comma-separated')
    .action((id: string, flags: MemoryFlags) =>
      withEngine(flags, async (engine) => {
        const patch = {
          ...(flags.title !== undefined ? { title: flags.title } : {}),
          ...(flags.content !== undefined ? { content: flags.content } : {}),
          ...(flags.category !== undefined ? { category: category(flags.category) } : {}),
          ...(flags.keywords !== undefined ? { keywords: flags.keywords.split(',').map((k) => k.trim()).filter(Boolean) } : {}),
        };
        if (Object.keys(patch).length === 0) invalid(`Nothing to edit in ${id}: give --title, --content, --category or --keywords`);
        const result = await engine.call('memories:edit', { id, patch });
        await summarize(engine);
        if (flags.json) return printJson(result);
        process.stdout.write(result.change.op === 'none' ? `${id}: nothing changed\n` : `Updated ${id} (the earlier version is in its history)\n`);
      }),
    );

  withCommon(memories.command('forget').description('Delete a memory; its text stays readable in the history').argument('<id>', 'memory id'))
    .option('--reason <text>', 'why, kept in the history')
    .action((id: string, flags: MemoryFlags) =>
      withEngine(flags, async (engine) => {
        const result = await engine.call('memories:forget', { id, ...(flags.reason ? { reason: flags.reason } : {}) });
        await summarize(engine);
        if (flags.json) return printJson(result);
        process.stdout.write(`Forgot ${id}: "${oneLine(result.change.before?.title ?? '', 70)}" (see: cairn memories history ${id})\n`);
      }),
    );

  withCommon(memories.command('search').description('Search memories (hybrid full-text and vector search)').argument('<query>', 'what to look for'))
    .option('-k, --top-k <n>', 'hits', '10')
    .action((query: string, flags: MemoryFlags) =>
      withEngine(flags, async (engine) => {
        const result = await engine.call('memories:search', { query, topK: positive(flags.topK, '--top-k') ?? 10 });
        if (flags.json) return printJson(result);
        if (result.hits.length === 0) return void process.stdout.write('(no hits)\n');
        const lines = result.hits.map((h) => `${h.score.toFixed(3)}  ${line(h.memory)}\n       messages ${h.memory.message_ids.join(', ')}`);
        process.stdout.write(lines.join('\n') + '\n');
      }),
    );

  withCommon(memories.command('history').description('Every change to memories (or to one), oldest first').argument('[id]', 'memory id')).action((id: string | undefined, flags: MemoryFlags) =>
    withEngine(flags, async (engine) => {
      const result = await engine.call('memories:history', id === undefined ? {} : { id });
      if (flags.json) return printJson(result);
      process.stdout.write(result.changes.length ? result.changes.map(changeLine).join('\n') + '\n' : '(no changes recorded)\n');
    }),
  );
}
