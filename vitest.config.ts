import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // PGlite instances and sandboxes are memory- and CPU-hungry; two cores run two files at a time.
    pool: 'forks',
    maxWorkers: 2,
    env: { LOG_LEVEL: 'silent' },
  },
});
