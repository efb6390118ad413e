/**
 * `--no-wait` and `--wait-timeout` for the commands that change a workspace another process may
 * hold (`ingest`, `watch`, `rm`, `mv`), and the stderr line that says what they wait for.
 */
import type { Command } from 'commander';
import type { EngineEvent } from '../../shared/contracts/api.js';
import { CairnError } from '../../shared/errors.js';

export interface LockFlags {
  /** commander's `--no-wait`: false when given. */
  wait?: boolean;
  waitTimeout?: string;
}

export function addLockOptions(command: Command): Command {
  return command
    .option('--no-wait', 'fail at once (exit 3) when another Cairn process holds the workspace, instead of waiting for it')
    .option('--wait-timeout <s>', 'wait at most this many seconds for another Cairn process that holds the workspace (default: as long as it takes)');
}

/** The engine's `lockWaitMs`: 0 refuses at once, null waits as long as it takes. */
export function lockWaitFromFlags(flags: LockFlags): number | null {
  if (flags.wait === false) return 0;
  if (flags.waitTimeout === undefined) return null;
  const seconds = Number(flags.waitTimeout);
  if (!Number.isFinite(seconds) || seconds < 0) throw new CairnError('INVALID_INPUT', `--wait-timeout must be a number of seconds, not ${JSON.stringify(flags.waitTimeout)}`);
  // 0 s still looks once; it refuses like --no-wait.
  return Math.round(seconds * 1000);
}

/** Prints "cairn: waiting for the ingest of /x, pid 12, started 12 s ago" on stderr when a change waits. */
export function printWaits(event: EngineEvent): void {
  if (event.type === 'workspace/waiting') process.stderr.write(`cairn: ${event.message}\n`);
}
