/**
 * The documentation the Help menu opens: Cairn's own Markdown files on disk, in the repository
 * (a development run) or in the installed app's resources (electron-builder.yml copies them
 * there as plain files). Only the files of `HELP_FILES` found on disk are offered, and
 * `openHelpDoc` opens nothing else, so no click can make the OS open an arbitrary path or URL.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export interface HelpDoc {
  label: string;
  file: string;
}

/** What Help lists, relative to the repository root (and to `resources/docs/` in a package). */
export const HELP_FILES: readonly { label: string; relative: string }[] = [
  { label: 'Cairn Documentation', relative: 'README.md' },
  { label: 'Architecture', relative: 'docs/ARCHITECTURE.md' },
  { label: 'Releases and Packaging', relative: 'docs/RELEASE.md' },
];

/** Each help file from the first root that has it; files found nowhere are left out. */
export function findHelpDocs(roots: readonly string[]): HelpDoc[] {
  const docs: HelpDoc[] = [];
  for (const { label, relative } of HELP_FILES) {
    const file = roots.map((root) => join(root, relative)).find((path) => existsSync(path));
    if (file) docs.push({ label, file });
  }
  return docs;
}

/**
 * Opens a help file with the OS's viewer, if it is one of `offered`. `openPath` is Electron's
 * `shell.openPath`: it answers '' or the reason it failed.
 *
 * @returns null when opened, else the one-line reason.
 */
export async function openHelpDoc(doc: HelpDoc, offered: readonly HelpDoc[], openPath: (path: string) => Promise<string>): Promise<string | null> {
  if (!offered.some((known) => known.file === doc.file)) return `${doc.file} is not one of the app's help files`;
  const failure = await openPath(doc.file);
  return failure ? `Cannot open ${doc.file}: ${failure}` : null;
}
