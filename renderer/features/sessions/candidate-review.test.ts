import { describe, expect, it } from 'vitest';
import type { ProposedCandidate } from '../../../shared/contracts/api';
import { aboveThreshold, lineDiff } from './candidate-review';

function proposed(id: string, confidence: number, kind: ProposedCandidate['kind'] = 'add'): ProposedCandidate {
  return {
    id,
    kind,
    auto: kind !== 'update' && confidence >= 0.6,
    reason: 'new fact',
    candidate: { category: 'semantic', title: id, content: `${id} content`, keywords: [], message_ids: ['s1:1'], conversation_id: 'c1', confidence },
  };
}

describe('accept all above a confidence', () => {
  it('takes the candidates at or above the threshold, never an update of a pinned memory', () => {
    const list = [proposed('a', 0.4), proposed('b', 0.6), proposed('c', 0.83), proposed('d', 0.9, 'update')];
    expect(aboveThreshold(list, 0.6).map((c) => c.id)).toEqual(['b', 'c']);
    expect(aboveThreshold(list, 0).map((c) => c.id)).toEqual(['a', 'b', 'c']);
    expect(aboveThreshold(list, 0.95)).toEqual([]);
  });
});

describe('lineDiff', () => {
  it('keeps the person\'s lines and marks what an update removes and adds, in order', () => {
    expect(lineDiff('Mine.\nSecond.', 'Mine.\n\nMachine text.')).toEqual([
      { op: 'same', text: 'Mine.' },
      { op: 'removed', text: 'Second.' },
      { op: 'added', text: '' },
      { op: 'added', text: 'Machine text.' },
    ]);
    expect(lineDiff('same', 'same')).toEqual([{ op: 'same', text: 'same' }]);
  });
});
