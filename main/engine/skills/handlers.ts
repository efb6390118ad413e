/**
 * skills:add, skills:list and skills:read, spread into the engine's handlers. A skill is the
 * spec's third context type: instructions an agent can use, kept at ctx://agent/skills/{name}/.
 * It is added through the ingest (parse, tree builder, queue, index) like any folder, so it is
 * summarized like a resource and found by search in the agent scope; this module only decides
 * its name and reads its SKILL.md back. Removal is fs:rm on the skill's URI.
 */
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import type { SkillSummary } from '../../../shared/types/skill.js';
import { CairnError, errorMessage } from '../../../shared/errors.js';
import type { NodeEntry, NodeMeta } from '../../../shared/types/node.js';
import { childUri } from '../../../shared/uri.js';
import type { CommandHandlers, Handler } from '../command-handlers.js';
import type { ContextFS } from '../tree/context-fs.js';
import { frontMatter, isSkillFile, SKILL_FILE, skillName, skillSlug } from './skill-file.js';

export const SKILLS_ROOT = 'ctx://agent/skills/';

export interface SkillHandlerDeps {
  fs: ContextFS;
  /** The engine's ingest:start: a skill goes in the way every tree does. */
  ingest: Handler<'ingest:start'>;
}

export function skillHandlers(deps: SkillHandlerDeps): Pick<CommandHandlers, 'skills:add' | 'skills:list' | 'skills:read'> {
  const { fs } = deps;
  return {
    'skills:add': async (request, ctx) => {
      const source = await resolveSource(request.path);
      const isFile = (await stat(source)).isFile();
      const text = await readFile(isFile ? source : await skillFileIn(source, request.path), 'utf8');
      const asked = skillName({ asked: request.name, fromFrontMatter: frontMatter(text).name, source, isFile });
      const name = skillSlug(asked);
      if (!name) throw new CairnError('INVALID_INPUT', `The skill name ${JSON.stringify(asked)} has no letters or digits to make a name of; give one with --name`);
      const result = await deps.ingest(
        {
          path: source,
          // The same name always lands on the same folder, so adding a skill again updates it in place.
          options: { scope: 'agent', under: 'skills', name, asFolder: true, onClash: 'update', ...(request.reason ? { reason: request.reason } : {}) },
          ...(request.summarize !== undefined ? { summarize: request.summarize } : {}),
        },
        ctx,
      );
      return { skill: await skillAt(fs, result.root), result };
    },
    'skills:list': async () => {
      if ((await fs.kindOf(SKILLS_ROOT)) !== 'dir') return { skills: [] };
      const children = (await fs.lsWithMeta(SKILLS_ROOT)).filter(({ entry }) => entry.kind === 'dir');
      return { skills: await Promise.all(children.map(({ entry, meta }) => skillAt(fs, entry.uri, { entry, meta }))) };
    },
    'skills:read': async (request) => {
      const uri = skillUri(request.name);
      if ((await fs.kindOf(uri)) !== 'dir') throw new CairnError('NOT_FOUND', `No skill named ${JSON.stringify(request.name)} (cairn skills list names them)`);
      const entry = await entryOf(fs, uri);
      if (!entry) throw new CairnError('NOT_FOUND', `The skill ${uri} holds no ${SKILL_FILE}`);
      return { skill: await skillAt(fs, uri), entry: entry.uri, content: await fs.read(entry.uri, 2), files: await filesUnder(fs, uri) };
    },
  };
}

/** A skill's URI from its name (as listed, or as a person types it). */
export function skillUri(name: string): string {
  const slug = skillSlug(name);
  if (!slug) throw new CairnError('INVALID_INPUT', `${JSON.stringify(name)} is not a skill name`);
  return childUri(SKILLS_ROOT, slug, true);
}

async function resolveSource(path: string): Promise<string> {
  try {
    return await realpath(resolve(path));
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or folder' : errorMessage(error);
    throw new CairnError('NOT_FOUND', `Cannot add the skill ${path}: ${why}`, { cause: error });
  }
}

/** The SKILL.md at the top of a skill folder. */
async function skillFileIn(folder: string, asGiven: string): Promise<string> {
  const found = (await readdir(folder, { withFileTypes: true })).find((e) => e.isFile() && isSkillFile(e.name));
  if (!found) throw new CairnError('INVALID_INPUT', `${asGiven} holds no ${SKILL_FILE}: a skill is a folder with a ${SKILL_FILE} (and any helper files), or a ${SKILL_FILE} alone`);
  return resolve(folder, found.name);
}

/** The skill's main file: its SKILL.md, else (a lone Markdown file added under another name) its first Markdown file. */
async function entryOf(fs: ContextFS, uri: string): Promise<NodeEntry | undefined> {
  const entries = await fs.ls(uri);
  const bare = (e: NodeEntry) => e.name.replace(/\/$/, '');
  return entries.find((e) => isSkillFile(bare(e))) ?? entries.find((e) => /\.(md|markdown)$/i.test(extname(bare(e))));
}

async function skillAt(fs: ContextFS, uri: string, listed?: { entry: NodeEntry; meta: NodeMeta | null }): Promise<SkillSummary> {
  const meta = listed ? listed.meta : await fs.readMeta(uri);
  const name = uri.slice(SKILLS_ROOT.length).replace(/\/$/, '');
  const main = await entryOf(fs, uri);
  const declared = main ? frontMatter(await fs.read(main.uri, 2)).description : undefined;
  const abstract = listed ? listed.entry.abstract : await fs.read(uri, 0).catch(() => undefined);
  const description = (declared || abstract || '').replace(/\s+/g, ' ').trim();
  return {
    name,
    uri,
    description: description || null,
    source: meta?.source_path ?? null,
    ...(meta?.summary_status ? { summary_status: meta.summary_status } : {}),
  };
}

/** Every file of a skill, by its path in the skill; a split document is one file. */
async function filesUnder(fs: ContextFS, root: string): Promise<{ uri: string; path: string; tokens?: number }[]> {
  const files: { uri: string; path: string; tokens?: number }[] = [];
  const visit = async (dir: string): Promise<void> => {
    for (const { entry, meta } of await fs.lsWithMeta(dir)) {
      if (entry.kind === 'dir' && !meta?.document) {
        await visit(entry.uri);
        continue;
      }
      const tokens = meta?.tokens ?? entry.tokens;
      files.push({ uri: entry.uri, path: entry.uri.slice(root.length).replace(/\/$/, ''), ...(tokens !== undefined ? { tokens } : {}) });
    }
  };
  await visit(root);
  return files;
}
