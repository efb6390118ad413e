/**
 * C: the shared C-family walker (see c-family.ts): includes, function-like macros, structs,
 * unions and enums (typedef'd ones too), function definitions and prototypes.
 */
import { extractCFamily } from './c-family.js';

export const extractC = extractCFamily;
