/**
 * What Cairn takes as a git repository to clone, shared by the CLI (which tells a URL from a
 * path), the engine (which checks what it is handed before git sees it) and the Home view.
 *
 * Taken: `https://`, `http://`, `ssh://`, `git://`, `file://` URLs, scp-like `user@host:path`
 * and, given explicitly as a git source, an absolute local path. Refused: anything starting with
 * `-` (git would read it as an option) and other transports (`ext::`, `fd::` run commands).
 */
import { CairnError } from './errors.js';

const URL_SCHEMES = ['https', 'http', 'ssh', 'git', 'file', 'git+ssh', 'ssh+git'] as const;
const SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i;
/** `git@github.com:owner/repo.git`: a host before the colon, no slash before it (git's own rule). */
const SCP_LIKE = /^(?:[^@/\s]+@)?[^@/:\s]+:(?!\/\/)[^\s]+$/;
const WINDOWS_DRIVE = /^[a-z]:[\\/]/i;

/** True when `text` reads as a repository URL (not a plain local path). */
export function isGitUrl(text: string): boolean {
  const scheme = SCHEME.exec(text)?.[1]?.toLowerCase();
  if (scheme !== undefined) return (URL_SCHEMES as readonly string[]).includes(scheme);
  return !WINDOWS_DRIVE.test(text) && !text.startsWith('/') && SCP_LIKE.test(text);
}

/**
 * The URL as the source of a tree (trimmed, no trailing slash), or INVALID_INPUT saying why it is
 * refused. An absolute local path is taken too: the caller asked for a git source.
 */
export function checkGitUrl(text: string): string {
  const url = text.trim().replace(/\/+$/, '');
  if (url === '') throw new CairnError('INVALID_INPUT', 'Give the URL of a git repository');
  if (url.startsWith('-')) throw new CairnError('INVALID_INPUT', `Refused the git URL ${JSON.stringify(url)}: it starts with "-", which git would read as an option`);
  if (/[\0\r\n]/.test(url)) throw new CairnError('INVALID_INPUT', 'Refused a git URL with a control character in it');
  if (url.includes('::') && !SCHEME.test(url)) throw new CairnError('INVALID_INPUT', `Refused the git URL ${JSON.stringify(url)}: only https, http, ssh, git and file URLs are cloned`);
  const scheme = SCHEME.exec(url)?.[1]?.toLowerCase();
  if (scheme !== undefined && !(URL_SCHEMES as readonly string[]).includes(scheme)) {
    throw new CairnError('INVALID_INPUT', `Refused the git URL ${JSON.stringify(url)}: only https, http, ssh, git and file URLs are cloned`);
  }
  if (!isGitUrl(url) && !url.startsWith('/') && !WINDOWS_DRIVE.test(url)) {
    throw new CairnError('INVALID_INPUT', `${JSON.stringify(url)} is not a git URL (https://, ssh://, git@host:path, file://) nor an absolute path`);
  }
  return url;
}

/** A ref to check out: refused when git could read it as an option or it cannot be a ref name. */
export function checkGitRef(ref: string): string {
  const trimmed = ref.trim();
  if (trimmed === '' || trimmed.startsWith('-') || /[\0-\x20~^:?*[\\\x7f]/.test(trimmed) || trimmed.includes('..')) {
    throw new CairnError('INVALID_INPUT', `Refused the git ref ${JSON.stringify(ref)}: not a branch, tag or commit name`);
  }
  return trimmed;
}

/**
 * The repository's name, for its root: the URL's last segment without `.git`.
 *
 * @example
 * repoNameOf('git@github.com:owner/cairn.git'); // 'cairn'
 * repoNameOf('file:///srv/git/notes/.git'); // 'notes'
 */
export function repoNameOf(url: string): string {
  const path = url.replace(SCHEME, '').replace(/[?#].*$/, '');
  const segments = path.split(/[/:\\]/).filter(Boolean);
  let name = segments.pop() ?? '';
  if (name === '.git') name = segments.pop() ?? '';
  name = name.replace(/\.git$/i, '');
  return name || 'repository';
}
