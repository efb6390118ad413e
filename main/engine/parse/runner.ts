/**
 * Where parsing runs. The engine asks a `ParseRunner` and does not care whether the parse happens
 * in this thread (`inProcessParseRunner`, for tests and small jobs) or in a pool of worker
 * threads (`createParsePool` in main/workers, so CPU-heavy parsers never block the engine).
 */
import { CairnError } from '../../../shared/errors.js';
import type { ParsedFile, ParseInput } from './types.js';

export interface ParseRunner {
  /** Parses that can usefully run at once; callers size their own concurrency from it. */
  readonly concurrency: number;
  /**
   * Parses one file. A pool transfers `input.bytes` to its worker: the caller's array is empty
   * (detached) afterwards, so pass bytes you no longer need. An aborted `signal` rejects with
   * `CANCELLED`.
   */
  parse(input: ParseInput, signal?: AbortSignal): Promise<ParsedFile>;
  /** Stops the runner; parses still waiting reject with `CANCELLED`. */
  dispose(): Promise<void>;
}

/**
 * Parses in the calling thread, one file at a time as far as the CPU goes.
 *
 * @example
 * const runner = inProcessParseRunner();
 * const parsed = await runner.parse({ path, relPath: 'guide.md', bytes, split, codeSummaryMode: 'ast' });
 */
export function inProcessParseRunner(): ParseRunner {
  let disposed = false;
  return {
    concurrency: 1,
    async parse(input, signal) {
      if (disposed) throw new CairnError('CANCELLED', `Parsing ${input.relPath} was cancelled: the parse runner is disposed`);
      if (signal?.aborted) throw new CairnError('CANCELLED', `Parsing ${input.relPath} was cancelled`);
      // Loaded on the first parse: the parsers (HTML, Markdown, PDF, tree-sitter) are most of the
      // engine's modules, and a process that parses in workers, or not at all (an unchanged
      // re-ingest), should not compile them at every start.
      const { parseFile } = await import('./registry.js');
      return parseFile(input);
    },
    async dispose() {
      disposed = true;
    },
  };
}
