import { defineConfig } from 'vitest/config';

// One file for the renderer build and for vitest (the `test` block must come from vitest/config).
export default defineConfig({
  root: 'renderer',
  base: './',
  worker: { format: 'es' },
  build: { outDir: '../dist/renderer', emptyOutDir: true, chunkSizeWarningLimit: 8000 },
  test: {
    root: '.',
    environment: 'node',
    include: ['shared/**/*.test.ts', 'main/**/*.test.ts', 'test/engine/**/*.test.ts', 'test/repo/**/*.test.ts', 'test/package/**/*.test.ts', 'renderer/**/*.test.{ts,tsx}'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
