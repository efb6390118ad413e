/**
 * Python: docstrings, `import` / `from ... import`, classes with bases (keyword arguments such as
 * `metaclass=` included), methods, nested classes, decorated definitions and overloads.
 * Definitions under module- or class-level `if` / `try` / `with` blocks count (platform-specific
 * definitions are part of a module's API); definitions inside function bodies do not.
 */
import type { Node } from 'web-tree-sitter';
import type { ClassSkeleton, DocDepth, FunctionSig } from '../skeleton.js';
import {
  cleanParams,
  declarations,
  collapse,
  dedent,
  dedupe,
  docFromLines,
  field,
  keywordModifiers,
  named,
  newClass,
  newFunction,
  type ExtractContext,
  type Extractor,
} from './common.js';

// Blocks whose statements run at the level of the enclosing module or class body.
const TRANSPARENT = new Set(['if_statement', 'elif_clause', 'else_clause', 'try_statement', 'except_clause', 'except_group_clause', 'finally_clause', 'with_statement', 'block']);
const ASYNC = new Set(['async']);

/** The text of a string literal without prefix and quotes. */
function stringValue(node: Node): string {
  const parts = named(node).filter((c) => c.type === 'string_content');
  if (parts.length > 0) return parts.map((p) => p.text).join('');
  return node.text.replace(/^[rRuUbBfF]*("""|'''|"|')/, '').replace(/("""|'''|"|')$/, '');
}

/** The docstring of a module or of a body: its first statement, when that is a string. */
function docstring(body: Node | null, depth: DocDepth): string | null {
  // (Comments are nodes too: a licence comment above the docstring does not hide it.)
  let first = body?.firstNamedChild ?? null;
  while (first?.type === 'comment') first = first.nextNamedSibling;
  if (!first || first.type !== 'expression_statement') return null;
  const str = first.firstNamedChild;
  if (!str || (str.type !== 'string' && str.type !== 'concatenated_string')) return null;
  const raw = str.type === 'string' ? stringValue(str) : named(str).map(stringValue).join('');
  return docFromLines(dedent(raw.split('\n')), depth);
}

function imports(stmt: Node, out: string[]): void {
  if (stmt.type === 'import_statement') {
    for (const name of stmt.childrenForFieldName('name')) {
      if (!name) continue;
      out.push(name.type === 'aliased_import' ? (field(name, 'name')?.text ?? name.text) : name.text);
    }
    return;
  }
  if (stmt.type === 'future_import_statement') {
    out.push('__future__');
    return;
  }
  const module = field(stmt, 'module_name')?.text;
  if (module === undefined) return;
  // `from . import x` imports the module `.x`; `from .m import x` imports names from `.m`.
  if (/^\.+$/.test(module)) {
    for (const name of stmt.childrenForFieldName('name')) {
      if (!name) continue;
      const target = name.type === 'aliased_import' ? (field(name, 'name')?.text ?? name.text) : name.text;
      out.push(module + target);
    }
  } else out.push(module);
}

interface Collected {
  classes: ClassSkeleton[];
  functions: FunctionSig[];
  imports: string[];
}

function functionSig(def: Node, decorators: string[], inClass: boolean, ctx: ExtractContext, outer: Node): FunctionSig {
  const name = field(def, 'name')?.text ?? '';
  const returnType = field(def, 'return_type');
  const typeParams = field(def, 'type_parameters');
  return newFunction(outer, name, inClass ? (name === '__init__' ? 'constructor' : 'method') : 'function', cleanParams(field(def, 'parameters')?.text ?? '()'), {
    return_type: returnType ? collapse(returnType.text) : null,
    type_params: typeParams ? collapse(typeParams.text) : null,
    modifiers: keywordModifiers(def, ASYNC),
    decorators,
    doc: docstring(field(def, 'body'), ctx.docs),
  });
}

function classSkeleton(def: Node, decorators: string[], ctx: ExtractContext, outer: Node): ClassSkeleton {
  const body = field(def, 'body');
  const inner: Collected = { classes: [], functions: [], imports: [] };
  if (body) collect(declarations(body), true, ctx, inner);
  const superclasses = field(def, 'superclasses');
  const typeParams = field(def, 'type_parameters');
  return newClass(outer, field(def, 'name')?.text ?? '', 'class', {
    type_params: typeParams ? collapse(typeParams.text) : null,
    bases: superclasses ? named(superclasses).map((b) => collapse(b.text)) : [],
    decorators,
    doc: docstring(body, ctx.docs),
    methods: inner.functions,
    classes: inner.classes,
  });
}

function collect(statements: readonly Node[], inClass: boolean, ctx: ExtractContext, out: Collected): void {
  for (const stmt of statements) {
    let def = stmt;
    let decorators: string[] = [];
    if (stmt.type === 'decorated_definition') {
      decorators = named(stmt)
        .filter((c) => c.type === 'decorator')
        .map((d) => collapse(d.text.replace(/^@\s*/, '')));
      def = field(stmt, 'definition') ?? stmt;
    }
    switch (def.type) {
      case 'function_definition':
        out.functions.push(functionSig(def, decorators, inClass, ctx, stmt));
        break;
      case 'class_definition':
        out.classes.push(classSkeleton(def, decorators, ctx, stmt));
        break;
      case 'import_statement':
      case 'import_from_statement':
      case 'future_import_statement':
        imports(def, out.imports);
        break;
      case 'expression_statement': {
        // `name = lambda args: ...` binds a function.
        const assign = def.firstNamedChild;
        const value = assign?.type === 'assignment' ? field(assign, 'right') : null;
        const target = assign ? field(assign, 'left') : null;
        if (value?.type === 'lambda' && target?.type === 'identifier') {
          const params = field(value, 'parameters');
          out.functions.push(newFunction(stmt, target.text, inClass ? 'method' : 'function', `(${params ? collapse(params.text) : ''})`));
        }
        break;
      }
      default:
        if (def.type === 'block' || def.type === 'ERROR') collect(declarations(def), inClass, ctx, out);
        else if (TRANSPARENT.has(def.type)) {
          const blocks = named(def).filter((c) => TRANSPARENT.has(c.type));
          collect(blocks, inClass, ctx, out);
        }
    }
  }
}

export const extractPython: Extractor = (root, ctx) => {
  const out: Collected = { classes: [], functions: [], imports: [] };
  collect(declarations(root), false, ctx, out);
  return { module_doc: docstring(root, ctx.docs), imports: dedupe(out.imports), classes: out.classes, functions: out.functions };
};
