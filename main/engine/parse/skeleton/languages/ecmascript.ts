/**
 * The JavaScript / TypeScript / TSX extractor. The TypeScript grammars extend the JavaScript one,
 * so one walker serves the three; TypeScript-only nodes (interfaces, type aliases, enums,
 * namespaces, overload signatures, `declare`) simply never occur in a JavaScript tree.
 *
 * Besides declarations it recognises the idioms that define an API without one: functions and
 * classes bound to `const` / `let` / `var`, CommonJS exports (`exports.f = function`,
 * `module.exports = { f() {} }`), prototype methods (`Foo.prototype.bar = function`) and
 * `require()` calls as imports.
 */
import type { Node } from 'web-tree-sitter';
import type { ClassSkeleton, FunctionSig } from '../skeleton.js';
import {
  children,
  cleanAlias,
  cleanParams,
  collapse,
  declarations,
  dedupe,
  docFromComments,
  field,
  keywordModifiers,
  leadingComment,
  named,
  newClass,
  newFunction,
  precedingComments,
  type ExtractContext,
  type Extractor,
} from './common.js';

const FUNCTION_VALUES = new Set(['arrow_function', 'function_expression', 'function', 'generator_function']);
const CLASS_VALUES = new Set(['class', 'class_expression']);
const METHOD_MODIFIERS = new Set(['static', 'async', 'get', 'set', '*', 'abstract', 'override', 'readonly', 'declare']);
const FUNCTION_MODIFIERS = new Set(['async', '*']);
// A comment directly above these documents the file, not the statement.
const FILE_LEVEL = new Set(['import_statement', 'expression_statement']);

const isComment = (n: Node) => n.type === 'comment';

interface Scope {
  classes: ClassSkeleton[];
  functions: FunctionSig[];
  imports: string[];
}

function docOf(node: Node, ctx: ExtractContext): string | null {
  return docFromComments(precedingComments(node, isComment), ctx.docs);
}

function stringText(node: Node | null): string | null {
  if (!node) return null;
  const fragment = named(node).find((c) => c.type === 'string_fragment');
  return fragment ? fragment.text : node.text.slice(1, -1);
}

/** `: T` annotations and `=> T` predicates lose their punctuation. */
function typeText(node: Node | null): string | null {
  if (!node) return null;
  return collapse(node.text.replace(/^:\s*/, ''));
}

function paramsOf(fn: Node): string {
  const params = field(fn, 'parameters');
  if (params) return cleanParams(params.text);
  const single = field(fn, 'parameter'); // `x => x`
  return single ? `(${single.text})` : '()';
}

function typeParamsOf(node: Node): string | null {
  const tp = field(node, 'type_parameters');
  return tp ? collapse(tp.text) : null;
}

function decoratorText(node: Node): string {
  return collapse(node.text.replace(/^@\s*/, ''));
}

function memberName(node: Node | null): string {
  if (!node) return '';
  if (node.type === 'string') return stringText(node) ?? node.text;
  return node.text;
}

function functionFrom(fn: Node, name: string, outer: Node, ctx: ExtractContext, extra: { modifiers?: string[]; decorators?: string[]; kind?: FunctionSig['kind'] } = {}): FunctionSig {
  return newFunction(outer, name, extra.kind ?? 'function', paramsOf(fn), {
    return_type: typeText(field(fn, 'return_type')),
    type_params: typeParamsOf(fn),
    modifiers: extra.modifiers ?? keywordModifiers(fn, FUNCTION_MODIFIERS),
    decorators: extra.decorators ?? [],
    doc: docOf(outer, ctx),
  });
}

function heritage(cls: Node): string[] {
  const bases: string[] = [];
  for (const child of named(cls)) {
    if (child.type === 'class_heritage') {
      for (const clause of named(child)) {
        if (clause.type === 'extends_clause' || clause.type === 'implements_clause') {
          // `extends Base<T>` keeps its type arguments next to the value.
          const parts = named(clause);
          for (let i = 0; i < parts.length; i++) {
            const part = parts[i]!;
            if (part.type === 'type_arguments' && bases.length > 0) bases[bases.length - 1] += collapse(part.text);
            else bases.push(collapse(part.text));
          }
        } else bases.push(collapse(clause.text.replace(/^extends\s+/, ''))); // JavaScript: `class_heritage` holds the expression
      }
    } else if (child.type === 'extends_type_clause') {
      bases.push(...named(child).map((t) => collapse(t.text)));
    }
  }
  return bases;
}

function classBody(body: Node | null, ctx: ExtractContext): { methods: FunctionSig[]; classes: ClassSkeleton[] } {
  const methods: FunctionSig[] = [];
  const classes: ClassSkeleton[] = [];
  if (!body) return { methods, classes };
  let pending: string[] = [];
  let firstDecorator: Node | null = null;
  for (const member of declarations(body)) {
    if (member.type === 'decorator') {
      pending.push(decoratorText(member));
      firstDecorator ??= member;
      continue;
    }
    const own = member.childrenForFieldName('decorator').filter((d): d is Node => d !== null);
    const decorators = [...pending, ...own.map(decoratorText)];
    const docAnchor = firstDecorator ?? member;
    pending = [];
    firstDecorator = null;
    const doc = docFromComments(precedingComments(docAnchor, isComment), ctx.docs);
    switch (member.type) {
      case 'method_definition':
      case 'method_signature':
      case 'abstract_method_signature': {
        const name = memberName(field(member, 'name'));
        const sig = newFunction(member, name, name === 'constructor' ? 'constructor' : 'method', paramsOf(member), {
          return_type: typeText(field(member, 'return_type')),
          type_params: typeParamsOf(member),
          modifiers: keywordModifiers(member, METHOD_MODIFIERS),
          decorators,
          doc,
        });
        if (member.type === 'abstract_method_signature' && !sig.modifiers.includes('abstract')) sig.modifiers.unshift('abstract');
        methods.push(sig);
        break;
      }
      case 'construct_signature':
        methods.push(newFunction(member, 'new', 'constructor', paramsOf(member), { return_type: typeText(field(member, 'type')), type_params: typeParamsOf(member), doc }));
        break;
      case 'public_field_definition':
      case 'field_definition': {
        const value = field(member, 'value');
        const name = memberName(field(member, 'name') ?? field(member, 'property'));
        if (value && FUNCTION_VALUES.has(value.type)) {
          const modifiers = [...keywordModifiers(member, METHOD_MODIFIERS), ...keywordModifiers(value, FUNCTION_MODIFIERS)];
          methods.push(newFunction(member, name, 'method', paramsOf(value), { return_type: typeText(field(value, 'return_type')), type_params: typeParamsOf(value), modifiers, decorators, doc }));
        } else if (value && CLASS_VALUES.has(value.type)) {
          classes.push(classFrom(value, name, 'class', member, ctx));
        }
        break;
      }
      default:
    }
  }
  return { methods, classes };
}

function classFrom(cls: Node, name: string, kind: ClassSkeleton['kind'], outer: Node, ctx: ExtractContext, decorators: string[] = []): ClassSkeleton {
  const own = cls.childrenForFieldName('decorator').filter((d): d is Node => d !== null);
  const { methods, classes } = classBody(field(cls, 'body'), ctx);
  return newClass(outer, name, kind, {
    type_params: typeParamsOf(cls),
    bases: heritage(cls),
    decorators: [...decorators, ...own.map(decoratorText)],
    doc: docOf(outer, ctx),
    methods,
    classes,
  });
}

function interfaceFrom(decl: Node, outer: Node, ctx: ExtractContext): ClassSkeleton {
  const { methods } = classBody(field(decl, 'body'), ctx);
  return newClass(outer, field(decl, 'name')?.text ?? '', 'interface', { type_params: typeParamsOf(decl), bases: heritage(decl), doc: docOf(outer, ctx), methods });
}

function namespaceFrom(decl: Node, name: string, body: Node | null, outer: Node, ctx: ExtractContext): ClassSkeleton {
  const inner: Scope = { classes: [], functions: [], imports: [] };
  if (body) statements(declarations(body), inner, ctx);
  return newClass(outer, name, 'namespace', { doc: docOf(outer, ctx), methods: inner.functions, classes: inner.classes });
}

function requireSource(value: Node | null): string | null {
  if (value?.type !== 'call_expression') return null;
  if (field(value, 'function')?.text !== 'require') return null;
  const arg = field(value, 'arguments')?.firstNamedChild;
  return arg?.type === 'string' ? stringText(arg) : null;
}


/** The function-valued members of an object literal: `{ f() {}, g: function () {}, h: () => 1 }`. */
function objectMethods(object: Node, ctx: ExtractContext): FunctionSig[] {
  const methods: FunctionSig[] = [];
  for (const member of named(object)) {
    if (member.type === 'method_definition') {
      methods.push(functionFrom(member, memberName(field(member, 'name')), member, ctx, { kind: 'method', modifiers: keywordModifiers(member, METHOD_MODIFIERS) }));
    } else if (member.type === 'pair') {
      const value = field(member, 'value');
      if (value && FUNCTION_VALUES.has(value.type)) methods.push(functionFrom(value, memberName(field(member, 'key')), member, ctx, { kind: 'method' }));
    }
  }
  return methods;
}

function unwrap(node: Node | null): Node | null {
  let cur = node;
  while (cur && (cur.type === 'parenthesized_expression' || cur.type === 'unary_expression' || cur.type === 'satisfies_expression' || cur.type === 'as_expression')) {
    cur = cur.type === 'unary_expression' ? field(cur, 'argument') : cur.firstNamedChild;
  }
  return cur;
}

/**
 * The bodies of a module wrapper: an IIFE (`(function () { ... })()`, `!function () {}()`), a UMD
 * header (`(function (root, factory) {...})(this, function (exports) {...})`) or an AMD
 * `define([...], function (...) {...})`. Bundled and legacy libraries put their whole API there.
 */
export function wrapperBodies(expr: Node | null): Node[] {
  const call = unwrap(expr);
  if (call?.type !== 'call_expression') return [];
  const callee = unwrap(field(call, 'function'));
  if (!callee) return [];
  const calleeIsFunction = FUNCTION_VALUES.has(callee.type);
  if (!calleeIsFunction && callee.text !== 'define') return [];
  const functions = [...(calleeIsFunction ? [callee] : []), ...named(field(call, 'arguments') ?? call).map(unwrap).filter((a): a is Node => a !== null && FUNCTION_VALUES.has(a.type))];
  return functions.map((f) => field(f, 'body')).filter((b): b is Node => b?.type === 'statement_block');
}

/**
 * What an assignment statement defines: `exports.f` / `module.exports.f` a function (owner null),
 * `Foo.prototype.f` a method of the class `Foo`, `obj.f` a member of the object `obj` (a static
 * method when `obj` is a class of the file).
 */
function assignmentTarget(left: Node): { owner: string | null; name: string; prototype: boolean } | null {
  if (left.type !== 'member_expression') return null;
  const name = field(left, 'property')?.text;
  const object = field(left, 'object');
  if (!name || !object) return null;
  const objectText = object.text;
  if (objectText === 'exports' || objectText === 'module.exports') return { owner: null, name, prototype: false };
  if (object.type === 'member_expression' && field(object, 'property')?.text === 'prototype') return { owner: field(object, 'object')?.text ?? null, name, prototype: true };
  if (object.type === 'identifier' || object.type === 'member_expression') return { owner: objectText, name, prototype: false };
  return null;
}

function ownerOf(scope: Scope, name: string, kind: ClassSkeleton['kind'], anchor: Node): ClassSkeleton {
  let cls = scope.classes.find((c) => c.name === name);
  if (!cls) {
    cls = newClass(anchor, name, kind);
    scope.classes.push(cls);
  }
  cls.line_end = Math.max(cls.line_end, anchor.endPosition.row + 1);
  return cls;
}

function assignment(expr: Node, stmt: Node, scope: Scope, ctx: ExtractContext): void {
  const left = field(expr, 'left');
  let right = unwrap(field(expr, 'right'));
  // `A.prototype = B.prototype = {...}`: the value is at the end of the chain.
  while (right?.type === 'assignment_expression') right = unwrap(field(right, 'right'));
  if (!left || !right) return;
  if (left.text === 'module.exports' || left.text === 'exports') {
    // `module.exports = function name () {}` / `= class Name {}` / `= { f() {} }`
    if (right.type === 'object') for (const fn of objectMethods(right, ctx)) scope.functions.push({ ...fn, kind: 'function' });
    else declaration(right, stmt, scope, ctx);
    return;
  }
  if (right.type === 'object' && left.type === 'member_expression') {
    // `Foo.prototype = { f() {} }` gives the class its methods; `rules.list = { f() {} }` is an object of functions.
    const object = field(left, 'object');
    const isPrototype = field(left, 'property')?.text === 'prototype' && object !== null;
    const methods = objectMethods(right, ctx);
    if (methods.length > 0) ownerOf(scope, isPrototype ? object.text : left.text, isPrototype ? 'class' : 'object', stmt).methods.push(...methods);
    return;
  }
  const target = assignmentTarget(left);
  if (!target) return;
  if (target.owner === null) {
    if (FUNCTION_VALUES.has(right.type)) scope.functions.push(functionFrom(right, target.name, stmt, ctx));
    else if (CLASS_VALUES.has(right.type)) scope.classes.push(classFrom(right, target.name, 'class', stmt, ctx));
    return;
  }
  if (FUNCTION_VALUES.has(right.type)) {
    const owner = ownerOf(scope, target.owner, target.prototype ? 'class' : 'object', stmt);
    const modifiers = !target.prototype && owner.kind === 'class' ? ['static', ...keywordModifiers(right, FUNCTION_MODIFIERS)] : undefined;
    owner.methods.push(functionFrom(right, target.name, stmt, ctx, { kind: 'method', modifiers }));
  } else if (target.prototype && (right.type === 'identifier' || right.type === 'member_expression' || right.type === 'null')) {
    // `Foo.prototype.bar = helper` binds a function defined elsewhere; `= null` declares a slot subclasses fill.
    ownerOf(scope, target.owner, 'class', stmt).methods.push(newFunction(stmt, target.name, 'method', '', { doc: docOf(stmt, ctx) }));
  }
}

function variables(decl: Node, outer: Node, scope: Scope, ctx: ExtractContext): void {
  for (const declarator of named(decl)) {
    if (declarator.type !== 'variable_declarator') continue;
    const value = field(declarator, 'value');
    const source = requireSource(value);
    if (source !== null) {
      scope.imports.push(source);
      continue;
    }
    const name = field(declarator, 'name');
    if (!value || name?.type !== 'identifier') continue;
    if (FUNCTION_VALUES.has(value.type)) scope.functions.push(functionFrom(value, name.text, outer, ctx));
    else if (CLASS_VALUES.has(value.type)) scope.classes.push(classFrom(value, name.text, 'class', outer, ctx));
    else if (value.type === 'call_expression' && wrapperBodies(value).length === 0) {
      // `const Button = memo((props) => ...)`, `const emptyDir = u(function emptyDir () {})`: a wrapped function.
      const fns = named(field(value, 'arguments') ?? value).filter((a) => FUNCTION_VALUES.has(a.type));
      if (fns.length === 1) scope.functions.push(functionFrom(fns[0]!, name.text, outer, ctx));
    } else if (wrapperBodies(value).length > 0) {
      // `var Foo = (function () { function Foo() {} Foo.prototype.f = ...; return Foo; }())`: compiled ES5 classes.
      const inner: Scope = { classes: [], functions: [], imports: [] };
      for (const body of wrapperBodies(value)) statements(named(body), inner, ctx);
      const cls = inner.classes.find((c) => c.name === name.text);
      const fn = inner.functions.find((f) => f.name === name.text);
      if (cls) scope.classes.push({ ...cls, doc: cls.doc ?? docOf(outer, ctx), line_start: outer.startPosition.row + 1, line_end: outer.endPosition.row + 1 });
      else if (fn) scope.functions.push(fn);
    } else if (value.type === 'object') {
      // An object of functions is a namespace of functions; an object of data defines nothing.
      const methods = objectMethods(value, ctx);
      if (methods.length > 0) scope.classes.push(newClass(outer, name.text, 'object', { doc: docOf(outer, ctx), methods }));
    }
  }
}

/** One declaration; `outer` is the node its doc comment sits above (the export statement when exported). */
function declaration(decl: Node, outer: Node, scope: Scope, ctx: ExtractContext, decorators: string[] = []): void {
  switch (decl.type) {
    case 'function_declaration':
    case 'generator_function_declaration':
    case 'function_signature':
    case 'function_expression':
    case 'function':
    case 'generator_function':
    case 'arrow_function':
      scope.functions.push(functionFrom(decl, field(decl, 'name')?.text ?? 'default', outer, ctx));
      break;
    case 'class_declaration':
    case 'abstract_class_declaration':
    case 'class':
      scope.classes.push(classFrom(decl, field(decl, 'name')?.text ?? 'default', 'class', outer, ctx, decorators));
      break;
    case 'interface_declaration':
      scope.classes.push(interfaceFrom(decl, outer, ctx));
      break;
    case 'type_alias_declaration':
      scope.classes.push(newClass(outer, field(decl, 'name')?.text ?? '', 'type', { type_params: typeParamsOf(decl), alias_of: cleanAlias(field(decl, 'value')?.text ?? ''), doc: docOf(outer, ctx) }));
      break;
    case 'enum_declaration':
      scope.classes.push(newClass(outer, field(decl, 'name')?.text ?? '', 'enum', { doc: docOf(outer, ctx) }));
      break;
    case 'internal_module':
    case 'module': {
      const name = field(decl, 'name');
      scope.classes.push(namespaceFrom(decl, name?.type === 'string' ? (stringText(name) ?? name.text) : (name?.text ?? ''), field(decl, 'body'), outer, ctx));
      break;
    }
    case 'lexical_declaration':
    case 'variable_declaration':
      variables(decl, outer, scope, ctx);
      break;
    case 'ambient_declaration':
      for (const inner of named(decl)) {
        if (inner.type === 'statement_block') scope.classes.push(namespaceFrom(decl, 'global', inner, outer, ctx));
        else declaration(inner, outer, scope, ctx);
      }
      break;
    default:
  }
}

function statements(nodes: readonly Node[], scope: Scope, ctx: ExtractContext, topLevel = false): void {
  for (const stmt of nodes) {
    switch (stmt.type) {
      case 'statement_block': {
        // `global { ... }` inside `declare module` parses as the word `global` and then a block.
        const previous = stmt.previousNamedSibling;
        if (previous?.type === 'expression_statement' && previous.text === 'global') scope.classes.push(namespaceFrom(stmt, 'global', stmt, previous, ctx));
        else statements(declarations(stmt), scope, ctx);
        break;
      }
      case 'ERROR':
        statements(declarations(stmt), scope, ctx, topLevel);
        break;
      case 'import_statement': {
        const source = stmt.childForFieldName('source') ?? named(stmt).find((c) => c.type === 'import_require_clause')?.childForFieldName('source') ?? null;
        const text = stringText(source);
        if (text !== null) scope.imports.push(text);
        break;
      }
      case 'export_statement': {
        const source = field(stmt, 'source');
        if (source) {
          scope.imports.push(stringText(source) ?? source.text);
          break;
        }
        const decorators = stmt.childrenForFieldName('decorator').filter((d): d is Node => d !== null).map(decoratorText);
        const decl = field(stmt, 'declaration') ?? field(stmt, 'value');
        if (decl) declaration(decl, stmt, scope, ctx, decorators);
        break;
      }
      case 'expression_statement': {
        const expr = stmt.firstNamedChild;
        if (!expr) break;
        if (expr.type === 'assignment_expression') assignment(expr, stmt, scope, ctx);
        else if (expr.type === 'internal_module') declaration(expr, stmt, scope, ctx);
        else if (topLevel) for (const body of wrapperBodies(expr)) statements(named(body), scope, ctx);
        break;
      }
      default:
        declaration(stmt, stmt, scope, ctx);
    }
  }
}

/**
 * `function Queue() {}` plus `Queue.prototype.push = ...` is one class: the function becomes its
 * constructor instead of standing apart.
 */
function mergeConstructors(scope: Scope): void {
  for (const cls of scope.classes) {
    if (cls.kind !== 'class' || cls.methods.some((m) => m.kind === 'constructor')) continue;
    const index = scope.functions.findIndex((f) => f.name === cls.name);
    if (index === -1) continue;
    const [fn] = scope.functions.splice(index, 1);
    cls.methods.unshift({ ...fn!, name: 'constructor', kind: 'constructor' });
    cls.doc ??= fn!.doc;
    cls.line_start = Math.min(cls.line_start, fn!.line_start);
  }
}

export const extractEcmaScript: Extractor = (root, ctx) => {
  const scope: Scope = { classes: [], functions: [], imports: [] };
  statements(declarations(root), scope, ctx, true);
  mergeConstructors(scope);
  const moduleDoc = leadingComment(
    children(root).filter((n) => n.type !== 'hash_bang_line'),
    ctx.docs,
    isComment,
    (next) => !FILE_LEVEL.has(next.type),
  );
  return { module_doc: moduleDoc, imports: dedupe(scope.imports), classes: scope.classes, functions: scope.functions };
};
