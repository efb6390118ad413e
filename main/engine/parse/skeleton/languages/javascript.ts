/**
 * JavaScript (.js .jsx .mjs .cjs): the shared ECMAScript walker (see ecmascript.ts).
 */
import { extractEcmaScript } from './ecmascript.js';

export const extractJavaScript = extractEcmaScript;
