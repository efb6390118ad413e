/**
 * The shape of the engine's command handlers: one per command of the contract, each taking the
 * parsed request and the call's context. Handler modules (`ingest/handlers.ts`,
 * `summarize/handlers.ts`, ...) import these types from here and never engine.ts, which imports
 * them all to compose the engine.
 */
import type { CommandName, CommandResponse, EngineEvent, ParsedCommandRequest } from '../../shared/contracts/api.js';

export interface HandlerContext {
  /** Aborted when the caller cancels the call. */
  signal: AbortSignal;
  /** Sends an event to this call's listener and to every subscriber. */
  emit(event: EngineEvent): void;
}

export type Handler<K extends CommandName> = (request: ParsedCommandRequest<K>, ctx: HandlerContext) => Promise<CommandResponse<K>>;

export type CommandHandlers = { [K in CommandName]: Handler<K> };
