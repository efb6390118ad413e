/**
 * Sentence splitting for English and Chinese: after . ! ? followed by a space, after 。！？；
 * and at line breaks. Decimal points, "e.g." and file names (next.config.js) stay inside a sentence
 * because a split needs whitespace after the period.
 */
const BOUNDARY = /(?<=[。！？；!?])\s*|(?<=[.!?]["')\]]?)\s+(?=[A-Z0-9"'([\u4e00-\u9fff])|\n+/u;

export function splitSentences(text: string): string[] {
  return text
    .split(BOUNDARY)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}
