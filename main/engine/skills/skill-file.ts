/**
 * What Cairn reads from a skill's SKILL.md: the front matter's `name:` and `description:`, and
 * the skill's name as a slug (its folder under ctx://agent/skills/).
 *
 * @example
 * frontMatter('---\nname: PDF Forms\ndescription: Fill in PDF forms\n---\n# PDF forms\n'); // { name: 'PDF Forms', description: 'Fill in PDF forms' }
 * skillSlug('PDF Forms'); // 'pdf-forms'
 */
import { basename, dirname, extname } from 'node:path';

/** The file a skill folder must hold (matched without regard to case). */
export const SKILL_FILE = 'SKILL.md';

export function isSkillFile(name: string): boolean {
  return name.toLowerCase() === SKILL_FILE.toLowerCase();
}

/**
 * The `key: value` pairs of a YAML front matter block (`---` lines around it, at the very top).
 * Only what a SKILL.md uses: plain or quoted one-line values, and `>`/`|` block values on the
 * indented lines after them (joined by spaces, or by new lines for `|`).
 */
export function frontMatter(text: string): Record<string, string> {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0]?.trim() !== '---') return {};
  const end = lines.findIndex((line, i) => i > 0 && /^(---|\.\.\.)\s*$/.test(line));
  if (end === -1) return {};
  const fields: Record<string, string> = {};
  for (let i = 1; i < end; i++) {
    const match = /^([A-Za-z_][\w-]*)\s*:\s*(.*)$/.exec(lines[i]!);
    if (!match) continue;
    const [, key, raw = ''] = match;
    const value = raw.trim();
    if (/^[>|][+-]?$/.test(value)) {
      const block: string[] = [];
      while (i + 1 < end && (/^\s+\S/.test(lines[i + 1]!) || lines[i + 1]!.trim() === '')) block.push(lines[++i]!.trim());
      fields[key!] = (value.startsWith('|') ? block.join('\n') : block.join(' ').replace(/\s+/g, ' ')).trim();
    } else {
      fields[key!] = unquote(value);
    }
  }
  return fields;
}

function unquote(value: string): string {
  if (value.length >= 2 && ((value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'")))) {
    return value.startsWith('"') ? value.slice(1, -1).replace(/\\"/g, '"') : value.slice(1, -1).replace(/''/g, "'");
  }
  return value;
}

/** Lower-case letters and digits (any script) joined by single dashes; '' when the name has none. */
export function skillSlug(name: string): string {
  return name
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 100)
    .replace(/-+$/, '');
}

/**
 * The name a skill is known by before slugging: the one asked for, else the SKILL.md's `name:`,
 * else its folder's name (a lone `SKILL.md` is named by the folder it sits in; another Markdown
 * file by its own name).
 */
export function skillName(input: { asked?: string; fromFrontMatter?: string; source: string; isFile: boolean }): string {
  if (input.asked !== undefined) return input.asked;
  if (input.fromFrontMatter) return input.fromFrontMatter;
  if (!input.isFile) return basename(input.source);
  return isSkillFile(basename(input.source)) ? basename(dirname(input.source)) : basename(input.source, extname(input.source));
}
