import { countTokens as exactO200k } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { countTokens, estimateTokens } from './tokens.js';

const PLAIN = { disallowedSpecial: new Set<string>() };

describe('countTokens', () => {
  it('counts o200k_base tokens exactly on ordinary text', () => {
    expect(countTokens('Hello, world')).toBe(3);
    expect(countTokens('')).toBe(0);
    const mixed = '# 潮汐站\r\n\r\nThe station sends a packet every ten minutes. 每十分钟发送一个数据包。\n```py\nx = 1\n```\n';
    expect(countTokens(mixed)).toBe(exactO200k(mixed, PLAIN));
    const urls = Array.from({ length: 50 }, (_, i) => `https://example.com/a/very/long/path/segment-${i}?query=value&other=thing#fragment-${i}`).join(' ');
    expect(countTokens(urls)).toBe(exactO200k(urls, PLAIN));
  });

  it('counts special-token text as plain text instead of throwing', () => {
    for (const special of ['<|endoftext|>', '<|im_start|>user', '<|fim_prefix|>x<|fim_suffix|>']) {
      expect(countTokens(special)).toBe(exactO200k(special, PLAIN));
      expect(countTokens(special)).toBeGreaterThan(1);
    }
  });

  it('stays within a few tokens per 256 characters of the exact count inside long runs', () => {
    const glued = Array.from({ length: 2000 }, (_, i) => ['station', 'packet', 'window', 'forecast'][(i * 7) % 4]).join('');
    const alphabet = 'abcdefghijklmnopqrstuvwxyz'.repeat(200);
    for (const run of [glued, alphabet]) {
      const exact = exactO200k(run, PLAIN);
      const counted = countTokens(run);
      expect(counted).toBeGreaterThanOrEqual(exact);
      expect(counted - exact).toBeLessThanOrEqual(4 * Math.ceil(run.length / 256));
    }
    // Runs shorter than a slice are counted exactly.
    const short = 'abcdefghij'.repeat(25);
    expect(countTokens(short)).toBe(exactO200k(short, PLAIN));
  });

  it('never splits a surrogate pair when slicing long runs', () => {
    const emoji = '😀'.repeat(2000);
    expect(countTokens(emoji)).toBe(exactO200k(emoji, PLAIN));
  });

  it('finishes on a 1 MB run of letters (the tokenizer alone takes minutes there)', () => {
    // The test timeout is the bound; no timed assertion.
    const line = 'abcdefghij'.repeat(100_000);
    expect(countTokens(line)).toBeGreaterThan(100_000);
  });
});

describe('estimateTokens', () => {
  it('adds the chat framing per message to the content tokens', () => {
    const one = estimateTokens([{ role: 'user', content: 'hello world' }]);
    const two = estimateTokens([
      { role: 'system', content: 'hello world' },
      { role: 'user', content: 'hello world' },
    ]);
    expect(one).toBe(2 + 3 + 3);
    expect(two - one).toBe(2 + 3);
  });
});
