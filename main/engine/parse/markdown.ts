/**
 * Markdown: decoded as is and split at its headings.
 */
import { decodeText } from './encoding.js';
import { documentFile } from './parsed-document.js';
import type { Parser } from './types.js';

/**
 * @example
 * const parsed = await markdownParser.parse({ path, relPath: 'docs/guide.md', bytes, split: { maxTokens: 1024, minTokens: 512 }, codeSummaryMode: 'ast' });
 * parsed.node.kind // 'file' when the guide is at most 1024 tokens, else 'dir' of sections
 */
export const markdownParser: Parser = {
  name: 'markdown',
  format: 'markdown',
  extensions: ['.md', '.markdown', '.mdx', '.mdown', '.mkd', '.mkdn', '.mdwn'],
  async parse(input) {
    const { text, warning } = decodeText(input.bytes, input.relPath);
    return documentFile({ text, input, parserName: 'markdown', sourceFormat: 'markdown', format: 'markdown', keepExtension: true, warnings: warning ? [warning] : [] });
  },
};
