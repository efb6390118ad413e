/**
 * Rust: `//!` crate/module docs, `use` and `extern crate`, structs, enums, unions, traits (with
 * their supertraits as bases), `impl Trait for Type` blocks (kind `impl`, the trait as base),
 * inline `mod` blocks (kind `module`), functions with visibility and qualifiers, `extern`
 * blocks, type aliases and `macro_rules!` (as functions of kind `macro`). Attributes such as
 * `#[derive(Debug)]` and `#[test]` are kept as decorators. Only doc comments (`///`, `/**`)
 * count as docs, which is the Rust convention.
 */
import type { Node } from 'web-tree-sitter';
import type { ClassSkeleton, FunctionSig } from '../skeleton.js';
import {
  cleanAlias,
  cleanParams,
  collapse,
  dedupe,
  docFromLines,
  commentLines,
  declarations,
  field,
  named,
  newClass,
  newFunction,
  precedingComments,
  type ExtractContext,
  type Extractor,
} from './common.js';

interface Scope {
  classes: ClassSkeleton[];
  functions: FunctionSig[];
  imports: string[];
}

const isOuterDoc = (n: Node) => (n.type === 'line_comment' && /^\/\/\/(?!\/)/.test(n.text)) || (n.type === 'block_comment' && /^\/\*\*(?![*/])/.test(n.text));
const isInnerDoc = (n: Node) => (n.type === 'line_comment' && n.text.startsWith('//!')) || (n.type === 'block_comment' && n.text.startsWith('/*!'));
const isComment = (n: Node) => n.type === 'line_comment' || n.type === 'block_comment';

function docOf(item: Node, ctx: ExtractContext): string | null {
  // Attributes and plain comments may sit between a doc comment and its item.
  const run = precedingComments(item, isOuterDoc, (n) => n.type === 'attribute_item' || (isComment(n) && !isOuterDoc(n)));
  return run.length > 0 ? docFromLines(run.flatMap((c) => commentLines(c.text)), ctx.docs) : null;
}

function attributesOf(item: Node): string[] {
  const out: string[] = [];
  let cur = item.previousNamedSibling;
  while (cur && (cur.type === 'attribute_item' || isComment(cur))) {
    if (cur.type === 'attribute_item') {
      const attr = cur.firstNamedChild;
      if (attr && !attr.text.startsWith('doc')) out.unshift(collapse(attr.text));
    }
    cur = cur.previousNamedSibling;
  }
  return out;
}

function modifiersOf(item: Node): string[] {
  const out: string[] = [];
  for (const child of named(item)) {
    if (child.type === 'visibility_modifier') out.push(collapse(child.text));
    else if (child.type === 'function_modifiers') out.push(...collapse(child.text).split(' '));
  }
  return out;
}

function functionFrom(item: Node, inType: boolean, ctx: ExtractContext): FunctionSig {
  const name = field(item, 'name')?.text ?? '';
  const ret = field(item, 'return_type');
  const tp = field(item, 'type_parameters');
  const params = field(item, 'parameters');
  return newFunction(item, name, inType ? 'method' : 'function', cleanParams(params?.text ?? '()'), {
    return_type: ret ? collapse(ret.text) : null,
    type_params: tp ? collapse(tp.text) : null,
    modifiers: modifiersOf(item),
    decorators: attributesOf(item),
    doc: docOf(item, ctx),
  });
}

function methodsOf(body: Node | null, ctx: ExtractContext): FunctionSig[] {
  if (!body) return [];
  return declarations(body)
    .filter((n) => n.type === 'function_item' || n.type === 'function_signature_item')
    .map((n) => functionFrom(n, true, ctx));
}

/** Associated types of a trait or impl: `type Item;`, `type Output = T;`. */
function associatedTypes(body: Node | null, ctx: ExtractContext): ClassSkeleton[] {
  if (!body) return [];
  return named(body)
    .filter((n) => n.type === 'associated_type' || n.type === 'type_item')
    .map((n) => {
      const value = field(n, 'type');
      const bounds = field(n, 'bounds');
      return typeItem(n, 'type', ctx, { alias_of: value ? cleanAlias(value.text) : null, bases: bounds ? named(bounds).map((b) => collapse(b.text)) : [] });
    });
}

function typeItem(item: Node, kind: ClassSkeleton['kind'], ctx: ExtractContext, extra: Partial<ClassSkeleton> = {}): ClassSkeleton {
  const tp = field(item, 'type_parameters');
  return newClass(item, field(item, 'name')?.text ?? '', kind, {
    type_params: tp ? collapse(tp.text) : null,
    decorators: attributesOf(item),
    doc: docOf(item, ctx),
    ...extra,
  });
}

function items(nodes: readonly Node[], scope: Scope, ctx: ExtractContext): void {
  for (const item of nodes) {
    switch (item.type) {
      case 'use_declaration': {
        const arg = field(item, 'argument');
        if (arg) scope.imports.push(collapse(arg.text));
        break;
      }
      case 'extern_crate_declaration':
        scope.imports.push(field(item, 'name')?.text ?? collapse(item.text));
        break;
      case 'function_item':
      case 'function_signature_item':
        scope.functions.push(functionFrom(item, false, ctx));
        break;
      case 'struct_item':
        scope.classes.push(typeItem(item, 'struct', ctx));
        break;
      case 'union_item':
        scope.classes.push(typeItem(item, 'union', ctx));
        break;
      case 'enum_item':
        scope.classes.push(typeItem(item, 'enum', ctx));
        break;
      case 'type_item':
        scope.classes.push(typeItem(item, 'type', ctx, { alias_of: cleanAlias(field(item, 'type')?.text ?? '') }));
        break;
      case 'trait_item': {
        const bounds = field(item, 'bounds');
        scope.classes.push(
          typeItem(item, 'trait', ctx, {
            bases: bounds ? named(bounds).map((b) => collapse(b.text)) : [],
            methods: methodsOf(field(item, 'body'), ctx),
            classes: associatedTypes(field(item, 'body'), ctx),
          }),
        );
        break;
      }
      case 'impl_item': {
        const trait = field(item, 'trait');
        const tp = field(item, 'type_parameters');
        scope.classes.push(
          newClass(item, collapse(field(item, 'type')?.text ?? ''), 'impl', {
            type_params: tp ? collapse(tp.text) : null,
            // `impl !Send for T` is a negative impl: the `!` is an anonymous token before the trait.
            bases: trait ? [(item.children.some((c) => c?.type === '!') ? '!' : '') + collapse(trait.text)] : [],
            decorators: attributesOf(item),
            doc: docOf(item, ctx),
            methods: methodsOf(field(item, 'body'), ctx),
            classes: associatedTypes(field(item, 'body'), ctx),
          }),
        );
        break;
      }
      case 'mod_item': {
        const body = field(item, 'body');
        // `mod foo;` declares a module kept in another file: part of the crate's outline all the same.
        if (!body) {
          scope.classes.push(typeItem(item, 'module', ctx));
          break;
        }
        const inner: Scope = { classes: [], functions: [], imports: [] };
        items(declarations(body), inner, ctx);
        scope.imports.push(...inner.imports);
        scope.classes.push(typeItem(item, 'module', ctx, { methods: inner.functions, classes: inner.classes }));
        break;
      }
      case 'foreign_mod_item': {
        const body = field(item, 'body');
        if (body) items(named(body), scope, ctx);
        break;
      }
      case 'macro_definition':
        scope.functions.push(newFunction(item, field(item, 'name')?.text ?? '', 'macro', '!', { decorators: attributesOf(item), doc: docOf(item, ctx) }));
        break;
      case 'ERROR':
        items(declarations(item), scope, ctx);
        break;
      default:
    }
  }
}

export const extractRust: Extractor = (root, ctx) => {
  const scope: Scope = { classes: [], functions: [], imports: [] };
  const top = declarations(root);
  items(top, scope, ctx);
  const inner: Node[] = [];
  for (const node of top) {
    if (isInnerDoc(node)) inner.push(node);
    else if (!isComment(node) && node.type !== 'attribute_item' && node.type !== 'inner_attribute_item') break;
  }
  return {
    module_doc: inner.length > 0 ? docFromLines(inner.flatMap((c) => commentLines(c.text)), ctx.docs) : null,
    imports: dedupe(scope.imports),
    classes: scope.classes,
    functions: scope.functions,
  };
};
