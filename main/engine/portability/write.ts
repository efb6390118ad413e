/**
 * Writes an export in one of the four formats (see format.ts). A folder export goes into an
 * empty or missing folder, or replaces an earlier Cairn export there (its manifest says so);
 * anything else at the target is refused rather than mixed with.
 */
import { lstat, mkdir, readFile, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { CairnError } from '../../../shared/errors.js';
import type { ExportFormat } from '../../../shared/contracts/api.js';
import { isSidecarName } from '../../../shared/uri.js';
import type { ContextFS } from '../tree/context-fs.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { BUNDLE_DATA_FILE, EXPORT_TAG, EXPORT_VERSION, MANIFEST_FILE, PORTABLE_SCOPES, type ExportData, type ExportDocument, type ExportRecord, type PortableScope } from './format.js';
import { renderBundle } from './markdown.js';

export interface Written {
  files: number;
  bytes: number;
  /** Nodes copied (a ContextFS copy counts them as it goes). */
  nodes?: number;
}

export function exportDocument(data: ExportData): ExportDocument {
  return {
    format: EXPORT_TAG,
    version: EXPORT_VERSION,
    exported_at: data.exported_at,
    scope: data.scope,
    memories: data.memories,
    memory_history: data.history,
    sessions: data.conversations,
    analyses: data.analyses,
    nodes: data.nodes,
  };
}

/** The jsonl records, in the order import needs them (memories after their history, chains after their conversation). */
export function exportRecords(data: ExportData): ExportRecord[] {
  const records: ExportRecord[] = [{ type: 'header', format: EXPORT_TAG, version: EXPORT_VERSION, exported_at: data.exported_at, scope: data.scope }];
  for (const change of data.history) records.push({ type: 'memory_change', change });
  for (const memory of data.memories) records.push({ type: 'memory', memory });
  for (const conversation of data.conversations) records.push({ type: 'conversation', conversation });
  for (const entry of data.analyses) {
    const { conversation_id, cache_key, clusters, chains, ...analysis } = entry as typeof entry & { clusters?: unknown[]; chains?: unknown[] };
    records.push({ type: 'analysis', conversation_id, cache_key, analysis });
    for (const cluster of clusters ?? []) records.push({ type: 'cluster', conversation_id, cluster } as ExportRecord);
    for (const chain of chains ?? []) records.push({ type: 'chain', conversation_id, chain } as ExportRecord);
  }
  for (const node of data.nodes) records.push({ type: 'node', node });
  return records;
}

const jsonl = (records: ExportRecord[]) => records.map((r) => JSON.stringify(r)).join('\n') + '\n';

export async function writeExport(fs: ContextFS, data: ExportData, format: ExportFormat, out: string): Promise<Written> {
  switch (format) {
    case 'json':
      return writeOne(out, JSON.stringify(exportDocument(data), null, 2) + '\n');
    case 'jsonl':
      return writeOne(out, jsonl(exportRecords(data)));
    case 'markdown': {
      await prepareFolder(out);
      const pages = [...renderBundle(data), { path: BUNDLE_DATA_FILE, text: jsonl(exportRecords(data)) }, manifest(data, 'markdown')];
      let bytes = 0;
      for (const page of pages) {
        await writeFileAtomic(join(out, ...page.path.split('/')), page.text);
        bytes += Buffer.byteLength(page.text);
      }
      return { files: pages.length, bytes };
    }
    case 'contextfs': {
      await prepareFolder(out);
      const written: Written = { files: 0, bytes: 0, nodes: 0 };
      for (const scope of data.scope ? [data.scope] : PORTABLE_SCOPES) await copyTree(join(fs.root, scope), join(out, scope), written);
      const m = manifest(data, 'contextfs');
      await writeFileAtomic(join(out, m.path), m.text);
      return { files: written.files + 1, bytes: written.bytes + Buffer.byteLength(m.text), nodes: written.nodes ?? 0 };
    }
  }
}

function manifest(data: ExportData, format: ExportFormat): { path: string; text: string } {
  const scopes: readonly PortableScope[] = data.scope ? [data.scope] : PORTABLE_SCOPES;
  return { path: MANIFEST_FILE, text: JSON.stringify({ format: EXPORT_TAG, version: EXPORT_VERSION, kind: format, exported_at: data.exported_at, scopes }, null, 2) + '\n' };
}

async function writeOne(out: string, text: string): Promise<Written> {
  const existing = await stat(out).catch(() => null);
  if (existing?.isDirectory()) throw new CairnError('ALREADY_EXISTS', `${out} is a folder: give a file path for a json or jsonl export`, { details: { file: out } });
  await writeFileAtomic(out, text);
  return { files: 1, bytes: Buffer.byteLength(text) };
}

/** Makes `out` an empty folder: missing, empty, or holding an earlier Cairn export (replaced). */
async function prepareFolder(out: string): Promise<void> {
  const existing = await stat(out).catch(() => null);
  if (!existing) return void (await mkdir(out, { recursive: true }));
  if (!existing.isDirectory()) throw new CairnError('ALREADY_EXISTS', `${out} is a file: give a folder for a contextfs or markdown export`, { details: { file: out } });
  const names = await readdir(out);
  if (names.length === 0) return;
  const earlier = await readFile(join(out, MANIFEST_FILE), 'utf8').then(
    (text) => (JSON.parse(text) as { format?: unknown }).format === EXPORT_TAG,
    () => false,
  );
  if (!earlier) throw new CairnError('ALREADY_EXISTS', `${out} is not empty and holds no earlier Cairn export: choose an empty or new folder`, { details: { file: out } });
  for (const name of names) await rm(join(out, name), { recursive: true, force: true });
}

/** Copies a scope folder: directories and regular files with their sidecars, never temp files or links. */
async function copyTree(from: string, to: string, written: Written): Promise<void> {
  let names: string[];
  try {
    names = (await readdir(from)).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  await mkdir(to, { recursive: true });
  written.nodes = (written.nodes ?? 0) + 1;
  for (const name of names) {
    if (name.startsWith('.cairn-tmp-')) continue;
    const info = await lstat(join(from, name));
    if (info.isDirectory()) await copyTree(join(from, name), join(to, name), written);
    else if (info.isFile()) {
      const bytes = await readFile(join(from, name));
      await writeFileAtomic(join(to, name), bytes);
      written.files += 1;
      written.bytes += bytes.length;
      if (!isSidecarName(name)) written.nodes = (written.nodes ?? 0) + 1;
    }
  }
}
