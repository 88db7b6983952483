import { performance } from 'node:perf_hooks';

/**
 * Runs contenders in alternating rounds: round r starts with contender r mod n, so none is always
 * first (warm caches, a quiet machine) or last. One extra warm-up round is run and discarded.
 *
 * `contenders`: `[{ name, measure(round) => Promise<number> }]`; returns `{ [name]: number[] }`.
 */
export async function alternate(contenders, { rounds, warmup = true, log }) {
  const samples = Object.fromEntries(contenders.map((c) => [c.name, []]));
  const total = rounds + (warmup ? 1 : 0);
  for (let r = 0; r < total; r++) {
    for (let k = 0; k < contenders.length; k++) {
      const contender = contenders[(r + k) % contenders.length];
      const value = await contender.measure(r);
      if (!warmup || r > 0) samples[contender.name].push(value);
    }
    log?.(`round ${r + 1}/${total}${warmup && r === 0 ? ' (warm-up, discarded)' : ''}`);
  }
  return samples;
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
