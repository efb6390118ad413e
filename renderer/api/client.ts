/**
 * The renderer's one typed client of the contract. In Electron it calls the preload's
 * `window.cairn`; in a browser it speaks the web host's WebSocket, with the token taken from the
 * page URL. Either way the views see the same `call` and the same stream of validated events.
 *
 * Nothing received is trusted: responses are checked against the command's response schema and
 * events against `EngineEvent`; an invalid event is dropped with a warning.
 */
import { commands, EngineEvent, type CommandName, type CommandRequest, type CommandResponse } from '../../shared/contracts/api';
import { HostMessage, WIRE_VERSION, WireResult, type CairnBridge, type WireError } from '../../shared/contracts/wire';
import { CairnError, type ErrorCode } from '../../shared/errors';

export type ClientStatus = 'connecting' | 'ready' | 'closed' | 'failed';

export interface CallOptions {
  signal?: AbortSignal;
}

export interface CairnClient {
  readonly transport: 'electron' | 'websocket';
  readonly status: ClientStatus;
  /** Why the client is `failed` or `closed`, for people. */
  readonly problem: string | null;
  call<K extends CommandName>(command: K, request: CommandRequest<K>, options?: CallOptions): Promise<CommandResponse<K>>;
  /** Each batch of events, validated; returns the unsubscribe function. */
  onEvents(listener: (events: EngineEvent[]) => void): () => void;
  onStatus(listener: (status: ClientStatus) => void): () => void;
  /** Where a dropped file or folder lives on disk, when this client can know (Electron); null otherwise. */
  localPathOf(file: File): string | null;
  dispose(): void;
}

/** Rebuilds a wire error as a CairnError, keeping its stable code. */
export function errorFromWire(error: WireError, origin = 'engine'): CairnError {
  return new CairnError(error.code as ErrorCode, `${origin}: ${error.message}`, { details: error.details });
}

/** Checks a command's result against its response schema. */
function checkResponse<K extends CommandName>(command: K, result: unknown): CommandResponse<K> {
  const parsed = commands[command].response.safeParse(result);
  if (!parsed.success) throw new CairnError('INTERNAL', `The response to ${command} does not match the contract: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  return parsed.data as CommandResponse<K>;
}

/** Keeps the events that match the contract; warns once per bad batch. */
export function validEvents(batch: unknown): EngineEvent[] {
  if (!Array.isArray(batch)) return [];
  const events: EngineEvent[] = [];
  let dropped = 0;
  for (const item of batch) {
    const parsed = EngineEvent.safeParse(item);
    if (parsed.success) events.push(parsed.data);
    else dropped += 1;
  }
  if (dropped > 0) console.warn(`Cairn: dropped ${dropped} event(s) that do not match the contract`);
  return events;
}

abstract class BaseClient {
  protected eventListeners = new Set<(events: EngineEvent[]) => void>();
  protected statusListeners = new Set<(status: ClientStatus) => void>();
  status: ClientStatus = 'connecting';
  problem: string | null = null;

  onEvents(listener: (events: EngineEvent[]) => void): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  onStatus(listener: (status: ClientStatus) => void): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  protected setStatus(status: ClientStatus, problem: string | null = null): void {
    this.status = status;
    this.problem = problem;
    for (const listener of this.statusListeners) listener(status);
  }

  protected deliver(batch: unknown): void {
    const events = validEvents(batch);
    if (events.length === 0) return;
    for (const listener of this.eventListeners) listener(events);
  }
}

class ElectronClient extends BaseClient implements CairnClient {
  readonly transport = 'electron' as const;
  private readonly unsubscribe: () => void;

  constructor(private readonly bridge: CairnBridge) {
    super();
    this.unsubscribe = bridge.onEvent((batch) => this.deliver(batch));
    this.setStatus('ready');
  }

  async call<K extends CommandName>(command: K, request: CommandRequest<K>): Promise<CommandResponse<K>> {
    const invoke = this.bridge[command] as (request: CommandRequest<K>) => Promise<unknown>;
    const outcome = WireResult.parse(await invoke(request));
    if (!outcome.ok) throw errorFromWire(outcome.error);
    return checkResponse(command, outcome.result);
  }

  localPathOf(file: File): string | null {
    return this.bridge.pathForFile(file) || null;
  }

  dispose(): void {
    this.unsubscribe();
    this.setStatus('closed');
  }
}

interface Pending {
  command: CommandName;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

class WebSocketClient extends BaseClient implements CairnClient {
  readonly transport = 'websocket' as const;
  private socket: WebSocket | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly opened: Promise<void>;

  constructor(url: string | null) {
    super();
    if (url === null) {
      this.opened = Promise.reject(new CairnError('INVALID_INPUT', 'The page URL has no token: open the URL that `cairn serve` printed'));
      this.opened.catch(() => {});
      this.setStatus('failed', 'no-token');
      return;
    }
    const socket = new WebSocket(url);
    this.socket = socket;
    this.opened = new Promise<void>((resolve, reject) => {
      socket.addEventListener('message', (message) => this.receive(message.data, resolve));
      socket.addEventListener('close', () => {
        reject(new CairnError('IO_ERROR', 'Cannot reach the Cairn host'));
        this.failAll(new CairnError('IO_ERROR', 'The connection to the Cairn host closed'));
        this.setStatus(this.status === 'connecting' ? 'failed' : 'closed', 'disconnected');
      });
    });
    this.opened.catch(() => {});
  }

  private receive(data: unknown, onHello: () => void): void {
    if (typeof data !== 'string') return;
    let json: unknown;
    try {
      json = JSON.parse(data);
    } catch {
      console.warn('Cairn: the host sent a message that is not JSON');
      return;
    }
    const parsed = HostMessage.safeParse(json);
    if (!parsed.success) {
      console.warn('Cairn: the host sent a message that does not match the wire protocol');
      return;
    }
    const message = parsed.data;
    switch (message.type) {
      case 'hello':
        if (message.version !== WIRE_VERSION) {
          this.setStatus('failed', 'version');
          this.socket?.close();
          return;
        }
        this.setStatus('ready');
        onHello();
        return;
      case 'events':
        this.deliver(message.events);
        return;
      case 'result': {
        if (message.id === null) {
          if (!message.ok) console.warn(`Cairn: the host refused a message: ${message.error.message}`);
          return;
        }
        const waiting = this.pending.get(message.id);
        if (!waiting) return;
        this.pending.delete(message.id);
        if (message.ok) {
          try {
            waiting.resolve(checkResponse(waiting.command, message.result));
          } catch (error) {
            waiting.reject(error);
          }
        } else {
          waiting.reject(errorFromWire(message.error));
        }
      }
    }
  }

  private failAll(error: unknown): void {
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
  }

  async call<K extends CommandName>(command: K, request: CommandRequest<K>, options: CallOptions = {}): Promise<CommandResponse<K>> {
    await this.opened;
    const socket = this.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN) throw new CairnError('IO_ERROR', 'The connection to the Cairn host is closed');
    if (options.signal?.aborted) throw new CairnError('CANCELLED', `${command} was cancelled`);
    const id = this.nextId++;
    return new Promise<CommandResponse<K>>((resolve, reject) => {
      this.pending.set(id, { command, resolve: resolve as (value: unknown) => void, reject });
      socket.send(JSON.stringify({ type: 'call', id, command, request }));
      options.signal?.addEventListener(
        'abort',
        () => {
          if (this.pending.has(id) && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: 'cancel', id }));
        },
        { once: true },
      );
    });
  }

  /** A page never learns where a dropped file lives: browser mode uploads it instead. */
  localPathOf(): string | null {
    return null;
  }

  dispose(): void {
    this.socket?.close();
    this.failAll(new CairnError('CANCELLED', 'The client was closed'));
  }
}

/** The WebSocket URL of the host that served this page, or null when the page has no token. */
export function webSocketUrl(location: Pick<Location, 'host' | 'protocol' | 'search'>): string | null {
  const token = new URLSearchParams(location.search).get('token');
  if (!token) return null;
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  return `${scheme}://${location.host}/ws?token=${encodeURIComponent(token)}`;
}

/** The client for where this page runs: Electron's bridge when the preload set one, else the web host. */
export function createClient(win: Window = window): CairnClient {
  if (win.cairn) return new ElectronClient(win.cairn);
  return new WebSocketClient(webSocketUrl(win.location));
}
