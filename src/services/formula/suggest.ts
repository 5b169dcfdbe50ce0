/** "Did you mean": the names nearest to what was typed, for error messages a person can act on. */

/** Edit distance (insertions, deletions, substitutions, adjacent swaps), case-insensitive. */
export function editDistance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  const d: number[][] = Array.from({ length: x.length + 1 }, (_, i) => [i, ...new Array<number>(y.length).fill(0)]);
  for (let j = 1; j <= y.length; j++) d[0]![j] = j;
  for (let i = 1; i <= x.length; i++) {
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[x.length]![y.length]!;
}

/**
 * Up to `limit` candidates close to `typed`: within an edit distance of about a third of its length (at least 2),
 * or containing it / contained in it; nearest first, then alphabetically.
 */
export function nearest(typed: string, candidates: readonly string[], limit = 3): string[] {
  const t = typed.trim().toLowerCase();
  if (!t) return [];
  const budget = Math.max(2, Math.floor(t.length / 3));
  const scored: Array<[string, number]> = [];
  for (const c of new Set(candidates)) {
    const lc = c.toLowerCase();
    // Long candidate lists (the function catalogue): skip the ones whose length alone rules them out.
    if (Math.abs(lc.length - t.length) > budget && !lc.includes(t) && !t.includes(lc)) continue;
    const dist = editDistance(t, lc);
    if (dist <= budget) scored.push([c, dist]);
    else if (t.length >= 3 && (lc.includes(t) || (lc.length >= 3 && t.includes(lc)))) scored.push([c, budget + 1]);
  }
  scored.sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0]));
  return scored.slice(0, limit).map(([c]) => c);
}
