import { performance } from 'node:perf_hooks';

/**
 * Runs contenders in rounds, each round in a different order: round r starts with contender r mod n
 * (none is always first, on warm caches or a quiet machine) and the rest follow in a seeded shuffle,
 * so no contender always runs right after the same other one (a fixed rotation made the global-fetch
 * client always follow the undici pool, and its floor always follow the other fetch floor). The seed
 * is fixed, so a run's order can be repeated. One extra warm-up round is run and discarded.
 *
 * `contenders`: `[{ name, measure(round) => Promise<number> }]`; returns `{ [name]: number[] }`.
 */
export async function alternate(contenders, { rounds, warmup = true, log, seed = 0x6d61696c }) {
  const samples = Object.fromEntries(contenders.map((c) => [c.name, []]));
  const total = rounds + (warmup ? 1 : 0);
  const random = mulberry32(seed);
  for (let r = 0; r < total; r++) {
    const first = r % contenders.length;
    const rest = contenders.filter((_, k) => k !== first);
    for (let k = rest.length - 1; k > 0; k--) {
      const j = Math.floor(random() * (k + 1));
      [rest[k], rest[j]] = [rest[j], rest[k]];
    }
    for (const contender of [contenders[first], ...rest]) {
      const value = await contender.measure(r);
      if (!warmup || r > 0) samples[contender.name].push(value);
    }
    log?.(`round ${r + 1}/${total}${warmup && r === 0 ? ' (warm-up, discarded)' : ''}`);
  }
  return samples;
}

/** A small seeded generator (mulberry32): the same seed gives the same orders on every run. */
function mulberry32(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Microseconds per call of `op` (sync or async), measured over about `sliceMs` of wall time in
 * batches, so the clock is read rarely compared to the work.
 *
 * No forced GC between slices: a full collection (--expose-gc, gc()) lets V8 flush the bytecode of
 * the contenders that are not running, so every slice would start cold and measure recompilation
 * (it doubled every figure when tried).
 */
export async function microsPerOp(op, sliceMs, { expect = 'resolve' } = {}) {
  let batch = 16;
  let calls = 0;
  let rejected = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < sliceMs) {
    for (let i = 0; i < batch; i++) {
      // Awaited in a try block, as an app awaits it: no extra promise per call (a `.catch()` would
      // add one, about 0.3 µs, to every async contender).
      try {
        await op();
      } catch {
        rejected++;
      }
    }
    calls += batch;
    elapsed = performance.now() - start;
    if (elapsed < sliceMs / 8) batch *= 2;
  }
  // A path that starts failing (or stops failing) mid-measurement must not report a speed.
  const wanted = expect === 'reject' ? calls : 0;
  if (rejected !== wanted)
    throw Object.assign(new Error(`expected ${expect === 'reject' ? 'every' : 'no'} call to reject, ${rejected} of ${calls} did`), {
      correctness: true,
    });
  return (elapsed * 1000) / calls;
}

/** Same for a synchronous op, without an await per call (that alone costs ~0.1 µs). */
export function microsPerSyncOp(op, sliceMs) {
  let batch = 16;
  let calls = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < sliceMs) {
    for (let i = 0; i < batch; i++) op();
    calls += batch;
    elapsed = performance.now() - start;
    if (elapsed < sliceMs / 8) batch *= 2;
  }
  return (elapsed * 1000) / calls;
}

/** `work(index)` for every index below `count`, at most `lanes` at once; resolves with the results in index order. */
export async function inLanes(count, lanes, work) {
  const results = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next < count) {
        const index = next++;
        results[index] = await work(index);
      }
    }),
  );
  return results;
}

/**
 * Completed calls per second with `concurrency` calls of `op` in flight, for `durationMs`.
 * Returns `{ rate, errors }`; the first error is rethrown after the run when `strict`.
 */
export async function throughput(op, { concurrency, durationMs }) {
  let done = 0;
  let firstError;
  const deadline = performance.now() + durationMs;
  const start = performance.now();
  async function lane() {
    while (performance.now() < deadline) {
      try {
        await op();
        done++;
      } catch (error) {
        firstError ??= error;
        return;
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, lane));
  if (firstError) throw firstError;
  return (done * 1000) / (performance.now() - start);
}

/**
 * Times receiving endpoints in-process, alternating them round by round: each operation hands one
 * new delivery to the endpoint's `handle`, which must answer 200. Microseconds per delivery, by name.
 */
export function alternateEndpoints(endpoints, delivery, { smoke, rounds }) {
  const sliceMs = smoke ? 50 : 400;
  return alternate(
    Object.entries(endpoints).map(([name, endpoint]) => ({
      name,
      measure: (round) =>
        microsPerOp(
          async () => {
            const out = await endpoint.handle(delivery());
            if (out.status !== 200) throw new Error(`${name} answered ${out.status}`);
          },
          round === 0 ? sliceMs * 4 : sliceMs,
        ),
    })),
    { rounds: smoke ? 2 : rounds, warmup: true },
  );
}
