/**
 * `GET /export?format=json|jsonl|markdown|contextfs[&scope=resources|user|agent|session]`: an
 * export of the workspace as a download, for browser mode (the page cannot read a path on the
 * host). The engine runs `export:run` into a fresh temp folder; a json or jsonl export is sent as
 * its file, a folder export (markdown, contextfs) as a gzipped tar of the folder (tar.ts: no
 * dependency; `tar -xzf` unpacks it and `cairn import` reads the folder). The temp folder is
 * removed once the answer is sent or the page goes away.
 *
 * The web host checks the Host header and the token (`X-Cairn-Token`) before calling this. The
 * answer carries what `export:run` answered, the file name as `out`, in `X-Cairn-Export`
 * (URI-encoded JSON). Errors answer `{ error: { code, message } }`.
 */
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { parseRequest, type ExportResult } from '../../shared/contracts/api.js';
import { CairnError } from '../../shared/errors.js';
import type { Logger } from '../engine/ports/logger.js';
import type { EngineConnection } from './engine-connection.js';
import { tarEntries } from './tar.js';

/** The header that carries the export's result to the page. */
export const EXPORT_RESULT_HEADER = 'X-Cairn-Export';

const TYPES = { json: 'application/json', jsonl: 'application/x-ndjson', folder: 'application/gzip' } as const;

/** `cairn-export-20261201-221503[-user]`: sortable, and it says what the download holds. */
export function exportBaseName(now: Date, scope: string | undefined): string {
  const stamp = now.toISOString().replace(/\.\d+Z$/, '').replace(/[-:]/g, '').replace('T', '-');
  return `cairn-export-${stamp}${scope ? `-${scope}` : ''}`;
}

export interface ExportDownloadDeps {
  engine: EngineConnection;
  logger: Logger;
  /** Where the export is written before it is sent. */
  tempDir: string;
}

export async function handleExportDownload(req: IncomingMessage, res: ServerResponse, url: URL, { engine, logger, tempDir }: ExportDownloadDeps): Promise<void> {
  const reply = (status: number, error: { code: string; message: string }) => {
    res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
    res.end(JSON.stringify({ error }));
  };
  if (req.method !== 'GET') return reply(405, { code: 'INVALID_INPUT', message: 'An export is downloaded with GET' });

  const temp = await mkdtemp(join(tempDir, 'cairn-export-'));
  const cleanUp = () => rm(temp, { recursive: true, force: true }).catch((error) => logger.warn(`Removing ${temp} failed: ${String(error)}`));
  // The page may leave before the export is written: the engine's call is cancelled.
  const gone = new AbortController();
  res.once('close', () => gone.abort());
  try {
    const format = url.searchParams.get('format');
    const scope = url.searchParams.get('scope') || undefined;
    const base = exportBaseName(new Date(), scope);
    const folder = format === 'markdown' || format === 'contextfs';
    const name = folder ? `${base}-${format}` : `${base}.${format}`;
    const request = parseRequest('export:run', { format, out: join(temp, name), ...(scope ? { scope } : {}) });
    const result = await engine.call('export:run', request, { signal: gone.signal });
    const fileName = folder ? `${name}.tar.gz` : name;
    const shown: ExportResult = { ...result, out: fileName };
    const headers = {
      'Content-Type': folder ? TYPES.folder : TYPES[request.format as 'json' | 'jsonl'],
      'Content-Disposition': `attachment; filename="${fileName}"`,
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      [EXPORT_RESULT_HEADER]: encodeURIComponent(JSON.stringify(shown)),
    };
    if (folder) {
      res.writeHead(200, headers);
      await pipeline(Readable.from(tarEntries(request.out, name)), createGzip(), res);
    } else {
      res.writeHead(200, { ...headers, 'Content-Length': (await stat(request.out)).size });
      await pipeline(createReadStream(request.out), res);
    }
  } catch (error) {
    if (res.headersSent) {
      // Half sent: the download fails in the browser rather than ending as a short file.
      logger.warn(`Sending the export failed: ${String((error as Error)?.message ?? error)}`);
      res.destroy();
    } else if (!gone.signal.aborted) {
      const known = CairnError.is(error);
      reply(known && (error.code === 'INVALID_INPUT' || error.code === 'PATH_ESCAPE') ? 400 : 500, {
        code: known ? error.code : 'INTERNAL',
        message: error instanceof Error ? error.message : String(error),
      });
    }
  } finally {
    await cleanUp();
  }
}
