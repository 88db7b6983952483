import { defineConfig } from 'vitest/config';

/**
 * The test settings every workspace shares; each `vitest.config.ts` starts from these.
 *
 * `testTimeout`: `npm test` runs every package's tests, lint and typecheck at once on what may be a
 * 2-core machine. CPU-bound tests then run ten times slower than alone (a fast-check property took
 * 15 s there against 1 s alone; fc.string's first use builds its tables for about 1 s), and
 * vitest's 5 s default turned that contention into red runs. A minute still catches a real hang;
 * tests that need longer say so themselves.
 */
export const sharedTestConfig = defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    typecheck: { enabled: false },
    testTimeout: 60_000,
  },
});
