/**
 * Reads an export back: detects its format from what is there (a json document, jsonl records, a
 * Markdown bundle's data.jsonl, or a folder of scope folders), checks every record, and names the
 * file, the line or field, and the reason when something is wrong.
 */
import { readFile, readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { CairnError, type ErrorCode } from '../../../shared/errors.js';
import type { ExportFormat } from '../../../shared/contracts/api.js';
import { decodeText } from '../parse/encoding.js';
import {
  BUNDLE_DATA_FILE,
  EXPORT_TAG,
  EXPORT_VERSION,
  ExportDocument,
  ExportRecord,
  PORTABLE_SCOPES,
  checkAnalysis,
  type AnalysisEntry,
  type ExportData,
} from './format.js';

export type ImportSource = { format: Exclude<ExportFormat, 'contextfs'>; path: string; data: ExportData } | { format: 'contextfs'; path: string; root: string };

function fail(code: ErrorCode, file: string, reason: string): never {
  throw new CairnError(code, `${file}: ${reason}`, { details: { file, reason } });
}

function issueText(error: { issues: Array<{ path: PropertyKey[]; message: string }> }): string {
  const issue = error.issues[0];
  return `${issue?.path.map(String).join('.') || '(value)'}: ${issue?.message ?? 'invalid'}`;
}

export async function readImport(input: string): Promise<ImportSource> {
  const path = resolve(input);
  const info = await stat(path).catch((error: NodeJS.ErrnoException) => fail(error.code === 'ENOENT' ? 'NOT_FOUND' : 'IO_ERROR', path, `cannot read it (${error.message})`));
  if (info.isDirectory()) {
    const names = new Set(await readdir(path));
    if (names.has(BUNDLE_DATA_FILE)) {
      const file = join(path, BUNDLE_DATA_FILE);
      return { format: 'markdown', path, data: parseRecords(await readText(file), file) };
    }
    if (PORTABLE_SCOPES.some((s) => names.has(s))) return { format: 'contextfs', path, root: path };
    fail('INVALID_INPUT', path, `not a Cairn export folder (no ${BUNDLE_DATA_FILE} of a Markdown bundle, and none of ${PORTABLE_SCOPES.map((s) => `${s}/`).join(' ')})`);
  }
  const text = await readText(path);
  const head = text.trimStart();
  if (head.length === 0) fail('INVALID_INPUT', path, 'the file is empty');
  if (!head.startsWith('{')) fail('INVALID_INPUT', path, 'not a Cairn export (expected a json document, jsonl records or an export folder)');
  let whole: unknown;
  try {
    whole = JSON.parse(head);
  } catch (error) {
    // Several records, one per line, do not parse as one document.
    const first = head.split(/\r?\n/, 1)[0] ?? '';
    if (isRecord(first)) return { format: 'jsonl', path, data: parseRecords(text, path) };
    fail('PARSE_FAILED', path, `invalid JSON (${(error as Error).message})`);
  }
  const tagged = whole as { format?: unknown; type?: unknown; version?: unknown };
  if (tagged?.type === 'header') return { format: 'jsonl', path, data: parseRecords(text, path) };
  if (tagged?.format !== EXPORT_TAG) fail('INVALID_INPUT', path, `JSON that is not a Cairn export (expected "format": "${EXPORT_TAG}"; conversation files go to \`cairn sessions import\`)`);
  checkVersion(tagged.version, path);
  const parsed = ExportDocument.safeParse(whole);
  if (!parsed.success) fail('INVALID_INPUT', path, issueText(parsed.error));
  const doc = parsed.data;
  doc.analyses.forEach((entry, i) => {
    const problem = checkAnalysis(entry);
    if (problem) fail('INVALID_INPUT', path, `analyses.${i}.${problem}`);
  });
  return {
    format: 'json',
    path,
    data: { exported_at: doc.exported_at, scope: doc.scope, memories: doc.memories, history: doc.memory_history ?? [], conversations: doc.sessions, analyses: doc.analyses, nodes: doc.nodes ?? [] },
  };
}

async function readText(file: string): Promise<string> {
  const bytes = await readFile(file).catch((error: NodeJS.ErrnoException) => fail(error.code === 'ENOENT' ? 'NOT_FOUND' : 'IO_ERROR', file, `cannot read it (${error.message})`));
  return decodeText(bytes, file).text;
}

/** A line that is one typed record: the file is jsonl (parseRecords then says what is wrong with it). */
function isRecord(line: string): boolean {
  try {
    return typeof (JSON.parse(line) as { type?: unknown }).type === 'string';
  } catch {
    return false;
  }
}

function checkVersion(version: unknown, file: string): void {
  if (version !== EXPORT_VERSION) fail('UNSUPPORTED_FORMAT', file, `export version ${JSON.stringify(version)} is not supported (this Cairn reads version ${EXPORT_VERSION})`);
}

/** jsonl records into export data; the first record must be the header. */
export function parseRecords(text: string, file: string): ExportData {
  const data: ExportData = { exported_at: '', scope: null, memories: [], history: [], conversations: [], analyses: [], nodes: [] };
  const analyses = new Map<string, AnalysisEntry & { clusters: unknown[]; chains: unknown[] }>();
  let header = false;
  const lines = text.split(/\r?\n/);
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '') continue;
    const where = `line ${i + 1}`;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch (error) {
      fail('PARSE_FAILED', file, `${where}: invalid JSON (${(error as Error).message})`);
    }
    const type = (raw as { type?: unknown })?.type;
    if (!header && type !== 'header') fail('INVALID_INPUT', file, `${where}: expected the export header ({"type":"header","format":"${EXPORT_TAG}",...}) first, found ${JSON.stringify(type ?? null)}`);
    if (type === 'header') checkVersion((raw as { version?: unknown }).version, file);
    const parsed = ExportRecord.safeParse(raw);
    if (!parsed.success) fail('INVALID_INPUT', file, `${where}: ${typeof type === 'string' ? `${type} record: ` : ''}${issueText(parsed.error)}`);
    const record = parsed.data;
    switch (record.type) {
      case 'header':
        if (header) fail('INVALID_INPUT', file, `${where}: a second header`);
        header = true;
        data.exported_at = record.exported_at;
        data.scope = record.scope;
        break;
      case 'memory':
        data.memories.push(record.memory);
        break;
      case 'memory_change':
        data.history.push(record.change);
        break;
      case 'conversation':
        data.conversations.push(record.conversation);
        break;
      case 'analysis': {
        const entry = { ...record.analysis, conversation_id: record.conversation_id, cache_key: record.cache_key, clusters: [] as unknown[], chains: [] as unknown[] };
        analyses.set(record.conversation_id, entry);
        data.analyses.push(entry);
        break;
      }
      case 'cluster':
      case 'chain': {
        const entry = analyses.get(record.conversation_id);
        if (!entry) fail('INVALID_INPUT', file, `${where}: ${record.type} of conversation "${record.conversation_id}" comes before its analysis record`);
        if (record.type === 'cluster') entry.clusters.push(record.cluster);
        else entry.chains.push(record.chain);
        break;
      }
      case 'node':
        data.nodes.push(record.node);
        break;
    }
  }
  if (!header) fail('INVALID_INPUT', file, 'no records: expected the export header first');
  for (const entry of data.analyses) {
    const problem = checkAnalysis(entry);
    if (problem) fail('INVALID_INPUT', file, `analysis of conversation "${entry.conversation_id}": ${problem}`);
  }
  return data;
}
