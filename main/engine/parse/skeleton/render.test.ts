import { describe, expect, it } from 'vitest';
import { describeSkeleton, renderSkeleton } from './render.js';
import type { ClassSkeleton, CodeSkeleton, FunctionSig } from './skeleton.js';

function fn(name: string, extra: Partial<FunctionSig> = {}): FunctionSig {
  return { name, kind: 'function', params: '()', return_type: null, type_params: null, modifiers: [], decorators: [], doc: null, line_start: 1, line_end: 1, ...extra };
}

function cls(name: string, extra: Partial<ClassSkeleton> = {}): ClassSkeleton {
  return { name, kind: 'class', type_params: null, bases: [], alias_of: null, decorators: [], doc: null, methods: [], classes: [], line_start: 1, line_end: 1, ...extra };
}

function skeleton(extra: Partial<CodeSkeleton> = {}): CodeSkeleton {
  return { file: 'src/a.ts', language: 'typescript', module_doc: null, imports: [], classes: [], functions: [], ...extra };
}

describe('renderSkeleton', () => {
  it('renders kinds, bases, type parameters, decorators, modifiers and docs densely', () => {
    const text = renderSkeleton(
      skeleton({
        module_doc: 'Doc line.',
        imports: ['a', 'b'],
        classes: [
          cls('Box', { type_params: '<T>', bases: ['Base<T>'], decorators: ['sealed'], doc: 'A box.', methods: [fn('get', { kind: 'method', params: '(key: string)', return_type: 'T', modifiers: ['async'] })] }),
          cls('Point<T>', { kind: 'impl', type_params: '<T: Copy>', bases: ['Display'], methods: [fn('fmt', { kind: 'method', params: '(&self)' })] }),
          cls('Id', { kind: 'type', alias_of: 'string | number' }),
          cls('ns', { kind: 'namespace', methods: [fn('helper')], classes: [cls('Inner', { kind: 'struct' })] }),
        ],
        functions: [fn('items', { modifiers: ['async', '*'], return_type: 'Iterable<T>' }), fn('MAX', { kind: 'macro', params: '(a, b)' })],
      }),
    );
    expect(text).toBe(
      [
        '# src/a.ts [TypeScript]',
        'Doc line.',
        'imports: a, b',
        '@sealed class Box<T>(Base<T>)  # A box.',
        '  + async get(key: string) -> T',
        'impl<T: Copy> Display for Point<T>',
        '  + fmt(&self)',
        'type Id = string | number',
        'namespace ns',
        '  struct Inner',
        '  def helper()',
        'def async *items() -> Iterable<T>',
        'macro MAX(a, b)',
      ].join('\n'),
    );
  });

  it('cuts at whole lines under the cap and says what was cut', () => {
    const many = skeleton({ classes: [cls('Big', { methods: Array.from({ length: 400 }, (_, i) => fn(`method${i}`, { kind: 'method' })) })], functions: [fn('tail')] });
    const text = renderSkeleton(many, { maxChars: 1000 });
    expect(text.length).toBeLessThanOrEqual(1000);
    const lines = text.split('\n');
    expect(lines.at(-1)).toMatch(/^… cut to 1000 characters: \d+ methods, 1 function not shown$/);
    const shown = lines.filter((l) => l.startsWith('  + ')).length;
    expect(lines.at(-1)).toContain(`${400 - shown} methods`);
    expect(renderSkeleton(many)).toContain('def tail()');
  });
});

describe('describeSkeleton', () => {
  it('counts by kind, adds the module doc and the names, in at most 256 characters', () => {
    const text = describeSkeleton(
      skeleton({
        file: 'station.py',
        language: 'python',
        module_doc: 'Weather station readings.',
        classes: [cls('Reading', { methods: [fn('parse', { kind: 'method' })] }), cls('Station')],
        functions: [fn('hourly')],
      }),
    );
    expect(text).toBe('Python module: 2 classes, 1 function, 1 method — Weather station readings. Defines: Reading, Station, hourly');
    const long = describeSkeleton(skeleton({ functions: Array.from({ length: 100 }, (_, i) => fn(`function_number_${i}`)) }));
    expect(long.length).toBe(256);
    expect(long.endsWith('…')).toBe(true);
  });

  it('names what namespaces hold, and calls headers and stubs so', () => {
    const text = describeSkeleton(skeleton({ file: 'g.hpp', language: 'cpp', classes: [cls('geo', { kind: 'namespace', classes: [cls('Graph')], methods: [fn('dist')] })] }));
    expect(text).toBe('C++ header: 1 namespace, 1 class, 1 function. Defines: Graph, dist');
    expect(describeSkeleton(skeleton({ file: 'x.d.ts', functions: [fn('f')] }))).toBe('TypeScript stub: 1 function. Defines: f');
  });
});
