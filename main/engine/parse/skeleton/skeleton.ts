/**
 * The data model of a code skeleton: what a file defines (classes and their method signatures,
 * top-level functions), what it imports and what it says about itself, with 1-based line ranges.
 * Plain data only: skeletons cross worker boundaries and are printed as JSON by `cairn skeleton`.
 */

/** Language ids of the extractors; also the `language` of ingested code nodes. */
export type SkeletonLanguage = 'python' | 'javascript' | 'typescript' | 'tsx' | 'rust' | 'go' | 'java' | 'c' | 'cpp';

/** `first-sentence` keeps the first sentence of each doc comment (mode `ast`); `full` keeps it whole (`ast_llm`). */
export type DocDepth = 'first-sentence' | 'full';

/**
 * What a class-like entry is. `impl` groups definitions of a type declared elsewhere: a Rust
 * `impl` block, Go methods whose receiver type is not declared in the file, C++ `Type::method`
 * definitions out of their class. `type` is an alias (`type X = ...`, `using X = ...`). `object`
 * is a JavaScript object literal of functions bound to a name (`const api = { get() {} }`).
 */
export type ClassKind =
  | 'class'
  | 'struct'
  | 'interface'
  | 'trait'
  | 'enum'
  | 'union'
  | 'record'
  | 'annotation'
  | 'impl'
  | 'namespace'
  | 'module'
  | 'object'
  | 'type';

/** `macro` is a C/C++ function-like `#define NAME(args)` or a Rust `macro_rules!`. */
export type FunctionKind = 'function' | 'method' | 'constructor' | 'macro';

export interface FunctionSig {
  name: string;
  kind: FunctionKind;
  /** The parameter list as written, whitespace collapsed: `(self, x: int = 3)`. */
  params: string;
  return_type: string | null;
  /** Generic parameters as written (`<T: Clone>`, `[T any]`), when there are any. */
  type_params: string | null;
  /** Keywords that change how the function is called: async, static, abstract, get, set, pub, unsafe, const, virtual... */
  modifiers: string[];
  /** Decorators and annotations as written, without the `@`: `property`, `Override`. */
  decorators: string[];
  doc: string | null;
  line_start: number;
  line_end: number;
}

export interface ClassSkeleton {
  name: string;
  kind: ClassKind;
  type_params: string | null;
  /** Base classes, implemented interfaces, trait bounds, embedded types, as written. */
  bases: string[];
  /** For `kind: 'type'`: the aliased type as written, whitespace collapsed. */
  alias_of: string | null;
  decorators: string[];
  doc: string | null;
  methods: FunctionSig[];
  /** Nested classes (and, for namespaces and modules, the classes inside them). */
  classes: ClassSkeleton[];
  line_start: number;
  line_end: number;
}

export interface CodeSkeleton {
  /** The path the skeleton was made for, as the caller named it (relative, POSIX separators). */
  file: string;
  language: SkeletonLanguage;
  module_doc: string | null;
  /** Imported modules as written (`os`, `./util.js`, `std::collections::HashMap`, `<stdio.h>`), deduplicated. */
  imports: string[];
  classes: ClassSkeleton[];
  functions: FunctionSig[];
}

/** What a language extractor returns; the file and language are filled in by the dispatcher. */
export type SkeletonParts = Omit<CodeSkeleton, 'file' | 'language'>;

export interface SkeletonCounts {
  /** Class-like entries by kind, nested ones included. */
  kinds: Map<ClassKind, number>;
  methods: number;
  functions: number;
}

/** Counts definitions, nested classes and namespace members included. */
export function countSkeleton(skeleton: Pick<CodeSkeleton, 'classes' | 'functions'>): SkeletonCounts {
  const counts: SkeletonCounts = { kinds: new Map(), methods: 0, functions: skeleton.functions.length };
  const visit = (cls: ClassSkeleton) => {
    counts.kinds.set(cls.kind, (counts.kinds.get(cls.kind) ?? 0) + 1);
    // A namespace or module holds free functions, not methods.
    if (cls.kind === 'namespace' || cls.kind === 'module') counts.functions += cls.methods.length;
    else counts.methods += cls.methods.length;
    cls.classes.forEach(visit);
  };
  skeleton.classes.forEach(visit);
  return counts;
}

/** A skeleton with no class and no function says nothing worth a summary. */
export function isEmptySkeleton(skeleton: Pick<CodeSkeleton, 'classes' | 'functions'>): boolean {
  return skeleton.classes.length === 0 && skeleton.functions.length === 0;
}
