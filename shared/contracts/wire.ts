/**
 * How the contract of `api.ts` travels to a UI: the web host's WebSocket messages and the
 * shape Electron's preload exposes as `window.cairn`. Both carry exactly the commands and
 * events of `api.ts`; this file only adds the envelopes around them.
 *
 * WebSocket, client to host: `call` (one command, with a client-chosen id) and `cancel`.
 * WebSocket, host to client: `hello` once, one `result` per call, and `events` batches
 * (coalesced by the host, at most about ten a second).
 */
import { z } from 'zod';
import type { ErrorCode } from '../errors.js';
import type { CommandName, CommandRequest } from './api.js';
import type { HostCommandName, HostCommandRequest } from './host.js';

/** Bumped when an envelope changes shape, so an old page talking to a new host says so. */
export const WIRE_VERSION = 1;

/** Largest WebSocket message the host accepts from a client (requests are small). */
export const MAX_CLIENT_MESSAGE_BYTES = 1024 * 1024;

export const ClientMessage = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('call'),
    id: z.number().int().nonnegative(),
    command: z.string().min(1).max(64),
    request: z.unknown(),
  }),
  z.object({ type: z.literal('cancel'), id: z.number().int().nonnegative() }),
]);
export type ClientMessage = z.infer<typeof ClientMessage>;

/** An error as a UI sees it: the stable code and a sentence; no stack crosses to a page. */
export const WireError = z.object({
  code: z.string(),
  name: z.string().optional(),
  message: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
});
export type WireError = z.infer<typeof WireError> & { code: ErrorCode | string };

/** The outcome of one call: the response, or the error it ended with. */
export const WireResult = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), result: z.unknown() }),
  z.object({ ok: z.literal(false), error: WireError }),
]);
export type WireResult = z.infer<typeof WireResult>;

export const HostMessage = z.union([
  z.object({ type: z.literal('hello'), version: z.number(), commands: z.array(z.string()) }),
  z.object({ type: z.literal('result'), id: z.number(), ok: z.literal(true), result: z.unknown() }),
  z.object({ type: z.literal('result'), id: z.number().nullable(), ok: z.literal(false), error: WireError }),
  /** Events as the engine emitted them, validated again by the client against `EngineEvent`. */
  z.object({ type: z.literal('events'), events: z.array(z.unknown()) }),
]);
export type HostMessage = z.infer<typeof HostMessage>;

/**
 * What Electron's preload exposes as `window.cairn`: one function per contract command, each
 * resolving to a `WireResult` (errors thrown through `ipcRenderer.invoke` lose their code), plus
 * `onEvent` for coalesced event batches. The renderer validates everything it receives.
 */
export type CairnBridge = { readonly [K in CommandName]: (request: CommandRequest<K>) => Promise<WireResult> } & {
  /** Receives each batch of events; returns the unsubscribe function. */
  readonly onEvent: (listener: (batch: unknown[]) => void) => () => void;
  /**
   * Where a dropped file or folder lives on disk ('' for a file made in the page). Electron's
   * `webUtils.getPathForFile`: since Electron 32 a File carries no `path`, and on macOS and
   * Windows a drop from the file manager may carry no `text/uri-list` either.
   */
  readonly pathForFile: (file: File) => string;
} & HostBridge;

/**
 * The desktop host's own commands (host.ts: capabilities and native pickers), answered as
 * `WireResult`s like the engine's, and the application menu's actions (validated by the page
 * against `MenuAction`).
 */
export type HostBridge = { readonly [K in HostCommandName]: (request: HostCommandRequest<K>) => Promise<WireResult> } & {
  readonly onMenu: (listener: (action: unknown) => void) => () => void;
};

/** The IPC channel of a command (`cairn:ingest:start`) and of the event batches. */
export const IPC_PREFIX = 'cairn:';
export const IPC_EVENTS_CHANNEL = 'cairn:events';
export function ipcChannel(command: CommandName | HostCommandName): string {
  return `${IPC_PREFIX}${command}`;
}
