/**
 * The web host behind `cairn serve`: serves the built renderer and carries the contract over a
 * WebSocket at `/ws`, on 127.0.0.1 only. The same UI that Electron shows then runs in a
 * browser: the end-to-end tests drive it that way, and so does a person using Cairn on a server.
 *
 * Security (the host can read any folder the user can, so every door is checked):
 * - it binds 127.0.0.1, and the Host header must name it (`127.0.0.1:PORT` or `localhost:PORT`),
 *   which defeats DNS rebinding;
 * - a random token is required on the page URL and on the WebSocket;
 * - the WebSocket's Origin must be the host's own origin, so another site's page cannot connect;
 * - every message is validated (`ClientMessage`, then `parseRequest` for the command's request),
 *   unknown commands are refused, and messages are capped in size;
 * - the page gets a strict Content-Security-Policy and no Referer leaves it;
 * - folder uploads (`/upload`, see upload.ts) need the same Origin and the token, in the
 *   `X-Cairn-Token` header;
 * - export downloads (`GET /export`, see export-download.ts) need the token in the same header
 *   (a page of another site cannot send it: custom headers need a CORS preflight, never granted).
 *
 * @example
 * const host = await startWebHost({ engine, rendererDir: 'dist/renderer' });
 * console.log(host.url); // http://127.0.0.1:41234/?token=...
 * await host.close();
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { extname, join, resolve, sep } from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import { commands, isCommandName, parseRequest, type CommandName, type CommandRequest, type EngineEvent } from '../../shared/contracts/api.js';
import { ClientMessage, MAX_CLIENT_MESSAGE_BYTES, WIRE_VERSION, type HostMessage, type WireError } from '../../shared/contracts/wire.js';
import { CairnError, serializeError } from '../../shared/errors.js';
import { silentLogger, type Logger } from '../engine/ports/logger.js';
import type { Uploads } from './upload.js';
import { contentSecurityPolicy } from './content-security-policy.js';
import { handleExportDownload } from './export-download.js';
import type { EngineConnection } from './engine-connection.js';
import { coalesceEvents } from './coalesce-events.js';
import { dropSuperseded } from './supersede-events.js';

export interface WebHostOptions {
  engine: EngineConnection;
  /** The built renderer (`dist/renderer`), with its index.html. */
  rendererDir: string;
  /** 0 picks a free port. */
  port?: number;
  /** A fixed token (tests); a fresh random one otherwise. */
  token?: string;
  logger?: Logger;
  /** Least time between two event flushes to one client. */
  flushIntervalMs?: number;
  /** Calls one connection may have in flight. */
  maxCallsInFlight?: number;
  /** Where browser uploads go (`createUploads`); absent: `/upload` answers 404. */
  uploads?: Uploads;
  /** Where an export download is written before it is sent (and removed after); default the OS temp folder. */
  tempDir?: string;
}

export interface WebHost {
  /** The page to open, token included. */
  readonly url: string;
  readonly origin: string;
  readonly port: number;
  readonly token: string;
  /** Open WebSocket connections. */
  readonly connections: number;
  close(): Promise<void>;
}

const BIND_ADDRESS = '127.0.0.1';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.ttf': 'font/ttf',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
};

/** A fresh token: 32 random bytes, URL-safe. */
export function createToken(): string {
  return randomBytes(32).toString('base64url');
}

function sameSecret(given: string | null, expected: string): boolean {
  if (given === null) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function toWireError(error: unknown): WireError {
  const serialized = serializeError(error);
  return { code: serialized.code, name: serialized.name, message: serialized.message, ...(serialized.details ? { details: serialized.details } : {}) };
}

export async function startWebHost(options: WebHostOptions): Promise<WebHost> {
  const logger = options.logger ?? silentLogger;
  const token = options.token ?? createToken();
  const rendererDir = resolve(options.rendererDir);
  const indexFile = join(rendererDir, 'index.html');
  const indexStat = await stat(indexFile).catch(() => null);
  if (!indexStat?.isFile()) {
    throw new CairnError('NOT_FOUND', `The renderer is not built: ${indexFile} is missing (run \`npx vite build\`)`, { details: { rendererDir } });
  }
  const maxCallsInFlight = options.maxCallsInFlight ?? 64;
  let port = 0;
  const allowedHosts = () => new Set([`${BIND_ADDRESS}:${port}`, `localhost:${port}`]);

  /** The Host header when it names this host, else null. */
  const checkedHost = (req: IncomingMessage): string | null => {
    const host = req.headers.host?.toLowerCase() ?? '';
    return allowedHosts().has(host) ? host : null;
  };

  const baseHeaders = (host: string) => ({
    'Content-Security-Policy': contentSecurityPolicy([`ws://${host}`]),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Permissions-Policy': 'camera=(), microphone=(), geolocation=()',
  });

  const refuse = (res: ServerResponse, status: number, message: string, host?: string) => {
    res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', ...(host ? baseHeaders(host) : { 'X-Content-Type-Options': 'nosniff' }) });
    res.end(`${message}\n`);
  };

  const serveFile = async (req: IncomingMessage, res: ServerResponse, host: string, file: string, cache: string) => {
    const info = await stat(file).catch(() => null);
    if (!info?.isFile()) return refuse(res, 404, 'Not found', host);
    res.writeHead(200, {
      ...baseHeaders(host),
      'Content-Type': CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
      'Content-Length': info.size,
      'Cache-Control': cache,
    });
    if (req.method === 'HEAD') return res.end();
    createReadStream(file)
      .on('error', (error) => {
        logger.warn(`Reading ${file} failed: ${String(error)}`);
        res.destroy(error);
      })
      .pipe(res);
  };

  const handleHttp = async (req: IncomingMessage, res: ServerResponse) => {
    const host = checkedHost(req);
    if (!host) return refuse(res, 403, 'Forbidden: wrong Host header');
    const url = new URL(req.url ?? '/', `http://${host}`);
    if (url.pathname === '/upload' || url.pathname.startsWith('/upload/')) {
      // The same doors as the WebSocket: this host's own page (Origin), with the token.
      if (!options.uploads) return refuse(res, 404, 'Not found', host);
      if (req.headers.origin !== `http://${host}`) return refuse(res, 403, 'Forbidden origin', host);
      const given = req.headers['x-cairn-token'];
      if (!sameSecret(typeof given === 'string' ? given : null, token)) return refuse(res, 401, 'Unauthorized', host);
      return options.uploads.handle(req, res, url.pathname.slice('/upload'.length), url.searchParams);
    }
    if (url.pathname === '/export') {
      const given = req.headers['x-cairn-token'];
      if (!sameSecret(typeof given === 'string' ? given : null, token)) return refuse(res, 401, 'Unauthorized', host);
      return handleExportDownload(req, res, url, { engine: options.engine, logger, tempDir: options.tempDir ?? tmpdir() });
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return refuse(res, 405, 'Method not allowed', host);
    if (url.pathname === '/' || url.pathname === '/index.html') {
      if (!sameSecret(url.searchParams.get('token'), token)) return refuse(res, 401, 'Unauthorized: open the URL that `cairn serve` printed, token included', host);
      return serveFile(req, res, host, indexFile, 'no-store');
    }
    if (url.pathname === '/ws') return refuse(res, 426, 'Upgrade required', host);
    let relative: string;
    try {
      relative = decodeURIComponent(url.pathname);
    } catch {
      return refuse(res, 400, 'Bad path', host);
    }
    const file = resolve(rendererDir, `.${relative}`);
    if (relative.includes('\0') || !file.startsWith(rendererDir + sep)) return refuse(res, 404, 'Not found', host);
    // Vite names built assets by content hash, so they may be cached; anything else is revalidated.
    return serveFile(req, res, host, file, relative.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
  };

  const server = createServer((req, res) => {
    handleHttp(req, res).catch((error) => {
      logger.error(`Serving ${req.url} failed: ${String(error)}`);
      if (!res.headersSent) refuse(res, 500, 'Internal error');
      else res.destroy();
    });
  });

  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_CLIENT_MESSAGE_BYTES });

  const rejectUpgrade = (socket: Duplex, status: number, reason: string) => {
    socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${reason.length}\r\n\r\n${reason}`);
  };

  server.on('upgrade', (req, socket, head) => {
    socket.on('error', () => socket.destroy());
    const host = checkedHost(req);
    if (!host) return rejectUpgrade(socket, 403, 'Forbidden host');
    const url = new URL(req.url ?? '/', `http://${host}`);
    if (url.pathname !== '/ws') return rejectUpgrade(socket, 404, 'Not found');
    const origin = req.headers.origin;
    if (origin !== `http://${host}`) {
      logger.warn(`Refused a WebSocket from origin ${JSON.stringify(origin ?? null)}`);
      return rejectUpgrade(socket, 403, 'Forbidden origin');
    }
    if (!sameSecret(url.searchParams.get('token'), token)) return rejectUpgrade(socket, 401, 'Unauthorized');
    wss.handleUpgrade(req, socket, head, (ws) => serveConnection(ws));
  });

  const serveConnection = (ws: WebSocket) => {
    const inFlight = new Map<number, AbortController>();
    const send = (message: HostMessage) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
    };
    const fail = (id: number | null, error: unknown) => send({ type: 'result', id, ok: false, error: toWireError(error) });
    const coalescer = coalesceEvents<EngineEvent>((events) => send({ type: 'events', events: dropSuperseded(events) }), { intervalMs: options.flushIntervalMs });
    const unsubscribe = options.engine.subscribe(coalescer.push);
    send({ type: 'hello', version: WIRE_VERSION, commands: Object.keys(commands) });

    const call = async (id: number, command: CommandName, request: unknown) => {
      const controller = new AbortController();
      inFlight.set(id, controller);
      try {
        const parsed = parseRequest(command, request);
        const result = await options.engine.call(command, parsed as CommandRequest<typeof command>, { signal: controller.signal });
        send({ type: 'result', id, ok: true, result });
      } catch (error) {
        fail(id, error);
      } finally {
        inFlight.delete(id);
      }
    };

    ws.on('message', (data, isBinary) => {
      if (isBinary) return fail(null, new CairnError('INVALID_INPUT', 'Binary messages are not accepted'));
      let json: unknown;
      try {
        json = JSON.parse(data.toString());
      } catch {
        return fail(null, new CairnError('INVALID_INPUT', 'A message must be one JSON document'));
      }
      const message = ClientMessage.safeParse(json);
      if (!message.success) {
        const id = typeof (json as { id?: unknown })?.id === 'number' ? (json as { id: number }).id : null;
        const problems = message.error.issues.map((issue) => `${issue.path.join('.') || '(message)'}: ${issue.message}`);
        return fail(id, new CairnError('INVALID_INPUT', `Invalid message: ${problems.join('; ')}`));
      }
      const msg = message.data;
      if (msg.type === 'cancel') {
        inFlight.get(msg.id)?.abort();
        return;
      }
      if (!isCommandName(msg.command)) {
        return fail(msg.id, new CairnError('INVALID_INPUT', `Unknown command ${JSON.stringify(msg.command)}`, { details: { command: msg.command } }));
      }
      if (inFlight.has(msg.id)) return fail(msg.id, new CairnError('INVALID_INPUT', `Call id ${msg.id} is already in flight`));
      if (inFlight.size >= maxCallsInFlight) return fail(msg.id, new CairnError('INVALID_INPUT', `Too many calls in flight (at most ${maxCallsInFlight})`));
      void call(msg.id, msg.command, msg.request);
    });

    ws.on('close', () => {
      unsubscribe();
      coalescer.dispose();
      // A closed page cannot see its calls finish; an interrupted ingest resumes when started again.
      for (const controller of inFlight.values()) controller.abort();
      inFlight.clear();
    });
    ws.on('error', (error) => logger.warn(`WebSocket error: ${String(error)}`));
  };

  await new Promise<void>((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, BIND_ADDRESS, () => {
      server.off('error', reject);
      resolvePromise();
    });
  });
  port = (server.address() as AddressInfo).port;
  const origin = `http://${BIND_ADDRESS}:${port}`;

  return {
    url: `${origin}/?token=${token}`,
    origin,
    port,
    token,
    get connections() {
      return wss.clients.size;
    },
    async close() {
      await options.uploads?.dispose();
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolvePromise) => wss.close(() => resolvePromise()));
      server.closeAllConnections();
      await new Promise<void>((resolvePromise) => server.close(() => resolvePromise()));
    },
  };
}
