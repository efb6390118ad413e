/**
 * Re-ingesting a changed file replaces its node and its index records. A run that dies between
 * the two steps must not leave records of the old version behind for good: the order is index
 * first, then the tree, so a resumed run still finds the old node and removes both. (The other
 * order left the tree without the node, so the resumed run saw nothing to remove from the index,
 * and searches kept finding sections the file no longer had.) Same for a file whose source is gone.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine, type EngineIndex } from '../../main/engine/engine.js';
import { inProcessParseRunner } from '../../main/engine/parse/runner.js';
import { lazySearchIndex } from '../../main/host/open-index.js';

let root: string;
let source: string;
let workspace: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'cairn-replace-index-'));
  source = join(root, 'notes');
  workspace = join(root, 'ws');
  await mkdir(source, { recursive: true });
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Long enough to be split at its headings into a folder of sections; only the third mentions the zebracorn. */
const OLD = [
  '# Alpha',
  '',
  'The alpha section talks about installing the tool on a fresh machine. '.repeat(60),
  '',
  '# Beta',
  '',
  'Beta covers configuration files, their keys and their defaults. '.repeat(60),
  '',
  '# Zebracorn',
  '',
  'A zebracorn grazes in the third section only, far from the others. '.repeat(60),
  '',
].join('\n');
const NEW = ['# Gamma', '', 'Gamma is all that is left: the quokka section.', ''].join('\n');

/** The real index, with a removeUnder of notes.md that fails once when armed: the run dies at that step. */
function indexFailingOnce(): { index: EngineIndex; arm(): void } {
  const real = lazySearchIndex(workspace, { idleOptimizeMs: 0 });
  let armed = false;
  return {
    arm: () => (armed = true),
    index: {
      ...real,
      async removeUnder(uri) {
        if (armed && /\/notes\.md\/?$/.test(uri)) {
          armed = false;
          throw new Error('the process died here');
        }
        await real.removeUnder(uri);
      },
    },
  };
}

/** What the index itself holds for `text` (the engine's search would also drop hits on nodes that are gone). */
async function searchFts(text: string): Promise<string[]> {
  const index = lazySearchIndex(workspace, { idleOptimizeMs: 0 });
  try {
    return [...new Set((await index.search({ text, mode: 'fts' })).map((hit) => hit.uri))];
  } finally {
    await index.close?.();
  }
}

async function ingestWith(index: EngineIndex): Promise<void> {
  const engine = await createEngine({ workspace, parser: inProcessParseRunner(), index });
  try {
    await engine.call('ingest:start', { path: source, summarize: false });
  } finally {
    await engine.dispose().catch(() => undefined);
  }
}

describe('a run that dies while replacing a node', () => {
  it('leaves no record of the old version once the ingest is resumed', async () => {
    await writeFile(join(source, 'notes.md'), OLD);
    await writeFile(join(source, 'keep.md'), '# Keep\n\nUnchanged.\n');
    await ingestWith(lazySearchIndex(workspace, { idleOptimizeMs: 0 }));
    // Split into sections: the old version is a folder node with a child per section.
    const [zebracorn] = await searchFts('zebracorn');
    expect(zebracorn).toMatch(/^ctx:\/\/resources\/notes\/notes\.md\/./);

    await writeFile(join(source, 'notes.md'), NEW);
    const failing = indexFailingOnce();
    failing.arm();
    await expect(ingestWith(failing.index)).rejects.toThrow(/died here/);
    await ingestWith(lazySearchIndex(workspace, { idleOptimizeMs: 0 }));

    expect(await searchFts('zebracorn')).toEqual([]);
    expect(await searchFts('quokka')).toEqual(['ctx://resources/notes/notes.md']);
  });

  it('leaves no record of a file whose source is gone once the ingest is resumed', async () => {
    await writeFile(join(source, 'notes.md'), OLD);
    await writeFile(join(source, 'keep.md'), '# Keep\n\nUnchanged.\n');
    await ingestWith(lazySearchIndex(workspace, { idleOptimizeMs: 0 }));

    await rm(join(source, 'notes.md'));
    const failing = indexFailingOnce();
    failing.arm();
    await expect(ingestWith(failing.index)).rejects.toThrow(/died here/);
    await ingestWith(lazySearchIndex(workspace, { idleOptimizeMs: 0 }));

    expect(await searchFts('zebracorn')).toEqual([]);
  });
});
