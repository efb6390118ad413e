/**
 * `cairn rm URI` and `cairn mv URI NEW`: remove or rename a tree or a node, with its index
 * records, queue entries and sidecars (main/engine/tree/manage.ts). They change the workspace,
 * so they wait for an ingest that holds it, like `ingest` (--no-wait, --wait-timeout).
 */
import type { Command } from 'commander';
import { formatCount } from '../../../shared/format.js';
import { addLockOptions } from '../lock-flags.js';
import { printJson } from '../output.js';
import { withWriterEngine, type WriterFlags } from '../writer-engine.js';

interface ManageFlags extends WriterFlags {
  dryRun?: boolean;
}

export function registerManage(program: Command): void {
  addLockOptions(
    program
      .command('rm')
      .description('Remove a tree or a node: its files, summaries, queued work and search records (a killed removal is finished by the next rm or mv)')
      .argument('<uri>', 'a ctx:// URI, e.g. ctx://resources/notes/')
      .option('-w, --workspace <dir>', 'workspace folder')
      .option('--dry-run', 'only say what would go')
      .option('--json', 'print one JSON document')
      .option('-v, --verbose', 'log more on stderr'),
  ).action((uri: string, flags: ManageFlags) =>
    withWriterEngine(flags, async (engine) => {
      const result = await engine.call('fs:rm', { uri, dryRun: flags.dryRun === true });
      if (flags.json) return printJson(result);
      const what = `${formatCount(result.files)} files, ${formatCount(result.sections)} sections (${formatCount(result.nodes)} nodes)`;
      process.stdout.write(result.removed ? `Removed ${result.uri}: ${what}\n` : `Would remove ${result.uri}: ${what}\n`);
    }),
  );

  addLockOptions(
    program
      .command('mv')
      .description('Rename or move a tree or a node within its scope; its search records follow it to the new URIs')
      .argument('<uri>', 'the ctx:// URI to move')
      .argument('<new>', 'its new ctx:// URI (must not exist)')
      .option('-w, --workspace <dir>', 'workspace folder')
      .option('--json', 'print one JSON document')
      .option('-v, --verbose', 'log more on stderr'),
  ).action((from: string, to: string, flags: ManageFlags) =>
    withWriterEngine(flags, async (engine) => {
      const result = await engine.call('fs:mv', { from, to });
      if (flags.json) return printJson(result);
      process.stdout.write(`Moved ${result.from} → ${result.to} (${formatCount(result.nodes)} nodes, ${formatCount(result.records)} search records)\n`);
    }),
  );
}
