/**
 * Skills and `--reason` as a person and an agent use them: the built CLI (`cairn skills add|list|
 * read|rm`, `cairn ingest --reason`, `cairn stat`, `cairn search --scope agent`) and the real MCP
 * server (`cairn mcp`) over stdio, on real files and a real LanceDB index in a temp workspace.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { SkillSummary } from '../../shared/types/skill.js';
import { buildCli, CLI, runCli } from '../reliability/support.js';

let tmp: string;
let workspace: string;
const clients: Client[] = [];

const cairn = (...args: string[]) => runCli([...args, '--workspace', workspace]);

async function connect(...flags: string[]): Promise<Client> {
  const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => typeof e[1] === 'string'));
  const client = new Client({ name: 'cairn-skills-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--workspace', workspace, ...flags], env, stderr: 'pipe' }));
  clients.push(client);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult & { text: string }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  return { ...result, text: result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n') };
}

beforeAll(async () => {
  buildCli();
  tmp = await mkdtemp(join(tmpdir(), 'cairn-cli-skills-'));
  workspace = join(tmp, 'ws');
  await mkdir(join(tmp, 'deploy/scripts'), { recursive: true });
  await writeFile(
    join(tmp, 'deploy/SKILL.md'),
    '---\nname: Blue-green deploy\ndescription: >\n  Ship a release with no downtime,\n  switching traffic only after the smoke tests pass.\n---\n# Blue-green deploys\n\nStart the idle colour, run the marmoset smoke suite, then switch the router.\n',
  );
  await writeFile(join(tmp, 'deploy/scripts/switch.sh'), '#!/bin/sh\nrouter switch "$1"\n');
  await mkdir(join(tmp, 'triage'));
  await writeFile(join(tmp, 'triage/SKILL.md'), '# Triage\n\nLabel each new issue by area, then ask for a reproduction.\n');
  await mkdir(join(tmp, 'empty'));
  await writeFile(join(tmp, 'empty/README.md'), '# Not a skill\n');
  await mkdir(join(tmp, 'notes'));
  await writeFile(join(tmp, 'notes/todo.md'), '# To do\n\nRenew the certificate.\n');
}, 240_000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await rm(tmp, { recursive: true, force: true });
});

describe('cairn skills', () => {
  it('adds a folder and a lone SKILL.md, lists them with descriptions, reads one, finds it by search, updates in place, removes', async () => {
    const added = await cairn('skills', 'add', join(tmp, 'deploy'), '--reason', 'the release checklist points here');
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toMatch(/^Added the skill blue-green-deploy → ctx:\/\/agent\/skills\/blue-green-deploy\/ \(2 files, /);
    expect(added.stdout).toContain('Ship a release with no downtime, switching traffic only after the smoke tests pass.');
    const lone = await cairn('skills', 'add', join(tmp, 'triage/SKILL.md'), '--json');
    expect(lone.code, lone.stderr).toBe(0);
    expect(JSON.parse(lone.stdout).skill).toMatchObject({ name: 'triage', uri: 'ctx://agent/skills/triage/', summary_status: 'done' });

    const listed = await cairn('skills', 'list', '--json');
    const skills = (JSON.parse(listed.stdout) as { skills: SkillSummary[] }).skills;
    expect(skills.map((s) => s.name)).toEqual(['blue-green-deploy', 'triage']);
    expect(skills[0]!.description).toBe('Ship a release with no downtime, switching traffic only after the smoke tests pass.');
    // No description in its front matter: its L0, written by the summary run of `skills add`.
    expect(skills[1]!.description).toMatch(/Label each new issue by area/);
    const text = await cairn('skills', 'list');
    expect(text.stdout.split('\n')[0]).toBe('blue-green-deploy  Ship a release with no downtime, switching traffic only after the smoke tests pass.');

    const read = await cairn('skills', 'read', 'blue-green-deploy');
    expect(read.stdout).toContain('run the marmoset smoke suite');
    expect(read.stdout).toContain('ctx://agent/skills/blue-green-deploy/scripts/switch.sh');

    const search = await cairn('search', 'marmoset smoke suite', '--scope', 'agent', '--json');
    expect(search.code, search.stderr).toBe(0);
    expect((JSON.parse(search.stdout) as { ranked: { uri: string }[] }).ranked[0]?.uri).toBe('ctx://agent/skills/blue-green-deploy/SKILL.md');

    const stat = await cairn('stat', 'ctx://agent/skills/blue-green-deploy/', '--json');
    expect(JSON.parse(stat.stdout).meta).toMatchObject({ context_type: 'skill', reason: 'the release checklist points here' });

    await writeFile(join(tmp, 'triage/SKILL.md'), '# Triage\n\nLabel each new issue by area and severity, then ask for a reproduction.\n');
    const again = await cairn('skills', 'add', join(tmp, 'triage/SKILL.md'), '--json');
    expect(JSON.parse(again.stdout).result).toMatchObject({ root: 'ctx://agent/skills/triage/', changed: expect.any(Number) });
    expect((await cairn('skills', 'read', 'triage')).stdout).toContain('by area and severity');
    expect((JSON.parse((await cairn('skills', 'list', '--json')).stdout) as { skills: SkillSummary[] }).skills).toHaveLength(2);

    const removed = await cairn('skills', 'rm', 'triage');
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toBe('Removed the skill triage (ctx://agent/skills/triage/, 1 files)\n');
    expect((JSON.parse((await cairn('skills', 'list', '--json')).stdout) as { skills: SkillSummary[] }).skills.map((s) => s.name)).toEqual(['blue-green-deploy']);
  }, 240_000);

  it('says in one line what is wrong: a folder without a SKILL.md, a name that slugs to nothing', async () => {
    const none = await cairn('skills', 'add', join(tmp, 'empty'));
    expect(none.code).toBe(2);
    expect(none.stderr).toBe(`cairn: INVALID_INPUT: ${join(tmp, 'empty')} holds no SKILL.md: a skill is a folder with a SKILL.md (and any helper files), or a SKILL.md alone. See \`cairn skills add --help\`.\n`);
    const nameless = await cairn('skills', 'add', join(tmp, 'deploy'), '--name', '***');
    expect(nameless.code).toBe(2);
    expect(nameless.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(nameless.stderr).toMatch(/^cairn: INVALID_INPUT: The skill name "\*\*\*" has no letters or digits to make a name of; give one with --name/);
  }, 120_000);
});

describe('cairn ingest --reason', () => {
  it("keeps the reason on the root's meta, shown by cairn stat", async () => {
    const run = await cairn('ingest', join(tmp, 'notes'), '--reason', 'the on-call runbook links these', '--workers', '0', '--json');
    expect(run.code, run.stderr).toBe(0);
    const stat = await cairn('stat', 'ctx://resources/notes/', '--json');
    expect(JSON.parse(stat.stdout).meta.reason).toBe('the on-call runbook links these');
    expect((await cairn('stat', 'ctx://resources/notes/')).stdout).toMatch(/^reason {4}the on-call runbook links these$/m);
  }, 120_000);
});

describe('cairn mcp: skills', () => {
  it('lists and reads skills read-only; add_skill and add_resource write with --allow-write', async () => {
    const reader = await connect();
    const list = await call(reader, 'list_skills', {});
    expect(list.isError).toBeFalsy();
    expect((list.structuredContent as { skills: SkillSummary[] }).skills.map((s) => s.name)).toEqual(['blue-green-deploy']);
    expect(list.text).toContain('blue-green-deploy: Ship a release with no downtime');
    const skill = await call(reader, 'read_skill', { name: 'blue-green-deploy' });
    const content = skill.structuredContent as { content: string; entry: string; files: { uri: string }[] };
    expect(content.entry).toBe('ctx://agent/skills/blue-green-deploy/SKILL.md');
    expect(content.content).toMatch(/^---\nname: Blue-green deploy\n/);
    expect(content.files.map((f) => f.uri).sort()).toEqual(['ctx://agent/skills/blue-green-deploy/SKILL.md', 'ctx://agent/skills/blue-green-deploy/scripts/switch.sh']);
    expect(skill.text).toContain('run the marmoset smoke suite');
    const missing = await call(reader, 'read_skill', { name: 'nope' });
    expect(missing.isError).toBe(true);
    expect(missing.text).toMatch(/^NOT_FOUND: No skill named "nope"/);
    const refused = await call(reader, 'add_skill', { path: join(tmp, 'triage') });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/^READ_ONLY: add_skill is refused/);

    const writer = await connect('--allow-write');
    const addedSkill = await call(writer, 'add_skill', { path: join(tmp, 'triage'), reason: 'asked for by the agent' });
    expect(addedSkill.isError, addedSkill.text).toBeFalsy();
    expect((addedSkill.structuredContent as { skill: SkillSummary }).skill).toMatchObject({ name: 'triage', summary_status: 'done' });
    expect(((await call(writer, 'list_skills', {})).structuredContent as { skills: SkillSummary[] }).skills.map((s) => s.name)).toEqual(['blue-green-deploy', 'triage']);

    await mkdir(join(tmp, 'papers'));
    await writeFile(join(tmp, 'papers/raft.md'), '# Raft\n\nLeader election with randomized timeouts.\n');
    const resource = await call(writer, 'add_resource', { path: join(tmp, 'papers'), reason: 'background for the consensus question' });
    expect(resource.isError, resource.text).toBeFalsy();
    expect(resource.structuredContent).toMatchObject({ root: 'ctx://resources/papers/', reason: 'background for the consensus question' });
    const stat = await cairn('stat', 'ctx://resources/papers/', '--json');
    expect(JSON.parse(stat.stdout).meta).toMatchObject({ reason: 'background for the consensus question', summary_status: 'done' });
  }, 240_000);
});
