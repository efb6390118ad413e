/**
 * The pack evaluation's containment rule (bench/lib/pack-eval.ts): a message counts as in a
 * pack only when its whole text stands there, so a pack that kept its first sentence, or a line
 * that paraphrases it, does not score.
 */
import { describe, expect, it } from 'vitest';
import { messageInPack } from '../../bench/lib/pack-eval.js';

const message = "I finished! 4 hours 12 minutes. I cried at the end.";

describe('messageInPack', () => {
  it('counts a message whose every sentence is in the pack, whatever the line breaks', () => {
    expect(messageInPack(message, `# Context pack\n\n[2] [2024-10-06] Hannah: I finished! 4 hours\n12 minutes.  I cried at the end.\n`)).toBe(true);
  });

  it('does not count a message cut to its leading sentences, or said in other words', () => {
    expect(messageInPack(message, '[2] (excerpt) [2024-10-06] Hannah: I finished! 4 hours 12 minutes.')).toBe(false);
    expect(messageInPack(message, 'Hannah finished the marathon in 4 hours 12 minutes and cried at the end.')).toBe(false);
    expect(messageInPack('   ', 'anything')).toBe(false);
  });
});
