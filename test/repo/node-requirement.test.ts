/**
 * One Node requirement (issue 22): the README states the version package.json's engines field
 * asks for, and that version is at least what the installed packages' own engines ask for
 * (Electron's installer and Vite), so following the README gives an `npm install` without
 * EBADENGINE warnings.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const json = (path: string) => JSON.parse(readFileSync(join(ROOT, path), 'utf8')) as { engines?: { node?: string } };

/** The lowest version a `>=x.y[.z]` range admits, as [major, minor]. */
function lowest(range: string): [number, number] {
  const match = /^>=\s*(\d+)\.(\d+)/.exec(range.trim());
  if (!match) throw new Error(`not a >= range: ${range}`);
  return [Number(match[1]), Number(match[2])];
}
const atLeast = ([a, b]: [number, number], [c, d]: [number, number]) => a > c || (a === c && b >= d);

describe('the Node requirement', () => {
  const engines = json('package.json').engines?.node ?? '';

  it('the README says the version package.json asks for', () => {
    const [major, minor] = lowest(engines);
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme).toMatch(new RegExp(`Node\\.js ${major}\\.${minor} or newer`));
    // ...and no other version anywhere.
    const stated = [...readme.matchAll(/Node(?:\.js)? (\d+\.\d+) or newer/g)].map((m) => m[1]);
    expect(new Set(stated)).toEqual(new Set([`${major}.${minor}`]));
  });

  it("covers Electron's installer", () => {
    expect(atLeast(lowest(engines), lowest(json('node_modules/electron/package.json').engines!.node!))).toBe(true);
  });
});
