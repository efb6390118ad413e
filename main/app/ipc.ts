/**
 * IPC handlers generated from the contract: one `ipcMain.handle` per command, on the channel
 * `cairn:{command}`. Each checks that the call comes from the app's own page, validates the
 * request with `parseRequest`, and answers a `WireResult` (an error thrown through
 * `ipcRenderer.invoke` would lose its code). Events reach the window in coalesced batches.
 */
import { ipcMain, type IpcMainInvokeEvent, type WebContents } from 'electron';
import { commands, parseRequest, type CommandName, type CommandRequest, type EngineEvent } from '../../shared/contracts/api.js';
import { IPC_EVENTS_CHANNEL, ipcChannel, type WireResult } from '../../shared/contracts/wire.js';
import { CairnError, serializeError } from '../../shared/errors.js';
import { coalesceEvents } from '../host/coalesce-events.js';
import type { EngineConnection } from '../host/engine-connection.js';
import { dropSuperseded } from '../host/supersede-events.js';
import type { Logger } from '../engine/ports/logger.js';
import { isAppUrl } from './security.js';

export const COMMAND_NAMES = Object.keys(commands) as CommandName[];

function failure(error: unknown): WireResult {
  const serialized = serializeError(error);
  return { ok: false, error: { code: serialized.code, name: serialized.name, message: serialized.message, ...(serialized.details ? { details: serialized.details } : {}) } };
}

/**
 * One IPC handler: refuses a call from any page but the app's, runs `answer` (which validates
 * the request), and turns its outcome into a `WireResult`. The host's own commands use it too
 * (host-ipc.ts).
 */
export function appOnlyHandler(name: string, logger: Logger, answer: (request: unknown, event: IpcMainInvokeEvent) => Promise<unknown>) {
  return async (event: IpcMainInvokeEvent, request: unknown): Promise<WireResult> => {
    const origin = event.senderFrame?.url ?? '';
    if (!isAppUrl(origin)) {
      logger.warn(`Refused ${name} from ${JSON.stringify(origin)}`);
      return failure(new CairnError('INVALID_INPUT', `${name} may only be called by the Cairn window`));
    }
    try {
      return { ok: true, result: await answer(request, event) };
    } catch (error) {
      return failure(error);
    }
  };
}

/** Registers a handler per command; returns the function that removes them all. */
export function registerIpcHandlers(engine: EngineConnection, logger: Logger): () => void {
  for (const command of COMMAND_NAMES) {
    ipcMain.handle(
      ipcChannel(command),
      appOnlyHandler(command, logger, (request) => engine.call(command, parseRequest(command, request) as CommandRequest<typeof command>)),
    );
  }
  return () => {
    for (const command of COMMAND_NAMES) ipcMain.removeHandler(ipcChannel(command));
  };
}

/** Sends the engine's events to a window, at most ten batches a second; returns dispose. */
export function forwardEvents(engine: EngineConnection, contents: WebContents): () => void {
  const coalescer = coalesceEvents<EngineEvent>((batch) => {
    if (!contents.isDestroyed()) contents.send(IPC_EVENTS_CHANNEL, dropSuperseded(batch));
  });
  const unsubscribe = engine.subscribe(coalescer.push);
  return () => {
    unsubscribe();
    coalescer.dispose();
  };
}
