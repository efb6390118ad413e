/**
 * `ctx://` URIs: `ctx://{scope}/{path}`, a trailing `/` marks a directory.
 *
 * A URI is plain text, not percent-encoded: segments are file names as a person sees them.
 * Parsing normalises (scheme case, Unicode NFC, `.` segments, the scope root's trailing slash)
 * and rejects anything that could leave the workspace once mapped to a path: `..`, empty
 * segments (an absolute path hiding after the scope), NUL, back-slashes, encoded separators and
 * dots, and drive letters.
 *
 * @example
 * parseCtxUri('ctx://resources/docs/guide.md') // { scope: 'resources', segments: ['docs', 'guide.md'], isDir: false }
 * childUri('ctx://resources/docs/', 'api', true) // 'ctx://resources/docs/api/'
 */
import { CairnError } from './errors.js';

export const SCOPES = ['resources', 'user', 'agent', 'session', 'temp'] as const;
export type Scope = (typeof SCOPES)[number];
/** Scopes a person ingests into; `session` and `temp` are written by Cairn itself. */
export const INGEST_SCOPES = ['resources', 'user', 'agent'] as const;
export type IngestScope = (typeof INGEST_SCOPES)[number];

export interface CtxUri {
  readonly scope: Scope;
  readonly segments: readonly string[];
  readonly isDir: boolean;
}

const PREFIX = 'ctx://';
const ENCODED_ESCAPES = /%(2f|5c|00|2e)/i;
const DRIVE_LETTER = /^[a-z]:/i;

/** Sidecar files that hold a node's L0, L1 and metadata next to it on disk. */
export const ABSTRACT_FILE = '.abstract.md';
export const OVERVIEW_FILE = '.overview.md';
export const META_FILE = '.meta.json';
export const FILE_META_SUFFIX = '.meta.json';

/** True for names ContextFS keeps for itself (sidecars); a node may not use them. */
export function isSidecarName(name: string): boolean {
  return name === ABSTRACT_FILE || name === OVERVIEW_FILE || name.endsWith(FILE_META_SUFFIX) || name.startsWith('.cairn-tmp-');
}

function invalid(input: string, reason: string): never {
  throw new CairnError('INVALID_URI', `Invalid ctx:// URI ${JSON.stringify(input)}: ${reason}`, { details: { uri: input, reason } });
}

function escape(input: string, reason: string): never {
  throw new CairnError('PATH_ESCAPE', `Refused ctx:// URI ${JSON.stringify(input)}: ${reason}`, { details: { uri: input, reason } });
}

/** Checks one path segment (a file or directory name) and returns it normalised to NFC. */
export function validateSegment(segment: string, input = segment): string {
  if (segment.length === 0) escape(input, 'empty path segment (an absolute path or a doubled slash)');
  if (segment.includes('\0')) escape(input, 'NUL byte in path');
  if (segment.includes('\\')) escape(input, 'back-slash in path');
  if (segment.includes('/')) escape(input, 'slash inside a name');
  if (ENCODED_ESCAPES.test(segment)) escape(input, 'encoded separator, dot or NUL in path');
  if (segment === '..') escape(input, '".." leaves the workspace');
  if (DRIVE_LETTER.test(segment)) escape(input, 'drive letter in path');
  return segment.normalize('NFC');
}

export function parseCtxUri(input: string): CtxUri {
  if (typeof input !== 'string') invalid(String(input), 'not a string');
  if (input.slice(0, PREFIX.length).toLowerCase() !== PREFIX) invalid(input, 'must start with ctx://');
  const rest = input.slice(PREFIX.length);
  if (rest.includes('\0')) escape(input, 'NUL byte in path');
  const slash = rest.indexOf('/');
  const scopeText = (slash === -1 ? rest : rest.slice(0, slash)).toLowerCase();
  if (!(SCOPES as readonly string[]).includes(scopeText)) {
    invalid(input, `unknown scope ${JSON.stringify(scopeText)} (expected one of ${SCOPES.join(', ')})`);
  }
  const scope = scopeText as Scope;
  if (slash === -1 || slash === rest.length - 1) return { scope, segments: [], isDir: true };
  const path = rest.slice(slash + 1);
  const isDir = path.endsWith('/');
  const raw = (isDir ? path.slice(0, -1) : path).split('/');
  const segments: string[] = [];
  for (const segment of raw) {
    if (segment === '.') continue;
    segments.push(validateSegment(segment, input));
  }
  return { scope, segments, isDir: isDir || segments.length === 0 };
}

export function formatCtxUri(uri: CtxUri): string {
  const path = uri.segments.join('/');
  if (uri.segments.length === 0) return `${PREFIX}${uri.scope}/`;
  return `${PREFIX}${uri.scope}/${path}${uri.isDir ? '/' : ''}`;
}

/** Parses and prints back: the canonical spelling of a URI. */
export function normalizeCtxUri(input: string): string {
  return formatCtxUri(parseCtxUri(input));
}

export function isDirectoryUri(uri: string): boolean {
  return uri.endsWith('/');
}

export function asDirectoryUri(uri: string): string {
  const parsed = parseCtxUri(uri);
  return formatCtxUri({ ...parsed, isDir: true });
}

export function childUri(parent: string, name: string, isDir: boolean): string {
  const parsed = parseCtxUri(parent);
  return formatCtxUri({ scope: parsed.scope, segments: [...parsed.segments, validateSegment(name, `${parent}${name}`)], isDir });
}

/** The parent directory's URI, or null for a scope root. */
export function parentUri(uri: string): string | null {
  const parsed = parseCtxUri(uri);
  if (parsed.segments.length === 0) return null;
  return formatCtxUri({ scope: parsed.scope, segments: parsed.segments.slice(0, -1), isDir: true });
}

/** The last segment (the node's name), or the scope for a scope root. */
export function uriName(uri: string): string {
  const parsed = parseCtxUri(uri);
  return parsed.segments.at(-1) ?? parsed.scope;
}

/** True when `uri` is `ancestor` itself or lies below it. */
export function isWithinUri(ancestor: string, uri: string): boolean {
  const a = parseCtxUri(ancestor);
  const b = parseCtxUri(uri);
  if (a.scope !== b.scope || a.segments.length > b.segments.length) return false;
  return a.segments.every((segment, i) => b.segments[i] === segment);
}

export function scopeRootUri(scope: Scope): string {
  return `${PREFIX}${scope}/`;
}

/** Depth below the scope root: `ctx://resources/` is 0, `ctx://resources/a/` is 1. */
export function uriDepth(uri: string): number {
  return parseCtxUri(uri).segments.length;
}
