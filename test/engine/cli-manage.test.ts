/**
 * `cairn rm` and `cairn mv` as a person runs them (the built CLI): a dry run says what goes, mv
 * renames with search following, rm removes, and both wait for an ingest holding the workspace
 * (or refuse with --no-wait, exit 3).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCli, generateTree, indexVersusTree, ROOT, runCli } from '../reliability/support.js';
import { prng } from '../support/prng.js';

let tmp: string;
let workspace: string;

beforeAll(async () => {
  buildCli();
  tmp = await mkdtemp(join(tmpdir(), 'cairn-cli-manage-'));
  workspace = join(tmp, 'ws');
  await cp(join(ROOT, 'assets/sample/docs'), join(tmp, 'handbook'), { recursive: true });
  const run = await runCli(['ingest', join(tmp, 'handbook'), '--workspace', workspace, '--workers', '0', '--json']);
  expect(run.code, run.stderr).toBe(0);
}, 240_000);
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('cairn rm and cairn mv', () => {
  it('renames with search following, says what a removal takes, and removes', async () => {
    const mv = await runCli(['mv', 'ctx://resources/handbook/', 'ctx://resources/manual/', '--workspace', workspace]);
    expect(mv.code, mv.stderr).toBe(0);
    expect(mv.stdout).toMatch(/^Moved ctx:\/\/resources\/handbook\/ → ctx:\/\/resources\/manual\/ \(\d+ nodes, \d+ search records\)\n$/);
    const search = await runCli(['search', 'storm uplink', '--workspace', workspace, '--json']);
    const uris = (JSON.parse(search.stdout) as { hits: { uri: string }[] }).hits.map((h) => h.uri);
    expect(uris.length).toBeGreaterThan(0);
    expect(uris.every((uri) => uri.startsWith('ctx://resources/manual/'))).toBe(true);

    const dry = await runCli(['rm', 'ctx://resources/manual/', '--dry-run', '--workspace', workspace]);
    expect(dry.stdout).toMatch(/^Would remove ctx:\/\/resources\/manual\/: 3 files, \d+ sections \(\d+ nodes\)\n$/);
    expect(existsSync(join(workspace, 'resources/manual'))).toBe(true);
    const removed = await runCli(['rm', 'ctx://resources/manual/', '--workspace', workspace, '--json']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(JSON.parse(removed.stdout)).toMatchObject({ uri: 'ctx://resources/manual/', files: 3, removed: true });
    expect(existsSync(join(workspace, 'resources/manual'))).toBe(false);
    const { wanted, ids } = await indexVersusTree(workspace);
    expect(new Set(ids)).toEqual(wanted);
    expect(ids).toEqual([]);

    const missing = await runCli(['rm', 'ctx://resources/manual/', '--workspace', workspace]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^cairn: NOT_FOUND: /);
  }, 240_000);

  it('waits for an ingest that holds the workspace, or refuses with --no-wait', async () => {
    const source = join(tmp, 'harbour');
    await generateTree(source, 300, prng(3), { sections: 3, sentences: 30 });
    const ingest = runCli(['ingest', source, '--workspace', workspace, '--workers', '1']);
    for (let i = 0; i < 600; i++) {
      if ((await readFile(join(workspace, '.cairn/queue/outbox.lock'), 'utf8').catch(() => '')).includes('the ingest of')) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    const refused = await runCli(['mv', 'ctx://resources/harbour/', 'ctx://resources/port/', '--workspace', workspace, '--no-wait']);
    expect(refused.code, refused.stderr).toBe(3);
    expect(refused.stderr).toMatch(/^cairn: LOCKED: .*the ingest of .*harbour/);
    const waited = await runCli(['mv', 'ctx://resources/harbour/', 'ctx://resources/port/', '--workspace', workspace]);
    expect(waited.code, waited.stderr).toBe(0);
    expect(waited.stderr).toMatch(/cairn: waiting for the ingest of .*harbour, pid \d+/);
    expect((await ingest).code).toBe(0);
    const { wanted, ids } = await indexVersusTree(workspace);
    expect(ids.length).toBe(new Set(ids).size);
    expect(new Set(ids)).toEqual(wanted);
    expect(ids.some((id) => id.startsWith('ctx://resources/port/'))).toBe(true);
  }, 300_000);
});
