/**
 * TypeScript and TSX: the shared ECMAScript walker (see ecmascript.ts), which also handles the
 * TypeScript-only declarations: interfaces, type aliases, enums, namespaces, `declare`, overload
 * signatures and abstract members.
 */
import { extractEcmaScript } from './ecmascript.js';

export const extractTypeScript = extractEcmaScript;
