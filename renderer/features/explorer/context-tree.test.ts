import { describe, expect, it } from 'vitest';
import { saysMoreThanName, visibleRows } from './ContextTree';

describe('the tree names a document by its title where its file name says little', () => {
  it('shows the title of a release note named by its version', () => {
    const rows = visibleRows(
      'ctx://resources/RelNotes/',
      {
        'ctx://resources/RelNotes/': {
          status: 'loaded',
          entries: [
            { uri: 'ctx://resources/RelNotes/2.21.0.txt/', name: '2.21.0.txt', kind: 'dir', title: 'Git 2.21 Release Notes' },
            { uri: 'ctx://resources/RelNotes/README.md', name: 'README.md', kind: 'file', title: 'README' },
          ],
        },
      },
      {},
    );
    expect(rows.map((r) => [r.name, r.title])).toEqual([
      ['2.21.0.txt', 'Git 2.21 Release Notes'],
      ['README.md', undefined],
    ]);
  });

  it('leaves out a title that only restates the name', () => {
    expect(saysMoreThanName('Configuration', '03-configuration.md')).toBe(false);
    expect(saysMoreThanName('Git 2.21 Release Notes', '01-git-2-21-release-notes.txt')).toBe(false);
    expect(saysMoreThanName('Updates since v2.20', '02-updates-since-v2-20')).toBe(false);
    expect(saysMoreThanName('The storm review', 'notes.md')).toBe(true);
    expect(saysMoreThanName('连接池的超时', 'pool.md')).toBe(true);
  });
});
