/**
 * The engine of a command that changes the workspace (`rm`, `mv`, `skills`): opened without
 * worker threads, waiting for a busy workspace as the lock flags say and saying what it waits for,
 * errors reported in one line, always disposed.
 */
import type { Engine } from '../engine/engine.js';
import { lockWaitFromFlags, printWaits, type LockFlags } from './lock-flags.js';
import { reportError, stderrLogger } from './output.js';

export interface WriterFlags extends LockFlags {
  workspace?: string;
  json?: boolean;
  verbose?: boolean;
}

export async function withWriterEngine(flags: WriterFlags, work: (engine: Engine) => Promise<void>): Promise<void> {
  let engine: Engine | undefined;
  try {
    const { openEngine } = await import('./compose.js');
    engine = await openEngine({ workspace: flags.workspace, workers: 0, logger: stderrLogger(flags.verbose === true), lockWaitMs: lockWaitFromFlags(flags) });
    engine.subscribe(printWaits);
    await work(engine);
  } catch (error) {
    reportError(error, flags);
  } finally {
    await engine?.dispose();
  }
}
