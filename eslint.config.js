import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';
import globals from 'globals';

// Import zones keep the layering: shared/ imports nothing outside itself; main/lib (helpers the
// engine and the adapters share) only shared/ and npm packages; the engine only shared/, main/lib
// and itself; adapters only the engine's ports, main/lib and shared/; the renderer only shared/;
// nothing in main/ imports the renderer, tests or benches; and only main/app and main/preload see
// electron (no-restricted-imports below).
const zones = [
  { target: './shared', from: ['./main', './renderer', './test', './bench'], message: 'shared/ imports nothing outside itself.' },
  { target: './renderer', from: ['./main', './test', './bench'], message: 'The renderer imports only shared/.' },
  { target: './main', from: ['./renderer', './test', './bench'], message: 'main/ never imports the renderer, tests or benches.' },
  { target: './main/lib', from: './main', except: ['./lib'], message: 'main/lib imports only shared/ and npm packages.' },
  { target: './main/engine', from: './main', except: ['./engine', './lib'], message: 'The engine imports only shared/, main/lib and itself.' },
  { target: './main/adapters', from: './main', except: ['./engine/ports', './lib', './adapters'], message: 'Adapters implement engine ports: they import only main/engine/ports, main/lib and shared/.' },
];

// Sources import TypeScript modules by their emitted name (`./x.js`); without the alias the
// resolver finds no file, and a zone never sees an import it cannot resolve.
const resolver = createNodeResolver({ extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json', '.node'], extensionAlias: { '.js': ['.ts', '.tsx', '.js'] } });

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'dist-main/**', 'stubs/**', '.cairn-demo/**', 'test-output/**', 'bench/out/**', 'test/fixtures/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { 'import-x': importX },
    languageOptions: { globals: { ...globals.node }, ecmaVersion: 2023, sourceType: 'module' },
    settings: {
      'import-x/resolver-next': [resolver],
      'import-x/extensions': ['.ts', '.tsx', '.js', '.mjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones }],
      // A module that needs another's value must not be needed by it (type-only imports are not followed).
      'import-x/no-cycle': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-imports': ['error', { paths: [{ name: 'electron', message: 'Only main/app and main/preload import electron.' }] }],
    },
  },
  {
    files: ['main/app/**', 'main/preload/**'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    files: ['shared/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['node:*', 'electron', 'react', 'react-dom'], message: 'shared/ is plain TypeScript: no node:, electron or React.' }] }],
    },
  },
  {
    files: ['renderer/**'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['node:*', 'electron'], message: 'The renderer runs in a browser sandbox.' }] }],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
