/**
 * How the engine shares its workspace with other processes (issue 21): a change that finds the
 * workspace busy waits for it, saying what it waits for (a `workspace/waiting` event: the CLI
 * prints it on stderr, the app shows it with the ingest's progress), and the engine lets the
 * lock go once it is idle, so `cairn mcp` or the app never keep a later ingest waiting.
 */
import type { EngineEvent } from '../../../shared/contracts/api.js';
import { describeWait } from './lock-file.js';
import type { OutboxOptions } from './outbox.js';

/** Idle this long (nothing queued, running or held) and the workspace's lock is let go. */
export const RELEASE_WHEN_IDLE_MS = 500;

/** The outbox options for a workspace shared with other processes; `waitMs` 0 refuses at once, null waits as long as it takes. */
export function workspaceLockOptions(waitMs: number | null | undefined, emit: (event: EngineEvent) => void, signal: AbortSignal): Pick<OutboxOptions, 'wait' | 'releaseWhenIdleMs'> {
  return {
    releaseWhenIdleMs: RELEASE_WHEN_IDLE_MS,
    ...(waitMs === 0
      ? {}
      : {
          wait: {
            timeoutMs: waitMs ?? null,
            signal,
            onWait: (holder) => emit({ type: 'workspace/waiting', holder: holder.doing, pid: holder.pid, since: holder.since, message: describeWait(holder) }),
          },
        }),
  };
}
