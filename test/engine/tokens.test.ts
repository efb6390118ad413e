/**
 * countTokens counts pre-token by pre-token with a cache of their counts; the sum must be the
 * tokenizer's own count of the whole text, on real files and on text made to stress the
 * pre-tokenizer's edges (line breaks, contractions, digits, CJK, emoji, special-token text).
 */
import { createRequire } from 'node:module';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { countTokens } from '../../main/lib/tokens.js';

const o200k = createRequire(import.meta.url)('gpt-tokenizer/encoding/o200k_base') as {
  countTokens(text: string, options: { disallowedSpecial: Set<string> }): number;
};
const direct = (text: string): number => o200k.countTokens(text, { disallowedSpecial: new Set() });

function filesUnder(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) filesUnder(path, out);
    else if (/\.(ts|tsx|md|json|go|py|txt)$/.test(name)) out.push(path);
  }
  return out;
}

// Long letter or punctuation runs are counted in slices on purpose (see tokens.ts): compared apart.
const hasLongRun = (text: string): boolean => /[\p{L}\p{M}]{256,}|[^\s\p{L}\p{N}]{256,}/u.test(text);

describe('countTokens', () => {
  it('equals the tokenizer on the repository own sources and fixtures, counted twice (cold and cached)', () => {
    const files = [...filesUnder('main'), ...filesUnder('test/fixtures'), ...filesUnder('docs')];
    const texts = files.map((file) => readFileSync(file, 'utf8')).filter((text) => !hasLongRun(text));
    expect(texts.length).toBeGreaterThan(300);
    const expected = texts.map(direct);
    expect(texts.map(countTokens)).toEqual(expected);
    expect(texts.map(countTokens)).toEqual(expected);
  });

  it('equals the tokenizer on the pre-tokenizer edges', () => {
    const samples = [
      "It's done, they'll see; WE'VE ARRIVED. I'd've\r\n\r\n\tkept 1234567 and 3.14159",
      'func main() {\n\tif err != nil {\n\t\treturn\n\t}\n}\n// comment\n/* block */\n\n\n   \n\t x',
      '}\n//go:build linux\n\n/// doc\r\n\r\n//',
      '天气预报每十分钟更新一次。東京タワー，한국어 문장 ! 😀👍🏽 e\u0301 \u00a0nbsp\u2028line',
      '<|endoftext|> <|im_start|>user<|im_end|> <|fim_prefix|>',
      '   leading spaces and trailing   \n\n   ',
      'CamelCaseIdentifier snake_case_name XMLHttpRequest 0x7fffABCD 1e-9 ++i --j >>= <<=',
    ];
    for (const text of samples) expect(countTokens(text)).toBe(direct(text));
  });
});
