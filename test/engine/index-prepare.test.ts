/**
 * The engine opens the search index with an ingest's first parse (an unchanged tree never opens
 * it) and waits for it before a summary run: opening it loads LanceDB and the embedder's lexicon, synchronous CPU that would otherwise
 * land in the middle of a run and hold up every LLM answer in flight (DAG bench, issue 4).
 * An ingest that the caller follows with its summary run at once leaves the index's optimize to
 * that run's end (issue 20: one compaction and index rebuild instead of two back to back).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine, type Engine, type EngineIndex } from '../../main/engine/engine.js';
import { inProcessParseRunner } from '../../main/engine/parse/runner.js';
import type { IndexInput } from '../../main/engine/ports/context-index.js';
import { createLocalEmbedder } from '../../main/adapters/embed/local.js';
import { lexiconLoaded } from '../../main/adapters/embed/lexicon.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** An index that opens when the test says so, and records what happened in which order. */
function indexOpenedByHand() {
  const log: string[] = [];
  const optimize = async () => void log.push('optimize');
  let open!: () => void;
  const opening = new Promise<void>((resolve) => (open = resolve)).then(() => void log.push('opened'));
  const index: EngineIndex = {
    prepare() {
      log.push('prepare');
      return opening;
    },
    async upsert(_records: IndexInput[]) {},
    async removeUnder() {},
    optimize,
  };
  return { index, log, open };
}

async function engineOver(index: EngineIndex): Promise<{ engine: Engine; folder: string }> {
  const root = await mkdtemp(join(tmpdir(), 'cairn-prepare-'));
  cleanup.push(() => rm(root, { recursive: true, force: true }));
  const folder = join(root, 'docs');
  await mkdir(join(folder, 'guide'), { recursive: true });
  await writeFile(join(folder, 'readme.md'), '# Readme\n\nHow to install the tool and run it.\n');
  await writeFile(join(folder, 'guide', 'usage.md'), '# Usage\n\nThe commands and their options.\n');
  const engine = await createEngine({ workspace: join(root, 'ws'), parser: inProcessParseRunner(), index });
  cleanup.push(() => engine.dispose());
  return { engine, folder };
}

describe('opening the index ahead of the work', () => {
  it('starts opening the index with the first file an ingest parses, and a summary run begins only once it is open', async () => {
    const { index, log, open } = indexOpenedByHand();
    const { engine, folder } = await engineOver(index);
    const { root } = await engine.call('ingest:start', { path: folder, summarize: false, summaryFollows: true });
    expect(log).toEqual(['prepare']);
    const run = engine.call('summarize:run', { uri: root }, { onEvent: (event) => log.push(event.type) });
    await new Promise((resolve) => setTimeout(resolve, 150));
    // Claimed, but nothing dispatched while the index is still opening.
    expect(log).toContain('dag/started');
    expect(log).not.toContain('dag/dir-dispatched');
    open();
    const { runs } = await run;
    expect(runs).toHaveLength(1);
    expect(runs[0]!.dirs_done).toBe(2);
    expect(log.indexOf('dag/dir-dispatched')).toBeGreaterThan(log.indexOf('opened'));
  });

  it('never opens the index for a re-ingest of an unchanged tree (nothing to parse, nothing to write)', async () => {
    const first = indexOpenedByHand();
    first.open();
    const { engine, folder } = await engineOver(first.index);
    await engine.call('ingest:start', { path: folder, summarize: false });
    expect(first.log).toContain('prepare');
    const before = first.log.length;
    const again = await engine.call('ingest:start', { path: folder, summarize: false });
    expect(again.changed).toBe(0);
    expect(first.log.slice(before)).not.toContain('prepare');
  });

  it('warms the local embedder up: its lexicon is loaded before the first embed', async () => {
    // Each test file runs in a fresh worker: nothing here has read the lexicon yet.
    expect(lexiconLoaded()).toBe(false);
    const embedder = createLocalEmbedder();
    await embedder.warmUp?.();
    expect(lexiconLoaded()).toBe(true);
  });
});

describe('optimizing the index after an ingest', () => {
  it('leaves it to the summary run when the caller says one follows, and optimizes once, when that run ends', async () => {
    const { index, log, open } = indexOpenedByHand();
    open();
    const { engine, folder } = await engineOver(index);
    const { root, changed } = await engine.call('ingest:start', { path: folder, summarize: false, summaryFollows: true });
    expect(changed).toBeGreaterThan(0);
    expect(log).not.toContain('optimize');
    await engine.call('summarize:run', { uri: root }, { onEvent: (event) => log.push(event.type) });
    expect(log.filter((entry) => entry === 'optimize')).toHaveLength(1);
    expect(log.at(-1)).toBe('optimize');
    expect(log.lastIndexOf('dag/finished')).toBeLessThan(log.lastIndexOf('optimize'));
  });

  it('optimizes at the end of the ingest otherwise', async () => {
    const { index, log, open } = indexOpenedByHand();
    open();
    const { engine, folder } = await engineOver(index);
    await engine.call('ingest:start', { path: folder, summarize: false });
    expect(log.filter((entry) => entry === 'optimize')).toHaveLength(1);
  });
});
