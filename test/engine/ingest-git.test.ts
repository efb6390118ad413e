/**
 * Git repositories as sources (issue 21 item 4), against real repositories made with the system
 * git in a temporary folder and cloned over file:// (no network): the tree, the root's meta
 * (remote, ref, commit), an update to a new commit that re-parses only the changed file, a tag,
 * a commit, and one-line errors for a bad URL, an unknown ref and a missing git.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../main/engine/engine.js';
import { withGitCheckout } from '../../main/engine/ingest/git-source.js';
import { inProcessParseRunner } from '../../main/engine/parse/runner.js';
import type { ParseRunner } from '../../main/engine/parse/runner.js';

let tmp: string;
let repo: string;
let url: string;
let engine: Engine;
let parsed: string[];

const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } }).trim();
const commitAll = (message: string) => {
  git('add', '-A');
  git('-c', 'user.name=Ana', '-c', 'user.email=ana@example.com', 'commit', '--quiet', '-m', message);
  return git('rev-parse', 'HEAD');
};

beforeEach(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'cairn-git-'));
  repo = join(tmp, 'field-notes');
  await mkdir(join(repo, 'docs'), { recursive: true });
  git('init', '--quiet', '--initial-branch', 'main');
  await writeFile(join(repo, 'README.md'), '# Field notes\n\nTide gauges along the coast.\n');
  await writeFile(join(repo, 'docs', 'gauges.md'), '# Gauges\n\nThe north gauge reads 3.2 m at high tide.\n');
  await writeFile(join(repo, '.gitignore'), 'drafts/\n*.log\n');
  commitAll('first notes');
  git('tag', 'v1');
  // Files the repository ignores: never committed, and a force-added one the scan still skips.
  await mkdir(join(repo, 'drafts'), { recursive: true });
  await writeFile(join(repo, 'drafts', 'secret.md'), 'not in the repository\n');
  await writeFile(join(repo, 'forced.log'), 'committed despite the rule\n');
  git('add', '-f', 'forced.log');
  commitAll('a forced log');
  url = `file://${repo}`;
  parsed = [];
  const inner = inProcessParseRunner();
  const counting: ParseRunner = { ...inner, parse: (input, signal) => (parsed.push(input.relPath), inner.parse(input, signal)) };
  engine = await createEngine({ workspace: join(tmp, 'ws'), parser: counting });
});

afterEach(async () => {
  await engine.dispose();
  await rm(tmp, { recursive: true, force: true });
});

const names = async (uri: string) => (await engine.call('fs:ls', { uri })).entries.map((e) => e.name);
const rootMeta = async (uri: string) => (await engine.call('fs:stat', { uri })).meta;
/** Clones left in the temporary folder by an ingest: none, ever. */
const leftClones = async () => (await readdir(tmpdir())).filter((name) => name.startsWith('cairn-git-') && join(tmpdir(), name) !== tmp);

describe('ingesting a git repository', () => {
  it('clones the default branch by file:// URL, names the root from the repository and records remote, ref and commit', async () => {
    const before = await leftClones();
    const head = git('rev-parse', 'HEAD');
    const result = await engine.call('ingest:start', { path: url, git: {} });
    expect(result.root).toBe('ctx://resources/field-notes/');
    expect(await names(result.root)).toEqual(['.gitignore', 'docs', 'README.md']);
    expect(await names('ctx://resources/field-notes/docs/')).toEqual(['gauges.md']);
    // The repository's own .gitignore holds for its tree; .git is metadata, not content.
    expect(result.skipped).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'forced.log', reason: 'gitignored' }), expect.objectContaining({ path: '.git', reason: 'vcs-folder' })]));
    const meta = await rootMeta(result.root);
    expect(meta?.git).toEqual({ remote: url, ref: 'main', commit: head });
    expect(result.git).toEqual({ remote: url, ref: 'main', commit: head });
    expect(meta?.sources).toEqual([url]);
    expect(meta?.source_path).toBe(url);
    // Files name where they came from in the repository, not the clone that is gone.
    expect((await rootMeta('ctx://resources/field-notes/docs/gauges.md'))?.source_path).toBe(`${url}/docs/gauges.md`);
    expect(await leftClones()).toEqual(before);
  });

  it('updates the same root in place to a new commit, re-parsing only the changed file', async () => {
    const first = await engine.call('ingest:start', { path: url, git: {} });
    expect(parsed.sort()).toEqual(['.gitignore', 'README.md', 'docs/gauges.md']);
    await writeFile(join(repo, 'docs', 'gauges.md'), '# Gauges\n\nThe north gauge reads 3.4 m at high tide since the storm.\n');
    const second = commitAll('new reading');
    parsed = [];
    const again = await engine.call('ingest:start', { path: url, git: {} });
    expect(again.root).toBe(first.root);
    expect(parsed).toEqual(['docs/gauges.md']);
    expect((await engine.call('fs:read', { uri: 'ctx://resources/field-notes/docs/gauges.md', level: 2 })).content).toContain('3.4 m');
    expect((await rootMeta(again.root))?.git).toEqual({ remote: url, ref: 'main', commit: second });
    expect(await names('ctx://resources/')).toEqual(['field-notes']);
  });

  it('checks out a tag (shallow) and a commit by its sha', async () => {
    const v1 = git('rev-parse', 'v1^{commit}');
    const tagged = await engine.call('ingest:start', { path: url, git: { ref: 'v1' }, options: { name: 'notes-v1' } });
    expect(tagged.root).toBe('ctx://resources/notes-v1/');
    expect((await rootMeta(tagged.root))?.git).toEqual({ remote: url, ref: 'v1', commit: v1 });
    const byCommit = await engine.call('ingest:start', { path: url, git: { ref: v1.slice(0, 10) }, options: { name: 'notes-at' } });
    expect((await rootMeta(byCommit.root))?.git).toEqual({ remote: url, ref: v1.slice(0, 10), commit: v1 });
    // The tag has no forced.log: that came a commit later.
    expect(tagged.skipped.map((s) => s.path)).not.toContain('forced.log');
  });

  it('fails in one line on a repository that is not there, an unknown ref and a URL that would be an option', async () => {
    const before = await leftClones();
    const missing = await engine.call('ingest:start', { path: `file://${tmp}/no-such-repo`, git: {} }).catch((e: Error) => e);
    expect(missing).toMatchObject({ code: 'NOT_FOUND' });
    // git's own first line, without its "fatal: ".
    expect((missing as Error).message).toBe(`Cannot clone file://${tmp}/no-such-repo: '${tmp}/no-such-repo' does not appear to be a git repository`);

    const ref = await engine.call('ingest:start', { path: url, git: { ref: 'no-such-branch' } }).catch((e: Error) => e);
    expect(ref).toMatchObject({ code: 'NOT_FOUND', message: `Cannot ingest ${url}: it has no branch, tag or commit "no-such-branch"` });
    const sha = await engine.call('ingest:start', { path: url, git: { ref: 'deadbeefdeadbeef' } }).catch((e: Error) => e);
    expect(sha).toMatchObject({ code: 'NOT_FOUND', message: `Cannot ingest ${url}: it has no branch, tag or commit "deadbeefdeadbeef"` });

    for (const bad of ['--upload-pack=touch /tmp/pwned', '-u', 'ext::sh -c touch% /tmp/pwned']) {
      await expect(engine.call('ingest:start', { path: bad, git: {} })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    }
    await expect(engine.call('ingest:start', { path: url, git: { ref: '--orphan' } })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(await names('ctx://resources/').catch(() => [])).toEqual([]);
    expect(await leftClones()).toEqual(before);
  });

  it('removes the clone when the ingest of the checkout fails, and says so when git is missing', async () => {
    let seen = '';
    await expect(
      withGitCheckout({ url }, {}, async (checkout) => {
        seen = checkout.dir;
        expect(await readdir(checkout.dir)).toContain('README.md');
        throw new Error('the ingest failed');
      }),
    ).rejects.toThrow('the ingest failed');
    await expect(readdir(seen)).rejects.toMatchObject({ code: 'ENOENT' });

    // A clone a killed ingest left a day ago goes with the next clone; a fresh one (another run's) stays.
    const clones = join(tmp, 'clones');
    await mkdir(join(clones, 'cairn-git-old', 'checkout'), { recursive: true });
    await mkdir(join(clones, 'cairn-git-now', 'checkout'), { recursive: true });
    const dayAgo = new Date(Date.now() - 25 * 60 * 60 * 1000);
    await utimes(join(clones, 'cairn-git-old'), dayAgo, dayAgo);
    await withGitCheckout({ url }, { tmpDir: clones }, async () => undefined);
    expect(await readdir(clones)).toEqual(['cairn-git-now']);

    await expect(withGitCheckout({ url }, { git: join(tmp, 'no-git-here') }, async () => 'never')).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringMatching(/the ".*no-git-here" command is not installed or not on PATH/),
    });
  });

  it('lists a git tree in Recent with its URL and ref, so Home ingests it again at that ref', async () => {
    await engine.call('ingest:start', { path: url, git: { ref: 'v1' } });
    const { items } = await engine.call('ingest:recent', {});
    expect(items).toEqual([expect.objectContaining({ root: 'ctx://resources/field-notes/', source: url, git: { ref: 'v1' } })]);
  });
});
