/**
 * `cairn export` and `cairn import` (docs/ARCHITECTURE.md#export-and-import): memories,
 * conversations with their chains and clusters, and the ContextFS tree out as a ContextFS copy,
 * JSON, JSONL or a Markdown bundle; and any of those back in, merged without loss or duplicates.
 * `.cairn/` state (jobs, queue, index) and keys are never exported.
 */
import type { Command } from 'commander';
import { resolve } from 'node:path';
import { CairnError } from '../../../shared/errors.js';
import { ExportFormat, type ImportResult } from '../../../shared/contracts/api.js';
import type { Engine } from '../../engine/engine.js';
import { formatBytes, formatCount, formatMs } from '../../../shared/format.js';
import { printJson, reportError, stderrLogger } from '../output.js';

interface PortabilityFlags {
  workspace?: string;
  format?: string;
  out?: string;
  scope?: string;
  json?: boolean;
  verbose?: boolean;
}

const EXPORT_SCOPES = ['resources', 'user', 'agent', 'session'] as const;

async function withEngine(flags: PortabilityFlags, work: (engine: Engine) => Promise<void>): Promise<void> {
  let engine: Engine | undefined;
  try {
    // Loaded on demand, so `cairn --help` does not load the engine or LanceDB.
    const { openEngine } = await import('../compose.js');
    engine = await openEngine({ workspace: flags.workspace, workers: 0, logger: stderrLogger(flags.verbose === true) });
    await work(engine);
  } catch (error) {
    reportError(error, flags);
  } finally {
    await engine?.dispose();
  }
}

function countsLine(label: string, c: ImportResult['added']): string {
  return `${label.padEnd(10)} ${formatCount(c.memories)} memories, ${formatCount(c.history)} history lines, ${formatCount(c.conversations)} conversations, ${formatCount(c.analyses)} analyses, ${formatCount(c.nodes)} nodes`;
}

export function registerPortability(program: Command): void {
  program
    .command('export')
    .description('Export memories, conversations (with chains and clusters) and the context tree')
    .requiredOption('-f, --format <format>', 'contextfs (a copy of the scope folders) | json (one document) | jsonl (one record per line) | markdown (a readable bundle folder)')
    .requiredOption('-o, --out <path>', 'a folder (contextfs, markdown) or a file (json, jsonl), outside the workspace')
    .option('-w, --workspace <dir>', 'workspace folder')
    .option('--scope <scope>', `only this scope: ${EXPORT_SCOPES.join('|')}`)
    .option('--json', 'print one JSON document: {"format", "out", "files", "bytes", "memories", "conversations", "chains", "clusters", "nodes", "ms"}')
    .option('-v, --verbose', 'log more on stderr')
    .addHelpText('after', '\nRe-import with `cairn import <path>`; nothing in .cairn/ (jobs, queue, index) is exported.')
    .action((flags: PortabilityFlags) =>
      withEngine(flags, async (engine) => {
        const format = ExportFormat.safeParse(flags.format);
        if (!format.success) throw new CairnError('INVALID_INPUT', `--format must be one of ${ExportFormat.options.join(', ')}, not ${JSON.stringify(flags.format)}`);
        if (flags.scope !== undefined && !(EXPORT_SCOPES as readonly string[]).includes(flags.scope)) throw new CairnError('INVALID_INPUT', `--scope must be one of ${EXPORT_SCOPES.join(', ')}`);
        const result = await engine.call('export:run', {
          format: format.data,
          out: resolve(flags.out as string),
          ...(flags.scope ? { scope: flags.scope as (typeof EXPORT_SCOPES)[number] } : {}),
        });
        if (flags.json) return printJson(result);
        process.stdout.write(
          `Exported ${result.format} to ${result.out}: ${formatCount(result.memories)} memories, ${formatCount(result.conversations)} conversations ` +
            `(${formatCount(result.chains)} chains, ${formatCount(result.clusters)} clusters), ${formatCount(result.nodes)} nodes; ` +
            `${formatCount(result.files)} files, ${formatBytes(result.bytes)}, ${formatMs(result.ms)}\n`,
        );
      }),
    );

  program
    .command('import')
    .description('Import an export (its format is detected) and merge it into the workspace: nothing lost, nothing duplicated')
    .argument('<path>', 'a json or jsonl file, a Markdown bundle folder or a ContextFS copy written by `cairn export`')
    .option('-w, --workspace <dir>', 'workspace folder')
    .option('--json', 'print one JSON document: {"format", "path", "added", "updated", "unchanged", "kept", "ms"}')
    .option('-v, --verbose', 'log more on stderr')
    .action((path: string, flags: PortabilityFlags) =>
      withEngine(flags, async (engine) => {
        const result = await engine.call('import:run', { path: resolve(path) });
        // Memory folders changed by the import get their L0/L1 now, so `cairn ls` shows them right away.
        await engine.call('summarize:run', { uri: 'ctx://user/memories/' });
        if (flags.json) return printJson(result);
        const lines = [`Imported ${result.format} from ${result.path} (${formatMs(result.ms)})`, countsLine('added', result.added), countsLine('updated', result.updated), countsLine('unchanged', result.unchanged)];
        for (const k of result.kept) lines.push(`kept       ${k.id}: ${k.reason}`);
        process.stdout.write(lines.join('\n') + '\n');
      }),
    );
}
