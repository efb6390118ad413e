import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// End-to-end specs: the real `cairn serve` (built in dist-main, serving dist/renderer) driven in
// Debian's Chromium through playwright-core. Run after `npm run build:main` and `vite build`.
export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['test/e2e/**/*.spec.ts'],
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 60_000,
    // A page read polled until it holds (expect.poll) waits as long as a locator does under load,
    // not vitest's default second.
    expect: { poll: { timeout: 15_000, interval: 100 } },
    pool: 'forks',
    // One browser and one engine at a time: the machine has 2 cores.
    fileParallelism: false,
  },
});
