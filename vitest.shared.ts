import { defineConfig, mergeConfig } from 'vitest/config';

/**
 * The test settings every workspace shares; each `vitest.config.ts` starts from these.
 *
 * `testTimeout`: `npm test` runs turbo tasks side by side (one per core) and each vitest forks its
 * own workers, so a CPU-bound test can take several times longer than alone. At turbo's old default
 * of 10 tasks on 2 cores a fast-check property took 15 s against 1 s alone (fc.string's first use
 * builds its tables for about 1 s), and vitest's 5 s default turned that contention into red runs.
 * A minute still catches a real hang; tests that need longer say so themselves.
 */
export const sharedTestConfig = defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    typecheck: { enabled: false },
    testTimeout: 60_000,
    // Set-ups start servers and runtimes (Bun, Deno, workerd) on the same busy cores.
    hookTimeout: 60_000,
    // Two files at a time. vitest's default is one fewer than the cores, so on two cores it ran one
    // file at a time, while most files spend their time waiting on sockets, child processes and real
    // clocks (a crashed app's lease lapsing, a browser, Redis and Postgres starting).
    maxWorkers: 2,
    // Files of a worker share its loaded modules: loading the sources again for every file was a third
    // of core's CPU. Tests put back what they change (environment, console, fetch).
    isolate: false,
  },
});

/**
 * A fresh module graph for every file, vitest's default: for the examples (their files load one
 * route module under different environments, as separate `next dev` processes would) and for tests
 * of what a process says once (adapters' missing-keys warning, kept in core, which
 * `vi.resetModules()` cannot reload).
 */
export const isolatedTestConfig = mergeConfig(sharedTestConfig, defineConfig({ test: { isolate: true } }));
