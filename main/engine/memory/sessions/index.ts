/**
 * Session import (docs/ARCHITECTURE.md#conversations): every supported chat format into Cairn
 * conversations, and back to Markdown.
 */
export { importConversations, parseConversations, type ImportInput, type ImportOptions } from './import.js';
export { detectFormat } from './detect.js';
export { IMPORT_FORMATS, type ImportFormat } from './draft.js';
export { renderConversationMarkdown } from './render-markdown.js';
