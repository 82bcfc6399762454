/**
 * "Did you mean …?" for names a user typed in a config or agent file.
 */

/** The candidate closest to `word`, if it is close enough to be a likely typo. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of candidates) {
    const distance = editDistance(word.toLowerCase(), name.toLowerCase());
    if (
      distance <= Math.max(1, Math.floor(name.length / 3)) &&
      (best === undefined || distance < best.distance)
    ) {
      best = { name, distance };
    }
  }
  if (best !== undefined) return best.name;
  // A shortened name ("maxTurns" for "maxTurnsPerRun"): the one candidate it starts, if only one.
  const lower = word.toLowerCase();
  const longer = candidates.filter((name) => lower.length >= 4 && name.toLowerCase().startsWith(lower));
  return longer.length === 1 ? longer[0] : undefined;
}

/** Damerau–Levenshtein (optimal string alignment), so a swap like "modle" costs 1. */
export function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number): number => rows[i]?.[j] ?? 0;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, at(i - 2, j - 2) + 1);
      }
      (rows[i] as number[])[j] = value;
    }
  }
  return at(a.length, b.length);
}
