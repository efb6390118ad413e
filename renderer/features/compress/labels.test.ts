import { describe, expect, it } from 'vitest';
import { block } from '../../stores/view-stores.fixtures';
import { blockLabel, chainLabel } from './labels';

describe('what the compression view calls blocks and chains', () => {
  it('titles a message block by its conversation and names its messages, not its ctx:// id', () => {
    const b = { ...block('ctx://session/c1/s1.md#m:m6', 10), provenance: { uri: 'ctx://session/c1/s1.md', message_ids: ['m6'], title: 'Debugging an OOM' } };
    expect(blockLabel(b)).toEqual({ title: 'Debugging an OOM', messages: ['m6'] });
  });

  it('falls back to the file name when the pack gave no title', () => {
    const b = { ...block('ctx://resources/docs/guide.md#2', 10), provenance: { uri: 'ctx://resources/docs/guide.md' } };
    expect(blockLabel(b)).toEqual({ title: 'guide.md', messages: [] });
    expect(blockLabel(block('ctx://resources/docs/notes.txt#1', 5)).title).toBe('notes.txt');
  });

  it('names a chain by the type all its steps share and its first step, on one line', () => {
    const a = { ...block('a', 5, ['k1', 'k2']), chain_types: ['operation', 'causal'] as const, content: 'The pods  ran\nout of memory.' };
    const b = { ...block('b', 5, ['k1']), chain_types: ['causal'] as const, content: 'Raise the limit.' };
    const label = chainLabel({ id: 'causal-3f2a', block_ids: ['a', 'b'], status: 'whole' }, [b, a].map((x) => ({ ...x, chain_types: [...x.chain_types] })));
    expect(label).toEqual({ type: 'causal', first: 'The pods ran out of memory.' });
  });

  it('cuts a long first step at a word', () => {
    const long = { ...block('a', 5, ['k']), chain_types: ['time' as const], content: 'word '.repeat(40) };
    const { first } = chainLabel({ id: 'k', block_ids: ['a'], status: 'whole' }, [long]);
    expect(first.length).toBeLessThanOrEqual(91);
    expect(first.endsWith('word…')).toBe(true);
  });
});
