import { describe, expect, it } from 'vitest';
import { commands } from '../../../shared/contracts/api';
import { block, compression } from '../../stores/view-stores.fixtures';
import { packFileName, packJsonFile, packMarkdownFile, packTokens } from './pack-files';
import type { ContextPack } from '../../stores/compress-store';

const blocks = [block('a', 30, ['c1']), block('b', 40), block('c', 50, ['c9']), block('d', 20)];
const markdown = '# Context pack\nQuery: Why did the pods run out of memory?\n\n[1] The heap grew.\n\nSources:\n[1] ctx://session/c1/s1.md, message s1:3\n';
const pack: ContextPack = {
  query: 'Why did the pods run out of memory?',
  budget: 100,
  blocks,
  result: compression(blocks),
  markdown,
  legend: [{ ref: '[1]', uri: 'ctx://session/c1/s1.md', message_ids: ['s1:3'] }],
  tokens: 42,
};
// 2026-12-01 09:05:03 local time.
const now = new Date(2026, 11, 1, 9, 5, 3);

describe('the files of a context pack', () => {
  it('saves the Markdown exactly as the pack reads, named by time and query', () => {
    expect(packMarkdownFile(pack, now)).toEqual({ name: 'cairn-context-20261201-090503-why-did-the-pods-run-out-of-memory.md', type: 'text/markdown;charset=utf-8', text: markdown });
  });

  it('saves the whole pack as JSON that reads back as the contract\'s pack', () => {
    const file = packJsonFile(pack, now);
    expect(file.name).toBe('cairn-context-20261201-090503-why-did-the-pods-run-out-of-memory.json');
    expect(file.type).toBe('application/json;charset=utf-8');
    const back = JSON.parse(file.text);
    expect(back).toEqual(pack);
    expect(commands['context:pack'].response.parse(back)).toEqual(pack);
  });

  it('names files by the query in any script, clipped, and never empty', () => {
    expect(packFileName({ query: '我们最后决定用哪个数据库？' }, now, 'md')).toBe('cairn-context-20261201-090503-我们最后决定用哪个数据库.md');
    expect(packFileName({ query: '../../etc/passwd' }, now, 'json')).toBe('cairn-context-20261201-090503-etc-passwd.json');
    expect(packFileName({ query: '???' }, now, 'md')).toBe('cairn-context-20261201-090503-pack.md');
    const long = packFileName({ query: 'word '.repeat(30) }, now, 'md');
    expect(long).toMatch(/^cairn-context-20261201-090503-(word-)*word\.md$/);
    expect(long.length).toBeLessThanOrEqual('cairn-context-20261201-090503-'.length + 40 + '.md'.length);
  });

  it('counts the tokens gathered, in the pack and saved', () => {
    expect(packTokens(pack)).toEqual({ before: 140, after: 42, saved: 98, percent: 70 });
    // A tiny pack whose legend outweighs what it left out saves nothing, not a negative amount.
    expect(packTokens({ ...pack, tokens: 200 })).toEqual({ before: 140, after: 200, saved: 0, percent: 0 });
    expect(packTokens({ ...pack, result: { ...pack.result, original_tokens: 0 }, tokens: 12 })).toEqual({ before: 0, after: 12, saved: 0, percent: 0 });
  });
});
