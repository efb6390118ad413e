/**
 * Roots held back from background summary runs: ingested with `summarize: false` (Home's
 * "Estimate first", then "Not now"), queued, and summarized only when a summarize:run names them
 * or runs everything. Kept in `.cairn/held-roots.json`, so a hold survives a restart of the app:
 * held only in memory, the first background run after a restart spent the LLM budget on a tree
 * the user had put off.
 *
 * @example
 * const held = await HeldRoots.open(join(stateDir, 'held-roots.json'), logger);
 * await held.add('ctx://resources/docs/');
 * queue.claim((m) => !held.has(m.uri));
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { errorMessage } from '../../../shared/errors.js';
import type { Logger } from '../ports/logger.js';
import { writeFileAtomic } from '../util/atomic-write.js';

const HeldFile = z.object({ version: z.literal(1), roots: z.array(z.string()) });

export class HeldRoots {
  /** Writes one after another, so the file always ends with the latest set. */
  private writing: Promise<void> = Promise.resolve();

  private constructor(
    private readonly file: string,
    private readonly roots: Set<string>,
    private readonly logger: Logger,
  ) {}

  /** Reads the held roots; a missing file holds none, an unreadable one is reported and holds none. */
  static async open(file: string, logger: Logger): Promise<HeldRoots> {
    let roots: string[] = [];
    try {
      roots = HeldFile.parse(JSON.parse(await readFile(file, 'utf8'))).roots;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') logger.warn(`Ignoring ${file}: ${errorMessage(error)}; no summary is held back`);
    }
    return new HeldRoots(file, new Set(roots), logger);
  }

  get size(): number {
    return this.roots.size;
  }

  /** The held roots (a copy). */
  list(): string[] {
    return [...this.roots];
  }

  has(uri: string): boolean {
    return this.roots.has(uri);
  }

  async add(uri: string): Promise<void> {
    if (this.roots.has(uri)) return;
    this.roots.add(uri);
    await this.save();
  }

  async delete(uri: string): Promise<void> {
    if (this.roots.delete(uri)) await this.save();
  }

  async clear(): Promise<void> {
    if (this.roots.size === 0) return;
    this.roots.clear();
    await this.save();
  }

  private save(): Promise<void> {
    const text = `${JSON.stringify({ version: 1, roots: [...this.roots].sort() }, null, 2)}\n`;
    const write = this.writing.then(() => writeFileAtomic(this.file, text));
    // A failed write keeps the hold for this session and says so; the next change writes again.
    this.writing = write.catch((error: unknown) => this.logger.warn(`Could not save the held roots to ${this.file}: ${errorMessage(error)}`));
    return this.writing;
  }
}
