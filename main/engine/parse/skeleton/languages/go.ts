/**
 * Go: the package doc (the comment above `package`), imports, struct and interface types (with
 * embedded types as bases and interface methods), other named types and aliases (kind `type`),
 * functions and methods. A method is attached to its receiver's type; when that type is declared
 * in another file of the package, the methods gather under an entry of kind `impl`.
 */
import type { Node } from 'web-tree-sitter';
import type { ClassSkeleton, FunctionSig } from '../skeleton.js';
import { cleanAlias, cleanParams, collapse, declarations, dedupe, docFromComments, field, named, newClass, newFunction, precedingComments, type ExtractContext, type Extractor } from './common.js';

const isComment = (n: Node) => n.type === 'comment';

const TOP_LEVEL = /^(?:func|type|var|const|import|package)\b/;

/**
 * Empties the bodies of top-level functions before parsing, keeping every line (so line numbers
 * stay right): a skeleton needs no statement, and statements are most of what the parser would
 * work through. gofmt puts a top-level body's closing brace alone at column 0; a body is emptied
 * only when that line is found before the next top-level keyword and no raw string comes first,
 * so unformatted code is parsed as it is.
 *
 * @example
 * emptyFunctionBodies('func f() {\n\treturn 1\n}\n') // 'func f() {\n\n}\n'
 */
export function emptyFunctionBodies(text: string): string {
  const lines = text.split('\n');
  let changed = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line.startsWith('func ') || !line.endsWith('{')) continue;
    let end = i + 1;
    let raw = false;
    while (end < lines.length && lines[end] !== '}' && !TOP_LEVEL.test(lines[end]!)) {
      if (lines[end]!.includes('`')) raw = true;
      end++;
    }
    // A raw string may hold a line that is a lone `}`: such a body is left to the parser.
    if (raw || lines[end] !== '}') continue;
    for (let j = i + 1; j < end; j++) lines[j] = '';
    changed ||= end > i + 1;
    i = end;
  }
  return changed ? lines.join('\n') : text;
}

function docOf(node: Node, ctx: ExtractContext): string | null {
  return docFromComments(precedingComments(node, isComment), ctx.docs);
}

function stringValue(node: Node | null): string {
  if (!node) return '';
  return node.text.replace(/^["`]|["`]$/g, '');
}

function signature(node: Node, name: string, kind: FunctionSig['kind'], ctx: ExtractContext, docAnchor: Node = node): FunctionSig {
  const result = field(node, 'result');
  const tp = field(node, 'type_parameters');
  return newFunction(node, name, kind, cleanParams(field(node, 'parameters')?.text ?? '()'), {
    return_type: result ? collapse(result.text) : null,
    type_params: tp ? collapse(tp.text) : null,
    doc: docOf(docAnchor, ctx),
  });
}

function typeSpec(spec: Node, docAnchor: Node, ctx: ExtractContext): ClassSkeleton {
  const name = field(spec, 'name')?.text ?? '';
  const type = field(spec, 'type');
  const tp = field(spec, 'type_parameters');
  const base = { type_params: tp ? collapse(tp.text) : null, doc: docOf(docAnchor, ctx) };
  const outer = docAnchor.type === 'type_declaration' ? docAnchor : spec;
  if (spec.type === 'type_spec' && type?.type === 'struct_type') {
    const fields = named(type).find((c) => c.type === 'field_declaration_list');
    // An embedded field has a type and no name.
    const bases = fields
      ? named(fields)
          .filter((f) => f.type === 'field_declaration' && f.childrenForFieldName('name').length === 0)
          .map((f) => collapse(field(f, 'type')?.text ?? f.text))
      : [];
    return newClass(outer, name, 'struct', { ...base, bases });
  }
  if (spec.type === 'type_spec' && type?.type === 'interface_type') {
    const methods: FunctionSig[] = [];
    const bases: string[] = [];
    for (const elem of named(type)) {
      if (elem.type === 'method_elem' || elem.type === 'method_spec') methods.push(signature(elem, field(elem, 'name')?.text ?? '', 'method', ctx));
      else if (elem.type !== 'comment') bases.push(collapse(elem.text));
    }
    return newClass(outer, name, 'interface', { ...base, bases, methods });
  }
  return newClass(outer, name, 'type', { ...base, alias_of: cleanAlias(type?.text ?? '') });
}

/** `func (s *Server[T]) ...` → `Server`. */
function receiverType(method: Node): string | null {
  const receiver = field(method, 'receiver');
  const param = receiver?.firstNamedChild;
  let type = param ? field(param, 'type') : null;
  while (type && type.type !== 'type_identifier') {
    type = type.type === 'pointer_type' ? type.firstNamedChild : type.type === 'generic_type' ? field(type, 'type') : type.type === 'parenthesized_type' ? type.firstNamedChild : null;
  }
  return type?.text ?? null;
}

export const extractGo: Extractor = (root, ctx) => {
  const imports: string[] = [];
  const classes: ClassSkeleton[] = [];
  const functions: FunctionSig[] = [];
  const methods: Node[] = [];
  let moduleDoc: string | null = null;
  for (const node of declarations(root)) {
    switch (node.type) {
      case 'package_clause':
        moduleDoc = docOf(node, ctx);
        break;
      case 'import_declaration':
        for (const spec of node.descendantsOfType('import_spec')) if (spec) imports.push(stringValue(field(spec, 'path')));
        break;
      case 'type_declaration': {
        const specs = named(node).filter((c) => c.type === 'type_spec' || c.type === 'type_alias');
        // `type X struct{}` carries its doc above `type`; grouped specs carry theirs inside the parentheses.
        for (const spec of specs) classes.push(typeSpec(spec, specs.length === 1 && node.child(1)?.type !== '(' ? node : spec, ctx));
        break;
      }
      case 'function_declaration':
        functions.push(signature(node, field(node, 'name')?.text ?? '', 'function', ctx));
        break;
      case 'method_declaration':
        methods.push(node);
        break;
      default:
    }
  }
  const byName = new Map(classes.map((c) => [c.name, c]));
  for (const node of methods) {
    const owner = receiverType(node) ?? '?';
    let cls = byName.get(owner);
    if (!cls) {
      cls = newClass(node, owner, 'impl');
      byName.set(owner, cls);
      classes.push(cls);
    }
    cls.methods.push(signature(node, field(node, 'name')?.text ?? '', 'method', ctx));
  }
  for (const cls of classes) if (cls.kind === 'impl') cls.line_end = Math.max(...cls.methods.map((m) => m.line_end));
  return { module_doc: moduleDoc, imports: dedupe(imports), classes, functions };
};
