/**
 * `cairn search` and `cairn reindex` (docs/ARCHITECTURE.md#the-index): hybrid, full-text, vector or
 * hierarchical search over the index, and rebuilding the index from the context tree. Both the
 * text and the JSON show the engine's ranked list (main/engine/index/rank.ts); --json also has the
 * index's raw `hits`.
 */
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { CairnError } from '../../../shared/errors.js';
import { SCOPES } from '../../../shared/uri.js';
import { SearchMode, type CommandRequest, type RankedHit, type RankedResult, type SearchResponse } from '../../../shared/contracts/api.js';
import { addIndexOptions, indexConfig, type IndexFlags } from '../index-config.js';
import { formatCount, formatMs } from '../../../shared/format.js';
import { oneLine, printJson, reportError, stderrLogger } from '../output.js';

interface SearchFlags extends IndexFlags {
  workspace?: string;
  json?: boolean;
  verbose?: boolean;
  queries?: string;
  scope?: string;
  level?: string;
  topK?: string;
  mode?: string;
  minScore?: string;
}

function invalid(message: string): never {
  throw new CairnError('INVALID_INPUT', message);
}

function searchRequest(query: string, flags: SearchFlags): CommandRequest<'search:query'> {
  const mode = flags.mode ?? 'hybrid';
  if (!SearchMode.safeParse(mode).success) invalid(`--mode must be one of ${SearchMode.options.join(', ')}, not ${JSON.stringify(mode)}`);
  if (flags.scope !== undefined && !(SCOPES as readonly string[]).includes(flags.scope)) invalid(`--scope must be one of ${SCOPES.join(', ')}`);
  const level = flags.level === undefined ? undefined : Number(flags.level);
  if (level !== undefined && level !== 0 && level !== 1 && level !== 2) invalid('--level must be 0, 1 or 2');
  const topK = Number(flags.topK ?? 10);
  if (!Number.isInteger(topK) || topK < 1) invalid('--top-k must be a positive integer');
  const minScore = flags.minScore === undefined ? undefined : Number(flags.minScore);
  if (minScore !== undefined && !(minScore >= 0 && minScore <= 1)) invalid('--min-score must be a number from 0 to 1');
  return {
    query,
    mode: mode as SearchMode,
    topK,
    ...(flags.scope ? { scope: flags.scope as (typeof SCOPES)[number] } : {}),
    ...(level !== undefined ? { level } : {}),
    ...(minScore !== undefined ? { minScore } : {}),
  };
}

const LEVEL_NAMES = ['abstract', 'overview', 'content'] as const;
/** What a hit under a result is: its section's heading, else its level. */
const hitLabel = (hit: RankedHit) => hit.heading ?? LEVEL_NAMES[hit.level];

function hitLine(hit: RankedHit): string {
  return `${hitLabel(hit)}: ${oneLine(hit.snippet, 100)}`;
}

function resultLines(result: RankedResult): string[] {
  const [best, ...rest] = result.hits as [RankedHit, ...RankedHit[]];
  const more = rest.filter((hit) => !hit.neighbour_of);
  const lines = [`${result.score.toFixed(3)}  ${result.title}  L${best.level} ${result.scope}  ${result.uri}`, `       ${hitLine(best)}`];
  // A message's neighbours it brought in: its context, under it.
  for (const hit of rest.filter((h) => h.neighbour_of)) lines.push(`         in context: ${oneLine(hit.snippet, 100)}`);
  if (more.length > 0) lines.push(`       + ${more.length} more in this document: ${more.map((hit) => `${hitLabel(hit)} (${hit.score.toFixed(2)})`).join(', ')}`);
  if (result.also_at.length > 0) lines.push(`       also at: ${result.also_at.join(', ')}`);
  return lines;
}

/** The ranked list as a person reads it; weak matches last, under a line that says so. */
function printRanked({ ranked, weak_below: floor }: SearchResponse): void {
  if (ranked.length === 0) {
    process.stdout.write('(no hits)\n');
    return;
  }
  const strong = ranked.filter((result) => !result.weak);
  const weak = ranked.filter((result) => result.weak);
  const lines = strong.flatMap(resultLines);
  if (weak.length > 0) {
    lines.push(`-- ${weak.length} weak ${weak.length === 1 ? 'match' : 'matches'} (score under ${floor}): probably not what you are looking for --`);
    lines.push(...weak.flatMap(resultLines));
  }
  process.stdout.write(lines.join('\n') + '\n');
}

export function registerSearch(program: Command): void {
  addIndexOptions(
    program
      .command('search')
      .description('Search the context tree: hybrid (default), fts, vector or hierarchical')
      .argument('[query]', 'what to look for')
      .option('-w, --workspace <dir>', 'workspace folder')
      .option('--queries <file>', 'run one query per line of FILE; prints {"results": [{"query", "hits", "ranked", "weak_below"}]} with --json')
      .option('--scope <scope>', `only this scope: ${SCOPES.join('|')}`)
      .option('-l, --level <n>', 'only this level: 0 abstract, 1 overview, 2 content')
      .option('-k, --top-k <n>', 'hits per query', '10')
      .option('--mode <mode>', `${SearchMode.options.join('|')}`, 'hybrid')
      .option('--min-score <x>', 'leave out hits scoring below this (0 to 1)')
      .option('--json', 'print one JSON document')
      .option('-v, --verbose', 'log more on stderr'),
  ).action(async (query: string | undefined, flags: SearchFlags) => {
    const logger = stderrLogger(Boolean(flags.verbose));
    let engine;
    try {
      if ((query === undefined) === (flags.queries === undefined)) invalid('Give either a query or --queries FILE');
      const { openEngine } = await import('../compose.js');
      engine = await openEngine({ workspace: flags.workspace, workers: 0, logger, index: indexConfig(flags, logger) });
      if (query !== undefined) {
        const response = await engine.call('search:query', searchRequest(query, flags));
        if (flags.json) printJson(response);
        else printRanked(response);
        return;
      }
      const queries = (await readFile(flags.queries!, 'utf8'))
        .split(/\r?\n/)
        .map((line) => line.trim())
        .filter((line) => line !== '');
      const results: ({ query: string } & SearchResponse)[] = [];
      for (const text of queries) results.push({ query: text, ...(await engine.call('search:query', searchRequest(text, flags))) });
      if (flags.json) printJson({ results });
      else
        for (const result of results) {
          process.stdout.write(`# ${result.query}\n`);
          printRanked(result);
        }
    } catch (error) {
      reportError(error, flags);
    } finally {
      await engine?.dispose();
    }
  });

  addIndexOptions(
    program
      .command('reindex')
      .description('Rebuild the search index from the context tree (every scope; safe to run again)')
      .option('-w, --workspace <dir>', 'workspace folder')
      .option('--json', 'print one JSON document')
      .option('-v, --verbose', 'log more on stderr'),
  ).action(async (flags: SearchFlags) => {
    const logger = stderrLogger(Boolean(flags.verbose));
    let engine;
    try {
      const { openEngine } = await import('../compose.js');
      engine = await openEngine({ workspace: flags.workspace, workers: 0, logger, index: indexConfig(flags, logger) });
      const result = await engine.call('index:rebuild', {});
      if (flags.json) printJson(result);
      else process.stdout.write(`Indexed ${formatCount(result.records)} records in ${formatMs(result.ms)}\n`);
    } catch (error) {
      reportError(error, flags);
    } finally {
      await engine?.dispose();
    }
  });
}
