/**
 * `cairn skills add|list|read|rm`: skills, the instructions an agent can use, kept at
 * ctx://agent/skills/{name}/ (main/engine/skills/). `add` is an ingest underneath (it waits for
 * the workspace like `ingest`, and summarizes the skill unless --no-summarize); `rm` is `cairn rm`
 * on the skill's URI.
 */
import type { Command } from 'commander';
import type { SkillSummary } from '../../../shared/types/skill.js';
import { formatCount } from '../../../shared/format.js';
import { addLockOptions } from '../lock-flags.js';
import { oneLine, printJson } from '../output.js';
import { withWriterEngine, type WriterFlags } from '../writer-engine.js';

interface SkillFlags extends WriterFlags {
  name?: string;
  reason?: string;
  summarize?: boolean;
}

const common = (command: Command) =>
  command.option('-w, --workspace <dir>', 'workspace folder').option('--json', 'print one JSON document').option('-v, --verbose', 'log more on stderr');

export function registerSkills(program: Command): void {
  const skills = program.command('skills').description('Skills: instructions an agent can use, in ctx://agent/skills/{name}/ (summarized and searchable like resources)');

  addLockOptions(
    common(
      skills
        .command('add')
        .description('Add a skill, or update it in place when it is there: a folder with a SKILL.md (and helper files), or a SKILL.md alone')
        .argument('<path>', 'the skill folder, or its SKILL.md')
        .option('--name <name>', "the skill's name (default: the SKILL.md's front-matter name:, else the folder's name); slugged")
        .option('--reason <text>', 'why it was added, kept on the skill (shown in the Explorer)')
        .option('--no-summarize', 'only build the tree; leave its L0/L1 summaries queued'),
    ),
  ).action((path: string, flags: SkillFlags) =>
    withWriterEngine(flags, async (engine) => {
      const added = await engine.call('skills:add', {
        path,
        ...(flags.name !== undefined ? { name: flags.name } : {}),
        ...(flags.reason !== undefined ? { reason: flags.reason } : {}),
        summarize: flags.summarize !== false,
      });
      // Summarized now, so its description falls back to a real L0 and its overview is searchable.
      if (flags.summarize !== false) await engine.call('summarize:run', { uri: added.result.root });
      const { skill } = await engine.call('skills:read', { name: added.skill.name });
      if (flags.json) return printJson({ skill, result: added.result });
      const r = added.result;
      const what = r.changed === 0 && r.removed === 0 ? 'unchanged' : `${formatCount(r.files)} files, ${formatCount(r.changed)} new or changed, ${formatCount(r.removed)} removed`;
      process.stdout.write(`Added the skill ${skill.name} → ${skill.uri} (${what})\n${skill.description ? `  ${oneLine(skill.description, 160)}\n` : ''}`);
    }),
  );

  common(skills.command('list').description('The skills, each with its one-line description')).action((flags: SkillFlags) =>
    withWriterEngine(flags, async (engine) => {
      const { skills: list } = await engine.call('skills:list', {});
      if (flags.json) return printJson({ skills: list });
      if (list.length === 0) return void process.stdout.write('No skills yet (cairn skills add <folder or SKILL.md>).\n');
      const width = Math.max(...list.map((s) => s.name.length));
      process.stdout.write(list.map((s) => `${s.name.padEnd(width)}  ${describe(s)}`).join('\n') + '\n');
    }),
  );

  common(skills.command('read').description("A skill's SKILL.md and the list of its files").argument('<name>', 'the skill, as `cairn skills list` names it')).action(
    (name: string, flags: SkillFlags) =>
      withWriterEngine(flags, async (engine) => {
        const read = await engine.call('skills:read', { name });
        if (flags.json) return printJson(read);
        const files = read.files.map((f) => `  ${f.uri}`).join('\n');
        process.stdout.write(`${read.content.trimEnd()}\n\n--- ${read.skill.uri}: ${formatCount(read.files.length)} files\n${files}\n`);
      }),
  );

  addLockOptions(common(skills.command('rm').description('Remove a skill: its files, summaries and search records').argument('<name>', 'the skill, as `cairn skills list` names it'))).action(
    (name: string, flags: SkillFlags) =>
      withWriterEngine(flags, async (engine) => {
        const { skill } = await engine.call('skills:read', { name });
        const result = await engine.call('fs:rm', { uri: skill.uri });
        if (flags.json) return printJson(result);
        process.stdout.write(`Removed the skill ${skill.name} (${result.uri}, ${formatCount(result.files)} files)\n`);
      }),
  );
}

function describe(skill: SkillSummary): string {
  if (skill.description) return oneLine(skill.description, 100);
  return skill.summary_status === 'done' || skill.summary_status === 'fallback' ? '(no description)' : '(not summarized yet)';
}
