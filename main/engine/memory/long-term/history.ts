/**
 * The append-only change log of long-term memory: `.cairn/memory-history.jsonl`, one
 * MemoryChange per line. It is written (and fsync'd) before the memory file changes, so it is
 * also the store's write-ahead log: after a crash between the two, the store redoes the file
 * from the last change (store.ts `recover`). A kill in the middle of an append leaves a torn last
 * line, which never committed; it is cut off, by an atomic rewrite, before the next append.
 */
import { mkdir, open, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { MemoryChange } from '../../../../shared/types/memory.js';
import type { Logger } from '../../ports/logger.js';
import { writeFileAtomic } from '../../util/atomic-write.js';

export class MemoryHistory {
  private constructor(
    private readonly path: string,
    private readonly changes: MemoryChange[],
  ) {}

  static async open(path: string, logger: Logger): Promise<MemoryHistory> {
    let text = '';
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const changes: MemoryChange[] = [];
    const lines = text.split('\n');
    // The part after the last newline is '' or a torn line.
    const complete = lines.slice(0, -1);
    const torn = text.endsWith('\n') || text.length === 0 ? null : lines.at(-1)!;
    for (const [i, line] of complete.entries()) {
      if (line.trim() === '') continue;
      const parsed = safeParse(line);
      // A bad line in the middle was written whole by something else; keep the file as it is and say so.
      if (parsed) changes.push(parsed);
      else logger.warn(`Memory history: line ${i + 1} of ${path} is not a change; skipped`);
    }
    if (torn !== null) {
      const parsed = safeParse(torn);
      if (parsed) {
        // Whole but missing its newline (the newline is written with the line, so rare): keep it.
        changes.push(parsed);
        await writeFileAtomic(path, text + '\n', { durable: true });
      } else {
        logger.warn(`Memory history: dropped a torn last line of ${path} (an interrupted write)`);
        await writeFileAtomic(path, text.slice(0, text.length - torn.length), { durable: true });
      }
    }
    return new MemoryHistory(path, changes);
  }

  /** Appends changes and syncs them to disk before resolving. */
  async append(changes: MemoryChange[]): Promise<void> {
    if (changes.length === 0) return;
    await mkdir(dirname(this.path), { recursive: true });
    const handle = await open(this.path, 'a');
    try {
      await handle.writeFile(changes.map((c) => JSON.stringify(c) + '\n').join(''));
      await handle.sync();
    } finally {
      await handle.close();
    }
    this.changes.push(...changes);
  }

  /**
   * Brings in changes recorded elsewhere (an import): those not already here, compared whole, are
   * merged in time order and the file is rewritten atomically. Returns how many were new.
   */
  async merge(changes: MemoryChange[]): Promise<number> {
    const current = await this.list();
    const known = new Set(current.map((c) => JSON.stringify(c)));
    const fresh: MemoryChange[] = [];
    for (const change of changes) {
      const key = JSON.stringify(change);
      if (known.has(key)) continue;
      known.add(key);
      fresh.push(change);
    }
    if (fresh.length === 0) {
      // Still take in what other processes (or another store over the same files) appended.
      this.changes.splice(0, this.changes.length, ...current);
      return 0;
    }
    // A stable sort: changes with the same time keep their order, this workspace's first.
    const merged = [...current, ...fresh].map((c, i) => ({ c, i })).sort((a, b) => (a.c.at < b.c.at ? -1 : a.c.at > b.c.at ? 1 : a.i - b.i)).map(({ c }) => c);
    await mkdir(dirname(this.path), { recursive: true });
    await writeFileAtomic(this.path, merged.map((c) => JSON.stringify(c) + '\n').join(''), { durable: true });
    this.changes.splice(0, this.changes.length, ...merged);
    return fresh.length;
  }

  /**
   * Oldest first; of one memory when `id` is given. Read from disk, so changes another process
   * (the CLI beside the app) appended are seen too.
   */
  async list(id?: string): Promise<MemoryChange[]> {
    const text = await readFile(this.path, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return '';
      throw error;
    });
    const changes = text
      .split('\n')
      .slice(0, -1)
      .map(safeParse)
      .filter((c): c is MemoryChange => c !== null);
    return id === undefined ? changes : changes.filter((c) => c.memory_id === id);
  }

  /** Re-reads the file, taking in changes appended by other processes since it was opened. */
  async reload(): Promise<void> {
    const current = await this.list();
    this.changes.splice(0, this.changes.length, ...current);
  }

  /** The last change of one memory known to this process (read at open, plus its own appends). */
  last(id: string): MemoryChange | undefined {
    for (let i = this.changes.length - 1; i >= 0; i -= 1) if (this.changes[i]!.memory_id === id) return this.changes[i];
    return undefined;
  }

  /** The last change of all, the only one a crash can have left half done. */
  lastOverall(): MemoryChange | undefined {
    return this.changes.at(-1);
  }
}

function safeParse(line: string): MemoryChange | null {
  try {
    const result = MemoryChange.safeParse(JSON.parse(line));
    return result.success ? result.data : null;
  } catch {
    return null;
  }
}
