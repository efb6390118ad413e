/**
 * Sends a picked folder to the web host (`main/host/upload.ts`): begin, one PUT per file (a few
 * side by side), finish. Only fetch and File are used, so it runs in the page and, in the host's
 * tests, in Node against a real host.
 *
 * What is sent is what an ingest of the same folder by path would read: the files the scan
 * leaves out by their paths (`.gitignore` rules, version-control and dependency folders; see
 * shared/scan/path-rules.ts) stay in the page, so `.git/` or `node_modules/` never cross the wire.
 * A browser reads a symbolic link's target as a plain file; the page cannot tell, see upload.ts.
 */
import type { Skip } from '../../../shared/types/ingest';
import { isIgnoreFile, scanByPath } from '../../../shared/scan/path-rules';

export interface PickedFile {
  /** Relative to the folder, with `/`. */
  path: string;
  file: File;
}

export interface PickedFolder {
  name: string;
  files: PickedFile[];
}

export interface UploadProgress {
  /** Files the host took. */
  files: number;
  /** Files it refused (see the failures). */
  failed: number;
  totalFiles: number;
  /** Bytes of the files it took. */
  bytes: number;
  totalBytes: number;
  /** The file being sent now. */
  current: string | null;
}

export interface UploadFailure {
  path: string;
  code: string;
  message: string;
}

export interface UploadOutcome {
  /** The uploaded folder's absolute path on the host. */
  path: string;
  files: number;
  bytes: number;
  failures: UploadFailure[];
  /** What stayed in the page because an ingest by path leaves it out (one skip per folder or file). */
  leftOut: Skip[];
  /** The paths the page sent (the folder's files without those left out). */
  sent: string[];
}

export interface UploadOptions {
  /** The page's token (from its URL). */
  token: string;
  /** The host's origin; '' for the page's own. */
  base?: string;
  onProgress?: (progress: UploadProgress) => void;
  /** Each file the host refused, as it happens. */
  onFailure?: (failure: UploadFailure) => void;
  signal?: AbortSignal;
  /** Files sent side by side. */
  concurrency?: number;
  fetch?: typeof fetch;
}

export class UploadError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'UploadError';
  }
}

async function errorOf(response: Response): Promise<UploadError> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { error?: { code?: string; message?: string } };
    if (body.error?.message) return new UploadError(body.error.code ?? `HTTP_${response.status}`, body.error.message);
  } catch {
    // Not JSON: the web host's own refusals (401, 403) are plain text.
  }
  return new UploadError(response.status === 401 ? 'UNAUTHORIZED' : response.status === 403 ? 'FORBIDDEN' : `HTTP_${response.status}`, text.trim() || `HTTP ${response.status}`);
}

/**
 * Sends a folder to the web host and returns where it landed. A file the host refuses (too
 * large, a name it will not take) is reported in `failures` and the others go on; the upload
 * itself fails (UploadError) only when it cannot start or finish, or no file got through.
 */
export async function uploadFolder(picked: PickedFolder, options: UploadOptions): Promise<UploadOutcome> {
  const { folder, leftOut } = await withScanRules(picked);
  const doFetch = options.fetch ?? fetch.bind(globalThis);
  const base = options.base ?? '';
  const headers = { 'X-Cairn-Token': options.token };
  const progress: UploadProgress = { files: 0, failed: 0, totalFiles: folder.files.length, bytes: 0, totalBytes: folder.files.reduce((n, f) => n + f.file.size, 0), current: null };
  const report = () => options.onProgress?.({ ...progress });
  report();

  const begun = await doFetch(`${base}/upload?name=${encodeURIComponent(folder.name)}`, { method: 'POST', headers, signal: options.signal });
  if (!begun.ok) throw await errorOf(begun);
  const { id } = (await begun.json()) as { id: string };
  const failures: UploadFailure[] = [];
  let next = 0;
  const worker = async () => {
    while (next < folder.files.length) {
      const item = folder.files[next++]!;
      progress.current = item.path;
      report();
      try {
        const response = await doFetch(`${base}/upload/${encodeURIComponent(id)}?path=${encodeURIComponent(item.path)}`, { method: 'PUT', headers, body: item.file, signal: options.signal });
        if (!response.ok) throw await errorOf(response);
        progress.files += 1;
        progress.bytes += item.file.size;
      } catch (error) {
        if (options.signal?.aborted) throw error;
        const failure = { path: item.path, code: error instanceof UploadError ? error.code : 'IO_ERROR', message: error instanceof Error ? error.message : String(error) };
        failures.push(failure);
        options.onFailure?.(failure);
        progress.failed += 1;
      }
      report();
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency ?? 3, folder.files.length)) }, worker));
  } catch (error) {
    await doFetch(`${base}/upload/${encodeURIComponent(id)}`, { method: 'DELETE', headers }).catch(() => undefined);
    throw error;
  }
  if (progress.files === 0) {
    await doFetch(`${base}/upload/${encodeURIComponent(id)}`, { method: 'DELETE', headers }).catch(() => undefined);
    throw new UploadError(failures[0]?.code ?? 'INVALID_INPUT', folder.files.length === 0 ? 'The folder has no files' : `No file could be uploaded: ${failures[0]?.message ?? ''}`);
  }
  const finished = await doFetch(`${base}/upload/${encodeURIComponent(id)}/finish`, { method: 'POST', headers, signal: options.signal });
  if (!finished.ok) throw await errorOf(finished);
  const done = (await finished.json()) as { path: string; files: number; bytes: number };
  progress.current = null;
  report();
  return { ...done, failures, leftOut, sent: folder.files.map((f) => f.path) };
}

/** The folder without what the scan leaves out by path, and the skips of what was left out. */
export async function withScanRules(folder: PickedFolder): Promise<{ folder: PickedFolder; leftOut: Skip[] }> {
  const ignoreTexts = new Map<string, string>();
  for (const item of folder.files) if (isIgnoreFile(item.path)) ignoreTexts.set(item.path, await item.file.text());
  const { kept, skipped } = scanByPath(
    folder.files.map((f) => f.path),
    ignoreTexts,
  );
  const keep = new Set(kept);
  return { folder: { ...folder, files: folder.files.filter((f) => keep.has(f.path)) }, leftOut: skipped };
}

/** The page's token, from its URL, or null. */
export function pageToken(search: string): string | null {
  return new URLSearchParams(search).get('token');
}
