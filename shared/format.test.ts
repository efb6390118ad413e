import { describe, expect, it } from 'vitest';
import { formatBytes, formatCount, formatMs, formatUsd, formatWhen } from './format.js';

describe('formatters', () => {
  it('prints sizes in binary multiples, one decimal under ten', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(20 * 1024 * 1024)).toBe('20 MB');
    expect(formatBytes(3 * 1024 ** 5)).toBe('3072 TB');
  });

  it('groups digits the way the language does', () => {
    expect(formatCount(1234567)).toBe('1,234,567');
    expect(formatCount(1234567, 'zh')).toBe('1,234,567');
    expect(formatCount(12)).toBe('12');
  });

  it('prints whole milliseconds under a second and tenths of seconds from there', () => {
    expect(formatMs(12.345678)).toBe('12 ms');
    expect(formatMs(999.4)).toBe('999 ms');
    expect(formatMs(999.6)).toBe('1.0 s');
    expect(formatMs(2540)).toBe('2.5 s');
  });

  it('prints small prices with four decimals so they do not read as $0.00', () => {
    expect(formatUsd(0.00042)).toBe('$0.0004');
    expect(formatUsd(12.5)).toBe('$12.50');
  });

  it('prints a moment as a local date and time, and anything else as given', () => {
    expect(formatWhen('2024-05-08T13:56:00Z')).toMatch(/2024/);
    expect(formatWhen('not a date')).toBe('not a date');
  });
});
