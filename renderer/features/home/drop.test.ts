import { describe, expect, it } from 'vitest';
import { groupSkips } from './drop';

describe('groupSkips', () => {
  it('groups by reason, largest group first, paths sorted', () => {
    const groups = groupSkips([
      { path: 'z.bin', reason: 'binary' },
      { path: 'node_modules', reason: 'dependency-folder' },
      { path: 'a.bin', reason: 'binary' },
    ]);
    expect(groups).toEqual([
      { reason: 'binary', skips: [{ path: 'a.bin', reason: 'binary' }, { path: 'z.bin', reason: 'binary' }] },
      { reason: 'dependency-folder', skips: [{ path: 'node_modules', reason: 'dependency-folder' }] },
    ]);
  });
});
