/**
 * C++: the shared C-family walker (see c-family.ts), which also handles classes with their
 * bases, namespaces, templates, `using` aliases and out-of-class `Type::method` definitions.
 */
import { extractCFamily } from './c-family.js';

export const extractCpp = extractCFamily;
