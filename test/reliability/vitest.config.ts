import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The reliability suite (issue 10): crash soak, LLM faults, security, concurrency. Slow and
// machine-hungry, so it is not part of `npm test`; run it with `npm run test:reliability`.
// Sizes come from the environment (CAIRN_SOAK_FILES, CAIRN_SOAK_TRIALS, ...) for quick runs.
export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['test/reliability/**/*.test.ts'],
    environment: 'node',
    testTimeout: 600_000,
    hookTimeout: 240_000,
    pool: 'forks',
    // Each file drives child processes on a 2-core machine: one file at a time.
    fileParallelism: false,
  },
});
