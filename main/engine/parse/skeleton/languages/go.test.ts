import { describe, expect, it } from 'vitest';
import { extractSkeleton } from '../extract.js';
import { emptyFunctionBodies } from './go.js';

describe('emptyFunctionBodies', () => {
  it('empties gofmt bodies and keeps every line', () => {
    const text = 'package a\n\nfunc F(x int) int {\n\ty := x * 2\n\treturn y\n}\n\nfunc G() { return }\n';
    const out = emptyFunctionBodies(text);
    expect(out).toBe('package a\n\nfunc F(x int) int {\n\n\n}\n\nfunc G() { return }\n');
    expect(out.split('\n').length).toBe(text.split('\n').length);
  });

  it('leaves a body with a raw string, or one that does not close at column 0, to the parser', () => {
    const raw = 'func css() string {\n\treturn `\n}\n`\n}\n';
    expect(emptyFunctionBodies(raw)).toBe(raw);
    const unformatted = 'func F() {\n  return\n  }\nfunc G() {\n}\n';
    expect(emptyFunctionBodies(unformatted)).toBe(unformatted);
  });

  it('gives the same skeleton as parsing the whole file', async () => {
    const text = 'package a\n\n// T is a type.\ntype T struct{}\n\n// M does m.\nfunc (t *T) M(a, b int) (int, error) {\n\tif a > b {\n\t\treturn a, nil\n\t}\n\treturn b, nil\n}\n\nfunc F[K comparable](m map[K]int) []K {\n\treturn nil\n}\n';
    const { skeleton } = await extractSkeleton('a.go', text, 'go');
    expect(skeleton.classes[0]!.methods[0]).toMatchObject({ name: 'M', params: '(a, b int)', return_type: '(int, error)', doc: 'M does m.', line_start: 7, line_end: 12 });
    expect(skeleton.functions[0]).toMatchObject({ name: 'F', type_params: '[K comparable]', line_start: 14, line_end: 16 });
  });
});
