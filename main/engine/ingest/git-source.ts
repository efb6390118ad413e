/**
 * Git repositories as ingest sources (issue 21): the system `git` clones one ref of a repository
 * into a temporary folder, the folder ingest reads that checkout, and the folder is removed
 * afterwards, also when anything fails.
 *
 * How a ref is fetched: `git ls-remote` first, which tells a repository that cannot be reached
 * (its own error) from a ref it does not have, and names the default branch. A branch or a tag
 * is cloned shallow (`--depth 1 --branch`); anything else is taken as a commit, which needs the
 * whole history (a server need not serve a lone commit), and is checked out detached.
 *
 * Nothing the caller gives reaches git as an option: the URL and ref are checked
 * (shared/git-url.ts) and always follow `--`. git never prompts (no terminal here): a
 * repository that wants a password fails with git's own message instead of hanging.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CairnError } from '../../../shared/errors.js';
import { checkGitRef, checkGitUrl, repoNameOf } from '../../../shared/git-url.js';

export interface GitCheckout {
  /** The checkout's folder (temporary). */
  dir: string;
  /** The URL as given (checked, trimmed): the tree's source. */
  remote: string;
  /** The ref checked out: the one asked for, else the remote's default branch. */
  ref: string;
  /** The full sha of the commit checked out. */
  commit: string;
  /** The repository's name, for its root. */
  name: string;
}

export interface GitOptions {
  signal?: AbortSignal;
  /** The git command (tests point it elsewhere). Default `git`. */
  git?: string;
  /** Where the temporary clone goes. Default the system's temporary folder. */
  tmpDir?: string;
}

const HEX_SHA = /^[0-9a-f]{4,64}$/i;
const CLONE_PREFIX = 'cairn-git-';
/** A clone folder older than this was left by a process killed mid-ingest (no `finally` ran). */
const STALE_MS = 24 * 60 * 60 * 1000;

/**
 * Clones `url` at `ref` (default branch when absent), runs `use` on the checkout and removes it.
 *
 * @example
 * await withGitCheckout({ url: 'https://github.com/owner/notes.git', ref: 'v2' }, {}, (checkout) => ingest(deps, checkout.dir, ...));
 */
export async function withGitCheckout<T>(source: { url: string; ref?: string }, options: GitOptions, use: (checkout: GitCheckout) => Promise<T>): Promise<T> {
  const remote = checkGitUrl(source.url);
  const wanted = source.ref === undefined || source.ref.trim() === '' ? undefined : checkGitRef(source.ref);
  const git = gitRunner(options);
  const listed = await git(['ls-remote', '--symref', '--', remote, 'HEAD', ...(wanted ? [`refs/heads/${wanted}`, `refs/tags/${wanted}`, wanted] : [])]).catch((error: unknown) => {
    throw cloneFailed(remote, error);
  });
  const refs = parseLsRemote(listed);
  if (refs.names.size === 0 && refs.headBranch === null) throw new CairnError('NOT_FOUND', `Cannot ingest ${remote}: the repository has no commits`);
  const base = options.tmpDir ?? tmpdir();
  await sweepStaleClones(base);
  const parent = await mkdtemp(join(base, CLONE_PREFIX));
  const dir = join(parent, 'checkout');
  try {
    let ref: string;
    if (wanted === undefined) {
      ref = refs.headBranch ?? 'HEAD';
      await git(['clone', '--quiet', '--depth', '1', '--', remote, dir]).catch((error: unknown) => {
        throw cloneFailed(remote, error);
      });
    } else if (refs.names.has(`refs/heads/${wanted}`) || refs.names.has(`refs/tags/${wanted}`) || isBranchOrTagRef(wanted, refs.names)) {
      ref = wanted;
      const short = wanted.replace(/^refs\/(heads|tags)\//, '');
      await git(['clone', '--quiet', '--depth', '1', '--branch', short, '--', remote, dir]).catch((error: unknown) => {
        throw cloneFailed(remote, error);
      });
    } else if (HEX_SHA.test(wanted)) {
      ref = wanted;
      await git(['clone', '--quiet', '--no-checkout', '--', remote, dir]).catch((error: unknown) => {
        throw cloneFailed(remote, error);
      });
      const commit = (await git(['-C', dir, 'rev-parse', '--verify', '--quiet', '--end-of-options', `${wanted}^{commit}`]).catch(() => '')).trim();
      if (!/^[0-9a-f]{40,64}$/.test(commit)) throw unknownRef(remote, wanted);
      await git(['-C', dir, '-c', 'advice.detachedHead=false', 'checkout', '--quiet', '--detach', commit]);
    } else {
      throw unknownRef(remote, wanted);
    }
    const commit = (await git(['-C', dir, 'rev-parse', 'HEAD'])).trim();
    return await use({ dir, remote, ref, commit, name: repoNameOf(remote) });
  } finally {
    await rm(parent, { recursive: true, force: true });
  }
}

async function sweepStaleClones(base: string): Promise<void> {
  const names = await readdir(base).catch(() => [] as string[]);
  const now = Date.now();
  for (const name of names.filter((n) => n.startsWith(CLONE_PREFIX))) {
    const info = await stat(join(base, name)).catch(() => null);
    // Only folders shaped like ours (a `checkout` inside), so nothing else with the prefix is touched.
    if (info?.isDirectory() && now - info.mtimeMs > STALE_MS && (await stat(join(base, name, 'checkout')).catch(() => null))) {
      await rm(join(base, name), { recursive: true, force: true });
    }
  }
}

/** `refs/heads/main` or `refs/tags/v1` given in full. */
function isBranchOrTagRef(ref: string, names: ReadonlySet<string>): boolean {
  return /^refs\/(heads|tags)\//.test(ref) && names.has(ref);
}

/** The ref names `git ls-remote --symref` printed, and the branch HEAD points to. */
export function parseLsRemote(text: string): { names: Set<string>; headBranch: string | null } {
  const names = new Set<string>();
  let headBranch: string | null = null;
  for (const line of text.split('\n')) {
    const symref = /^ref: refs\/heads\/(\S+)\tHEAD$/.exec(line);
    if (symref) headBranch = symref[1]!;
    const plain = /^[0-9a-f]+\t(\S+)$/.exec(line);
    if (plain) names.add(plain[1]!.replace(/\^\{\}$/, ''));
  }
  return { names, headBranch };
}

function unknownRef(remote: string, ref: string): CairnError {
  return new CairnError('NOT_FOUND', `Cannot ingest ${remote}: it has no branch, tag or commit "${ref}"`, { details: { advice: 'List its branches and tags with `git ls-remote URL`' } });
}

function cloneFailed(remote: string, error: unknown): CairnError {
  if (CairnError.is(error)) return error;
  return new CairnError('NOT_FOUND', `Cannot clone ${remote}: ${String((error as Error).message ?? error)}`, { cause: error, details: { advice: 'Check the URL, and that `git clone` can reach it from this machine' } });
}

/** Runs git with no prompts and returns its stdout; a failure throws git's first stderr line (without "fatal: "). */
function gitRunner(options: GitOptions): (args: string[]) => Promise<string> {
  const command = options.git ?? 'git';
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_TERMINAL_PROMPT: '0', GCM_INTERACTIVE: 'never', LC_ALL: 'C' };
  // ssh would ask for a password or a host key on the terminal; BatchMode makes it fail instead.
  if (env.GIT_SSH_COMMAND === undefined && env.GIT_SSH === undefined) env.GIT_SSH_COMMAND = 'ssh -o BatchMode=yes';
  return (args) =>
    new Promise((resolve, reject) => {
      const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'], signal: options.signal });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      child.on('error', (error: NodeJS.ErrnoException) => {
        if (error.name === 'AbortError') reject(new CairnError('CANCELLED', 'The clone was cancelled; nothing was ingested'));
        else if (error.code === 'ENOENT') reject(new CairnError('NOT_FOUND', `Cannot ingest a git repository: the "${command}" command is not installed or not on PATH`, { cause: error }));
        else reject(new CairnError('IO_ERROR', `Cannot run ${command}: ${error.message}`, { cause: error }));
      });
      child.on('close', (code) => {
        if (code === 0) return resolve(stdout);
        const line = stderr
          .split('\n')
          .map((l) => l.trim())
          .find((l) => l !== '' && !/^(warning|hint):/i.test(l));
        reject(new Error((line ?? `git ${args[0]} exited with ${code}`).replace(/^(fatal|error): /i, '')));
      });
    });
}
