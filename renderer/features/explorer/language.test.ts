import { describe, expect, it } from 'vitest';
import { monacoLanguage } from './language';

describe('monacoLanguage', () => {
  it('reads a split document folder by its file name, as the document it shows', () => {
    expect(monacoLanguage(null, 'ctx://resources/docs/guide.md/')).toBe('markdown');
    expect(monacoLanguage({ source_format: 'markdown' }, 'ctx://resources/docs/guide.md/')).toBe('markdown');
    expect(monacoLanguage(null, 'ctx://resources/notes/uplink.log/')).toBe('plaintext');
    expect(monacoLanguage(null, 'ctx://resources/src/app.ts')).toBe('typescript');
  });
});
