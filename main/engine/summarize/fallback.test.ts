import { describe, expect, it } from 'vitest';
import { fallbackAbstract, fallbackOverview, fallbackSummary } from './fallback.js';
import type { ChildSummary } from './types.js';

const child = (abstract: string, category: string, name = abstract.slice(0, 8)): ChildSummary => ({
  uri: `ctx://user/memories/${name}`,
  name,
  abstract,
  category,
  is_directory: false,
  has_abstract: true,
});

describe('the seed fallback', () => {
  it('reproduces the seed example for memories', () => {
    const children = [
      child('用户偏好 PEP8 编码风格，所有 Python 代码都按它格式化', 'preference'),
      child('主要编辑器是 VS Code，配合 Vim 键位', 'preference'),
      child('偏好深色主题', 'preference'),
      child('每周一上午有团队例会', 'event'),
      child('项目截止日期是周五', 'event'),
    ];
    expect(fallbackAbstract(children)).toBe('包含 5 条preference、event相关记忆');
    expect(fallbackOverview(children)).toBe(
      [
        '# 目录内容概览',
        '',
        '## preference (3条)',
        '- 用户偏好 PEP8 编码风格，所有 Python 代码都按它格式化...',
        '- 主要编辑器是 VS Code，配合 Vim 键位...',
        '- 偏好深色主题...',
        '',
        '## event (2条)',
        '- 每周一上午有团队例会...',
        '- 项目截止日期是周五...',
        '',
      ].join('\n'),
    );
  });

  it('writes English for English children and cuts each abstract at 50 characters', () => {
    const children = [
      child('Prefers PEP8 coding style for every Python file in the repository', 'preference'),
      child('Uses VS Code as primary editor', 'preference'),
      child('Weekly team meeting on Monday', 'event'),
    ];
    const summary = fallbackSummary(children);
    expect(summary.abstract).toBe('Contains 3 items about preference, event');
    expect(summary.categories).toEqual(['preference', 'event']);
    expect(summary.child_count).toBe(3);
    expect(summary.overview).toContain('## preference (2 items)\n- Prefers PEP8 coding style for every Python file in...\n');
  });
});
