/**
 * Renders a skeleton as compact text for a model and a person: one line per definition, nesting
 * by indentation, no blank lines.
 *
 * ```
 * # src/station.py [Python]
 * Weather station readings.
 * imports: dataclasses, typing
 * @dataclass class Reading(Base)  # One sample.
 *   + @property celsius(self) -> float
 * def parse_line(line: str) -> Reading | None  # Parses one CSV line.
 * ```
 */
import { LANGUAGES } from './detect.js';
import { countSkeleton, type ClassKind, type ClassSkeleton, type CodeSkeleton, type FunctionSig } from './skeleton.js';

/** The default cap of a rendered overview, in characters. */
export const OVERVIEW_MAX_CHARS = 4000;
export const ABSTRACT_MAX_CHARS = 256;
const MAX_IMPORTS = 40;

type LineKind = 'header' | 'class' | 'method' | 'function' | 'doc';
interface Line {
  text: string;
  kind: LineKind;
}

const KIND_WORDS: Readonly<Record<ClassKind, string>> = {
  class: 'class',
  struct: 'struct',
  interface: 'interface',
  trait: 'trait',
  enum: 'enum',
  union: 'union',
  record: 'record',
  annotation: '@interface',
  impl: 'impl',
  namespace: 'namespace',
  module: 'mod',
  object: 'object',
  type: 'type',
};

const KIND_NOUNS: Readonly<Record<ClassKind, [string, string]>> = {
  class: ['class', 'classes'],
  struct: ['struct', 'structs'],
  interface: ['interface', 'interfaces'],
  trait: ['trait', 'traits'],
  enum: ['enum', 'enums'],
  union: ['union', 'unions'],
  record: ['record', 'records'],
  annotation: ['annotation type', 'annotation types'],
  impl: ['impl block', 'impl blocks'],
  namespace: ['namespace', 'namespaces'],
  module: ['module', 'modules'],
  object: ['object', 'objects'],
  type: ['type alias', 'type aliases'],
};

function plural(n: number, [one, many]: readonly [string, string]): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** Adds the doc after the definition: its first line on the same line, further lines below. */
function withDoc(out: Line[], text: string, kind: LineKind, doc: string | null, indent: string): void {
  if (doc === null) {
    out.push({ text, kind });
    return;
  }
  const [first = '', ...rest] = doc.split('\n');
  out.push({ text: `${text}  # ${first}`, kind });
  for (const line of rest) out.push({ text: line.trim() === '' ? `${indent}  #` : `${indent}  # ${line}`, kind: 'doc' });
}

function signature(fn: FunctionSig): string {
  const parts = [...fn.decorators.map((d) => `@${d}`), ...fn.modifiers];
  // A generator's `*` sits against the name: `async *items()`.
  const head = parts.length > 0 ? `${parts.join(' ')} `.replace(/\* $/, '*') : '';
  const ret = fn.return_type !== null ? ` -> ${fn.return_type}` : '';
  return `${head}${fn.name}${fn.type_params ?? ''}${fn.params}${ret}`;
}

function functionLines(out: Line[], fn: FunctionSig, indent: string, asMember: boolean): void {
  const lead = asMember ? '+ ' : fn.kind === 'macro' ? 'macro ' : 'def ';
  withDoc(out, `${indent}${lead}${signature(fn)}`, asMember ? 'method' : 'function', fn.doc, indent);
}

function classHead(cls: ClassSkeleton): string {
  const decorators = cls.decorators.map((d) => `@${d} `).join('');
  const name = `${cls.name}${cls.type_params ?? ''}`;
  if (cls.kind === 'impl') {
    // Rust's `impl Trait for Type`; elsewhere the methods of a type declared in another file.
    return `${decorators}impl${cls.type_params ?? ''} ${cls.bases.length > 0 ? `${cls.bases.join(' + ')} for ` : ''}${cls.name}`;
  }
  if (cls.kind === 'type') return `${decorators}type ${name}${cls.alias_of ? ` = ${cls.alias_of}` : ''}`;
  const bases = cls.bases.length > 0 ? `(${cls.bases.join(', ')})` : '';
  return `${decorators}${KIND_WORDS[cls.kind]} ${name}${bases}`;
}

function classLines(out: Line[], cls: ClassSkeleton, indent: string): void {
  withDoc(out, `${indent}${classHead(cls)}`, 'class', cls.doc, indent);
  const inner = `${indent}  `;
  // A namespace or module holds free functions: they render as `def` after its types, like a file.
  if (cls.kind === 'namespace' || cls.kind === 'module') {
    for (const nested of cls.classes) classLines(out, nested, inner);
    for (const fn of cls.methods) functionLines(out, fn, inner, false);
    return;
  }
  for (const fn of cls.methods) functionLines(out, fn, inner, true);
  for (const nested of cls.classes) classLines(out, nested, inner);
}

function renderLines(skeleton: CodeSkeleton): Line[] {
  const out: Line[] = [{ text: `# ${skeleton.file} [${LANGUAGES[skeleton.language].display}]`, kind: 'header' }];
  if (skeleton.module_doc !== null) for (const line of skeleton.module_doc.split('\n')) out.push({ text: line, kind: 'header' });
  if (skeleton.imports.length > 0) {
    const shown = skeleton.imports.slice(0, MAX_IMPORTS);
    const more = skeleton.imports.length - shown.length;
    out.push({ text: `imports: ${shown.join(', ')}${more > 0 ? `, … (+${more})` : ''}`, kind: 'header' });
  }
  for (const cls of skeleton.classes) classLines(out, cls, '');
  for (const fn of skeleton.functions) functionLines(out, fn, '', false);
  return out;
}

export interface RenderOptions {
  /** Cap in characters; lines past it are replaced by a note of what was cut. Default: no cap. */
  maxChars?: number;
}

/**
 * The skeleton as text. With `maxChars`, whole lines are kept up to the cap and the last line
 * says how many definitions were cut.
 *
 * @example
 * renderSkeleton(skeleton, { maxChars: OVERVIEW_MAX_CHARS });
 */
export function renderSkeleton(skeleton: CodeSkeleton, options: RenderOptions = {}): string {
  const lines = renderLines(skeleton);
  const max = options.maxChars ?? Infinity;
  const all = lines.map((l) => l.text).join('\n');
  if (all.length <= max) return all;
  // Room for the note; it names counts, so it stays short.
  const budget = max - 100;
  const kept: string[] = [];
  let size = 0;
  let i = 0;
  for (; i < lines.length; i++) {
    const len = lines[i]!.text.length + 1;
    if (size + len > budget) break;
    kept.push(lines[i]!.text);
    size += len;
  }
  const cut = { class: 0, method: 0, function: 0 };
  for (const line of lines.slice(i)) if (line.kind === 'class' || line.kind === 'method' || line.kind === 'function') cut[line.kind]++;
  const parts = [cut.class > 0 ? plural(cut.class, ['type', 'types']) : '', cut.method > 0 ? plural(cut.method, ['method', 'methods']) : '', cut.function > 0 ? plural(cut.function, ['function', 'functions']) : ''].filter(Boolean);
  kept.push(`… cut to ${max} characters: ${parts.length > 0 ? parts.join(', ') : 'doc lines'} not shown`);
  return kept.join('\n');
}

const STUB = /\.(?:pyi|d\.[mc]?ts)$/i;
const HEADER = /\.(?:h|hh|hpp|hxx|h\+\+)$/i;
const MODULE_LANGUAGES = new Set(['python', 'rust', 'javascript', 'typescript', 'tsx']);

function fileNoun(skeleton: CodeSkeleton): string {
  if (STUB.test(skeleton.file)) return 'stub';
  if (HEADER.test(skeleton.file)) return 'header';
  return MODULE_LANGUAGES.has(skeleton.language) ? 'module' : 'file';
}

/**
 * A one-line description (at most 256 characters) for the file's L0: language, what it defines
 * by kind, the module doc's first line and the names it defines, as many as fit.
 *
 * @example
 * describeSkeleton(skeleton); // "Python module: 2 classes, 1 function, 5 methods — Weather station readings. Defines: Reading, Station, parse_line"
 */
export function describeSkeleton(skeleton: CodeSkeleton): string {
  const counts = countSkeleton(skeleton);
  const parts = [...counts.kinds].map(([kind, n]) => plural(n, KIND_NOUNS[kind]));
  if (counts.functions > 0) parts.push(plural(counts.functions, ['function', 'functions']));
  if (counts.methods > 0) parts.push(plural(counts.methods, ['method', 'methods']));
  let text = `${LANGUAGES[skeleton.language].display} ${fileNoun(skeleton)}: ${parts.join(', ') || 'no definitions'}`;
  const doc = skeleton.module_doc?.split('\n')[0]?.trim();
  if (doc) text += ` — ${doc}`;
  const names: string[] = [];
  // Namespaces and modules are containers: name what they hold.
  const visit = (classes: readonly ClassSkeleton[], functions: readonly FunctionSig[]) => {
    for (const cls of classes) {
      if (cls.kind === 'namespace' || cls.kind === 'module') visit(cls.classes, cls.methods);
      else names.push(cls.name);
    }
    for (const fn of functions) names.push(fn.name);
  };
  visit(skeleton.classes, skeleton.functions);
  if (names.length > 0) text += `${doc ? (/[.!?]$/.test(doc) ? ' ' : '. ') : '. '}Defines: ${[...new Set(names)].join(', ')}`;
  return text.length <= ABSTRACT_MAX_CHARS ? text : `${text.slice(0, ABSTRACT_MAX_CHARS - 1)}…`;
}
