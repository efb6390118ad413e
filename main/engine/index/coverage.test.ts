import { describe, expect, it } from 'vitest';
import { coverage, coverageFactor, termWeights } from './coverage.js';

describe('query coverage', () => {
  it('weighs a rare term over a frequent one, so a text holding only the frequent one covers little', () => {
    const weights = termWeights(['uplink', 'last'], { total: 1000, counts: [3, 400] });
    expect(weights.get('uplink')).toBeGreaterThan(3 * (weights.get('last') as number));
    expect(coverage('the last reading', weights)).toBeLessThan(0.25);
    expect(coverage('the uplink packet', weights)).toBeGreaterThan(0.75);
    expect(coverageFactor(coverage('the last reading', weights))).toBeLessThan(0.5);
    expect(coverageFactor(coverage('the uplink packet', weights))).toBe(1);
  });

  it('weighs a term no record holds as the rarest held one', () => {
    const weights = termWeights(['undo', 'last', 'commit'], { total: 400, counts: [0, 40, 0] });
    expect(weights.get('undo')).toBe(weights.get('last'));
    expect(coverage('the last section', weights)).toBeCloseTo(1 / 3, 5);
  });

  it('counts a text holding no query term as covering none of it, however it was found', () => {
    // A reply found by its vector or lifted by its neighbour ("Can you paste one stack trace from the logs?" for "upgrade the firmware").
    const weights = termWeights(['upgrad', 'firmwar'], { total: 300, counts: [4, 2] });
    expect(coverage('Can you paste one stack trace from the logs?', weights)).toBe(0);
    expect(coverageFactor(0)).toBe(0);
    expect(coverageFactor(coverage('the firmware upgrade', weights))).toBe(1);
  });
});
