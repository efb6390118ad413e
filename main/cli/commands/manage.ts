/**
 * `cairn rm URI` and `cairn mv URI NEW`: remove or rename a tree or a node, with its index
 * records, queue entries and sidecars (main/engine/tree/manage.ts). They change the workspace,
 * so they wait for an ingest that holds it, like `ingest` (--no-wait, --wait-timeout).
 */
import type { Command } from 'commander';
import type { Engine } from '../../engine/engine.js';
import { formatCount } from '../../../shared/format.js';
import { addLockOptions, lockWaitFromFlags, printWaits, type LockFlags } from '../lock-flags.js';
import { printJson, reportError, stderrLogger } from '../output.js';

interface ManageFlags extends LockFlags {
  workspace?: string;
  json?: boolean;
  dryRun?: boolean;
  verbose?: boolean;
}

async function withEngine(flags: ManageFlags, work: (engine: Engine) => Promise<void>): Promise<void> {
  let engine: Engine | undefined;
  try {
    const { openEngine } = await import('../compose.js');
    engine = await openEngine({ workspace: flags.workspace, workers: 0, logger: stderrLogger(flags.verbose === true), lockWaitMs: lockWaitFromFlags(flags) });
    engine.subscribe(printWaits);
    await work(engine);
  } catch (error) {
    reportError(error, flags);
  } finally {
    await engine?.dispose();
  }
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
    withEngine(flags, async (engine) => {
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
    withEngine(flags, async (engine) => {
      const result = await engine.call('fs:mv', { from, to });
      if (flags.json) return printJson(result);
      process.stdout.write(`Moved ${result.from} → ${result.to} (${formatCount(result.nodes)} nodes, ${formatCount(result.records)} search records)\n`);
    }),
  );
}
