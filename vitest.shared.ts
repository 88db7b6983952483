import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineConfig, mergeConfig } from 'vitest/config';
import { BaseSequencer, type InlineConfig, type TestSpecification } from 'vitest/node';

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

/**
 * Runs `files` (paths from the package's root) before the rest, in that order. Without a cache of
 * earlier durations (a fresh clone, CI) vitest starts the largest files first, and a small file that
 * spends a minute waiting on real clocks (a lease in Redis lapsing) started last and held the whole
 * run open while the other worker sat idle.
 */
export function startingWith(root: string, files: readonly string[]): NonNullable<InlineConfig['sequence']> {
  const first = files.map((file) => resolve(root, file));
  for (const file of first) if (!existsSync(file)) throw new Error(`startingWith: ${file} does not exist; update the list.`);
  const rank = (spec: TestSpecification) => {
    const index = first.indexOf(resolve(spec.moduleId));
    return index === -1 ? first.length : index;
  };
  return {
    sequencer: class extends BaseSequencer {
      override async sort(specs: TestSpecification[]): Promise<TestSpecification[]> {
        // A stable sort: the rest keep vitest's order (longest known first, else largest).
        return (await super.sort(specs)).sort((a, b) => rank(a) - rank(b));
      }
    },
  };
}
