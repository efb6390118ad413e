/**
 * Review before commit and pinned edits (issue 17, items 4 and 5), through the engine's contract
 * on a real workspace with a real LanceDB index: the trigger proposes (nothing is written), the
 * person accepts, edits or rejects; a rejected candidate is not proposed again, even by a new
 * engine; a memory the person edited is pinned, and committing the conversation again neither
 * merges the machine's text back into it nor reports a contradiction that is not there.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine, type Engine } from '../../main/engine/engine.js';
import { inProcessParseRunner } from '../../main/engine/parse/runner.js';
import { lazySearchIndex } from '../../main/host/open-index.js';
import { CairnError } from '../../shared/errors.js';
import { repoRoot } from '../support/rpc-bundle.js';

const DEPLOY = join(repoRoot, 'test/fixtures/conversations/deploy-staging-failing.json');
const ID = 'deploy-staging-failing';
/** The preference the trigger proposes from message s1:13, and how the person rewrote it. */
const PREFERENCE_MESSAGE = 's1:13';
const EDITED = 'Maya would rather not pay for larger runners. The build must fit on the free runner, not a paid one.';

let workspace: string;
let engine: Engine;

const open = () => createEngine({ workspace, parser: inProcessParseRunner(), index: lazySearchIndex(workspace, { idleOptimizeMs: 0 }) });

beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'cairn-review-'));
  engine = await open();
  await engine.call('sessions:import', { path: DEPLOY });
}, 60_000);
afterEach(async () => {
  await engine?.dispose();
  await rm(workspace, { recursive: true, force: true });
});

const preferenceOf = <T extends { category: string; message_ids: string[] }>(list: T[]): T | undefined => list.find((m) => m.category === 'preference' && m.message_ids.includes(PREFERENCE_MESSAGE));

describe('review before commit', () => {
  it('proposes candidates with what a person needs to decide, and commits nothing', async () => {
    const proposal = await engine.call('sessions:propose', { id: ID });
    expect(proposal.action).toBe('COORDINATED_EXTRACTION');
    expect(proposal.candidates.length).toBeGreaterThan(3);
    for (const c of proposal.candidates) {
      expect(c.id).toMatch(/^cand_[0-9a-f]{16}/);
      expect(c.candidate.title.length).toBeGreaterThan(0);
      expect(c.candidate.content.length).toBeGreaterThan(0);
      expect(c.candidate.confidence).toBeGreaterThan(0);
      expect(c.candidate.message_ids.length).toBeGreaterThan(0);
    }
    // The gate: some are below the automatic-commit confidence and wait for a person.
    expect(proposal.candidates.some((c) => c.auto)).toBe(true);
    expect(proposal.candidates.some((c) => !c.auto)).toBe(true);
    expect((await engine.call('memories:list', {})).memories).toEqual([]);
    // The same analysis proposes the same ids.
    expect((await engine.call('sessions:propose', { id: ID })).candidates.map((c) => c.id)).toEqual(proposal.candidates.map((c) => c.id));
  }, 60_000);

  it('does not propose or commit a rejected candidate again, across engines', async () => {
    const proposal = await engine.call('sessions:propose', { id: ID });
    const rejectedId = proposal.candidates.find((c) => preferenceOf([c.candidate]))!.id;
    expect(await engine.call('sessions:reject', { id: ID, candidates: [rejectedId] })).toEqual({ rejected: 1 });
    const stored = JSON.parse(await readFile(join(workspace, '.cairn/memory-rejections.json'), 'utf8'));
    expect(stored.rejected).toMatchObject([{ category: 'preference', message_ids: [PREFERENCE_MESSAGE], conversation_id: ID }]);

    await engine.dispose();
    engine = await open();
    const again = await engine.call('sessions:propose', { id: ID });
    expect(again.rejected).toBe(1);
    expect(again.candidates.map((c) => c.id)).not.toContain(rejectedId);
    expect(again.candidates).toHaveLength(proposal.candidates.length - 1);
    // What the trigger commits by itself (--yes) leaves it out too.
    await engine.call('sessions:commit', { id: ID });
    expect(preferenceOf((await engine.call('memories:list', { limit: 1000 })).memories)).toBeUndefined();
    // Accepting it by its old id is refused in one line.
    const error = await engine.call('sessions:accept', { id: ID, accept: [{ candidate: rejectedId }] }).catch((e: unknown) => e);
    expect(CairnError.is(error, 'NOT_FOUND')).toBe(true);
  }, 90_000);

  it('commits an accepted candidate as proposed, and an edited one as the person wrote it, pinned', async () => {
    const proposal = await engine.call('sessions:propose', { id: ID });
    // Two that stay apart (a candidate may merge with an earlier one when both are accepted).
    const [plain, edited] = proposal.candidates.filter((c) => c.kind === 'add' && c.candidate.category === 'semantic' && !c.reason.includes('when both are accepted'));
    const result = await engine.call('sessions:accept', { id: ID, accept: [{ candidate: plain!.id }, { candidate: edited!.id, content: 'Skip tsc and eslint in the build: the lint job runs them.' }] });
    expect(result.changes.map((c) => c.op)).toEqual(['add', 'add']);
    expect(result.changes[0]!.after).toMatchObject({ content: plain!.candidate.content, message_ids: plain!.candidate.message_ids });
    expect(result.changes[0]!.after?.pinned).toBeUndefined();
    expect(result.changes[1]!.after).toMatchObject({ content: 'Skip tsc and eslint in the build: the lint job runs them.', message_ids: edited!.candidate.message_ids, pinned: true });
    expect((await engine.call('memories:list', {})).memories).toHaveLength(2);
    // Accepted ones are known now: not proposed again.
    const again = await engine.call('sessions:propose', { id: ID });
    expect(again.candidates.map((c) => c.id)).not.toContain(plain!.id);
    expect(again.known).toBeGreaterThanOrEqual(1);
  }, 60_000);
});

describe('edits are the person’s (issue 17: re-commit after an edit)', () => {
  it('keeps an edited memory as the person wrote it on re-commit, reports no contradiction, and proposes the update for review', async () => {
    await engine.call('sessions:commit', { id: ID });
    const memory = preferenceOf((await engine.call('memories:list', { limit: 1000 })).memories)!;
    expect(memory).toBeDefined();
    const { change } = await engine.call('memories:edit', { id: memory.id, patch: { content: EDITED } });

    const again = await engine.call('sessions:commit', { id: ID });
    const mine = again.changes.filter((c) => c.memory_id === memory.id);
    expect(mine.length).toBeGreaterThan(0);
    for (const c of mine) expect(c.reason).not.toMatch(/contradict/);
    const after = (await engine.call('memories:get', { id: memory.id })).memory;
    expect(after.content).toBe(EDITED);
    expect(change.after?.pinned).toBe(true);
    expect(after.pinned).toBe(true);
    expect(mine.every((c) => c.op === 'none')).toBe(true);
    expect((await engine.call('memories:history', { id: memory.id })).changes.map((c) => c.reason)).toEqual(['new fact', 'edited by user']);

    // The review shows the machine's update as a diff to accept: kind 'update', before and after.
    const proposal = await engine.call('sessions:propose', { id: ID });
    const update = proposal.candidates.find((c) => c.kind === 'update' && c.before?.id === memory.id)!;
    expect(update).toMatchObject({ auto: false, before: { content: EDITED, pinned: true } });
    expect(update.after?.content).toContain(EDITED);
    expect(update.after?.content).not.toBe(EDITED);
    const accepted = await engine.call('sessions:accept', { id: ID, accept: [{ candidate: update.id }] });
    expect(accepted.changes[0]).toMatchObject({ op: 'update', memory_id: memory.id, after: { pinned: true } });
    expect((await engine.call('memories:get', { id: memory.id })).memory.content).toBe(update.after?.content);
  }, 90_000);
});
