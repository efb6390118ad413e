/**
 * Ingest jobs on disk, so a killed ingest can be picked up where it stopped.
 *
 * `{workspace}/.cairn/jobs/{id}.json` holds what the job is (source, target, options);
 * `{id}.parsed.jsonl` lists the files already parsed into `ctx://temp/{id}/`, one line each,
 * appended as they finish. A torn last line (a kill mid-write) is ignored: that file is parsed again.
 * `{workspace}/.cairn/manifests/{hash of the root URI}.json` is what the last finished ingest of a
 * root left in place (see manifest.ts), written whole and atomically, read in one go.
 */
import { appendFile, mkdir, readFile, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { IngestOptions } from '../../../shared/types/ingest.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { sha256 } from '../util/hash.js';

export interface JobRecord {
  id: string;
  source: string;
  /** URI of the ingested root node (a directory for a folder, the file's node for a file). */
  rootUri: string;
  sourceIsFile: boolean;
  options: IngestOptions;
  startedAt: string;
}

export interface ParsedEntry {
  relPath: string;
  sourceHash: string;
  kind: 'file' | 'dir';
  tokens: number;
  nodeCount: number;
}

export class JobStore {
  private constructor(
    private readonly dir: string,
    private readonly manifestDir: string,
  ) {}

  static async open(workspaceStateDir: string): Promise<JobStore> {
    const dir = join(workspaceStateDir, 'jobs');
    await mkdir(dir, { recursive: true });
    return new JobStore(dir, join(workspaceStateDir, 'manifests'));
  }

  /** The manifest the last finished ingest of `rootUri` wrote, or null (none, or unreadable: it is only a shortcut). */
  async readManifest(rootUri: string): Promise<unknown> {
    try {
      return JSON.parse(await readFile(this.manifestPath(rootUri), 'utf8')) as unknown;
    } catch {
      return null;
    }
  }

  async writeManifest(rootUri: string, manifest: unknown): Promise<void> {
    await writeFileAtomic(this.manifestPath(rootUri), JSON.stringify(manifest));
  }

  private manifestPath(rootUri: string): string {
    return join(this.manifestDir, `${sha256(rootUri).slice(0, 32)}.json`);
  }

  async create(job: Omit<JobRecord, 'id'>, id: string = randomUUID()): Promise<JobRecord> {
    const record = { ...job, id };
    await writeFileAtomic(join(this.dir, `${id}.json`), JSON.stringify(record, null, 2), { durable: true });
    return record;
  }

  async unfinished(): Promise<JobRecord[]> {
    const names = (await readdir(this.dir)).filter((name) => name.endsWith('.json')).sort();
    const jobs: JobRecord[] = [];
    for (const name of names) {
      try {
        jobs.push(JSON.parse(await readFile(join(this.dir, name), 'utf8')) as JobRecord);
      } catch {
        // A job file is written atomically, so an unreadable one is foreign: leave it alone.
      }
    }
    return jobs;
  }

  /** The unfinished job for the same source and target, if a previous run was interrupted. */
  async findResumable(source: string, rootUri: string): Promise<JobRecord | null> {
    return (await this.unfinished()).find((job) => job.source === source && job.rootUri === rootUri) ?? null;
  }

  async readParsed(id: string): Promise<Map<string, ParsedEntry>> {
    const entries = new Map<string, ParsedEntry>();
    let text: string;
    try {
      text = await readFile(join(this.dir, `${id}.parsed.jsonl`), 'utf8');
    } catch {
      return entries;
    }
    for (const line of text.split('\n')) {
      if (!line) continue;
      try {
        const entry = JSON.parse(line) as ParsedEntry;
        entries.set(entry.relPath, entry);
      } catch {
        // torn write from a kill: this file is parsed again
      }
    }
    return entries;
  }

  async appendParsed(id: string, entry: ParsedEntry): Promise<void> {
    await appendFile(join(this.dir, `${id}.parsed.jsonl`), JSON.stringify(entry) + '\n');
  }

  async finish(id: string): Promise<void> {
    await rm(join(this.dir, `${id}.json`), { force: true });
    await rm(join(this.dir, `${id}.parsed.jsonl`), { force: true });
  }
}
