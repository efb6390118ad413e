/**
 * Folder uploads for browser mode (issue 8). A browser never tells a page where a dropped folder
 * lives, only its files, so the renderer sends them here and then ingests the copy by path,
 * exactly as Electron ingests the original.
 *
 * What arrives is what an ingest of the folder by path would read: the page leaves out what the
 * scan leaves out by path (`.gitignore` rules, version-control and dependency folders; see
 * shared/scan/path-rules.ts), and the ingest of the upload runs the scan again over what came
 * (content rules too: binary, size). Symbolic links are the exception no page can help: a
 * browser hands over a file read through a link as a plain file (Chromium's folder picker
 * follows links; its drop leaves them out), so a link the scan would not take (out of the
 * folder, or to a file the folder already has) arrives as a copy, and is ingested as one.
 * Telling such copies by their bytes would also drop real files that happen to be equal (empty
 * `__init__.py`), so nothing guesses: to keep links out, ingest the folder by path (type it, or
 * drop it from a file manager, whose drop carries the path). The Home view says so.
 *
 * Where files go: `<workspace>/uploads/<folder name>/`, which then replaces an earlier upload of
 * the same name (the ingest skips unchanged files by size and mtime, so a re-upload costs little).
 * While an upload runs its files sit in `<workspace>/uploads/.staging/<id>/`; each file streams
 * to a temporary name and is renamed into place only once complete, and the folder moves to its
 * final place only when the renderer finishes the upload. So nothing half-written is ever in a
 * folder an ingest reads.
 *
 * The protocol (the web host checks Host, Origin and token before a request gets here):
 * - `POST /upload?name=<folder>` → 201 `{ id, name }`;
 * - `PUT /upload/<id>?path=<relative/path>` with the file as the body (Content-Length required)
 *   → 200 `{ path, bytes }`; each relative path segment goes through `validateSegment`, the
 *   guard of every ctx:// URI (no `..`, NUL, back-slash, encoded separator, drive letter), and
 *   absolute paths are refused;
 * - `POST /upload/<id>/finish` → 200 `{ path, files, bytes }` with the folder's absolute path;
 * - `DELETE /upload/<id>` drops an unfinished upload.
 * Errors answer `{ error: { code, message } }`: 400 INVALID_INPUT / PATH_ESCAPE, 404 NOT_FOUND,
 * 409 ALREADY_EXISTS, 411 and 413 TOO_LARGE (per file and per upload).
 *
 * @example
 * const uploads = createUploads({ dir: join(workspace, 'uploads') });
 * await startWebHost({ engine, rendererDir, uploads });
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { CairnError, type ErrorCode } from '../../shared/errors.js';
import { validateSegment } from '../../shared/uri.js';

export interface UploadOptions {
  /** The uploads folder, `<workspace>/uploads`. */
  dir: string;
  /** Largest single file. Default 256 MiB. */
  maxFileBytes?: number;
  /** Largest upload (all its files). Default 2 GiB. */
  maxUploadBytes?: number;
  /** Most files in one upload. Default 100,000. */
  maxFiles?: number;
}

export interface Uploads {
  readonly dir: string;
  /** Serves a request under `/upload`; `rest` is the path after it ('' or '/<id>[/finish]'). */
  handle(req: IncomingMessage, res: ServerResponse, rest: string, query: URLSearchParams): Promise<void>;
  /** Drops the staging folders of unfinished uploads. */
  dispose(): Promise<void>;
}

interface Session {
  id: string;
  name: string;
  staging: string;
  files: Set<string>;
  bytes: number;
  /** Files being written now. */
  writing: number;
}

const DEFAULT_MAX_FILE = 256 * 1024 * 1024;
const DEFAULT_MAX_UPLOAD = 2 * 1024 * 1024 * 1024;
const STAGING = '.staging';
/** Staging folders older than this are left by a host that stopped mid-upload. */
const STALE_MS = 24 * 60 * 60 * 1000;

const STATUS: Partial<Record<ErrorCode, number>> = { INVALID_INPUT: 400, PATH_ESCAPE: 400, NOT_FOUND: 404, ALREADY_EXISTS: 409, TOO_LARGE: 413 };

/** A relative upload path as safe segments, or throws PATH_ESCAPE / INVALID_INPUT. */
export function uploadSegments(path: string): string[] {
  if (path.length === 0) throw new CairnError('INVALID_INPUT', 'The file path is empty');
  if (path.length > 4096) throw new CairnError('INVALID_INPUT', 'The file path is longer than 4096 characters');
  if (path.startsWith('/') || isAbsolute(path) || /^[a-z]:/i.test(path)) throw new CairnError('PATH_ESCAPE', `Refused ${JSON.stringify(path)}: an absolute path`);
  if (path.includes('\\')) throw new CairnError('PATH_ESCAPE', `Refused ${JSON.stringify(path)}: back-slash in path`);
  const segments = path.split('/').filter((s) => s !== '.');
  if (segments.length === 0) throw new CairnError('INVALID_INPUT', `Refused ${JSON.stringify(path)}: no file name`);
  return segments.map((segment) => validateSegment(segment, path));
}

export function createUploads(options: UploadOptions): Uploads {
  const dir = resolve(options.dir);
  const maxFile = options.maxFileBytes ?? DEFAULT_MAX_FILE;
  const maxUpload = options.maxUploadBytes ?? DEFAULT_MAX_UPLOAD;
  const maxFiles = options.maxFiles ?? 100_000;
  const sessions = new Map<string, Session>();

  const inside = (root: string, path: string) => {
    const rel = relative(root, path);
    return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
  };

  const sweepStale = async () => {
    const root = join(dir, STAGING);
    const names = await readdir(root).catch(() => [] as string[]);
    const now = Date.now();
    for (const name of names) {
      if (sessions.has(name)) continue;
      const info = await stat(join(root, name)).catch(() => null);
      if (info && now - info.mtimeMs > STALE_MS) await rm(join(root, name), { recursive: true, force: true });
    }
  };

  const begin = async (query: URLSearchParams) => {
    const raw = query.get('name') ?? '';
    if (!raw) throw new CairnError('INVALID_INPUT', 'Name the uploaded folder (?name=)');
    const name = validateSegment(raw);
    if (name === '.' || name.startsWith('.')) throw new CairnError('INVALID_INPUT', `Refused folder name ${JSON.stringify(raw)}: it must not start with a dot`);
    await sweepStale();
    const id = randomBytes(12).toString('base64url');
    const staging = join(dir, STAGING, id);
    await mkdir(join(staging, 'tree'), { recursive: true });
    await mkdir(join(staging, 'parts'), { recursive: true });
    sessions.set(id, { id, name, staging, files: new Set(), bytes: 0, writing: 0 });
    return { id, name };
  };

  const sessionOf = (id: string): Session => {
    const session = sessions.get(id);
    if (!session) throw new CairnError('NOT_FOUND', `No upload ${JSON.stringify(id)} in progress`);
    return session;
  };

  const putFile = async (session: Session, req: IncomingMessage, query: URLSearchParams) => {
    const segments = uploadSegments(query.get('path') ?? '');
    const key = segments.join('/');
    const tree = join(session.staging, 'tree');
    const target = join(tree, ...segments);
    if (!inside(tree, target)) throw new CairnError('PATH_ESCAPE', `Refused ${JSON.stringify(key)}: it maps outside the upload`);
    if (session.files.has(key)) throw new CairnError('ALREADY_EXISTS', `${key} was already uploaded`);
    if (session.files.size + session.writing >= maxFiles) throw new CairnError('TOO_LARGE', `An upload holds at most ${maxFiles} files`);
    const declared = Number(req.headers['content-length']);
    if (req.headers['content-length'] === undefined || !Number.isSafeInteger(declared) || declared < 0) {
      throw new CairnError('INVALID_INPUT', 'Send each file with a Content-Length', { details: { status: 411 } });
    }
    if (declared > maxFile) throw new CairnError('TOO_LARGE', `${key} is ${declared} bytes; a file may have at most ${maxFile}`, { details: { limit: maxFile, bytes: declared } });
    if (session.bytes + declared > maxUpload) {
      throw new CairnError('TOO_LARGE', `${key} would take the upload to ${session.bytes + declared} bytes; an upload may have at most ${maxUpload}`, { details: { limit: maxUpload, bytes: session.bytes + declared } });
    }
    // Held before the first byte arrives, so files streaming side by side cannot pass the limit together.
    session.bytes += declared;
    session.writing += 1;
    const part = join(session.staging, 'parts', randomBytes(9).toString('base64url'));
    let written = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        written += chunk.length;
        if (written > declared) callback(new CairnError('INVALID_INPUT', `${key} sent more bytes than its Content-Length (${declared})`));
        else callback(null, chunk);
      },
    });
    try {
      await pipeline(req, counter, createWriteStream(part, { flags: 'wx' }));
      if (written !== declared) throw new CairnError('INVALID_INPUT', `${key} arrived with ${written} of ${declared} bytes`);
      await mkdir(dirname(target), { recursive: true });
      await rename(part, target);
      session.files.add(key);
      return { path: key, bytes: written };
    } catch (error) {
      session.bytes -= declared;
      await rm(part, { force: true });
      throw error;
    } finally {
      session.writing -= 1;
    }
  };

  const finish = async (session: Session) => {
    if (session.writing > 0) throw new CairnError('INVALID_INPUT', `${session.writing} file(s) of the upload are still being written`);
    const target = join(dir, session.name);
    if (!inside(dir, target)) throw new CairnError('PATH_ESCAPE', `Refused folder name ${JSON.stringify(session.name)}`);
    sessions.delete(session.id);
    // Swap in the new folder: the old one (an earlier upload of the same name) moves aside first.
    const old = join(session.staging, 'replaced');
    const had = await stat(target).then(
      () => true,
      () => false,
    );
    if (had) await rename(target, old);
    await rename(join(session.staging, 'tree'), target);
    await rm(session.staging, { recursive: true, force: true });
    return { path: target, files: session.files.size, bytes: session.bytes };
  };

  const drop = async (session: Session) => {
    sessions.delete(session.id);
    await rm(session.staging, { recursive: true, force: true });
  };

  const reply = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
    res.end(JSON.stringify(body));
  };

  return {
    dir,
    async handle(req, res, rest, query) {
      try {
        const parts = rest.split('/').filter(Boolean);
        if (parts.length === 0 && req.method === 'POST') return reply(res, 201, await begin(query));
        if (parts.length === 1 && req.method === 'PUT') return reply(res, 200, await putFile(sessionOf(parts[0]!), req, query));
        if (parts.length === 1 && req.method === 'DELETE') {
          await drop(sessionOf(parts[0]!));
          res.writeHead(204).end();
          return;
        }
        if (parts.length === 2 && parts[1] === 'finish' && req.method === 'POST') return reply(res, 200, await finish(sessionOf(parts[0]!)));
        throw new CairnError('NOT_FOUND', `No upload route ${req.method} /upload${rest}`);
      } catch (error) {
        const known = CairnError.is(error);
        const status = known ? ((error.details?.status as number | undefined) ?? STATUS[error.code] ?? 500) : 500;
        // A refused body is not read: close the connection rather than drain what may be gigabytes.
        if (!req.complete) res.setHeader('Connection', 'close');
        reply(res, status, { error: { code: known ? error.code : 'IO_ERROR', message: error instanceof Error ? error.message : String(error) } });
        if (!req.complete) req.resume();
      }
    },
    async dispose() {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all(open.map((s) => rm(s.staging, { recursive: true, force: true })));
    },
  };
}
