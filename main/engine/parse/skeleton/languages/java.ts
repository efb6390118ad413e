/**
 * Java: the file's leading comment (licence headers skipped), imports, classes, interfaces,
 * enums, records (their header becomes the canonical constructor) and annotation types, nested
 * at any depth, with generics, `extends` / `implements`, annotations as decorators and the
 * modifiers that change how a member is called (static, abstract, default, synchronized, native).
 */
import type { Node } from 'web-tree-sitter';
import type { ClassSkeleton, FunctionSig } from '../skeleton.js';
import { children, cleanParams, collapse, declarations, dedupe, docFromComments, field, leadingComment, named, newClass, newFunction, precedingComments, type ExtractContext, type Extractor } from './common.js';

const isComment = (n: Node) => n.type === 'line_comment' || n.type === 'block_comment';
const KEPT_MODIFIERS = new Set(['static', 'abstract', 'default', 'synchronized', 'native']);
const TYPE_KINDS: Readonly<Record<string, ClassSkeleton['kind']>> = {
  class_declaration: 'class',
  interface_declaration: 'interface',
  enum_declaration: 'enum',
  record_declaration: 'record',
  annotation_type_declaration: 'annotation',
};

function docOf(node: Node, ctx: ExtractContext): string | null {
  return docFromComments(precedingComments(node, isComment), ctx.docs);
}

function modifiersOf(node: Node): { modifiers: string[]; decorators: string[] } {
  const modifiers: string[] = [];
  const decorators: string[] = [];
  const mods = named(node).find((c) => c.type === 'modifiers');
  if (mods) {
    for (const m of mods.children) {
      if (!m) continue;
      if (m.type === 'marker_annotation' || m.type === 'annotation') decorators.push(collapse(m.text.replace(/^@\s*/, '')));
      else if (KEPT_MODIFIERS.has(m.type)) modifiers.push(m.type);
    }
  }
  return { modifiers, decorators };
}

function typeParams(node: Node): string | null {
  const tp = field(node, 'type_parameters');
  return tp ? collapse(tp.text) : null;
}

function method(node: Node, kind: FunctionSig['kind'], ctx: ExtractContext): FunctionSig {
  const { modifiers, decorators } = modifiersOf(node);
  const type = field(node, 'type');
  const params = field(node, 'parameters');
  return newFunction(node, field(node, 'name')?.text ?? '', kind, cleanParams(params?.text ?? '()'), {
    return_type: type ? collapse(type.text) + (field(node, 'dimensions')?.text ?? '') : null,
    type_params: typeParams(node),
    modifiers,
    decorators,
    doc: docOf(node, ctx),
  });
}

function basesOf(decl: Node): string[] {
  const bases: string[] = [];
  for (const child of named(decl)) {
    if (child.type === 'superclass') bases.push(...named(child).map((t) => collapse(t.text)));
    else if (child.type === 'super_interfaces' || child.type === 'extends_interfaces') {
      const list = named(child).find((c) => c.type === 'type_list') ?? child;
      bases.push(...named(list).map((t) => collapse(t.text)));
    }
  }
  return bases;
}

function members(body: Node, methods: FunctionSig[], classes: ClassSkeleton[], ctx: ExtractContext): void {
  for (const member of declarations(body)) {
    switch (member.type) {
      case 'method_declaration':
      case 'annotation_type_element_declaration':
        methods.push(method(member, 'method', ctx));
        break;
      case 'constructor_declaration':
        methods.push(method(member, 'constructor', ctx));
        break;
      case 'compact_constructor_declaration':
        break; // the body of the canonical constructor, which the record header already gives
      case 'enum_body_declarations':
        members(member, methods, classes, ctx);
        break;
      default:
        if (member.type in TYPE_KINDS) classes.push(typeDecl(member, ctx));
    }
  }
}

function typeDecl(decl: Node, ctx: ExtractContext): ClassSkeleton {
  const methods: FunctionSig[] = [];
  const classes: ClassSkeleton[] = [];
  const name = field(decl, 'name')?.text ?? '';
  if (decl.type === 'record_declaration') {
    // The record header declares the canonical constructor.
    methods.push(newFunction(decl, name, 'constructor', cleanParams(field(decl, 'parameters')?.text ?? '()')));
    methods[0]!.line_end = methods[0]!.line_start;
  }
  const body = field(decl, 'body');
  if (body) members(body, methods, classes, ctx);
  return newClass(decl, name, TYPE_KINDS[decl.type] ?? 'class', {
    type_params: typeParams(decl),
    bases: basesOf(decl),
    decorators: modifiersOf(decl).decorators,
    doc: docOf(decl, ctx),
    methods,
    classes,
  });
}

export const extractJava: Extractor = (root, ctx) => {
  const imports: string[] = [];
  const classes: ClassSkeleton[] = [];
  for (const node of declarations(root)) {
    if (node.type === 'import_declaration') imports.push(collapse(node.text.replace(/^import\s+/, '').replace(/\s*;$/, '')));
    else if (node.type in TYPE_KINDS) classes.push(typeDecl(node, ctx));
  }
  const moduleDoc = leadingComment(children(root), ctx.docs, isComment, (next) => next.type in TYPE_KINDS);
  return { module_doc: moduleDoc, imports: dedupe(imports), classes, functions: [] };
};
