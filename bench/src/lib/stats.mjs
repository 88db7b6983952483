// Summaries of per-round samples. Every comparison is paired: the ratio of two contenders is taken
// round by round (both measured in the same round, back to back), then summarised, so a slow round
// (a colleague's test run, a GC storm) moves both sides instead of inventing a difference.

function median(values) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** `{ median, min, max, samples }` of a list of numbers. */
export function summarise(values) {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values), samples: values };
}

/**
 * Paired ratio of two sample lists of equal length: `numerator[i] / denominator[i]` for each round.
 * Use "how many times faster is A than B": for a time (lower is better) that is `B / A`, for a rate
 * (higher is better) `A / B`; `speedup` picks the right one from `higherIsBetter`.
 */
export function pairedRatio(numerator, denominator) {
  if (numerator.length !== denominator.length) throw new Error('pairedRatio: sample lists differ in length');
  return summarise(numerator.map((value, i) => value / denominator[i]));
}

/** How many times better `ours` is than `theirs`, per round. > 1 means ours is better. */
export function speedup(ours, theirs, higherIsBetter) {
  return higherIsBetter ? pairedRatio(ours, theirs) : pairedRatio(theirs, ours);
}

/** Latency percentile (nearest rank) of a list of numbers. */
export function percentile(values, p) {
  if (values.length === 0) return Number.NaN;
  const sorted = Float64Array.from(values).sort();
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}
