import type fc from 'fast-check';

/**
 * Run counts and seeds for the reliability properties.
 *
 * `npm test` runs every property at least `floor` times with a fixed seed, so a red build can be
 * replayed exactly. The long mode for release checks raises the count with `FC_NUM_RUNS` (never
 * lowers it below the floor) and, unless `FC_SEED` pins one, lets fast-check pick a fresh seed so
 * every long run explores new inputs. fast-check prints the seed and the shrunk counterexample of a
 * failure either way.
 *
 * @example FC_NUM_RUNS=200000 npx vitest run test/reliability
 */
export function fcParams<T>(floor: number): fc.Parameters<T> {
  const requested = Number(process.env.FC_NUM_RUNS ?? Number.NaN);
  const numRuns = Number.isFinite(requested) ? Math.max(floor, Math.floor(requested)) : floor;
  const pinned = Number(process.env.FC_SEED ?? Number.NaN);
  const longMode = Number.isFinite(requested);
  const seed = Number.isFinite(pinned) ? pinned : longMode ? undefined : FIXED_SEED;
  return { numRuns, ...(seed !== undefined ? { seed } : {}) };
}

/** Test timeout that grows with the run count; `perRunMs` is a generous upper bound for one run. */
export function timeoutFor(floor: number, perRunMs: number): number {
  const { numRuns = floor } = fcParams(floor);
  // A guard against a hang, not a speed check: generous enough for a 2-core machine running two suites.
  return Math.max(180_000, Math.ceil(numRuns * perRunMs));
}

const FIXED_SEED = 0x5eed_2026;
