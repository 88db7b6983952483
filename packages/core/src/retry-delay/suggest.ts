/**
 * The candidate closest to `name`, when it is close enough to be a likely typo (`retry` ->
 * `retried`, `Pow` -> `pow`), else `undefined`. The threshold grows with the length so short names
 * do not all suggest each other.
 *
 * @example
 * suggestName('retry', ['retried']); // 'retried'
 */
export function suggestName(name: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    if (candidate.toLowerCase() === name.toLowerCase()) return candidate;
    const threshold = Math.max(1, Math.floor(Math.max(name.length, candidate.length) / 2));
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance <= threshold && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

// Levenshtein with one rolling row; names are capped by the expression length, so this stays cheap.
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
