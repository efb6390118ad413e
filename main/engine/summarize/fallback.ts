/**
 * The seed's fallback summary (docs/SPEC.md#fallback), used when the summarizer fails for a
 * directory: an abstract that counts the children by category and an overview that lists them
 * grouped by category. It is written in the language of the children: Chinese children get the
 * seed's own wording ("包含 5 条preference、event相关记忆"), others get the English equivalent.
 */
import type { ChildSummary, DirectorySummary } from './types.js';

const CJK = /[\u3400-\u9fff\uf900-\ufaff]/;

export function isMostlyChinese(texts: string[]): boolean {
  let cjk = 0;
  let latin = 0;
  for (const text of texts) {
    for (const ch of text) {
      if (CJK.test(ch)) cjk += 1;
      else if (/[a-z]/i.test(ch)) latin += 1;
    }
  }
  // A Chinese character carries about as much as a short English word.
  return cjk * 3 > latin;
}

/** Categories in the order they first appear among the children. */
export function categoriesOf(children: ChildSummary[]): string[] {
  return [...new Set(children.map((c) => c.category))];
}

export function fallbackAbstract(children: ChildSummary[], chinese = isMostlyChinese(children.map((c) => c.abstract))): string {
  const categories = categoriesOf(children);
  if (chinese) return `包含 ${children.length} 条${categories.join('、')}相关记忆`;
  return `Contains ${children.length} ${children.length === 1 ? 'item' : 'items'} about ${categories.join(', ')}`;
}

export function fallbackOverview(children: ChildSummary[], chinese = isMostlyChinese(children.map((c) => c.abstract))): string {
  const byCategory = new Map<string, ChildSummary[]>();
  for (const child of children) byCategory.set(child.category, [...(byCategory.get(child.category) ?? []), child]);
  const lines = [chinese ? '# 目录内容概览\n' : '# Directory overview\n'];
  for (const [category, items] of byCategory) {
    lines.push(chinese ? `## ${category} (${items.length}条)` : `## ${category} (${items.length} ${items.length === 1 ? 'item' : 'items'})`);
    for (const item of items) lines.push(`- ${item.abstract ? `${[...item.abstract].slice(0, 50).join('')}...` : item.name}`);
    lines.push('');
  }
  return lines.join('\n').trimEnd() + '\n';
}

export function fallbackSummary(children: ChildSummary[]): DirectorySummary {
  const chinese = isMostlyChinese(children.map((c) => c.abstract));
  return {
    abstract: fallbackAbstract(children, chinese),
    overview: fallbackOverview(children, chinese),
    child_count: children.length,
    categories: categoriesOf(children),
  };
}
