/**
 * The Explorer's Remove… and Rename… against a real engine (temp workspace, real files): the
 * confirmation's counts, then the tree on show following the change.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine, type Engine } from '../../main/engine/engine.js';
import { inProcessParseRunner } from '../../main/engine/parse/runner.js';
import { isValidName, planRemoval, removeNode, renamedUri, renameNode, type EngineCaller, type ExplorerHandle } from '../../renderer/features/explorer/manage-node.js';

let tmp: string;
let engine: Engine;
let client: EngineCaller;

beforeEach(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'cairn-explorer-manage-'));
  await cp(join(import.meta.dirname, '../../assets/sample/docs'), join(tmp, 'docs'), { recursive: true });
  engine = await createEngine({ workspace: join(tmp, 'ws'), parser: inProcessParseRunner() });
  await engine.call('ingest:start', { path: join(tmp, 'docs') });
  client = { call: (command, request) => engine.call(command, request) };
});
/** The explorer store's part these use: listings loaded with fs:ls, the selection, reveal. */
function explorerOf(selected: string) {
  const state = {
    selected: selected as string | null,
    details: {} as unknown,
    listings: {} as Record<string, string[]>,
    async load(uri: string) {
      state.listings[uri] = (await engine.call('fs:ls', { uri })).entries.map((e) => e.name);
    },
    async reveal(uri: string) {
      await engine.call('fs:stat', { uri });
      state.selected = uri;
    },
  };
  const handle: ExplorerHandle = { getState: () => state, setState: (patch) => Object.assign(state, patch) };
  return { handle, state };
}

afterEach(async () => {
  await engine.dispose();
  await rm(tmp, { recursive: true, force: true });
});

describe('Explorer: remove and rename a node', () => {
  it('names what a removal takes, removes it, and drops it from the tree and the selection', async () => {
    const { handle, state } = explorerOf('ctx://resources/docs/architecture.md');
    const plan = await planRemoval(client, 'ctx://resources/docs/');
    expect(plan).toMatchObject({ files: 3 });
    expect(plan.nodes).toBeGreaterThan(3);
    await removeNode(client, handle, 'ctx://resources/docs/');
    expect(state.selected).toBeNull();
    expect(state.listings['ctx://resources/']).toEqual([]);
  });

  it('renames a tree: the listing shows the new name and the selection follows', async () => {
    const { handle, state } = explorerOf('ctx://resources/docs/architecture.md');
    const to = await renameNode(client, handle, 'ctx://resources/docs/', 'handbook');
    expect(to).toBe('ctx://resources/handbook/');
    expect(state.listings['ctx://resources/']).toEqual(['handbook']);
    // The selection follows to a node that exists (reveal stats it).
    expect(state.selected).toBe('ctx://resources/handbook/architecture.md');
  });

  it('checks names before asking the engine', () => {
    expect(isValidName('notes')).toBe(true);
    expect(isValidName('')).toBe(false);
    expect(isValidName('a/b')).toBe(false);
    expect(isValidName('.hidden')).toBe(false);
    expect(renamedUri('ctx://resources/a/b.md', 'c.md')).toBe('ctx://resources/a/c.md');
    expect(renamedUri('ctx://resources/a/', 'z')).toBe('ctx://resources/z/');
  });
});
