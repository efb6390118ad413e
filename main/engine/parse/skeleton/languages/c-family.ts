/**
 * The C / C++ walker. The C++ grammar extends the C one, so one walker serves both; C++-only
 * nodes (classes, namespaces, templates, qualified names) never occur in a C tree.
 *
 * Decisions:
 * - Prototypes count as functions: a header's API is its prototypes.
 * - Function-like macros (`#define MAX(a, b)`) are functions of kind `macro`: they are called
 *   like functions and are often a C library's API. Object-like macros are constants, left out.
 * - A `typedef struct {...} name_t` is a struct named after its tag, or after the typedef when
 *   the struct has no tag. Other typedefs are left out (they name types, define nothing).
 * - `Type::method` defined outside its class joins the class when the file declares it (also
 *   inside namespaces), or else an entry of kind `impl` named after the scope. `ns::f` joins the
 *   namespace `ns` when the file has it.
 * - Preprocessor conditionals and `extern "C" {}` are transparent: both branches are read.
 */
import type { Node } from 'web-tree-sitter';
import type { ClassSkeleton, FunctionSig } from '../skeleton.js';
import { children, cleanAlias, cleanParams, collapse, declarations, dedupe, docFromComments, field, leadingComment, named, newClass, newFunction, precedingComments, type ExtractContext, type Extractor } from './common.js';

const isComment = (n: Node) => n.type === 'comment';

const PREPROC_BLOCKS = new Set(['preproc_if', 'preproc_ifdef', 'preproc_else', 'preproc_elif', 'preproc_elifdef']);
const RECORD_KINDS: Readonly<Record<string, ClassSkeleton['kind']>> = {
  struct_specifier: 'struct',
  union_specifier: 'union',
  enum_specifier: 'enum',
  class_specifier: 'class',
};
const NAME_TYPES = new Set(['identifier', 'field_identifier', 'qualified_identifier', 'destructor_name', 'operator_name', 'template_function', 'operator_cast', 'type_identifier']);
const KEPT_MODIFIERS = new Set(['static', 'virtual', 'explicit', 'constexpr', 'consteval']);
// Tokens after the parameter list that are part of a member function's signature.
const TRAILING = new Set(['type_qualifier', 'virtual_specifier', 'noexcept', 'ref_qualifier', 'throw_specifier', 'requires_clause']);
// A comment right above these documents them, not the file.
const DOCUMENTED = new Set(['function_definition', 'declaration', 'type_definition', 'struct_specifier', 'union_specifier', 'enum_specifier', 'class_specifier', 'template_declaration', 'preproc_function_def', 'alias_declaration']);

interface Scope {
  classes: ClassSkeleton[];
  functions: FunctionSig[];
  imports: string[];
}

interface FunctionShape {
  /** The name as written, possibly qualified (`Graph::addEdge`, `operator bool`). */
  name: string;
  params: string;
  /** `*` and `&` between the return type and the name. */
  pointers: string;
  trailingReturn: string | null;
}

function operatorCast(node: Node): FunctionShape {
  const fd = field(node, 'declarator');
  const params = fd ? field(fd, 'parameters') : null;
  const name = collapse(node.text.slice(0, fd ? fd.startIndex - node.startIndex : undefined));
  const trailing = fd ? named(fd).filter((c) => TRAILING.has(c.type)).map((c) => collapse(c.text)) : [];
  return { name, params: [cleanParams(params?.text ?? '()'), ...trailing].join(' '), pointers: '', trailingReturn: null };
}

/**
 * Finds the function a declarator declares: the innermost `function_declarator` whose own
 * declarator is a name. A pointer between that declarator and the name makes it a function
 * pointer variable, not a function.
 */
function functionShape(declarator: Node | null): FunctionShape | null {
  let cur = declarator;
  let fd: Node | null = null;
  let pointers = '';
  let pointerSinceFd = false;
  while (cur) {
    switch (cur.type) {
      case 'function_declarator':
        fd = cur;
        pointerSinceFd = false;
        cur = field(cur, 'declarator');
        break;
      case 'pointer_declarator':
      case 'reference_declarator':
        if (fd) pointerSinceFd = true;
        else pointers += cur.type === 'pointer_declarator' ? '*' : cur.text.startsWith('&&') ? '&&' : '&';
        cur = field(cur, 'declarator') ?? cur.lastNamedChild;
        break;
      case 'parenthesized_declarator':
      case 'attributed_declarator':
        cur = named(cur).find((c) => c.type !== 'attribute_declaration') ?? null;
        break;
      case 'operator_cast':
        return fd ? null : operatorCast(cur);
      case 'qualified_identifier': {
        // `Foo::operator bool() const` puts the whole signature inside the qualified name.
        let inner: Node | null = cur;
        while (inner?.type === 'qualified_identifier') inner = field(inner, 'name');
        if (inner?.type === 'operator_cast' && !fd) {
          const shape = operatorCast(inner);
          return { ...shape, name: collapse(cur.text.slice(0, inner.startIndex - cur.startIndex)) + shape.name };
        }
        return fd && !pointerSinceFd ? shapeOf(cur, fd, pointers) : null;
      }
      default:
        if (!NAME_TYPES.has(cur.type) || !fd || pointerSinceFd) return null;
        return shapeOf(cur, fd, pointers);
    }
  }
  return null;
}

function shapeOf(name: Node, fd: Node, pointers: string): FunctionShape {
  const params = field(fd, 'parameters');
  const trailing = named(fd)
    .filter((c) => TRAILING.has(c.type))
    .map((c) => collapse(c.text));
  const trailingReturn = named(fd).find((c) => c.type === 'trailing_return_type');
  return {
    name: collapse(name.text),
    params: [cleanParams(params?.text ?? '()'), ...trailing].join(' '),
    pointers,
    trailingReturn: trailingReturn ? collapse(trailingReturn.text.replace(/^->\s*/, '')) : null,
  };
}

/** Splits `a::B<T>::c` into the scope path without template arguments (`['a', 'B']`) and the name (`c`). */
function splitQualified(name: string): { scope: string[]; name: string } {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < name.length; i++) {
    const ch = name[i];
    if (ch === '<') depth++;
    else if (ch === '>') depth = Math.max(0, depth - 1);
    else if (ch === ':' && name[i + 1] === ':' && depth === 0) {
      parts.push(name.slice(start, i));
      start = i + 2;
      i++;
    }
  }
  const last = name.slice(start);
  // `operator<` and friends: the `<` belongs to the name, so re-join if the split broke it.
  return { scope: parts.map((p) => p.replace(/<.*$/s, '').trim()).filter((p) => p !== ''), name: last.trim() };
}

function returnTypeOf(def: Node, shape: FunctionShape): string | null {
  if (shape.trailingReturn) return shape.trailingReturn;
  const type = field(def, 'type');
  if (!type) return null;
  const qualifiers = named(def)
    .filter((c) => c.type === 'type_qualifier' && c.endIndex <= type.startIndex)
    .map((c) => c.text);
  return collapse([...qualifiers, type.text].join(' ')) + (shape.pointers ? ` ${shape.pointers}` : '');
}

function modifiersOf(def: Node): string[] {
  const out: string[] = [];
  for (const child of def.children) {
    if (!child) continue;
    const word = child.type === 'storage_class_specifier' || child.type === 'virtual' || child.type === 'explicit_function_specifier' ? collapse(child.text) : child.type;
    if (KEPT_MODIFIERS.has(word)) out.push(word);
  }
  // `= 0`, `= delete`, `= default` after a member's parameters.
  if (field(def, 'default_value')?.text === '0') out.push('abstract');
  for (const child of def.children) {
    if (child?.type === 'delete_method_clause') out.push('deleted');
    else if (child?.type === 'default_method_clause') out.push('defaulted');
    else if (child?.type === 'pure_virtual_clause') out.push('abstract');
  }
  return out;
}

/** How many parameters a parameter list has: enough to tell a definition from its declaration's overloads. */
function arity(params: string): number {
  let depth = 0;
  let commas = 0;
  let any = false;
  for (const ch of params) {
    if (ch === '(' || ch === '<' || ch === '[' || ch === '{') depth++;
    else if (ch === ')' || ch === '>' || ch === ']' || ch === '}') {
      depth--;
      if (depth === 0) break;
    } else if (depth === 1) {
      if (ch === ',') commas++;
      else if (!/\s/.test(ch)) any = true;
    }
  }
  return any ? commas + 1 : 0;
}

class Walker {
  constructor(private readonly ctx: ExtractContext) {}

  private doc(anchor: Node): string | null {
    return docFromComments(precedingComments(anchor, isComment), this.ctx.docs);
  }

  /** Adds the function declared by `def` (a definition, declaration or field) to `scope`, or to its class. */
  private func(def: Node, anchor: Node, scope: Scope, inClass: string | null, typeParams: string | null, root: Scope): void {
    const declarators = def.type === 'function_definition' ? [field(def, 'declarator')] : def.childrenForFieldName('declarator');
    for (const declarator of declarators) {
      const shape = functionShape(declarator);
      if (!shape) continue;
      const { scope: path, name } = splitQualified(shape.name);
      const owner = inClass ?? path[path.length - 1] ?? null;
      const kind: FunctionSig['kind'] = owner !== null && (name === owner || name.startsWith(`${owner}<`)) ? 'constructor' : inClass !== null || path.length > 0 ? 'method' : 'function';
      const sig = newFunction(anchor, name, kind, shape.params, {
        return_type: returnTypeOf(def, shape),
        // `template <typename T> int Graph<T>::f()`: the parameters are the class's, not the method's.
        type_params: path.length > 0 && inClass === null ? null : typeParams,
        modifiers: modifiersOf(def),
        doc: this.doc(anchor),
      });
      if (path.length > 0 && inClass === null) this.attachQualified(path, sig, scope, root, anchor);
      else scope.functions.push(sig);
    }
  }

  private callAsPrototype(stmt: Node, scope: Scope): void {
    let expr = stmt.firstNamedChild;
    let pointers = '';
    while (expr?.type === 'pointer_expression') {
      pointers += '*';
      expr = field(expr, 'argument');
    }
    if (expr?.type !== 'call_expression') return;
    const callee = field(expr, 'function');
    const args = field(expr, 'arguments');
    // `DECLARE_ASN1_FUNCTIONS(X509);` is a macro invocation, not a prototype.
    if (callee?.type !== 'identifier' || !args || /^[A-Z0-9_]+$/.test(callee.text)) return;
    const previous = stmt.previousNamedSibling;
    const type = previous?.type === 'declaration' && previous.endPosition.row >= stmt.startPosition.row - 1 && !previous.text.endsWith(';') ? field(previous, 'declarator') : null;
    const returnType = type ? collapse(type.text) + (pointers ? ` ${pointers}` : '') : null;
    const sig = newFunction(stmt, callee.text, 'function', cleanParams(args.text), { return_type: returnType, doc: this.doc(previous && type ? previous : stmt) });
    if (previous && type) sig.line_start = previous.startPosition.row + 1; // the prototype starts with its return type
    scope.functions.push(sig);
  }

  private orphan(declarator: Node, scope: Scope, inClass: string | null, root: Scope): void {
    const shape = functionShape(declarator);
    if (!shape) return;
    const type = declarator.previousNamedSibling;
    const returnType = type && /type|specifier/.test(type.type) && type.endPosition.row >= declarator.startPosition.row - 1 ? collapse(type.text) + (shape.pointers ? ` ${shape.pointers}` : '') : null;
    const { scope: path, name } = splitQualified(shape.name);
    const sig = newFunction(declarator, name, inClass !== null || path.length > 0 ? 'method' : 'function', shape.params, { return_type: returnType, doc: this.doc(type ?? declarator) });
    if (path.length > 0 && inClass === null) this.attachQualified(path, sig, scope, root, declarator);
    else scope.functions.push(sig);
  }

  /** `A::B::f` outside its class: into the class or namespace the file declares, else into an `impl` entry. */
  private attachQualified(path: string[], sig: FunctionSig, scope: Scope, root: Scope, anchor: Node): void {
    const target = findContainer(scope.classes, path) ?? findContainer(root.classes, path);
    if (target) {
      if (target.kind !== 'namespace' && sig.kind === 'function') sig.kind = 'method';
      // The class already declares it: the declaration stands for both.
      const n = arity(sig.params);
      if (target.methods.some((m) => m.name === sig.name && arity(m.params) === n)) return;
      target.methods.push(sig);
      return;
    }
    const name = path.join('::');
    let impl = scope.classes.find((c) => c.kind === 'impl' && c.name === name);
    if (!impl) {
      impl = newClass(anchor, name, 'impl');
      scope.classes.push(impl);
    }
    impl.methods.push(sig);
    impl.line_end = Math.max(impl.line_end, sig.line_end);
  }

  /**
   * A struct, union, enum or class with a body. An anonymous one is no entry of its own, but the
   * named records declared inside it join `hoist` (`union { struct in {...}; struct out {...}; }`).
   */
  private record(spec: Node, anchor: Node, typeParams: string | null, fallbackName: string | null, hoist?: Scope): ClassSkeleton | null {
    const body = field(spec, 'body');
    if (!body) return null;
    const nameNode = field(spec, 'name');
    const name = nameNode ? collapse(nameNode.text) : fallbackName;
    if (name === null) {
      if (hoist && spec.type !== 'enum_specifier') {
        const inner: Scope = { classes: [], functions: [], imports: [] };
        this.members(body, inner, '');
        hoist.classes.push(...inner.classes);
      }
      return null;
    }
    const bases: string[] = [];
    for (const child of named(spec)) {
      if (child.type === 'base_class_clause') bases.push(...named(child).filter((c) => c.type !== 'access_specifier').map((c) => collapse(c.text)));
    }
    const enumBase = field(spec, 'base');
    if (enumBase) bases.push(collapse(enumBase.text));
    const inner: Scope = { classes: [], functions: [], imports: [] };
    if (spec.type !== 'enum_specifier') this.members(body, inner, name.replace(/<.*$/s, ''));
    return newClass(anchor, name, RECORD_KINDS[spec.type] ?? 'struct', {
      type_params: typeParams,
      bases,
      doc: this.doc(anchor),
      methods: inner.functions,
      classes: inner.classes,
    });
  }

  /** Members of a class body. */
  private members(body: Node, scope: Scope, className: string): void {
    for (const member of declarations(body)) this.item(member, member, scope, className, null, scope);
  }

  /**
   * One item of a file, namespace or class body. `anchor` is the node its doc sits above (the
   * template declaration around it); `inClass` is the enclosing class's name.
   */
  item(node: Node, anchor: Node, scope: Scope, inClass: string | null, typeParams: string | null, root: Scope): void {
    switch (node.type) {
      case 'preproc_include': {
        const path = field(node, 'path');
        if (path) scope.imports.push(collapse(path.text));
        break;
      }
      case 'preproc_function_def':
        break; // collected over the whole tree, see macros()
      case 'function_definition':
        this.func(node, anchor, scope, inClass, typeParams, root);
        break;
      case 'declaration':
      case 'field_declaration': {
        const type = field(node, 'type');
        if (type && type.type in RECORD_KINDS) {
          const cls = this.record(type, anchor, typeParams, null, scope);
          if (cls) scope.classes.push(cls);
        }
        this.func(node, anchor, scope, inClass, typeParams, root);
        break;
      }
      case 'type_definition': {
        const type = field(node, 'type');
        if (type && type.type in RECORD_KINDS) {
          const alias = node.childrenForFieldName('declarator').find((d) => d?.type === 'type_identifier')?.text ?? null;
          const cls = this.record(type, anchor, typeParams, alias);
          if (cls) scope.classes.push(cls);
        }
        break;
      }
      case 'struct_specifier':
      case 'union_specifier':
      case 'enum_specifier':
      case 'class_specifier': {
        const cls = this.record(node, anchor, typeParams, null);
        if (cls) scope.classes.push(cls);
        break;
      }
      case 'alias_declaration':
        scope.classes.push(newClass(anchor, field(node, 'name')?.text ?? '', 'type', { type_params: typeParams, alias_of: cleanAlias(field(node, 'type')?.text ?? ''), doc: this.doc(anchor) }));
        break;
      case 'template_declaration': {
        const params = collapse(field(node, 'parameters')?.text ?? '<>');
        // `template <>` is an explicit specialisation: it has no parameters of its own.
        const own = params === '<>' ? null : params;
        for (const inner of named(node)) if (inner.type !== 'template_parameter_list') this.item(inner, anchor, scope, inClass, own, root);
        break;
      }
      case 'namespace_definition': {
        const nameNode = field(node, 'name');
        const name = nameNode ? collapse(nameNode.text) : '(anonymous)';
        const inner: Scope = { classes: [], functions: [], imports: [] };
        const ns = newClass(node, name, 'namespace', { doc: this.doc(node) });
        // The namespace joins its parent first, so qualified definitions inside can find it.
        scope.classes.push(ns);
        inner.classes = ns.classes;
        inner.functions = ns.methods;
        const body = field(node, 'body');
        if (body) for (const child of named(body)) this.item(child, child, inner, null, null, root);
        scope.imports.push(...inner.imports);
        break;
      }
      case 'linkage_specification': {
        const body = field(node, 'body');
        if (!body) break;
        if (body.type === 'declaration_list') for (const child of named(body)) this.item(child, child, scope, inClass, null, root);
        else this.item(body, node, scope, inClass, null, root);
        break;
      }
      case 'ERROR':
        for (const child of declarations(node)) this.item(child, child, scope, inClass, typeParams, root);
        break;
      case 'expression_statement':
        // There are no statements at file level: a call here is a prototype whose return type
        // went to a misparsed line above (`FcPublic FcBool\nFcAtomicLock (FcAtomic *atomic);`).
        if (inClass === null) this.callAsPrototype(node, scope);
        break;
      case 'function_declarator':
      case 'pointer_declarator':
        // A prototype the grammar could not fit in a declaration (an unknown macro around it):
        // its declarator survives alone inside an ERROR node.
        if (node.parent?.type === 'ERROR') this.orphan(node, scope, inClass, root);
        break;
      default:
        if (PREPROC_BLOCKS.has(node.type)) {
          for (const child of named(node)) if (child !== field(node, 'condition') && child !== field(node, 'name')) this.item(child, child, scope, inClass, typeParams, root);
        }
    }
  }
}

/** Finds the class or namespace at `path` (e.g. `['geo', 'Graph']`), searching nested entries too. */
function findContainer(classes: readonly ClassSkeleton[], path: readonly string[]): ClassSkeleton | null {
  const [head, ...rest] = path;
  if (head === undefined) return null;
  for (const cls of classes) {
    if (cls.name.replace(/<.*$/s, '') !== head || cls.kind === 'impl') continue;
    if (rest.length === 0) return cls;
    const found = findContainer(cls.classes, rest);
    if (found) return found;
  }
  // A class declared inside a namespace the definition does not name (`using namespace geo;`).
  if (rest.length === 0) {
    for (const cls of classes) {
      if (cls.kind !== 'namespace') continue;
      const found = findContainer(cls.classes, path);
      if (found) return found;
    }
  }
  return null;
}

const BARE_MACRO = /^[A-Z_][A-Z0-9_]{2,}(?:[ \t]*\([^;{}]*\))?[ \t]*$/;
const ENDS_STATEMENT = /(?:[;})]|\*\/)[ \t]*$/;

/**
 * Blanks, keeping every offset and line number, the lines that are a bare macro invocation at
 * file level: `__BEGIN_DECLS`, `FMT_BEGIN_NAMESPACE`, `DECLARE_ASN1_FUNCTIONS(X509)`. They end
 * with no semicolon, so the C grammar reads them as the start of a declaration that swallows
 * what follows (often the rest of the file). A line qualifies when it starts at column 0, is
 * all capitals, and follows the end of a statement, a preprocessor line or a blank line, so a
 * GNU-style definition (`static int\nMAIN (void)\n{`) is left alone.
 *
 * @example
 * blankBareMacros('__BEGIN_DECLS\nint f(void);') // '             \nint f(void);'
 */
export function blankBareMacros(text: string): string {
  if (!/^(?:[A-Z_][A-Z0-9_]{2,}[ \t(]*|[ \t]*#[ \t]*if)/m.test(text)) return text;
  const lines = text.split('\n');
  let changed = false;
  let previous = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const trimmed = line.trimEnd();
    if (BARE_MACRO.test(trimmed) && (previous === '' || previous.startsWith('#') || ENDS_STATEMENT.test(previous))) {
      let next = i + 1;
      while (next < lines.length && lines[next]!.trim() === '') next++;
      if (!lines[next]?.trimStart().startsWith('{')) {
        lines[i] = ' '.repeat(line.length);
        changed = true;
        continue;
      }
    }
    if (CONDITIONAL.test(trimmed) && previous !== '' && !previous.startsWith('#') && !ENDS_DECLARATION.test(previous)) {
      // `class X\n#if COND\n  : public Base\n#endif\n{`: a conditional inside a declaration
      // splits it beyond the grammar; without an #else both readings are one text.
      const end = matchingEndif(lines, i);
      if (end !== -1) {
        lines[i] = ' '.repeat(line.length);
        lines[end] = ' '.repeat(lines[end]!.length);
        changed = true;
        continue;
      }
    }
    if (trimmed.trim() !== '') previous = trimmed.trim();
    else previous = '';
  }
  return changed ? lines.join('\n') : text;
}

const CONDITIONAL = /^[ \t]*#[ \t]*if(?:n?def)?\b[^\\]*$/;
const ENDS_DECLARATION = /(?:[;{}]|\*\/|\\)[ \t]*$/;

/** The line of the `#endif` closing the conditional opened at `start`, or -1 (none near, or an `#else` between). */
function matchingEndif(lines: readonly string[], start: number): number {
  let depth = 0;
  for (let i = start + 1; i < Math.min(lines.length, start + 40); i++) {
    const directive = /^[ \t]*#[ \t]*(\w+)/.exec(lines[i]!)?.[1];
    if (directive === undefined) continue;
    if (directive.startsWith('if')) depth++;
    else if (directive === 'endif') {
      if (depth === 0) return i;
      depth--;
    } else if (depth === 0 && (directive === 'else' || directive.startsWith('elif'))) return -1;
  }
  return -1;
}

const blank = (match: string) => match.replace(/[^\n]/g, ' ');
// Specifier macros (`FMT_API`, `SPDLOG_INLINE`, `GLAPI`, `ZEXTERN`, OpenSSL's `__owur`) before the
// keyword or the lower-case type that starts a declaration.
const LEADING_MACROS = /^([ \t]*)((?:(?:[A-Z][A-Z0-9_]{2,}|__[a-z][a-z0-9_]*)[ \t]+)+)(?=(?:inline|constexpr|consteval|static|virtual|explicit|extern|friend|const|volatile|unsigned|signed|void|bool|char|int|long|short|float|double|auto|struct|enum|union|class|typename|template|operator)\b|~|[a-z_]\w*(?:::\w+)*(?:<[^;{}()\n]*>)?[ \t*&]+[A-Za-z_~]|[a-z_]\w*(?:::~?\w+)+[ \t]*\(|(?=\w*[a-z])[A-Za-z_]\w*(?:::\w+)*(?:<[^;{}()\n]*>)?[ \t*&]+[A-Za-z_~])/gm;
// `class FMT_API file`, `struct SPDLOG_API sink`: an export macro between the keyword and the name.
const CLASS_MACROS = /\b(class|struct|union)([ \t]+)([A-Z][A-Z0-9_]{2,})(?=[ \t]+(?!final\b)[A-Za-z_]\w*[ \t]*(?:final\b|[:{<]|$))/gm;
// `int ZEXPORT deflate (`, `const GLubyte * GLAPIENTRY glGetString (`: a calling-convention macro before the name.
// Not after a storage class, a qualifier or a tag keyword: there a word in capitals is a type (`static HANDLE f(void)`).
const INNER_MACROS = /([\w*&>][ \t]*[ \t*&])([A-Z][A-Z0-9_]{2,})(?=[ \t]+[A-Za-z_]\w*[ \t]*\()/g;
const TYPE_CONTEXT = /\b(?:static|extern|inline|const|volatile|register|typedef|return|struct|enum|union|class|signed|unsigned|new|case|else|do)[ \t]+$/;
// `) _X_NORETURN;`, `noexcept override FMT_MSC_DEFAULT;`: attribute macros after the parameters.
const TRAILING_MACROS = /(\)[ \t]*(?:(?:const|noexcept|override|final)[ \t]*)*)(_*[A-Z][A-Z0-9_]{2,}(?:[ \t]*\([^;{}()\n]*(?:\([^;{}()\n]*\))?[^;{}()\n]*\))?)(?=[ \t]*[;{])/g;
// `deflate OF((z_streamp strm, int flush))`: the K&R-compatibility parameter macro.
const PARAMS_MACRO = /(\w[ \t]*)([A-Z][A-Z0-9_]*)(?=[ \t]*\(\()/g;

/**
 * The text the C and C++ grammars parse: macros that the grammars cannot know are blanked
 * (replaced by spaces, so offsets and line numbers do not move): bare invocations at file level
 * (see blankBareMacros), export and attribute macros around declarations. Only identifiers in
 * capitals are touched, and only where a declaration continues after them.
 *
 * @example
 * neutralizeMacros('class FMT_API file {};') // 'class         file {};'
 */
export function neutralizeMacros(text: string): string {
  return blankBareMacros(text)
    .replace(LEADING_MACROS, outsideDirectives((_m, indent: string, macros: string) => indent + blank(macros)))
    .replace(CLASS_MACROS, outsideDirectives((_m, keyword: string, space: string, macro: string) => keyword + space + blank(macro)))
    .replace(PARAMS_MACRO, outsideDirectives((_m, before: string, macro: string) => before + blank(macro)))
    .replace(
      INNER_MACROS,
      outsideDirectives((m, before: string, macro: string, offset: number, all: string) => (TYPE_CONTEXT.test(all.slice(Math.max(0, offset - 16), offset + before.length)) ? m : before + blank(macro))),
    )
    .replace(TRAILING_MACROS, outsideDirectives((_m, before: string, macro: string) => before + blank(macro)));
}

type Replacer = (match: string, ...args: never[]) => string;

/** Leaves preprocessor lines alone: a `#define` names its macro in capitals on purpose. */
function outsideDirectives(replace: Replacer): (match: string, ...args: unknown[]) => string {
  return (match, ...args) => {
    const all = args[args.length - 1] as string;
    const offset = args[args.length - 2] as number;
    const lineStart = all.lastIndexOf('\n', offset - 1) + 1;
    if (/^[ \t]*#/.test(all.slice(lineStart, offset + 1))) return match;
    return (replace as (match: string, ...args: unknown[]) => string)(match, ...args);
  };
}

const DEFINE = /^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(\([^)\n]*\))/gm;

/**
 * Function-like macros, wherever they are: a macro is global whatever block it is written in.
 * The tree gives them with their doc comments; a scan of the text adds those the grammar lost,
 * where a macro-heavy header defeats it and a `#define` ends up inside a misparsed declaration.
 */
function macros(root: Node, text: string, ctx: ExtractContext): FunctionSig[] {
  const found = new Map<number, FunctionSig>();
  for (const node of root.descendantsOfType('preproc_function_def')) {
    if (!node) continue;
    const doc = docFromComments(precedingComments(node, isComment), ctx.docs);
    found.set(node.startPosition.row + 1, newFunction(node, field(node, 'name')?.text ?? '', 'macro', cleanParams(field(node, 'parameters')?.text ?? '()'), { doc }));
  }
  if (!root.hasError) return [...found.values()];
  let line = 1;
  let offset = 0;
  for (const match of text.matchAll(DEFINE)) {
    for (let i = text.indexOf('\n', offset); i !== -1 && i < match.index; i = text.indexOf('\n', i + 1)) line++;
    offset = match.index;
    if (found.has(line)) continue;
    const sig = newFunction(root, match[1]!, 'macro', cleanParams(match[2]!));
    sig.line_start = sig.line_end = line;
    found.set(line, sig);
  }
  return [...found.values()].sort((a, b) => a.line_start - b.line_start);
}

export const extractCFamily: Extractor = (root, ctx) => {
  const scope: Scope = { classes: [], functions: [], imports: [] };
  const walker = new Walker(ctx);
  for (const node of named(root)) walker.item(node, node, scope, null, null, scope);
  // Macros go after the functions, in source order.
  scope.functions.push(...macros(root, root.text, ctx));
  const moduleDoc = leadingComment(
    children(root),
    ctx.docs,
    isComment,
    (next) => DOCUMENTED.has(next.type),
    // An include guard wraps the whole header: look for the leading comment inside it.
    (next) => (next.type === 'preproc_ifdef' || next.type === 'preproc_if' ? children(next).filter((c) => c.isNamed && c !== field(next, 'name') && c !== field(next, 'condition') && c.type !== 'preproc_def') : null),
  );
  return { module_doc: moduleDoc, imports: dedupe(scope.imports), classes: scope.classes, functions: scope.functions };
};
