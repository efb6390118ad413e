import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';
import globals from 'globals';

// Import zones keep the layering: shared imports nothing outside itself, the engine only shared
// and its own ports, the renderer only shared, and only main/app and main/preload see electron.
const zones = [
  { target: './shared', from: ['./main', './renderer', './test', './bench'], message: 'shared/ imports nothing outside itself.' },
  { target: './renderer', from: ['./main', './test', './bench'], message: 'The renderer imports only shared/.' },
  { target: './main/engine', from: ['./main/adapters', './main/app', './main/preload', './main/host', './main/cli', './main/workers', './renderer'], message: 'The engine imports only shared/ and its own ports.' },
  { target: './main/adapters', from: ['./main/app', './main/preload', './main/host', './main/cli', './main/workers', './renderer'], message: 'Adapters implement engine ports; they do not compose the app.' },
];

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'dist-main/**', 'stubs/**', '.cairn-demo/**', 'test-output/**', 'bench/out/**', 'test/fixtures/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { 'import-x': importX },
    languageOptions: { globals: { ...globals.node }, ecmaVersion: 2023, sourceType: 'module' },
    settings: {
      // Imports name the compiled `.js` file (or no extension, in the renderer): resolve them to the `.ts` sources.
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'], extensionAlias: { '.js': ['.ts', '.tsx', '.js'] } })],
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
