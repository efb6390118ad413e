import { defineConfig } from 'vitest/config';

/**
 * Warnings about dependencies that change nothing in the app, which read like a failed build:
 * React Flow's "use client" directive (meaningful only to server components, dropped in a client
 * bundle) and source maps a dependency ships that cannot be followed back.
 */
const HARMLESS_WARNINGS = new Set(['MODULE_LEVEL_DIRECTIVE', 'SOURCEMAP_ERROR', 'PLUGIN_TIMINGS']);

// One file for the renderer build and for vitest (the `test` block must come from vitest/config).
export default defineConfig({
  root: 'renderer',
  base: './',
  worker: { format: 'es' },
  build: {
    outDir: '../dist/renderer',
    emptyOutDir: true,
    chunkSizeWarningLimit: 8000,
    rolldownOptions: {
      // A build should print only what needs a person: no timing reports of the bundler's plugins.
      checks: { pluginTimings: false },
      onwarn(warning, warn) {
        if (!HARMLESS_WARNINGS.has(warning.code ?? '')) warn(warning);
      },
    },
  },
  test: {
    root: '.',
    environment: 'node',
    include: ['shared/**/*.test.ts', 'main/**/*.test.ts', 'test/engine/**/*.test.ts', 'test/repo/**/*.test.ts', 'test/package/**/*.test.ts', 'renderer/**/*.test.{ts,tsx}'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
