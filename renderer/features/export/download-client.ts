/**
 * Browser mode's export download: asks the web host (`GET /export`, main/host/export-download.ts)
 * for an export in a format and a scope. Only fetch is used, so it runs in the page (ExportView
 * saves what it gets) and, in the host's tests, in Node against a real host.
 */
import { ExportResult, type CommandRequest, type ExportFormat } from '../../../shared/contracts/api';
import { CairnError, type ErrorCode } from '../../../shared/errors';

/** The header the host answers the export's result in (URI-encoded JSON). */
const RESULT_HEADER = 'X-Cairn-Export';

export interface DownloadRequest {
  format: ExportFormat;
  /** Every scope when absent. */
  scope?: CommandRequest<'export:run'>['scope'];
}

export interface FetchedExport {
  /** What export:run wrote; `out` is the file name. */
  result: ExportResult;
  blob: Blob;
}

export interface FetchExportOptions {
  /** The page's token (from its URL). */
  token: string;
  /** The host's origin; '' for the page's own. */
  base?: string;
  fetch?: typeof fetch;
  signal?: AbortSignal;
}

/** Fetches an export from the host; a refusal throws a CairnError with the host's code and message. */
export async function fetchExport(request: DownloadRequest, options: FetchExportOptions): Promise<FetchedExport> {
  const doFetch = options.fetch ?? fetch.bind(globalThis);
  const query = new URLSearchParams({ format: request.format, ...(request.scope ? { scope: request.scope } : {}) });
  const response = await doFetch(`${options.base ?? ''}/export?${query}`, { headers: { 'X-Cairn-Token': options.token }, signal: options.signal });
  if (!response.ok) throw await errorOf(response);
  const header = response.headers.get(RESULT_HEADER);
  const result = ExportResult.safeParse(header ? JSON.parse(decodeURIComponent(header)) : null);
  if (!result.success) throw new CairnError('INTERNAL', `The host's export answer has no valid ${RESULT_HEADER} header`);
  return { result: result.data, blob: await response.blob() };
}

async function errorOf(response: Response): Promise<CairnError> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { error?: { code?: string; message?: string } };
    if (body.error?.message) return new CairnError((body.error.code ?? 'INTERNAL') as ErrorCode, body.error.message);
  } catch {
    // Not JSON: the web host's own refusals (401, 403) are plain text.
  }
  return new CairnError(response.status === 401 ? 'INVALID_INPUT' : 'IO_ERROR', text.trim() || `HTTP ${response.status}`);
}
