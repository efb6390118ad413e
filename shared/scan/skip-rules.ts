/**
 * Folders a scan never enters whatever the `.gitignore` files say, and the sentences that
 * explain every skip. The lists hold only folders that are never authored content: version
 * control metadata, installed packages, virtual environments and tool caches. `vendor/`,
 * `dist/`, `build/`, `target/` and `out/` are deliberately absent: they are often real content
 * (vendored sources, published docs), and a project that does not want them says so in its
 * `.gitignore`. The scan root itself is never skipped by name: it is what the user chose.
 */

/** Version-control metadata folders, by name, with the system they belong to. */
export const VCS_FOLDERS: ReadonlyMap<string, string> = new Map([
  ['.git', 'Git'],
  ['.hg', 'Mercurial'],
  ['.svn', 'Subversion'],
  ['.bzr', 'Bazaar'],
  ['_darcs', 'Darcs'],
  ['CVS', 'CVS'],
  ['.jj', 'Jujutsu'],
]);

/** Dependency, build-cache and environment folders, by name, with what they hold. */
export const DEPENDENCY_FOLDERS: ReadonlyMap<string, string> = new Map([
  ['node_modules', 'installed npm packages'],
  ['bower_components', 'installed Bower packages'],
  ['jspm_packages', 'installed jspm packages'],
  ['.pnpm-store', 'the pnpm package store'],
  ['__pycache__', 'Python bytecode cache'],
  ['.venv', 'a Python virtual environment'],
  ['.tox', 'tox test environments'],
  ['.nox', 'nox test environments'],
  ['.mypy_cache', 'the mypy cache'],
  ['.pytest_cache', 'the pytest cache'],
  ['.ruff_cache', 'the Ruff cache'],
  ['.gradle', 'the Gradle cache'],
  ['.next', 'Next.js build output'],
  ['.nuxt', 'Nuxt build output'],
  ['.svelte-kit', 'SvelteKit build output'],
  ['.parcel-cache', 'the Parcel cache'],
  ['.turbo', 'the Turborepo cache'],
  ['.terraform', 'Terraform providers and modules'],
  ['.dart_tool', 'Dart tool caches'],
  ['.cache', 'tool caches'],
]);

/** Folders that are dependencies only under a given parent, keyed `parent/name`. */
const NESTED_DEPENDENCY_FOLDERS: ReadonlyMap<string, string> = new Map([
  ['.yarn/cache', 'the Yarn package cache'],
  ['.yarn/unplugged', 'unpacked Yarn packages'],
]);

/** A file whose presence makes its folder a Python virtual environment, whatever its name. */
export const VENV_MARKER = 'pyvenv.cfg';

export type FolderVerdict = { reason: 'vcs-folder' | 'dependency-folder'; detail: string } | null;

/**
 * Why a folder below the root is skipped by name, or null. `parentName` is the name of the folder
 * holding it ('' at the root).
 *
 * @example
 * folderVerdict('node_modules', 'web'); // { reason: 'dependency-folder', detail: 'dependency folder: installed npm packages (node_modules)' }
 * folderVerdict('vendor', ''); // null
 */
export function folderVerdict(name: string, parentName: string): FolderVerdict {
  const vcs = VCS_FOLDERS.get(name);
  if (vcs !== undefined) return { reason: 'vcs-folder', detail: `${vcs} metadata folder (${name}): version history is not content` };
  const dep = DEPENDENCY_FOLDERS.get(name) ?? NESTED_DEPENDENCY_FOLDERS.get(`${parentName}/${name}`);
  if (dep !== undefined) return { reason: 'dependency-folder', detail: `dependency folder: ${dep} (${name})` };
  return null;
}

/** The verdict on a folder found to hold `pyvenv.cfg`. */
export function venvVerdict(): NonNullable<FolderVerdict> {
  return { reason: 'dependency-folder', detail: `dependency folder: a Python virtual environment (holds ${VENV_MARKER})` };
}

/**
 * A `.git` *file* points a worktree or submodule at its repository; it is VCS metadata too.
 */
export function vcsFileVerdict(name: string): FolderVerdict {
  return name === '.git' ? { reason: 'vcs-folder', detail: 'Git link file (.git) of a worktree or submodule: not content' } : null;
}

/** "1.5 MB": sizes for people, in the same units everywhere. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value >= 10 ? Math.round(value) : Math.round(value * 10) / 10} ${units[unit]}`;
}

const ERRNO_TEXT: Readonly<Record<string, string>> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOENT: 'it disappeared during the scan',
  ENOTDIR: 'it changed into a file during the scan',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'the path is too long',
  EIO: 'an input/output error',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files',
};

/** "permission denied (EACCES)": an errno for people, with the code kept for searches. */
export function describeErrno(code: string): string {
  const text = ERRNO_TEXT[code];
  return text === undefined ? code : `${text} (${code})`;
}

const SPECIAL_KINDS = {
  fifo: 'a named pipe (FIFO)',
  socket: 'a socket',
  'block-device': 'a block device',
  'char-device': 'a character device',
} as const;

export type SpecialKind = keyof typeof SPECIAL_KINDS;

export function describeSpecial(kind: SpecialKind): string {
  return `${SPECIAL_KINDS[kind]}, not a regular file`;
}
