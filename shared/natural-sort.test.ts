import { describe, expect, it } from 'vitest';
import { compareNatural } from './natural-sort.js';

describe('compareNatural', () => {
  it('orders release notes by version, not as text', () => {
    const names = ['2.39.5.txt', '2.4.0.txt', '1.5.0.1.txt', '2.4.10.txt', '10.0.0.txt', '2.4.9.txt'];
    expect([...names].sort(compareNatural)).toEqual(['1.5.0.1.txt', '2.4.0.txt', '2.4.9.txt', '2.4.10.txt', '2.39.5.txt', '10.0.0.txt']);
    // The old order (code units) put 2.39.5 before 2.4.0.
    expect([...names].sort()).not.toEqual([...names].sort(compareNatural));
  });

  it('puts a version before its point releases, whatever the extension, and keeps folders named by versions whole', () => {
    expect(['1.7.12.1.txt', '1.7.12.txt', '1.7.11.txt', '1.7.12.2.txt'].sort(compareNatural)).toEqual(['1.7.11.txt', '1.7.12.txt', '1.7.12.1.txt', '1.7.12.2.txt']);
    expect(['2.39.10', '2.39.5', '2.4'].sort(compareNatural)).toEqual(['2.4', '2.39.5', '2.39.10']);
    expect(['notes.txt', 'notes.md', 'notes-2.md', '.gitignore'].sort(compareNatural)).toEqual(['.gitignore', 'notes.md', 'notes.txt', 'notes-2.md']);
  });

  it('puts file10 after file9 and letters in alphabetical order, whatever their case', () => {
    expect(['file10', 'file9', 'file1', 'File2'].sort(compareNatural)).toEqual(['file1', 'File2', 'file9', 'file10']);
    expect(['b.md', 'C.md', 'a.md'].sort(compareNatural)).toEqual(['a.md', 'b.md', 'C.md']);
  });

  it('keeps numbered sections in document order, padded or not', () => {
    expect(['10-usage', '09-setup.md', '100-end.md', '2-intro.md'].sort(compareNatural)).toEqual(['2-intro.md', '09-setup.md', '10-usage', '100-end.md']);
  });

  it('is a total order: names the collator finds equal still get one stable place', () => {
    expect(compareNatural('01', '1')).not.toBe(0);
    expect(compareNatural('e\u0301', '\u00e9')).not.toBe(0);
    expect(compareNatural('1', '01')).toBe(-compareNatural('01', '1'));
    expect(compareNatural('same', 'same')).toBe(0);
    const forward = ['1', '01', '001', 'é', 'e\u0301'].sort(compareNatural);
    const backward = ['e\u0301', 'é', '001', '01', '1'].sort(compareNatural);
    expect(forward).toEqual(backward);
  });
});
