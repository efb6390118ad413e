import { describe, expect, it } from 'vitest';
import { checkGitRef, checkGitUrl, isGitUrl, repoNameOf } from './git-url';

describe('git URLs', () => {
  it('tells repository URLs from local paths, as the CLI needs to', () => {
    for (const url of ['https://github.com/owner/repo.git', 'http://host/x', 'ssh://git@host:22/x.git', 'git://host/x', 'file:///srv/git/x', 'git@github.com:owner/repo.git', 'host:path/repo']) {
      expect(isGitUrl(url), url).toBe(true);
    }
    for (const path of ['/home/me/repo', './repo', 'repo', 'C:\\repos\\x', 'C:/repos/x', 'notes/2026:plan.md', 'ftp://host/x']) {
      expect(isGitUrl(path), path).toBe(false);
    }
  });

  it('refuses what git would read as an option or as a command-running transport, in one line', () => {
    for (const bad of ['-u', '--upload-pack=touch /tmp/x', 'ext::sh -c touch% /tmp/x', 'fd::3', 'ftp://host/x', 'relative/path', 'https://host/x\n--bad', '']) {
      expect(() => checkGitUrl(bad), bad).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
    }
    expect(checkGitUrl(' https://host/x.git/ ')).toBe('https://host/x.git');
    expect(checkGitUrl('/srv/git/notes')).toBe('/srv/git/notes');
    for (const bad of ['-b', '--orphan', 'a..b', 'a b', 'x:y', 'x^', '']) expect(() => checkGitRef(bad), bad).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
    expect(checkGitRef(' release/2.1 ')).toBe('release/2.1');
  });

  it('names the root from the repository', () => {
    expect(repoNameOf('https://github.com/owner/cairn.git')).toBe('cairn');
    expect(repoNameOf('git@github.com:owner/field-notes.git')).toBe('field-notes');
    expect(repoNameOf('file:///srv/git/notes/.git')).toBe('notes');
    expect(repoNameOf('ssh://host/srv/tide')).toBe('tide');
    expect(repoNameOf('https://host/')).toBe('host');
  });
});
