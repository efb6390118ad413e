/**
 * Skills (the spec's third context type) and an ingest's reason, on a real engine: real files,
 * the real LanceDB index in a temp workspace. A skill folder and a lone SKILL.md are added into
 * ctx://agent/skills/{name}/, listed with their descriptions, read back with their files, found
 * by search in the agent scope, and updated in place when added again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine, type Engine } from '../../main/engine/engine.js';
import { inProcessParseRunner } from '../../main/engine/parse/runner.js';
import { lazySearchIndex } from '../../main/host/open-index.js';
import { CairnError } from '../../shared/errors.js';

let dir: string;
let workspace: string;
let engine: Engine;

const PDF_SKILL = `---
name: PDF Forms
description: Fill in PDF forms field by field and flatten them for signing.
---
# Filling PDF forms

Open the form with the helper script, list its fields, then write each value.
The quetzalcoatl checklist says to flatten the form before it is signed.
`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cairn-skills-'));
  workspace = join(dir, 'workspace');
  await mkdir(join(dir, 'pdf-skill/scripts'), { recursive: true });
  await writeFile(join(dir, 'pdf-skill/SKILL.md'), PDF_SKILL);
  await writeFile(join(dir, 'pdf-skill/scripts/fill.py'), 'def fill(form, values):\n    for key, value in values.items():\n        form[key] = value\n');
  await writeFile(join(dir, 'pdf-skill/reference.md'), '# Field types\n\nText fields, check boxes and radio groups.\n');
  await mkdir(join(dir, 'commit-helper'));
  await writeFile(join(dir, 'commit-helper/SKILL.md'), '# Writing commit messages\n\nSay what changed and why, in the imperative mood, under seventy characters.\n');
  await mkdir(join(dir, 'no-skill'));
  await writeFile(join(dir, 'no-skill/notes.md'), '# Notes\n');
  engine = await createEngine({ workspace, parser: inProcessParseRunner(), index: lazySearchIndex(workspace, { idleOptimizeMs: 0 }) });
}, 60_000);

afterAll(async () => {
  await engine.dispose();
  await rm(dir, { recursive: true, force: true });
});

describe('skills', () => {
  it('adds a skill folder under ctx://agent/skills/{name}/, named by its front matter, with its helper files', async () => {
    const { skill, result } = await engine.call('skills:add', { path: join(dir, 'pdf-skill') });
    expect(result.root).toBe('ctx://agent/skills/pdf-forms/');
    expect(skill).toMatchObject({ name: 'pdf-forms', uri: 'ctx://agent/skills/pdf-forms/', description: 'Fill in PDF forms field by field and flatten them for signing.' });
    const read = await engine.call('skills:read', { name: 'pdf-forms' });
    expect(read.entry).toBe('ctx://agent/skills/pdf-forms/SKILL.md');
    expect(read.content).toBe(PDF_SKILL);
    expect(read.files.map((f) => f.path).sort()).toEqual(['SKILL.md', 'reference.md', 'scripts/fill.py']);
    expect((await engine.call('fs:stat', { uri: 'ctx://agent/skills/pdf-forms/' })).meta?.context_type).toBe('skill');
  });

  it('adds a lone SKILL.md as a folder of its own, named by the folder it sits in; without a description, its L0 once summarized', async () => {
    const { skill, result } = await engine.call('skills:add', { path: join(dir, 'commit-helper/SKILL.md') });
    expect(result.root).toBe('ctx://agent/skills/commit-helper/');
    expect(skill.description).toBeNull();
    expect((await engine.call('fs:ls', { uri: 'ctx://agent/skills/commit-helper/' })).entries.map((e) => e.name)).toEqual(['SKILL.md']);
    await engine.call('summarize:run', {});
    const { skills } = await engine.call('skills:list', {});
    expect(skills.map((s) => s.name)).toEqual(['commit-helper', 'pdf-forms']);
    const helper = skills.find((s) => s.name === 'commit-helper')!;
    expect(helper.description).toBe((await engine.call('fs:read', { uri: 'ctx://agent/skills/commit-helper/', level: 0 })).content.replace(/\s+/g, ' ').trim());
    expect(helper.description).toMatch(/imperative mood/);
    expect(helper).toMatchObject({ source: join(dir, 'commit-helper/SKILL.md'), summary_status: 'done' });
    // The front matter's description wins over the L0.
    expect(skills.find((s) => s.name === 'pdf-forms')!.description).toBe('Fill in PDF forms field by field and flatten them for signing.');
  });

  it("is found by search in the agent scope, and not in the others'", async () => {
    const { ranked } = await engine.call('search:query', { query: 'quetzalcoatl checklist', scope: 'agent', mode: 'fts' });
    expect(ranked[0]?.uri).toBe('ctx://agent/skills/pdf-forms/SKILL.md');
    expect((await engine.call('search:query', { query: 'quetzalcoatl checklist', scope: 'resources', mode: 'fts' })).ranked).toEqual([]);
  });

  it('added again, updates the skill in place: new text read and searched, removed files gone, no copy beside it', async () => {
    await writeFile(join(dir, 'pdf-skill/SKILL.md'), PDF_SKILL.replace('quetzalcoatl', 'axolotl'));
    await rm(join(dir, 'pdf-skill/reference.md'));
    const { result } = await engine.call('skills:add', { path: join(dir, 'pdf-skill') });
    expect(result.root).toBe('ctx://agent/skills/pdf-forms/');
    expect(result.removed).toBe(1);
    // Summarized again, like a resource: its overview no longer holds the old text either.
    await engine.call('summarize:run', {});
    const read = await engine.call('skills:read', { name: 'pdf-forms' });
    expect(read.content).toContain('axolotl checklist');
    expect(read.files.map((f) => f.path).sort()).toEqual(['SKILL.md', 'scripts/fill.py']);
    expect((await engine.call('skills:list', {})).skills.map((s) => s.name)).toEqual(['commit-helper', 'pdf-forms']);
    expect((await engine.call('search:query', { query: 'axolotl', scope: 'agent', mode: 'fts' })).ranked[0]?.uri).toBe('ctx://agent/skills/pdf-forms/SKILL.md');
    expect((await engine.call('search:query', { query: 'quetzalcoatl', scope: 'agent', mode: 'fts' })).ranked).toEqual([]);

    // The same SKILL.md under another name is another skill; --name wins over the front matter.
    const renamed = await engine.call('skills:add', { path: join(dir, 'pdf-skill'), name: 'Forms (v2)' });
    expect(renamed.result.root).toBe('ctx://agent/skills/forms-v2/');
    await engine.call('fs:rm', { uri: 'ctx://agent/skills/forms-v2/' });
    expect((await engine.call('skills:list', {})).skills.map((s) => s.name)).toEqual(['commit-helper', 'pdf-forms']);
  });

  it('refuses, in one line, a folder without a SKILL.md, a name that slugs to nothing and a skill that is not there', async () => {
    const none = await engine.call('skills:add', { path: join(dir, 'no-skill') }).catch((e: unknown) => e);
    expect(CairnError.is(none, 'INVALID_INPUT')).toBe(true);
    expect((none as Error).message).toBe(`${join(dir, 'no-skill')} holds no SKILL.md: a skill is a folder with a SKILL.md (and any helper files), or a SKILL.md alone`);
    const nameless = await engine.call('skills:add', { path: join(dir, 'pdf-skill'), name: '!!! ---' }).catch((e: unknown) => e);
    expect(CairnError.is(nameless, 'INVALID_INPUT')).toBe(true);
    expect((nameless as Error).message).toMatch(/^The skill name "!!! ---" has no letters or digits/);
    const missing = await engine.call('skills:read', { name: 'nope' }).catch((e: unknown) => e);
    expect(CairnError.is(missing, 'NOT_FOUND')).toBe(true);
    for (const error of [none, nameless, missing]) expect((error as Error).message).not.toContain('\n');
    expect(await readFile(join(dir, 'no-skill/notes.md'), 'utf8')).toBe('# Notes\n');
    expect((await engine.call('fs:ls', { uri: 'ctx://agent/skills/' })).entries.map((e) => e.name)).toEqual(['commit-helper', 'pdf-forms']);
  });
});

describe("an ingest's reason", () => {
  it("is kept on the root's meta, kept by a later ingest without one, and replaced by a new one", async () => {
    const source = join(dir, 'notes');
    await mkdir(source);
    await writeFile(join(source, 'todo.md'), '# To do\n\nRenew the certificate.\n');
    const first = await engine.call('ingest:start', { path: source, options: { reason: 'the on-call runbook asks for these' } });
    const metaOf = async () => (await engine.call('fs:stat', { uri: first.root })).meta;
    expect((await metaOf())?.reason).toBe('the on-call runbook asks for these');
    await writeFile(join(source, 'todo.md'), '# To do\n\nRenew the certificate by Friday.\n');
    await engine.call('ingest:start', { path: source });
    expect((await metaOf())?.reason).toBe('the on-call runbook asks for these');
    await engine.call('ingest:start', { path: source, options: { reason: 'audit, 2026' } });
    expect((await metaOf())?.reason).toBe('audit, 2026');
    // A skill's reason too, and a single file's.
    await engine.call('skills:add', { path: join(dir, 'commit-helper/SKILL.md'), reason: 'for the release branch' });
    expect((await engine.call('fs:stat', { uri: 'ctx://agent/skills/commit-helper/' })).meta?.reason).toBe('for the release branch');
    const file = await engine.call('ingest:start', { path: join(source, 'todo.md'), options: { name: 'todo-copy.md', reason: 'one file' } });
    expect((await engine.call('fs:stat', { uri: file.root })).meta?.reason).toBe('one file');
  });
});
