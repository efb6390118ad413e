/**
 * What a host (the web host, Electron's IPC handlers) needs from an engine: the contract's
 * commands and the event stream. The in-process `Engine` of `main/engine/engine.ts` satisfies it,
 * and so does the `EngineHost` that runs the engine in a worker thread.
 *
 * Hosts take their event stream from `subscribe` only, which sees every event, the events of a
 * call included; `onEvent` is for a caller that wants one call's events apart.
 */
import type { CommandName, CommandRequest, CommandResponse, EngineEvent } from '../../shared/contracts/api.js';

export interface EngineCallOptions {
  signal?: AbortSignal;
  onEvent?: (event: EngineEvent) => void;
}

export interface EngineConnection {
  call<K extends CommandName>(command: K, request: CommandRequest<K>, options?: EngineCallOptions): Promise<CommandResponse<K>>;
  /** Every event the engine emits, until the returned function is called. */
  subscribe(listener: (event: EngineEvent) => void): () => void;
}

/** The part of `EngineHost` (the engine in a worker thread) that a connection needs. */
export interface EventSource {
  call: EngineConnection['call'];
  onEvent(listener: (event: EngineEvent) => void): () => void;
}

/** An `EngineHost` as an `EngineConnection`: its `onEvent` carries every event of the worker. */
export function connectionOf(source: EventSource): EngineConnection {
  return {
    call: (command, request, options) => source.call(command, request, options),
    subscribe: (listener) => source.onEvent(listener),
  };
}
